"""Map authorities: the ``MAPS_DIR`` folder (one process) or Redis (shared by every process).

``python -m app.authority push DIR`` uploads a folder's maps to the shared store as new revisions.
"""

from app.authority.base import MapAuthority, ReloadReport, StoreStatus, Upload
from app.authority.folder import FolderAuthority
from app.authority.redis import RedisAuthority
from gridpath.maps import MapRegistry

__all__ = ["MapAuthority", "ReloadReport", "StoreStatus", "Upload", "open_authority"]


def open_authority(settings, registry: MapRegistry) -> MapAuthority:
    """The authority ``MAP_STORE`` names: unset, the folder; ``redis://...``, Redis."""
    if settings.map_store:
        return RedisAuthority(settings, registry)
    return FolderAuthority(settings, registry)
