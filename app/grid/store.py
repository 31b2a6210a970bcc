"""The map registry: owns loading, naming and (later) revisions of the served maps.

Maps are immutable :class:`Grid` snapshots. Replacing a map means swapping the
reference under a lock; a search that already holds the old snapshot finishes on it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.errors import MapLoadError, MapNotFound, RevisionConflict
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

    def __init__(
        self, maps: dict[str, Grid] | None = None, errors: list[LoadFailure] | None = None
    ):
        self._lock = threading.Lock()
        self._maps: dict[str, Grid] = dict(maps or {})
        self._last_revision: dict[str, int] = {n: g.revision for n, g in self._maps.items()}
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
            except Exception as exc:  # a loader bug must not keep the other maps down
                log.exception("unexpected error loading %s", path)
                fail(path, f"unexpected error: {type(exc).__name__}: {exc}")
                continue
            maps[name] = grid
            log.info(
                "loaded map %s from %s (%dx%d, %d walkable)",
                name,
                path.name,
                grid.width,
                grid.height,
                grid.walkable_count,
            )
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
            self._swap(grid.name, grid)

    def _swap(self, name: str, grid: Grid | None) -> None:
        # Readers hold the old dict (and the old Grid): they never see half an update.
        maps = dict(self._maps)
        if grid is None:
            maps.pop(name, None)
        else:
            maps[name] = grid
            self._last_revision[name] = grid.revision
        self._maps = maps

    def next_revision(self, name: str) -> int:
        """Revisions of a name only grow, across deletes and re-uploads."""
        return self._last_revision.get(name, 0) + 1

    def update(
        self, name: str, change: Callable[[Grid, int], Grid], if_revision: int | None = None
    ) -> Grid:
        """Replace map ``name`` by ``change(current, next_revision)``, atomically.

        With ``if_revision`` not the current revision: :class:`RevisionConflict`, nothing
        changed. If ``change`` raises, nothing changes either.
        """
        with self._lock:
            current = self.get(name)
            _check_revision(current, if_revision)
            new = change(current, self.next_revision(name))
            self._swap(name, new)
            return new

    def replace(
        self, grid_for_revision: Callable[[int], Grid], name: str, if_revision: int | None = None
    ) -> tuple[Grid, bool]:
        """Create or replace map ``name`` with ``grid_for_revision(next_revision)``;
        returns the new grid and whether it replaced one."""
        with self._lock:
            current = self._maps.get(name)
            if if_revision is not None and (current is None or if_revision != current.revision):
                found = "absent" if current is None else f"at revision {current.revision}"
                raise RevisionConflict(
                    f"map {name!r} is {found}, not at revision {if_revision}; nothing was changed"
                )
            new = grid_for_revision(self.next_revision(name))
            self._swap(name, new)
            return new, current is not None

    def delete(self, name: str, if_revision: int | None = None) -> Grid:
        with self._lock:
            current = self.get(name)
            _check_revision(current, if_revision)
            self._swap(name, None)
            return current

    def __len__(self) -> int:
        return len(self._maps)

    def __contains__(self, name: object) -> bool:
        return name in self._maps


def _check_revision(current: Grid, if_revision: int | None) -> None:
    """:class:`RevisionConflict` when the caller expects another revision of ``current``."""
    if if_revision is not None and if_revision != current.revision:
        raise RevisionConflict(
            f"map {current.name!r} is at revision {current.revision}, "
            f"not {if_revision}; nothing was changed"
        )
