"""POST /flowfield: one search from a goal serves every unit heading there (cached)."""

from __future__ import annotations

import base64
import io
import time

import numpy as np
import orjson
from fastapi import APIRouter
from fastapi.responses import Response
from PIL import Image

from app.api.deps import StateDep, StoreDep
from app.api.rules import search_options
from app.errors import InvalidField
from app.grid import Grid, MapStore
from app.observability import metrics, note_map, record_search
from app.schemas import ErrorResponse, FlowFieldRequest, FlowFieldResponse
from app.search import InvalidOption
from app.search.flowfield import DIRECTIONS, FlowField, flow_field
from app.service import ServiceState

router = APIRouter(tags=["paths"])


def _encode(array: np.ndarray) -> dict:
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    return {
        "dtype": array.dtype.str,
        "shape": list(array.shape),
        "data": base64.b64encode(array.tobytes()).decode("ascii"),
    }


def render_png(grid: Grid, field: FlowField) -> bytes:
    """Blocked black, unreachable dark red, reachable from bright (near) to dark blue (far)."""
    rgb = np.zeros((grid.height, grid.width, 3), dtype=np.uint8)
    walkable = grid.walkable.astype(bool)
    reachable = field.cost >= 0
    rgb[walkable & ~reachable] = (110, 0, 0)
    if reachable.any():
        near = 1.0 - field.cost / max(float(field.cost[reachable].max()), 1e-9)
        rgb[reachable, 0] = (40 + 215 * near[reachable] ** 2).astype(np.uint8)
        rgb[reachable, 1] = (60 + 195 * near[reachable]).astype(np.uint8)
        rgb[reachable, 2] = 255
    out = io.BytesIO()
    Image.fromarray(rgb, mode="RGB").save(out, format="PNG")
    return out.getvalue()


@router.post(
    "/flowfield",
    response_model=FlowFieldResponse,
    responses={
        200: {"content": {"image/png": {}}},
        404: {"model": ErrorResponse},
        422: {"model": ErrorResponse},
        503: {"model": ErrorResponse, "description": "`not_ready` or `overloaded`."},
    },
)
async def post_flowfield(request: FlowFieldRequest, state: StateDep, store: StoreDep) -> Response:
    """Cost to ``goal`` and the first step towards it for every cell (Dijkstra from the goal).

    Results are cached per (map revision, goal, options); ``X-Cache`` says hit or miss.
    """
    cost = store.get(request.map).cell_count
    return await state.run_search(_flowfield, request, state, store, cost=cost)


def _flowfield(request: FlowFieldRequest, state: ServiceState, store: MapStore) -> Response:
    grid = store.get(request.map)
    note_map(grid.name, grid.revision)
    settings = state.settings
    if grid.cell_count > settings.max_flowfield_cells:
        raise InvalidField(
            "map",
            f"map {grid.name!r} has {grid.cell_count} cells, over the "
            f"flow-field limit of {settings.max_flowfield_cells}",
        )
    options = search_options(request, settings)
    blocked = tuple(sorted({tuple(c) for c in request.blocked}))
    key = (
        grid.name,
        grid.revision,
        grid.sha256,
        tuple(request.goal),
        options,
        blocked,
        request.format,
    )

    def compute() -> bytes:
        with state.search_scratch() as scratch:
            began = time.perf_counter_ns()
            try:
                field = flow_field(
                    grid, tuple(request.goal), options, blocked=blocked, scratch=scratch
                )
            except InvalidOption as exc:
                raise InvalidField(exc.field, exc.message) from None
            search_us = (time.perf_counter_ns() - began) / 1000
            record_search("flowfield", field.expanded, search_us, None)
        if request.format == "png":
            return render_png(grid, field)
        effective = options.resolved()
        return orjson.dumps(
            {
                "map": grid.name,
                "revision": grid.revision,
                "goal": list(request.goal),
                "width": grid.width,
                "height": grid.height,
                "reachable": field.reachable,
                "expanded": field.expanded,
                "cost": _encode(field.cost),
                "next": _encode(field.next),
                "directions": list(DIRECTIONS),
                "options": {
                    "connectivity": effective.connectivity,
                    "diagonal": effective.diagonal.value,
                    "cost_model": effective.cost_model.value,
                    "clearance": effective.clearance,
                    "terrain_costs": {**grid.terrain_costs, **dict(effective.terrain_costs)},
                    "blocked": [list(c) for c in blocked],
                },
            }
        )

    body, hit = state.flowfields.get_or_compute(key, compute)
    metrics.observe_flowfield_cache(hit)
    media = "image/png" if request.format == "png" else "application/json"
    return Response(body, media_type=media, headers={"X-Cache": "hit" if hit else "miss"})
