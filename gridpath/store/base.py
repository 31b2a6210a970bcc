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

from gridpath.grid import Grid, LoadFailure, MapStore
from gridpath.grid.edits import Edit


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


class MapAuthority(Protocol):
    registry: MapStore

    def load(self) -> None:
        """Fill the registry (runs on the start-up thread, may block)."""

    async def start(self) -> None:
        """Begin following changes made elsewhere (on the event loop, after :meth:`load`)."""

    async def update(self, name: str, edits: Sequence[Edit], if_revision: int | None) -> Grid:
        """Edits as one new revision of an existing map."""

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
        from gridpath.store.redis_store import RedisAuthority

        return RedisAuthority(settings, registry)
    from gridpath.store.folder import FolderAuthority

    return FolderAuthority(settings, registry)
