"""Map authorities: the ``MAPS_DIR`` folder (one process) or Redis (shared by every process).

``python -m gridpath.store push DIR`` uploads a folder's maps to the shared store as new revisions.
"""

from gridpath.store.base import MapAuthority, ReloadReport, StoreStatus, Upload, open_authority

__all__ = ["MapAuthority", "ReloadReport", "StoreStatus", "Upload", "open_authority"]
