"""POST /path and POST /paths: searches with every option.

Each route takes four steps: the snapshot (looked up once), the domain request (parsed for
the map's kind, caps and cost applied: :mod:`app.api.path_request`), the search
(``ServiceState.search``: the scheduler admits it and lends it a scratch), the answer
(bodies built in :mod:`app.api.path_body`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import StateDep, StoreDep, snapshot_at
from app.api.path_request import batch_requests, path_request, path_snapshot
from app.api.responses import json_response
from app.models import (
    STALE_REVISION_RESPONSE,
    AnyPathRequest,
    BatchRequest,
    BatchResponse,
    ErrorResponse,
    PathResponse,
    PolygonPathResponse,
)
from gridpath.errors import BatchTooLarge

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
        "queue full, or no thread within SEARCH_QUEUE_WAIT_MS (`overloaded`, with "
        "`Retry-After`).",
    },
}


@router.post("/path", response_model=PathResponse | PolygonPathResponse, responses=_ERRORS)
async def post_path(request: AnyPathRequest, state: StateDep, store: StoreDep) -> Response:
    """Path between two cells of a grid (A* by default: optimal, 8-connected, no corner
    cutting), or between two points of a polygon map (the shortest path, or the route over
    its waypoints with ``mode: waypoints``)."""
    snapshot = await path_snapshot(state, request)  # a JSON object, judged for its map's kind
    search = path_request(request, snapshot, state.settings)
    body, search_us = await state.search(snapshot, search)
    return json_response(body, search_us)


@router.post("/paths", response_model=BatchResponse, responses=_ERRORS)
async def post_paths(request: BatchRequest, state: StateDep, store: StoreDep) -> Response:
    """Many queries on one map in one call, run in parallel; one result per query, in order.

    A query that fails gets ``{"error": {...}}`` in its place; the others are answered.
    """
    if len(request.queries) > state.settings.max_batch:
        raise BatchTooLarge(
            f"{len(request.queries)} queries, over the limit of {state.settings.max_batch}"
        )
    snapshot = await snapshot_at(state, store, request.map, request.revision)
    searches = batch_requests(request.queries, snapshot, state.settings)
    answers = await state.search_all(snapshot, searches)
    results = [body for body, _ in answers]
    return json_response({"map": snapshot.name, "results": results}, sum(us for _, us in answers))
