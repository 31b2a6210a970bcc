"""Map authorities: the ``MAPS_DIR`` folder (one process) or Redis (shared by every process).
Each stores maps, and worlds (``gridpath.world``) as a second kind of document on the same
road (app/authority/documents.py).

``python -m app.authority push DIR`` uploads a folder's maps to the shared store as new revisions.
"""

from app.authority.base import MapAuthority, ReloadReport, StoreStatus, Upload
from app.authority.documents import world_documents
from app.authority.folder import FolderAuthority
from app.authority.redis import RedisAuthority
from gridpath.maps import MapRegistry

__all__ = [
    "MapAuthority",
    "ReloadReport",
    "StoreStatus",
    "Upload",
    "open_authorities",
    "open_authority",
]


def open_authority(settings, registry: MapRegistry) -> MapAuthority:
    """The authority ``MAP_STORE`` names: unset, the folder; ``redis://...``, Redis."""
    if settings.map_store:
        return RedisAuthority(settings, registry)
    return FolderAuthority(settings, registry)


def open_authorities(
    settings, maps: MapRegistry, worlds: MapRegistry
) -> tuple[MapAuthority, MapAuthority]:
    """The maps' authority and the worlds' (checked against ``maps``), in the same store:
    load and start the maps' first. In the folder, the worlds' follows the maps' (one lock,
    one watcher: a reload reloads both)."""
    documents = world_documents(maps)
    if settings.map_store:
        return RedisAuthority(settings, maps), RedisAuthority(settings, worlds, documents)
    folder = FolderAuthority(settings, maps)
    return folder, FolderAuthority(settings, worlds, documents, site=folder)
