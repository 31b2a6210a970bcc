"""POST /validate: is a client's claimed path possible on the map (anti-cheat)?"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import RegistryDep, StateDep
from app.api.group import validate_group
from app.api.path_request import path_snapshot
from app.api.polygon import parse_for_kind, polygon_validate
from app.api.responses import json_response
from app.api.rules import search_options
from app.config import Settings
from app.models import (
    STALE_REVISION_RESPONSE,
    AnyValidateRequest,
    ErrorResponse,
    PolygonValidateRequest,
    ValidateRequest,
    ValidateResponse,
)
from app.models.group import GroupValidateResponse
from app.observability import metrics
from gridpath.errors import InvalidField
from gridpath.grid import Grid
from gridpath.nav.snapshot import PolygonMap
from gridpath.search import SearchOptions
from gridpath.search.scratch import SearchScratch
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
    response_model=ValidateResponse | GroupValidateResponse,
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
async def post_validate(
    request: AnyValidateRequest, state: StateDep, store: RegistryDep
) -> Response:
    """Grid maps: check every step (``cells``) or every sight line (``waypoints``) of a
    claimed ``path``, its cost against ``max_cost``, and its ends. Polygon maps: check that
    every segment of the polyline ``points`` stays in the walkable area (touching its
    boundary allowed) and its length against ``max_cost``. With ``plans`` (grid maps): a
    group move, each unit's cell at every tick (docs/group.md): `illegal_step`,
    `blocked_cell`, `vertex_conflict`, `edge_conflict`, `crossing_conflict`. ``valid`` is
    false with the violations listed (at least the first of each kind) when anything is
    wrong."""
    if isinstance(request, dict) and "plans" in request:  # a group move (docs/group.md)
        return await validate_group(request, state, store)
    snapshot = await path_snapshot(state, request, _MODELS)  # judged for its map's kind
    check = validation_request(request, snapshot, state.settings)
    body, search_us = await state.search(snapshot, check)
    metrics.observe_verdict(v["code"] for v in body["violations"])
    return json_response(body, search_us)


@dataclass(frozen=True)
class PolygonValidation:
    query: PolygonValidateRequest
    settings: Settings
    cost: int  # the polyline's points

    def run(self, pmap: PolygonMap, scratch: SearchScratch) -> tuple[dict, float]:
        return polygon_validate(pmap, self.query, self.settings)


@dataclass(frozen=True)
class GridValidation:
    query: ValidateRequest
    options: SearchOptions
    cost: int  # the path's cells, and the map's if the optimal cost is searched for

    def run(self, grid: Grid, scratch: SearchScratch) -> tuple[dict, float]:
        request = self.query
        result = validate_path(
            grid,
            as_cells(request.path),
            mode=request.mode,
            options=self.options,
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
        return body, result.search_us


def validation_request(
    raw: dict, snapshot: Grid | PolygonMap, settings: Settings
) -> GridValidation | PolygonValidation:
    """The body parsed for the snapshot's kind, checked against the caps, with its cost."""
    query = parse_for_kind(raw, snapshot.kind, _MODELS, snapshot.name)
    if snapshot.kind == "polygon":
        return PolygonValidation(query, settings, len(query.points))
    if len(query.path) > settings.max_validate_cells:
        raise InvalidField(
            "path",
            f"path has {len(query.path)} entries, over the limit of {settings.max_validate_cells}",
        )
    options = search_options(query, settings)
    cost = len(query.path) + (snapshot.cell_count if query.compare_optimal else 0)
    return GridValidation(query, options, cost)
