"""Map tools on the command line: ``python -m gridpath.cli`` (console script ``gridpath-maps``).
One module per subcommand (:mod:`.check`, :mod:`.convert`, :mod:`.render`), each with
``add_parser(subparsers)`` and ``run(args) -> int`` (the exit status). They load maps with the
server's own loader and the same limits (``MAX_MAP_CELLS``, ``MAX_MAP_BYTES`` from the
environment, with the service's defaults), so they say what the server would say. Sending maps
to the shared store is the service's tool: ``gridpath-push`` (``python -m app.authority.push``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gridpath.grid import Grid, load_map
from gridpath.grid.loader import DEFAULT_MAX_MAP_BYTES, DEFAULT_MAX_MAP_CELLS


@dataclass(frozen=True)
class MapLimits:
    max_map_cells: int
    max_map_bytes: int


def map_limits() -> MapLimits:
    """The limits the server would apply, from ``MAX_MAP_CELLS`` and ``MAX_MAP_BYTES``."""
    return MapLimits(
        int(os.environ.get("MAX_MAP_CELLS") or DEFAULT_MAX_MAP_CELLS),
        int(os.environ.get("MAX_MAP_BYTES") or DEFAULT_MAX_MAP_BYTES),
    )


def load(path: Path, name: str | None = None) -> Grid:
    """Load a map file with the server's limits (from the environment, as the server does)."""
    limits = map_limits()
    return load_map(path, name=name, max_cells=limits.max_map_cells, max_bytes=limits.max_map_bytes)
