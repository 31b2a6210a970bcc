"""GET /maps/{name}/nearest: the nearest cell where a unit can stand (like Detour's
findNearestPoly or Unity's NavMesh.SamplePosition); the rules are :mod:`gridpath.search.snap`'s."""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, Query

from app.api.deps import RegistryDep, StateDep
from app.api.kinds import require_grid
from app.models import ErrorResponse, NearestCell
from gridpath.errors import InvalidRequest, OutOfBounds
from gridpath.grid import is_valid_map_name
from gridpath.search.snap import nearest_standable

router = APIRouter(tags=["maps"])

_ERRORS = {
    401: {"model": ErrorResponse, "description": "Missing or wrong token (`unauthorized`)."},
    404: {"model": ErrorResponse, "description": "Unknown map (`map_not_found`)."},
    422: {
        "model": ErrorResponse,
        "description": "`invalid_request` (missing or malformed x, y or clearance), "
        "`out_of_bounds`.",
    },
    503: {"model": ErrorResponse, "description": "Still starting (`not_ready`)."},
}


@router.get("/maps/{name}/nearest", response_model=NearestCell, responses=_ERRORS)
def get_nearest(
    name: str,
    state: StateDep,
    store: RegistryDep,
    x: Annotated[int, Query(description="Cell column.")],
    y: Annotated[int, Query(description="Cell row.")],
    clearance: Annotated[int, Query(ge=1, le=255, description="Unit size in cells.")] = 1,
) -> NearestCell:
    """The nearest cell to ``(x, y)`` where a unit of size ``clearance`` can stand (the
    cell itself if it can), within ``SNAP_RADIUS`` cells; nearest by Euclidean distance
    between cell centres, ties broken by smaller ``y``, then smaller ``x``."""
    if not is_valid_map_name(name):
        raise InvalidRequest(f"map name {name!r} is not 1-64 characters of [A-Za-z0-9_-]")
    grid = require_grid(store.get(name), "GET /maps/{name}/nearest")
    if not grid.in_bounds(x, y):
        raise OutOfBounds(
            f"[{x}, {y}] is outside map {grid.name!r} "
            f"(x must be in 0..{grid.width - 1}, y in 0..{grid.height - 1})"
        )
    cell = nearest_standable(grid, (x, y), clearance, state.settings.snap_radius)
    return NearestCell(
        map=grid.name,
        revision=grid.revision,
        found=cell is not None,
        cell=cell,
        distance=None if cell is None else math.dist(cell, (x, y)),
    )
