"""POST /path and POST /paths: searches with every option, formatted straight from numpy."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import orjson
from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import ValidationError

from app.api.deps import StateDep, StoreDep
from app.api.errors import describe_errors, error_code_for
from app.api.rules import expansion_budget, search_options, worst_case_expansions
from app.config import Settings
from app.errors import BatchTooLarge, InvalidField, InvalidRequest, ServiceError, StaleRevision
from app.grid import Grid
from app.observability import note_map, record_search
from app.schemas import (
    BatchRequest,
    BatchResponse,
    ErrorResponse,
    PathQuery,
    PathRequest,
    PathResponse,
)
from app.search import InvalidOption, SearchOptions, find_path, smooth, turning_points
from app.search.scratch import SearchScratch
from app.service import ServiceState

router = APIRouter(tags=["paths"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "Unknown map (`map_not_found`)."},
    422: {
        "model": ErrorResponse,
        "description": "`invalid_request`, `invalid_<option>`, `out_of_bounds`, "
        "`start_blocked`, `goal_blocked` (and `batch_too_large` for /paths).",
    },
    409: {
        "model": ErrorResponse,
        "description": "`stale_revision`: the map is past the `revision` named.",
    },
    503: {
        "model": ErrorResponse,
        "description": "Still starting (`not_ready`), or every search thread busy and the "
        "queue full (`overloaded`, with `Retry-After`).",
    },
}


def _json(body: Any, search_us: float) -> Response:
    # Serialised straight from the numpy arrays (bench/serialize.py measures why); the
    # shapes are the declared response models. The kernel time goes in a header, so the
    # body stays byte-for-byte deterministic.
    return Response(
        orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY),
        media_type="application/json",
        headers=server_timing(search_us),
    )


def server_timing(search_us: float) -> dict[str, str]:
    return {"Server-Timing": f"search;dur={search_us / 1000:.3f}"}


def query_options(
    query: PathQuery, grid: Grid, settings: Settings, expansion_cap: int | None = None
) -> SearchOptions:
    """A query's search options, with the server's caps applied (``expansion_cap``: a batch's
    share of its total budget)."""
    if query.goals is not None and len(query.goals) > settings.max_goals:
        raise InvalidField(
            "goals", f"goals lists {len(query.goals)} cells, over the limit of {settings.max_goals}"
        )
    if query.goal is None and query.goals is None:
        raise InvalidRequest("missing field 'goal' (or give 'goals')")
    if query.goal is not None and query.goals is not None:
        raise InvalidField("goals", "give either goal or goals, not both")
    if query.turn_penalty > 0 and grid.cell_count > settings.max_turn_cells:
        raise InvalidField(
            "turn_penalty",
            f"turn_penalty searches 9 states per cell; map {grid.name!r} has "
            f"{grid.cell_count} cells, over the limit of {settings.max_turn_cells}",
        )
    cap = min(
        settings.max_expanded,
        expansion_cap or settings.max_expanded,
        expansion_budget(settings, query.time_budget_ms),
    )
    return search_options(
        query,
        settings,
        algorithm=query.algorithm,
        heuristic=query.heuristic,
        heuristic_weight=query.heuristic_weight,
        max_expanded=min(query.max_expanded or cap, cap),
        max_cost=query.max_cost,
        closest=query.closest,
        turn_penalty=query.turn_penalty,
    )


def path_hash(path: np.ndarray) -> str:
    """SHA-256 of the cell path as little-endian int32 ``x, y`` pairs (the determinism check)."""
    return hashlib.sha256(np.ascontiguousarray(path, dtype="<i4").tobytes()).hexdigest()


def answer(
    grid: Grid,
    query: PathQuery,
    settings: Settings,
    scratch: SearchScratch,
    expansion_cap: int | None = None,
) -> tuple[dict, float]:
    """Run one query on one map snapshot; the response body and the kernel time in µs."""
    if query.revision is not None and query.revision != grid.revision:
        raise StaleRevision(
            f"map {grid.name!r} is at revision {grid.revision}, not {query.revision}"
        )
    options = query_options(query, grid, settings, expansion_cap)
    blocked = [tuple(c) for c in query.blocked]
    include = set(query.include)
    explored_limit = settings.max_explored if "explored" in include else 0
    try:
        result = find_path(
            grid,
            query.start,
            query.goal,
            options,
            goals=query.goals,
            blocked=blocked,
            explored_limit=explored_limit,
            scratch=scratch,
        )
    except InvalidOption as exc:  # options that depend on the map (terrain classes)
        raise InvalidField(exc.field, exc.message) from None
    effective = result.options
    record_search(effective.algorithm.value, result.expanded, result.search_us, result.reason)
    body: dict[str, Any] = {
        "map": grid.name,
        "revision": grid.revision,
        "found": result.found,
        "reason": result.reason,
        "partial": result.partial,
        "goal_index": result.goal_index,
        "cost": result.cost,
    }
    if "path" in include:
        body["path"] = result.path
    if "waypoints" in include:
        if result.path.shape[0] == 0:
            body["waypoints"] = result.path
        elif query.smooth:
            body["waypoints"] = smooth(
                grid,
                result.path,
                diagonal=effective.diagonal,
                blocked=blocked,
                clearance=effective.clearance,
                scratch=scratch,
            )
        else:
            body["waypoints"] = turning_points(result.path)
    body["path_hash"] = path_hash(result.path)
    body["turns"] = result.turns
    body["expanded"] = result.expanded
    if "explored" in include:
        body["explored"] = result.explored
    if "timing" in include:
        body["search_us"] = round(result.search_us, 1)
    body["algorithm"] = effective.algorithm.value
    body["optimal"] = result.optimal
    body["bounded_suboptimal"] = result.bounded_suboptimal
    body["options"] = {
        "algorithm": effective.algorithm.value,
        "heuristic": effective.heuristic.value if effective.heuristic else None,
        "heuristic_weight": effective.heuristic_weight,
        "connectivity": effective.connectivity,
        "diagonal": effective.diagonal.value,
        "cost_model": effective.cost_model.value,
        "max_expanded": effective.max_expanded,
        "max_cost": effective.max_cost,
        "closest": effective.closest,
        "clearance": effective.clearance,
        "turn_penalty": effective.turn_penalty,
        "terrain_costs": {**grid.terrain_costs, **dict(effective.terrain_costs)},
        "smooth": query.smooth,
    }
    return body, result.search_us


def _run(
    state: ServiceState, grid: Grid, query: PathQuery, expansion_cap: int | None = None
) -> tuple[dict, float]:
    with state.search_scratch() as scratch:
        return answer(grid, query, state.settings, scratch, expansion_cap)


@router.post("/path", response_model=PathResponse, responses=_ERRORS)
async def post_path(request: PathRequest, state: StateDep, store: StoreDep) -> Response:
    """Path between two cells (A* by default: optimal, 8-connected, no corner cutting)."""
    grid = store.get(request.map)
    note_map(grid.name, grid.revision)
    cost = worst_case_expansions(
        grid.cell_count, state.settings, request.max_expanded, request.time_budget_ms
    )
    return _json(*await state.run_search(_run, state, grid, request, cost=cost))


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
    grid = store.get(request.map)  # one snapshot for the whole batch
    note_map(grid.name, grid.revision)
    if request.revision is not None and request.revision != grid.revision:
        raise StaleRevision(
            f"map {grid.name!r} is at revision {grid.revision}, not {request.revision}"
        )
    # The whole batch shares MAX_BATCH_EXPANDED, so one request cannot tie the server up.
    share = max(1, state.settings.max_batch_expanded // max(1, len(request.queries)))
    cost = worst_case_expansions(grid.cell_count, state.settings, share, None)
    answers = await state.run_batch(
        _run_batch_entry, [(state, grid, raw, share) for raw in request.queries], cost
    )
    results = [body for body, _ in answers]
    return _json({"map": grid.name, "results": results}, sum(us for _, us in answers))
