"""POST /flowfield: one search from a goal serves every unit heading there (cached)."""

from __future__ import annotations

import base64
import io

import numpy as np
import orjson
from fastapi import APIRouter
from fastapi.responses import Response
from PIL import Image

from app.api.deps import StateDep, StoreDep, wait_for_revision
from app.api.rules import search_options
from app.errors import InvalidField, StaleRevision
from app.grid import Grid, MapStore
from app.schemas import (
    STALE_REVISION_RESPONSE,
    ErrorResponse,
    FlowFieldRequest,
    FlowFieldResponse,
)
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
        409: STALE_REVISION_RESPONSE,
        422: {"model": ErrorResponse},
    },
)
async def post_flowfield(request: FlowFieldRequest, state: StateDep, store: StoreDep) -> Response:
    """Cost to ``goal`` and the first step towards it for every cell (Dijkstra from the goal).

    Results are cached per (map revision, goal, options); ``X-Cache`` says hit or miss.
    """
    await wait_for_revision(state, request.map, request.revision)
    return await state.run_search(_flowfield, request, state, store)


def _flowfield(request: FlowFieldRequest, state: ServiceState, store: MapStore) -> Response:
    grid = store.get(request.map)
    if request.revision is not None and request.revision != grid.revision:
        raise StaleRevision(
            f"map {grid.name!r} is at revision {grid.revision}, not {request.revision}"
        )
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
            try:
                field = flow_field(
                    grid, tuple(request.goal), options, blocked=blocked, scratch=scratch
                )
            except InvalidOption as exc:
                raise InvalidField(exc.field, exc.message) from None
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
    media = "image/png" if request.format == "png" else "application/json"
    return Response(body, media_type=media, headers={"X-Cache": "hit" if hit else "miss"})
