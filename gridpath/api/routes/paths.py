"""POST /path and POST /paths: searches with every option.

The bodies are built in :mod:`gridpath.api.path_body`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import ValidationError

from gridpath.api.deps import StateDep, StoreDep, snapshot_at, wait_for_revision
from gridpath.api.errors import describe_errors, error_code_for
from gridpath.api.path_body import answer
from gridpath.api.responses import json_response
from gridpath.api.rules import worst_case_expansions
from gridpath.errors import BatchTooLarge, ServiceError
from gridpath.grid import Grid
from gridpath.observability import note_map
from gridpath.schemas import (
    STALE_REVISION_RESPONSE,
    BatchRequest,
    BatchResponse,
    ErrorResponse,
    PathQuery,
    PathRequest,
    PathResponse,
)
from gridpath.service import ServiceState

router = APIRouter(tags=["paths"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "Unknown map (`map_not_found`)."},
    422: {
        "model": ErrorResponse,
        "description": "`invalid_request`, `invalid_<option>`, `out_of_bounds`, "
        "`start_blocked`, `goal_blocked` (and `batch_too_large` for /paths).",
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


@router.post("/path", response_model=PathResponse, responses=_ERRORS)
async def post_path(request: PathRequest, state: StateDep, store: StoreDep) -> Response:
    """Path between two cells (A* by default: optimal, 8-connected, no corner cutting)."""
    await wait_for_revision(state, request.map, request.revision)
    grid = store.get(request.map)
    note_map(grid.name, grid.revision)
    cost = worst_case_expansions(
        grid.cell_count, state.settings, request.max_expanded, request.time_budget_ms
    )
    return json_response(*await state.run_search(_run, state, grid, request, cost=cost))


def _run_batch_entry(
    state: ServiceState, grid: Grid, raw: Any, expansion_cap: int
) -> tuple[dict, float]:
    try:
        query = PathQuery.model_validate(raw)
        return _run(state, grid, query, expansion_cap)
    except ValidationError as exc:
        errors = exc.errors()
        return {"error": {"code": error_code_for(errors), "message": describe_errors(errors)}}, 0.0
    except ServiceError as exc:
        return {"error": {"code": exc.code, "message": exc.message}}, 0.0


@router.post("/paths", response_model=BatchResponse, responses=_ERRORS)
async def post_paths(request: BatchRequest, state: StateDep, store: StoreDep) -> Response:
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
    cost = worst_case_expansions(grid.cell_count, state.settings, share, None)
    answers = await state.run_batch(
        _run_batch_entry, [(state, grid, raw, share) for raw in request.queries], cost
    )
    results = [body for body, _ in answers]
    return json_response({"map": grid.name, "results": results}, sum(us for _, us in answers))
