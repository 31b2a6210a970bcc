"""The map registry: the snapshots this process serves, by name, and their revisions.

Maps are immutable snapshots (:class:`~gridpath.maps.snapshot.MapSnapshot`: grids and
polygon maps). Replacing a map means swapping the
reference under a lock; a search that already holds the old snapshot finishes on it.

Invariants (the authority in ``app.authority`` feeds the registry; reads never leave it):

* Per name, the registry only moves forward: a snapshot or a deletion is applied only if
  its ``(revision, deleted)`` is later than what it holds (a deletion of revision N comes
  after revision N itself). A process never serves a revision older than one it served.
* Waiting for a revision (read your writes) is woken by the change that brings it, from any
  thread: asyncio waiters get a future resolved on their own loop, never a polling loop.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gridpath.errors import MapLoadError, MapNotFound, RevisionConflict, ServiceError
from gridpath.grid.loader import is_map_file, load_map
from gridpath.grid.model import Grid, is_valid_map_name
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.model import is_nav_file, nav_map_name
from gridpath.nav.snapshot import load_polygon_file

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoadFailure:
    """A map file that could not be loaded at startup."""

    file: str
    reason: str


class MapRegistry:
    """Named maps, safe to read from any thread. The same registry holds a process's
    worlds (``gridpath.world.World`` revisions: the same revision rules, another
    ``not_found`` error)."""

    def __init__(
        self,
        maps: dict[str, MapSnapshot] | None = None,
        errors: list[LoadFailure] | None = None,
        *,
        not_found: type[ServiceError] = MapNotFound,
        what: str = "map",
    ):
        self.not_found = not_found  # the error of a name it does not hold
        self.what = what  # what it holds, for messages: "map" or "world"
        self._lock = threading.Lock()
        self._maps: dict[str, MapSnapshot] = dict(maps or {})
        self._last_revision: dict[str, int] = {n: g.revision for n, g in self._maps.items()}
        self._deleted: set[str] = set()  # names whose last known state is a deletion
        # name -> [(loop, future, revision)]: requests waiting for a revision of that map
        self._waiters: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Future, int]]] = {}
        self.errors: list[LoadFailure] = list(errors or [])
        # Builds a revision's search data (MapSnapshot.prepare) before it is published, so
        # every revision serves its first query as fast as its later ones. Set by the
        # service (the search layer owns a grid's; this layer imports nothing from it).
        self.prepare: Callable[[MapSnapshot], object] | None = None

    @classmethod
    def from_dir(cls, directory: Path | str, *, max_cells: int, max_bytes: int) -> MapRegistry:
        """Load every map file in ``directory`` (not recursive), in file-name order.

        A file that cannot be read is logged and recorded in ``errors``; the others load.
        """
        files, errors = scan_folder(directory)
        maps: dict[str, MapSnapshot] = {}
        for name, path in files.items():
            try:
                maps[name] = load_logged(path, max_cells=max_cells, max_bytes=max_bytes)
            except MapLoadError as exc:
                errors.append(LoadFailure(file=path.name, reason=exc.reason))
        return cls(maps, errors)

    def get(self, name: str) -> MapSnapshot:
        """The current snapshot of map ``name``; raises :class:`MapNotFound`."""
        grid = self._maps.get(name)
        if grid is None:
            raise self.missing(name)
        return grid

    def missing(self, name: str) -> ServiceError:
        """The error for a name this registry does not hold (``map_not_found``, ...)."""
        return self.not_found(f"{self.what} {name!r} not found")

    def find(self, name: str) -> MapSnapshot | None:
        """The current snapshot of map ``name``, or None."""
        return self._maps.get(name)

    def names(self) -> list[str]:
        return sorted(self._maps)

    def all(self) -> list[MapSnapshot]:
        """Every map, sorted by name."""
        maps = self._maps
        return [maps[name] for name in sorted(maps)]

    def put(self, grid: MapSnapshot) -> None:
        """Add or replace a map atomically, whatever the revisions (tests and tools; the
        service changes maps through :meth:`apply`)."""
        with self._lock:
            self._swap(grid.name, grid)

    def _swap(self, name: str, grid: MapSnapshot | None) -> None:
        # Readers hold the old dict (and the old MapSnapshot): they never see half an update.
        maps = dict(self._maps)
        if grid is None:
            maps.pop(name, None)
            self._deleted.add(name)
        else:
            maps[name] = grid
            self._last_revision[name] = grid.revision
            self._deleted.discard(name)
        self._maps = maps
        self._wake(name)

    def deletions(self) -> dict[str, int]:
        """Each name whose last known state is a deletion, with that deletion's revision."""
        with self._lock:
            return {name: self._last_revision.get(name, 0) for name in self._deleted}

    def version(self, name: str) -> tuple[int, bool]:
        """``(last revision known for name, whether that revision was deleted)``;
        ``(0, False)`` for a name never seen. Later versions compare greater."""
        return self._last_revision.get(name, 0), name in self._deleted

    def apply(self, name: str, grid: MapSnapshot | None, revision: int) -> bool:
        """Install revision ``revision`` of map ``name`` (``grid``, or ``None``: deleted at
        that revision) if it is later than what the registry holds; returns whether it was.
        The one entry point for changes made elsewhere (another process, the folder).

        The revision's search data is built (``prepare``) before it is published and outside
        the lock, from the revision held where it can be (a grid of the same size: the
        block bitsets around the changed cells, the subgoal tier's changed parts; the same
        data as built afresh): a slow build holds up only this revision; readers keep the
        previous one, and requests for ``revision: N`` wait for it (:meth:`wait_for`). Call
        it off the event loop."""
        deleted = grid is None
        if (revision, deleted) <= self.version(name):
            return False
        if grid is not None and grid.revision != revision:
            grid = with_revision(grid, revision)
        if grid is not None and self.prepare is not None:
            held = self.find(name)
            if isinstance(grid, Grid) and isinstance(held, Grid):
                grid.derive_like(held)  # e.g. the subgoal tier repaired, not built afresh
            self.prepare(grid)
        with self._lock:
            if (revision, deleted) <= self.version(name):
                return False  # a later version arrived during the build
            self._last_revision[name] = revision
            self._swap(name, grid)
            return True

    def set_errors(self, errors: list[LoadFailure]) -> None:
        self.errors = list(errors)

    def reached(self, name: str, revision: int) -> bool:
        """True once map ``name`` is at ``revision`` or later (or deleted at or after it)."""
        return self._last_revision.get(name, 0) >= revision

    async def wait_for(self, name: str, revision: int, timeout: float) -> bool:
        """Wait (up to ``timeout`` seconds) until :meth:`reached`; returns whether it was.
        Woken by the change itself, from whichever thread applies it."""
        if self.reached(name, revision):
            return True
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        entry = (loop, future, revision)
        with self._lock:
            if self.reached(name, revision):  # it arrived while we were getting ready
                return True
            self._waiters.setdefault(name, []).append(entry)
        try:
            await asyncio.wait_for(future, timeout)
            return True
        except asyncio.TimeoutError:
            return self.reached(name, revision)
        finally:
            with self._lock:
                waiting = self._waiters.get(name, [])
                if entry in waiting:
                    waiting.remove(entry)
                if not waiting:
                    self._waiters.pop(name, None)

    def _wake(self, name: str) -> None:
        """Resolve the waiters ``name``'s new revision satisfies (called under the lock)."""
        waiting = self._waiters.get(name)
        if not waiting:
            return
        reached = self._last_revision.get(name, 0)
        keep = []
        for loop, future, revision in waiting:
            if revision <= reached:
                loop.call_soon_threadsafe(_resolve, future)
            else:
                keep.append((loop, future, revision))
        self._waiters[name] = keep

    def __len__(self) -> int:
        return len(self._maps)

    def __contains__(self, name: object) -> bool:
        return name in self._maps


def scan_folder(directory: Path | str) -> tuple[dict[str, Path], list[LoadFailure]]:
    """The map files of ``directory`` (not recursive) by map name, in file-name order, and
    the files that cannot be maps (bad or duplicate names, a missing folder)."""
    directory = Path(directory)
    files: dict[str, Path] = {}
    errors: list[LoadFailure] = []

    def fail(path: Path, reason: str) -> None:
        log.error("map %s not loaded: %s", path.name, reason)
        errors.append(LoadFailure(file=path.name, reason=reason))

    if not directory.is_dir():
        log.error("maps directory %s does not exist", directory)
        errors.append(LoadFailure(file=str(directory), reason="maps directory does not exist"))
        return files, errors
    for path in sorted(directory.iterdir()):
        if is_nav_file(path):  # NAME.nav.json: a polygon map
            name = nav_map_name(path)
        elif is_map_file(path):
            name = path.stem
        else:
            continue
        if not is_valid_map_name(name):
            fail(path, f"map name {name!r} is not 1-64 characters of [A-Za-z0-9_-]")
        elif name in files:
            fail(path, f"map name {name!r} is already taken by {files[name].name}")
        else:
            files[name] = path
    return files, errors


def load_logged(path: Path, *, max_cells: int, max_bytes: int) -> MapSnapshot:
    """Load one map file (a grid, or a polygon map from ``NAME.nav.json``), logging the
    outcome; every failure is a :class:`MapLoadError` (a loader bug must not keep the other
    maps down)."""
    try:
        if is_nav_file(path):
            polygon = load_polygon_file(path, max_bytes=max_bytes)
            log.info(
                "loaded polygon map %s from %s (%d vertices, %d holes, %d waypoints)",
                polygon.name,
                path.name,
                polygon.nav.vertex_count,
                len(polygon.nav.holes),
                len(polygon.nav.waypoints),
            )
            return polygon
        grid = load_map(path, max_cells=max_cells, max_bytes=max_bytes)
    except MapLoadError as exc:
        log.error("map %s not loaded: %s", path.name, exc.reason)
        raise
    except Exception as exc:
        log.exception("unexpected error loading %s", path)
        raise MapLoadError(f"unexpected error: {type(exc).__name__}: {exc}") from exc
    log.info(
        "loaded map %s from %s (%dx%d, %d walkable)",
        grid.name,
        path.name,
        grid.width,
        grid.height,
        grid.walkable_count,
    )
    return grid


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def with_revision(grid: MapSnapshot, revision: int, source: str | None = None) -> MapSnapshot:
    """The same map content as revision ``revision`` (and ``source``). A shallow copy: the
    arrays are read-only and the derived data (components, jump distances) depend on the
    content only, so they are shared instead of being recomputed as
    ``dataclasses.replace`` would."""
    new = copy.copy(grid)
    object.__setattr__(new, "revision", revision)
    if source is not None:
        object.__setattr__(new, "source", source)
    return new


def check_revision(current: MapSnapshot, if_revision: int | None, what: str = "map") -> None:
    """:class:`RevisionConflict` when the caller expects another revision of ``current``."""
    if if_revision is not None and if_revision != current.revision:
        raise RevisionConflict(
            f"{what} {current.name!r} is at revision {current.revision}, "
            f"not {if_revision}; nothing was changed"
        )
