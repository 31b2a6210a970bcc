"""Map authorities: the ``MAPS_DIR`` folder (one process) or Redis (shared by every process).

``python -m app.authority push DIR`` uploads a folder's maps to the shared store as new revisions.
"""

from app.authority.base import MapAuthority, ReloadReport, StoreStatus, Upload, open_authority

__all__ = ["MapAuthority", "ReloadReport", "StoreStatus", "Upload", "open_authority"]
