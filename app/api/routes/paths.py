"""POST /path and POST /paths: searches with every option.

The bodies are built in :mod:`app.api.path_body`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response

from app.api.deps import RegistryDep, StateDep, snapshot_at, wait_for_revision
from app.api.errors import describe_errors, error_code_for
from app.api.path_body import answer
from app.api.polygon import map_name_of, parse_for_kind, polygon_path
from app.api.responses import json_response
from app.api.rules import worst_case_expansions
from app.models import (
    STALE_REVISION_RESPONSE,
    AnyPathRequest,
    BatchRequest,
    BatchResponse,
    ErrorResponse,
    PathQuery,
    PathRequest,
    PathResponse,
    PolygonPathQuery,
    PolygonPathRequest,
    PolygonPathResponse,
)
from app.observability import note_map
from app.state import ServiceState
from gridpath.errors import BatchTooLarge, ServiceError
from gridpath.grid import Grid
from gridpath.maps import MapRegistry
from gridpath.nav.snapshot import PolygonMap

router = APIRouter(tags=["paths"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "Unknown map (`map_not_found`)."},
    422: {
        "model": ErrorResponse,
        "description": "`invalid_request`, `invalid_<option>`, `out_of_bounds`, "
        "`start_blocked`, `goal_blocked` (and `batch_too_large` for /paths); polygon "
        "maps: `target_not_walkable` (a start or goal outside the walkable area, without "
        "`snap`); `unsupported_map_kind` (a field of the other kind of map).",
    },
    409: STALE_REVISION_RESPONSE,
    503: {
        "model": ErrorResponse,
        "description": "Still starting (`not_ready`), or every search thread busy and the "
        "queue full (`overloaded`, with `Retry-After`).",
    },
}


def _run(
    state: ServiceState, grid: Grid, query: PathQuery, expansion_cap: int | None = None
) -> tuple[dict, float]:
    with state.search_scratch() as scratch:
        return answer(grid, query, state.settings, scratch, expansion_cap)


_PATH_MODELS = {"grid": PathRequest, "polygon": PolygonPathRequest}
_QUERY_MODELS = {"grid": PathQuery, "polygon": PolygonPathQuery}


def _run_polygon(
    state: ServiceState, pmap: PolygonMap, query: PolygonPathQuery, expansion_cap: int | None = None
) -> tuple[dict, float]:
    return polygon_path(pmap, query, state.settings, expansion_cap)


def _request_for(
    raw: dict, store: MapRegistry, name: str | None
) -> tuple[PathRequest | PolygonPathRequest, str]:
    """The body validated for the kind of the map it names (``name``: ``map_name_of(raw)``;
    a map not loaded: a grid's model, whose answer is then 404 map_not_found)."""
    snapshot = store.find(name) if name is not None else None
    kind = snapshot.kind if snapshot is not None else "grid"
    return parse_for_kind(raw, kind, _PATH_MODELS, name or ""), kind


@router.post("/path", response_model=PathResponse | PolygonPathResponse, responses=_ERRORS)
async def post_path(request: AnyPathRequest, state: StateDep, store: RegistryDep) -> Response:
    """Path between two cells of a grid (A* by default: optimal, 8-connected, no corner
    cutting), or between two points of a polygon map (the shortest path, or the route over
    its waypoints with ``mode: waypoints``)."""
    raw: dict = request  # a JSON object, validated below for the map's kind
    name, revision = map_name_of(raw), raw.get("revision")
    if name is not None and type(revision) is int:  # a map created elsewhere may be coming
        await wait_for_revision(state, name, revision)
    query, kind = _request_for(raw, store, name)
    snapshot = store.get(query.map)
    if snapshot.kind != kind:  # replaced by a map of the other kind meanwhile
        query = parse_for_kind(raw, snapshot.kind, _PATH_MODELS, snapshot.name)
    note_map(snapshot.name, snapshot.revision)
    if snapshot.kind == "polygon":
        cost = state.settings.max_polygon_expanded  # its worst case, for the scheduler
        return json_response(
            *await state.run_search(_run_polygon, state, snapshot, query, cost=cost)
        )
    cost = worst_case_expansions(
        snapshot.cell_count, state.settings, query.max_expanded, query.time_budget_ms
    )
    return json_response(*await state.run_search(_run, state, snapshot, query, cost=cost))


def _run_batch_entry(
    state: ServiceState, snapshot: Grid | PolygonMap, raw: Any, expansion_cap: int
) -> tuple[dict, float]:
    try:
        if snapshot.kind == "polygon":
            query = parse_for_kind(raw, "polygon", _QUERY_MODELS, snapshot.name)
            return _run_polygon(state, snapshot, query, expansion_cap)
        query = parse_for_kind(raw, "grid", _QUERY_MODELS, snapshot.name)
        return _run(state, snapshot, query, expansion_cap)
    except RequestValidationError as exc:
        errors = list(exc.errors())
        return {"error": {"code": error_code_for(errors), "message": describe_errors(errors)}}, 0.0
    except ServiceError as exc:
        return {"error": {"code": exc.code, "message": exc.message}}, 0.0


@router.post("/paths", response_model=BatchResponse, responses=_ERRORS)
async def post_paths(request: BatchRequest, state: StateDep, store: RegistryDep) -> Response:
    """Many queries on one map in one call, run in parallel; one result per query, in order.

    A query that fails gets ``{"error": {...}}`` in its place; the others are answered.
    """
    if len(request.queries) > state.settings.max_batch:
        raise BatchTooLarge(
            f"{len(request.queries)} queries, over the limit of {state.settings.max_batch}"
        )
    grid = await snapshot_at(state, store, request.map, request.revision)  # one for the whole batch
    # The whole batch shares MAX_BATCH_EXPANDED, so one request cannot tie the server up.
    share = max(1, state.settings.max_batch_expanded // max(1, len(request.queries)))
    if grid.kind == "polygon":  # a polygon batch shares 4 x MAX_POLYGON_EXPANDED, as a grid
        # batch's MAX_BATCH_EXPANDED is 4 x MAX_EXPANDED by default
        polygon_budget = 4 * state.settings.max_polygon_expanded
        share = max(1, polygon_budget // max(1, len(request.queries)))
        cost = min(share, state.settings.max_polygon_expanded)
    else:
        cost = worst_case_expansions(grid.cell_count, state.settings, share, None)
    answers = await state.run_batch(
        _run_batch_entry, [(state, grid, raw, share) for raw in request.queries], cost
    )
    results = [body for body, _ in answers]
    return json_response({"map": grid.name, "results": results}, sum(us for _, us in answers))
