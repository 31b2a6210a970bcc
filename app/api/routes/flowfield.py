"""POST /flowfield: one search from a goal serves every unit heading there (cached)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import RegistryDep, StateDep, wait_for_revision
from app.api.echo import flow_field_options
from app.api.kinds import map_or_world, require_grid
from app.api.responses import encode_array
from app.api.rules import search_options
from app.api.world_fields import world_flowfield_request
from app.api.worlds import world_maps
from app.cache import LRUCache
from app.models import (
    STALE_REVISION_RESPONSE,
    AnyFlowFieldRequest,
    ErrorResponse,
    FlowFieldRequest,
    FlowFieldResponse,
)
from app.models.world_paths import WorldFlowFieldRequest, WorldFlowFieldResponse
from app.observability import metrics, note_map, record_search
from app.state import ServiceState
from gridpath.errors import InvalidField, require_revision
from gridpath.grid import Grid
from gridpath.picture import render_flow_field
from gridpath.search import SearchOptions
from gridpath.search.flowfield import DIRECTIONS, flow_field
from gridpath.search.scratch import SearchScratch

router = APIRouter(tags=["paths"])


@router.post(
    "/flowfield",
    response_model=FlowFieldResponse | WorldFlowFieldResponse,
    responses={
        200: {"content": {"image/png": {}}},
        404: {
            "model": ErrorResponse,
            "description": "`map_not_found` (also a goal on a map not in the world), "
            "`world_not_found`.",
        },
        409: STALE_REVISION_RESPONSE,
        422: {"model": ErrorResponse},
        503: {"model": ErrorResponse, "description": "`not_ready` or `overloaded`."},
    },
)
async def post_flowfield(
    body: AnyFlowFieldRequest, state: StateDep, store: RegistryDep
) -> Response:
    """Cost to ``goal`` and the first step towards it for every cell (Dijkstra from the goal).
    Through a world (``world``, ``goal`` a place): one field per map of the world, with the
    cost to the goal through its links and the link to take from each cell.

    Results are cached per (map revision, goal, options); ``X-Cache`` says hit or miss.
    """
    request = map_or_world(body, FlowFieldRequest, WorldFlowFieldRequest)
    if isinstance(request, WorldFlowFieldRequest):
        maps = await world_maps(state, request.world, request.world_revision)
        search = world_flowfield_request(request, maps, state.settings, state.flowfields)
        return _field_answer(*await state.search(maps, search), "application/json")
    await wait_for_revision(state, request.map, request.revision)
    grid = require_grid(store.get(request.map), "POST /flowfield")
    note_map(grid.name, grid.revision)
    field = flow_field_request(request, grid, state)
    media = "image/png" if request.format == "png" else "application/json"
    return _field_answer(*await state.search(grid, field), media)


def _field_answer(body: bytes, hit: bool, media: str) -> Response:
    metrics.observe_flowfield_cache(hit)
    return Response(body, media_type=media, headers={"X-Cache": "hit" if hit else "miss"})


@dataclass(frozen=True)
class FlowFieldSearch:
    """One flow field, served from the cache (per revision, goal, options) or computed."""

    request: FlowFieldRequest
    options: SearchOptions
    blocked: tuple[tuple[int, ...], ...]
    cache: LRUCache
    cost: int  # a flow field expands every reachable cell

    def run(self, grid: Grid, scratch: SearchScratch) -> tuple[bytes, bool]:
        request, options, blocked = self.request, self.options, self.blocked
        key = (grid.name, grid.revision, grid.sha256, tuple(request.goal), options, blocked)
        return self.cache.get_or_compute(
            (*key, request.format), lambda: self._compute(grid, scratch)
        )

    def _compute(self, grid: Grid, scratch: SearchScratch) -> bytes:
        request, options, blocked = self.request, self.options, self.blocked
        began = time.perf_counter_ns()
        field = flow_field(grid, tuple(request.goal), options, blocked=blocked, scratch=scratch)
        search_us = (time.perf_counter_ns() - began) / 1000
        record_search("flowfield", field.expanded, search_us, None)
        if request.format == "png":
            return render_flow_field(grid, field)
        return orjson.dumps(
            {
                "map": grid.name,
                "revision": grid.revision,
                "goal": list(request.goal),
                "width": grid.width,
                "height": grid.height,
                "reachable": field.reachable,
                "expanded": field.expanded,
                "cost": encode_array(field.cost),
                "next": encode_array(field.next),
                "directions": list(DIRECTIONS),
                "options": flow_field_options(grid, options.resolved(), blocked),
            }
        )


def flow_field_request(
    request: FlowFieldRequest, grid: Grid, state: ServiceState
) -> FlowFieldSearch:
    """The flow field a request asks for, checked against the revision and the caps."""
    require_revision(grid.name, grid.revision, request.revision)
    settings = state.settings
    if grid.cell_count > settings.max_flowfield_cells:
        raise InvalidField(
            "map",
            f"map {grid.name!r} has {grid.cell_count} cells, over the "
            f"flow-field limit of {settings.max_flowfield_cells}",
        )
    options = search_options(request, settings)
    blocked = tuple(sorted({tuple(c) for c in request.blocked}))
    return FlowFieldSearch(request, options, blocked, state.flowfields, grid.cell_count)
