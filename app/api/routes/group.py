"""POST /group: collision-free timed plans for many units (multi-agent path finding,
:mod:`gridpath.group`; docs/group.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import RegistryDep, StateDep, snapshot_at
from app.api.group import GroupSearch, solve, solve_world, work_budget, world_at
from app.api.kinds import require_grid
from app.api.responses import json_response
from app.models import STALE_REVISION_RESPONSE, ErrorResponse
from app.models.group import AnyGroupRequest, GroupResponse, WorldGroupRequest, WorldGroupResponse
from gridpath.errors import GroupTooLarge
from gridpath.search.warming import require as require_warm

router = APIRouter(tags=["groups"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorResponse,
        "description": "Unknown map (`map_not_found`, also a place on a map not in the "
        "world) or world (`world_not_found`).",
    },
    409: STALE_REVISION_RESPONSE,
    422: {
        "model": ErrorResponse,
        "description": "`invalid_request` (as many starts as goals), `out_of_bounds`, "
        "`start_blocked`, `goal_blocked` (the unit named by its index), `duplicate_cells` "
        "(two units with one start or one goal), `group_too_large` (over MAX_GROUP_UNITS, "
        "or units x free cells over MAX_GROUP_TABLE_CELLS), `invalid_blocked`, "
        "`unsupported_map_kind`.",
    },
    503: {"model": ErrorResponse, "description": "`not_ready` or `overloaded`."},
}


@router.post("/group", response_model=GroupResponse | WorldGroupResponse, responses=_ERRORS)
async def post_group(request: AnyGroupRequest, state: StateDep, store: RegistryDep) -> Response:
    """Collision-free plans for a group of units, tick by tick (docs/group.md): LaCAM* over
    PIBT, the first solution refined while the budget lasts; deterministic (the budget
    counts work, not time). With ``"world"``: units go from place to place of a world's
    maps, a link traversal one tick, each plan entry ``[x, y, m]``."""
    settings = state.settings
    require_warm("group")  # 503 warming_up while a cold start still compiles its kernels
    if len(request.units) > settings.max_group_units:
        raise GroupTooLarge(
            f"{len(request.units)} units, over the limit of "
            f"{settings.max_group_units} (MAX_GROUP_UNITS)"
        )
    if isinstance(request, WorldGroupRequest):
        maps = await world_at(state, request.world, request.world_revision)
        search = GroupSearch(solve_world, request, settings, work_budget(request, settings))
        body, us = await state.search(maps, search)
        return json_response(body, us)
    grid = await snapshot_at(state, store, request.map, request.revision)
    require_grid(grid, "POST /group")
    search = GroupSearch(solve, request, settings, work_budget(request, settings))
    body, us = await state.search(grid, search)
    return json_response(body, us)
