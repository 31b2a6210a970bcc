"""The authority seam: who decides a map's next revision, and how every process learns it.

Searches never come here: they read snapshots from the in-process registry
(:class:`gridpath.grid.store.MapStore`). An authority fills that registry at start-up, makes
the changes (``PATCH``/``PUT``/``DELETE``) and applies them to it before the change is
acknowledged, and keeps it in step with changes made elsewhere (another process, the folder).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from gridpath.errors import UnsupportedMapKind
from gridpath.grid import Grid, LoadFailure, MapStore
from gridpath.grid.edits import Edit, apply_edits
from gridpath.nav.snapshot import PolygonEdit, PolygonMap, apply_polygon_edit


@dataclass(frozen=True)
class Upload:
    """A map's encoded content: a map file (``suffix``, ``data``) and its sidecar, the
    canonical form of :func:`gridpath.grid.persist.serialize` or an uploaded file as sent."""

    suffix: str
    data: bytes
    sidecar: dict | None = None


@dataclass(frozen=True)
class Change:
    name: str
    revision: int
    deleted: bool = False


@dataclass
class StoreStatus:
    kind: str  # "folder" or "redis"
    state: str = "ok"  # "ok" or "degraded"
    reason: str | None = None


@dataclass
class ReloadReport:
    changes: list[Change] = field(default_factory=list)
    errors: list[LoadFailure] = field(default_factory=list)


def edit_map(
    current: Grid | PolygonMap, edits: Sequence[Edit] | PolygonEdit, revision: int
) -> Grid | PolygonMap:
    """The next revision of ``current`` with ``edits``: cell edits on a grid, a
    :class:`PolygonEdit` on a polygon map; the other kind of edit is refused
    (``unsupported_map_kind``) and nothing changes."""
    polygon_edit = isinstance(edits, PolygonEdit)
    if current.kind == "polygon" and polygon_edit:
        return apply_polygon_edit(current, edits, revision)
    if current.kind == "grid" and not polygon_edit:
        return apply_edits(current, edits, revision)
    if polygon_edit:
        raise UnsupportedMapKind(
            f"map {current.name!r} is a grid: edit it with 'set' (cells and rectangles); "
            "holes and waypoints are for polygon maps; nothing was changed"
        )
    raise UnsupportedMapKind(
        f"map {current.name!r} is a polygon map: edit it with 'holes' and 'waypoints'; "
        "'set' (cells) is for grid maps; nothing was changed"
    )


class MapAuthority(Protocol):
    registry: MapStore

    def load(self) -> None:
        """Fill the registry (runs on the start-up thread, may block)."""

    async def start(self) -> None:
        """Begin following changes made elsewhere (on the event loop, after :meth:`load`)."""

    async def update(
        self, name: str, edits: Sequence[Edit] | PolygonEdit, if_revision: int | None
    ) -> Grid:
        """Edits as one new revision of an existing map (:func:`edit_map`)."""

    async def replace(
        self, name: str, parsed: Grid, upload: Upload | None, if_revision: int | None
    ) -> tuple[Grid, bool]:
        """Create or replace a map; returns it and whether one was replaced. ``upload``:
        the encoding to store, or None for the canonical one (``persist.serialize``)."""

    async def delete(self, name: str, if_revision: int | None) -> Grid:
        """Remove a map; returns the revision removed."""

    async def reload(self) -> ReloadReport:
        """Catch up with the source now (the folder, or the shared store)."""

    def status(self) -> StoreStatus: ...

    async def close(self) -> None: ...


def open_authority(settings, registry: MapStore) -> MapAuthority:
    """The authority ``MAP_STORE`` names: unset, the folder; ``redis://...``, Redis."""
    if settings.map_store:
        from app.authority.redis import RedisAuthority

        return RedisAuthority(settings, registry)
    from app.authority.folder import FolderAuthority

    return FolderAuthority(settings, registry)
