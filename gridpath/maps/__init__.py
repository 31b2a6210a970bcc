"""Map tools on the command line: ``python -m gridpath.maps`` (console script ``gridpath-maps``).

One module per subcommand (:mod:`.check`, :mod:`.convert`, :mod:`.render`, :mod:`.push`),
each with ``add_parser(subparsers)`` and ``run(args) -> int`` (the exit status). They load
maps with the server's own loader and limits (``gridpath.config.Settings``: ``MAX_MAP_CELLS``,
``MAX_MAP_BYTES`` from the environment), so they say what the server would say.
"""

from __future__ import annotations

from pathlib import Path

from gridpath.config import Settings
from gridpath.grid import Grid, load_map


def load(path: Path, name: str | None = None) -> Grid:
    """Load a map file with the server's limits (from the environment, as the server does)."""
    settings = Settings()
    return load_map(
        path, name=name, max_cells=settings.max_map_cells, max_bytes=settings.max_map_bytes
    )
