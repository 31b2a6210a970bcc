"""POST /validate: is a client's claimed path possible on the map (anti-cheat)?"""

from __future__ import annotations

import numpy as np
import orjson
from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import StateDep, StoreDep, wait_for_revision
from app.api.polygon import map_name_of, parse_for_kind, polygon_validate, require_grid
from app.api.responses import json_response, server_timing
from app.api.routes.group import validate_group
from app.api.rules import search_options
from app.models import (
    STALE_REVISION_RESPONSE,
    AnyValidateRequest,
    ErrorResponse,
    PolygonValidateRequest,
    ValidateRequest,
    ValidateResponse,
)
from app.observability import metrics, note_map
from app.state import ServiceState
from gridpath.errors import InvalidField
from gridpath.grid import MapStore
from gridpath.search.validate import validate_path

router = APIRouter(tags=["paths"])

_INT32 = 2**31 - 1


def as_cells(path: list[tuple[int, int]]) -> np.ndarray:
    """``(n, 2)`` int64 cells; coordinates far outside any map are clamped (they stay out of
    bounds) so that any integer a client sends is checked, never an overflow."""
    try:
        cells = np.array(path, dtype=np.int64).reshape(-1, 2)
    except OverflowError:
        cells = np.array(
            [(max(-_INT32, min(_INT32, x)), max(-_INT32, min(_INT32, y))) for x, y in path],
            dtype=np.int64,
        ).reshape(-1, 2)
    return np.clip(cells, -_INT32, _INT32)


_MODELS = {"grid": ValidateRequest, "polygon": PolygonValidateRequest}


@router.post(
    "/validate",
    response_model=ValidateResponse,
    responses={
        404: {"model": ErrorResponse},
        409: STALE_REVISION_RESPONSE,
        422: {
            "model": ErrorResponse,
            "description": "Bad input; `unsupported_map_kind`: a field of the other kind of "
            "map (`path` on a polygon map, `points` on a grid).",
        },
        503: {"model": ErrorResponse, "description": "`not_ready` or `overloaded`."},
    },
)
async def post_validate(request: AnyValidateRequest, state: StateDep, store: StoreDep) -> Response:
    """Grid maps: check every step (``cells``) or every sight line (``waypoints``) of a
    claimed ``path``, its cost against ``max_cost``, and its ends. Polygon maps: check that
    every segment of the polyline ``points`` stays in the walkable area (touching its
    boundary allowed) and its length against ``max_cost``. With ``plans`` (grid maps): a
    group move, each unit's cell at every tick (docs/group.md): `illegal_step`,
    `blocked_cell`, `vertex_conflict`, `edge_conflict`, `crossing_conflict`. ``valid`` is
    false with the violations listed (at least the first of each kind) when anything is
    wrong."""
    raw: dict = request  # a JSON object, validated below for the map's kind
    if "plans" in raw:  # a group move (docs/group.md)
        return await validate_group(raw, state, store)
    name = map_name_of(raw)
    if name is not None and type(raw.get("revision")) is int:
        await wait_for_revision(state, name, raw["revision"])
    snapshot = store.find(name) if name is not None else None
    kind = snapshot.kind if snapshot is not None else "grid"
    query = parse_for_kind(raw, kind, _MODELS, name or "")
    if kind == "polygon":
        pmap = store.get(query.map)
        if pmap.kind == "polygon":  # (not replaced by a grid meanwhile)
            note_map(pmap.name, pmap.revision)
            body, us = await state.run_search(
                polygon_validate, pmap, query, state.settings, cost=len(query.points)
            )
            metrics.observe_verdict(v["code"] for v in body["violations"])
            return json_response(body, us)
        query = parse_for_kind(raw, "grid", _MODELS, name or "")
    grid = require_grid(store.get(query.map), "a cell path")
    cost = len(query.path) + (grid.cell_count if query.compare_optimal else 0)
    return await state.run_search(_validate, query, state, store, cost=cost)


def _validate(request: ValidateRequest, state: ServiceState, store: MapStore) -> Response:
    settings = state.settings
    if len(request.path) > settings.max_validate_cells:
        raise InvalidField(
            "path",
            f"path has {len(request.path)} entries, over the limit of "
            f"{settings.max_validate_cells}",
        )
    # the snapshot this validation runs on, start to end
    grid = require_grid(store.get(request.map), "a cell path")
    note_map(grid.name, grid.revision)
    options = search_options(request, settings)
    path = as_cells(request.path)
    with state.search_scratch() as scratch:
        result = validate_path(
            grid,
            path,
            mode=request.mode,
            options=options,
            blocked=[tuple(c) for c in request.blocked],
            max_cost=request.max_cost,
            start=tuple(request.start) if request.start else None,
            goal=tuple(request.goal) if request.goal else None,
            compare_optimal=request.compare_optimal,
            scratch=scratch,
        )
    violations = [
        {"index": v.index, "code": v.code, "message": v.message} for v in result.violations
    ]
    if request.revision is not None and request.revision != grid.revision:
        violations.insert(
            0,
            {
                "index": -1,
                "code": "stale_revision",
                "message": f"the path was made on revision {request.revision}; "
                f"map {grid.name!r} is at revision {grid.revision}",
            },
        )
    metrics.observe_verdict(v["code"] for v in violations)
    body = {
        "map": grid.name,
        "revision": grid.revision,
        "valid": not violations,
        "cost": result.cost,
        "checked": result.checked,
        "violations": violations,
    }
    if request.compare_optimal:
        body["optimal_cost"] = result.optimal_cost
    if request.timing:
        body["search_us"] = round(result.search_us, 1)
    return Response(
        orjson.dumps(body), media_type="application/json", headers=server_timing(result.search_us)
    )
