"""POST /validate: is a client's claimed path possible on the map (anti-cheat)?"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import RegistryDep, StateDep
from app.api.group import validate_group
from app.api.kinds import kind_of, parse_for_kind
from app.api.path_request import path_snapshot
from app.api.responses import json_response
from app.config import Settings
from app.models import (
    STALE_REVISION_RESPONSE,
    AnyValidateRequest,
    ErrorResponse,
    PolygonValidateRequest,
    ValidateRequest,
    ValidateResponse,
)
from app.models.group import GroupValidateResponse, WorldGroupValidateResponse
from app.models.world_paths import WorldValidateRequest, WorldValidateResponse
from app.observability import metrics
from app.state import SearchRequest
from gridpath.maps.snapshot import MapSnapshot

router = APIRouter(tags=["paths"])

_MODELS = {
    "grid": ValidateRequest,
    "polygon": PolygonValidateRequest,
    "world": WorldValidateRequest,
}


@router.post(
    "/validate",
    response_model=ValidateResponse
    | GroupValidateResponse
    | WorldGroupValidateResponse
    | WorldValidateResponse,
    responses={
        404: {
            "model": ErrorResponse,
            "description": "`map_not_found` (also a place on a map not in the world), "
            "`world_not_found`.",
        },
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
    `blocked_cell`, `vertex_conflict`, `edge_conflict`, `crossing_conflict`; with
    ``"world"``, each plan entry ``[x, y, m]`` and a link traversal one tick: `link_missing`,
    `link_disabled`, `link_one_way` besides. Through a world (``world``, ``path`` of
    places): a step is a move on one map or a link traversal (the same three codes), and
    ``cost`` includes the links'. ``valid`` is false with the violations listed (at least
    the first of each kind) when anything is wrong."""
    if isinstance(request, dict) and "plans" in request:  # a group move (docs/group.md)
        return await validate_group(request, state, store)
    snapshot = await path_snapshot(state, request, _MODELS)  # judged for its map's kind
    check = validation_request(request, snapshot, state.settings)
    body, search_us = await state.search(snapshot, check)
    metrics.observe_verdict(v["code"] for v in body["violations"])
    return json_response(body, search_us)


def validation_request(
    raw: dict, snapshot: MapSnapshot, settings: Settings
) -> SearchRequest[tuple[dict, float]]:
    """The body parsed for the snapshot's kind, checked against the caps, with its cost."""
    query = parse_for_kind(raw, snapshot.kind, _MODELS, snapshot.name)
    return kind_of(snapshot).validation(query, snapshot, settings)
