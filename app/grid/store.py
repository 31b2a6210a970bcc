"""The map registry: owns loading, naming and (later) revisions of the served maps.

Maps are immutable :class:`Grid` snapshots. Replacing a map means swapping the
reference under a lock; a search that already holds the old snapshot finishes on it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path

from app.errors import MapLoadError, MapNotFound
from app.grid.loader import is_map_file, load_map
from app.grid.model import Grid, is_valid_map_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoadFailure:
    """A map file that could not be loaded at startup."""

    file: str
    reason: str


class MapStore:
    """Named maps, safe to read from any thread."""

    def __init__(self, maps: dict[str, Grid] | None = None, errors: list[LoadFailure] | None = None):
        self._lock = threading.Lock()
        self._maps: dict[str, Grid] = dict(maps or {})
        self.errors: list[LoadFailure] = list(errors or [])

    @classmethod
    def from_dir(cls, directory: Path | str, *, max_cells: int, max_bytes: int) -> MapStore:
        """Load every map file in ``directory`` (not recursive), in file-name order.

        A file that cannot be read is logged and recorded in ``errors``; the others load.
        """
        directory = Path(directory)
        maps: dict[str, Grid] = {}
        errors: list[LoadFailure] = []

        def fail(path: Path, reason: str) -> None:
            log.error("map %s not loaded: %s", path.name, reason)
            errors.append(LoadFailure(file=path.name, reason=reason))

        if not directory.is_dir():
            log.error("maps directory %s does not exist", directory)
            errors.append(LoadFailure(file=str(directory), reason="maps directory does not exist"))
            return cls(maps, errors)
        for path in sorted(directory.iterdir()):
            if not is_map_file(path):
                continue
            name = path.stem
            if not is_valid_map_name(name):
                fail(path, f"map name {name!r} is not 1-64 characters of [A-Za-z0-9_-]")
                continue
            if name in maps:
                fail(path, f"map name {name!r} is already taken by {maps[name].source}")
                continue
            try:
                grid = load_map(path, max_cells=max_cells, max_bytes=max_bytes)
            except MapLoadError as exc:
                fail(path, exc.reason)
                continue
            maps[name] = grid
            log.info("loaded map %s from %s (%dx%d, %d walkable)", name, path.name,
                     grid.width, grid.height, grid.walkable_count)
        return cls(maps, errors)

    def get(self, name: str) -> Grid:
        """The current snapshot of map ``name``; raises :class:`MapNotFound`."""
        grid = self._maps.get(name)
        if grid is None:
            raise MapNotFound(f"map {name!r} not found")
        return grid

    def names(self) -> list[str]:
        return sorted(self._maps)

    def all(self) -> list[Grid]:
        """Every map, sorted by name."""
        maps = self._maps
        return [maps[name] for name in sorted(maps)]

    def put(self, grid: Grid) -> None:
        """Add or replace a map atomically."""
        with self._lock:
            maps = dict(self._maps)
            maps[grid.name] = grid
            self._maps = maps

    def __len__(self) -> int:
        return len(self._maps)

    def __contains__(self, name: object) -> bool:
        return name in self._maps
