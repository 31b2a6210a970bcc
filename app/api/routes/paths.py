"""POST /path: the A* path between two cells, with its cost and smoothed waypoints."""

from __future__ import annotations

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import StateDep, StoreDep
from app.schemas import ErrorResponse, PathRequest, PathResponse
from app.search import find_path, smooth, turning_points

router = APIRouter(tags=["paths"])

_ERRORS = {
    404: {"model": ErrorResponse, "description": "Unknown map (`map_not_found`)."},
    422: {"model": ErrorResponse,
          "description": "`invalid_request`, `out_of_bounds`, `start_blocked` or `goal_blocked`."},
    503: {"model": ErrorResponse, "description": "Still starting (`not_ready`)."},
}


@router.post("/path", response_model=PathResponse, responses=_ERRORS)
def post_path(request: PathRequest, state: StateDep, store: StoreDep) -> Response:
    """Shortest 8-connected path without corner cutting (A*, octile heuristic)."""
    grid = store.get(request.map)
    with state.pool.borrow() as scratch:
        result = find_path(grid, request.start, request.goal,
                           max_expanded=state.settings.max_expanded, scratch=scratch)
    if result.found:
        waypoints = smooth(grid, result.path) if request.smooth else turning_points(result.path)
    else:
        waypoints = result.path
    # Serialised straight from the numpy arrays (see bench/README.md for the measurement);
    # the shape is PathResponse, which the OpenAPI schema declares.
    body = {
        "map": grid.name,
        "revision": grid.revision,
        "found": result.found,
        "reason": result.reason,
        "cost": result.cost,
        "path": result.path,
        "waypoints": waypoints,
        "expanded": result.expanded,
    }
    return Response(orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY),
                    media_type="application/json")
