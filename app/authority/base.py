"""The authority seam: who decides a map's next revision, and how every process learns it.

Searches never come here: they read snapshots from the in-process registry
(:class:`gridpath.maps.registry.MapRegistry`). An authority fills that registry at start-up, makes
the changes (``PATCH``/``PUT``/``DELETE``) and applies them to it before the change is
acknowledged, and keeps it in step with changes made elsewhere (another process, the folder).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from gridpath.grid.edits import GridEdit
from gridpath.maps import LoadFailure, MapRegistry
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.snapshot import PolygonEdit


@dataclass(frozen=True)
class Upload:
    """A map's encoded content: a map file (``suffix``, ``data``) and its sidecar, the
    canonical form of ``MapSnapshot.encode`` or an uploaded file as sent."""

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


class MapAuthority(Protocol):
    registry: MapRegistry

    def load(self) -> None:
        """Fill the registry (runs on the start-up thread, may block)."""

    async def start(self) -> None:
        """Begin following changes made elsewhere (on the event loop, after :meth:`load`)."""

    async def update(
        self, name: str, change: GridEdit | PolygonEdit, if_revision: int | None
    ) -> MapSnapshot:
        """A change as one new revision of an existing map (``MapSnapshot.edit``: the
        other kind of change is refused, nothing changed); for the worlds' authority, a
        ``gridpath.world.model.WorldPatch`` (``World.edit``)."""

    async def replace(
        self, name: str, parsed: MapSnapshot, upload: Upload | None, if_revision: int | None
    ) -> tuple[MapSnapshot, bool]:
        """Create or replace a map; returns it and whether one was replaced. ``upload``:
        the encoding to store, or None for the canonical one (``MapSnapshot.encode``)."""

    async def delete(self, name: str, if_revision: int | None) -> MapSnapshot:
        """Remove a map; returns the revision removed."""

    async def reload(self) -> ReloadReport:
        """Catch up with the source now (the folder, or the shared store)."""

    def status(self) -> StoreStatus: ...

    async def close(self) -> None: ...
