"""Domain errors. Each carries a stable machine-readable ``code`` and an HTTP status.

Nothing here imports FastAPI: the search and map layers raise these, and the HTTP
layer (``app.api.errors``) turns them into the JSON error envelope
``{"error": {"code": ..., "message": ...}}``.
"""

from __future__ import annotations


class ServiceError(Exception):
    """Base class: an expected, client-visible failure."""

    code: str = "error"
    status: int = 400
    headers: dict[str, str] | None = None  # sent with the error response

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidRequest(ServiceError):
    code = "invalid_request"
    status = 422


class InvalidField(ServiceError):
    """A request field with a value that cannot be used: code ``invalid_<field>``."""

    status = 422

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.code = f"invalid_{field}"


class InvalidOption(InvalidField):
    """A search option value that cannot be used (raised by the search layer, on its own
    or against a map's terrain classes); ``field`` names the option: ``invalid_<field>``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message)
        self.field = field


class AlgorithmUnsupported(ServiceError):
    code = "algorithm_unsupported"
    status = 422


class BatchTooLarge(ServiceError):
    code = "batch_too_large"
    status = 422


class TableTooLarge(ServiceError):
    code = "table_too_large"
    status = 422


class MapNotFound(ServiceError):
    code = "map_not_found"
    status = 404


class OutOfBounds(ServiceError):
    code = "out_of_bounds"
    status = 422


class DuplicateCells(ServiceError):
    """Two units of a group order with the same start or the same goal."""

    code = "duplicate_cells"
    status = 422


class GroupTooLarge(ServiceError):
    code = "group_too_large"
    status = 422


class StartBlocked(ServiceError):
    code = "start_blocked"
    status = 422


class GoalBlocked(ServiceError):
    code = "goal_blocked"
    status = 422


class UnsupportedMapKind(ServiceError):
    """A route or field of one kind of map (grid or polygon) used on the other kind."""

    code = "unsupported_map_kind"
    status = 422


class TargetNotWalkable(ServiceError):
    """A polygon map's start or goal outside the walkable area (and no ``snap``)."""

    code = "target_not_walkable"
    status = 422


class RevisionConflict(ServiceError):
    code = "revision_conflict"
    status = 409


class StaleRevision(ServiceError):
    code = "stale_revision"
    status = 409


def require_revision(name: str, current: int, wanted: int | None) -> None:
    """A request naming ``revision`` is answered on that revision only (409 otherwise)."""
    if wanted is not None and wanted != current:
        raise StaleRevision(f"map {name!r} is at revision {current}, not {wanted}")


class Unauthorized(ServiceError):
    code = "unauthorized"
    status = 401
    headers = {"WWW-Authenticate": "Bearer"}  # RFC 6750: the scheme the client must use


class AdminDisabled(ServiceError):
    code = "admin_disabled"
    status = 403


class StorageError(ServiceError):
    """Writing a map file failed (MAPS_WRITABLE): the change was not applied."""

    code = "storage_error"
    status = 503


class StoreUnavailable(ServiceError):
    """The shared map store (MAP_STORE) did not take the change: nothing was changed."""

    code = "store_unavailable"
    status = 503
    headers = {"Retry-After": "1"}


class SharedStoreRequired(ServiceError):
    """Map changes refused: other processes serve the same maps folder and no shared store
    (MAP_STORE) keeps them consistent."""

    code = "shared_store_required"
    status = 503


class NotReady(ServiceError):
    code = "not_ready"
    status = 503


class WarmingUp(ServiceError):
    """The query needs kernels still compiling after start-up (``gridpath.search.warming``):
    refused rather than compiled on the spot or answered by another algorithm."""

    code = "warming_up"
    status = 503
    headers = {"Retry-After": "5"}


class Overloaded(ServiceError):
    """Every search thread busy and ``SEARCH_QUEUE`` searches waiting: refused at once."""

    code = "overloaded"
    status = 503
    headers = {"Retry-After": "1"}


class MapLoadError(Exception):
    """A map file could not be read; ``reason`` says why (logged and listed by /health)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TerrainCostOutOfRange(MapLoadError):
    """A map's terrain cost (sidecar ``costs``, Tiled ``cost`` property) is outside
    ``TERRAIN_COST_RULE``: an upload answers 422 ``invalid_terrain_costs``."""
