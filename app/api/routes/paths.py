"""POST /path and POST /paths: searches with every option.

Each route takes four steps: the snapshot (looked up once), the domain request (parsed for
the map's kind, caps and cost applied: :mod:`app.api.path_request`), the search
(``ServiceState.search``: the scheduler admits it and lends it a scratch), the answer
(bodies built in :mod:`app.api.path_body`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.routing import Route

from app.api.deps import RegistryDep, StateDep, snapshot_at
from app.api.json_body import MISSING, json_body
from app.api.kinds import map_or_world
from app.api.path_request import batch_requests, path_request, path_snapshot
from app.api.responses import json_response
from app.api.world_kind import require_world_revision
from app.api.worlds import world_maps
from app.models import (
    AnyBatchRequest,
    AnyPathRequest,
    BatchRequest,
    BatchResponse,
    ErrorResponse,
    PathResponse,
    PolygonPathResponse,
)
from app.models.world_paths import WorldBatchRequest, WorldBatchResponse, WorldPathResponse
from app.state import ServiceState
from gridpath.errors import BatchTooLarge
from gridpath.maps import MapRegistry

router = APIRouter(tags=["paths"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorResponse,
        "description": "Unknown map (`map_not_found`, also a place on a map not in the "
        "world), unknown world (`world_not_found`).",
    },
    422: {
        "model": ErrorResponse,
        "description": "`invalid_request`, `invalid_<option>`, `out_of_bounds`, "
        "`start_blocked`, `goal_blocked` (and `batch_too_large` for /paths); polygon "
        "maps: `target_not_walkable` (a start or goal outside the walkable area, without "
        "`snap`); `unsupported_map_kind` (a field of the other kind of map).",
    },
    409: {
        "model": ErrorResponse,
        "description": "`stale_revision`: the map (or world) is past the `revision` (or "
        "`world_revision`) named, or this process has not reached it within REVISION_WAIT_MS.",
    },
    503: {
        "model": ErrorResponse,
        "description": "Still starting (`not_ready`), or every search thread busy and the "
        "queue full, or no thread within SEARCH_QUEUE_WAIT_MS (`overloaded`, with "
        "`Retry-After`).",
    },
}


@router.post(
    "/path",
    response_model=PathResponse | PolygonPathResponse | WorldPathResponse,
    responses=_ERRORS,
)
async def post_path(request: AnyPathRequest, state: StateDep, store: RegistryDep) -> Response:
    """Path between two cells of a grid (A* by default: optimal, 8-connected, no corner
    cutting), or between two points of a polygon map (the shortest path, or the route over
    its waypoints with ``mode: waypoints``), or between two places of a world through its
    links (``world`` instead of ``map``: the answer lists the legs, one per map visited,
    and the links taken)."""
    return await find_path_answer(state, request)


async def find_path_answer(state: ServiceState, raw: dict) -> Response:
    """``POST /path`` in its four steps (``raw``: a JSON object, judged for its map's kind)."""
    snapshot = await path_snapshot(state, raw)
    search = path_request(raw, snapshot, state.settings)
    body, search_us = await state.search(snapshot, search)
    return json_response(body, search_us)


_PATH_BODY: TypeAdapter[dict] = TypeAdapter(AnyPathRequest)


async def serve_path(request: Request) -> Response:
    """``POST /path`` as a plain Starlette endpoint: the route that serves it (``main.py``
    puts it ahead of the others). ``post_path`` above declares it to FastAPI (the OpenAPI
    document's ``findPath``, its token, its body and answers) and would answer the same
    bytes (``tests/app/api/test_lean_path.py``), at several times the cost per request:
    FastAPI's dependency resolution and body handling cost more than a short search
    (bench/README.md, 'bench-http'). Here the body is decoded as FastAPI decodes it
    (:mod:`app.api.json_body`) and validated with the declared body type; the token was
    checked before the body (``TokenGate``) and the service is the app's."""
    request.scope["route"] = LEAN_PATH_ROUTE  # as a router sets it: the metrics' route label
    body = await json_body(request)  # a body that is not JSON: 422 before anything else
    state: ServiceState = request.app.state.service
    state.require_ready()  # FastAPI solves the dependencies before it validates the body
    if body is MISSING:
        missing = {"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}
        raise RequestValidationError([missing])
    try:
        raw = _PATH_BODY.validate_python(body)
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors, body=body) from None
    return await find_path_answer(state, raw)


@router.post("/paths", response_model=BatchResponse | WorldBatchResponse, responses=_ERRORS)
async def post_paths(request: AnyBatchRequest, state: StateDep, store: RegistryDep) -> Response:
    """Many queries on one map (or through one world) in one call, run in parallel; one
    result per query, in order.

    A query that fails gets ``{"error": {...}}`` in its place; the others are answered.
    """
    batch = batch_body(request)
    if isinstance(batch, WorldBatchRequest):
        return await find_world_paths_answer(state, batch)
    return await find_paths_answer(state, store, batch)


def batch_body(body: Any) -> BatchRequest | WorldBatchRequest:
    """A ``/paths`` body: a batch through a world when it names ``world``, else a map's
    batch, validated exactly as before worlds (``map_or_world``)."""
    return map_or_world(body, BatchRequest, WorldBatchRequest)


async def find_world_paths_answer(state: ServiceState, batch: WorldBatchRequest) -> Response:
    """``POST /paths`` through a world: its view, each query's request, the searches (one
    by one, in chunks on the search threads), the answer."""
    if len(batch.queries) > state.settings.max_batch:
        raise BatchTooLarge(
            f"{len(batch.queries)} queries, over the limit of {state.settings.max_batch}"
        )
    maps = await world_maps(state, batch.world, batch.world_revision)
    require_world_revision(maps, batch.world_revision)
    searches = batch_requests(batch.queries, maps, state.settings)
    answers = await state.search_all(maps, searches)
    body = {"world": maps.name, "world_revision": maps.revision, "results": [b for b, _ in answers]}
    return json_response(body, sum(us for _, us in answers))


async def find_paths_answer(state: ServiceState, store: MapRegistry, batch: BatchRequest):
    """``POST /paths`` once its body is a :class:`BatchRequest`: the snapshot, each query's
    request, the searches (a chunk's common queries in one compiled call), the answer."""
    if len(batch.queries) > state.settings.max_batch:
        raise BatchTooLarge(
            f"{len(batch.queries)} queries, over the limit of {state.settings.max_batch}"
        )
    snapshot = await snapshot_at(state, store, batch.map, batch.revision)
    searches = batch_requests(batch.queries, snapshot, state.settings)
    answers = await state.search_all(snapshot, searches)
    results = [body for body, _ in answers]
    return json_response({"map": snapshot.name, "results": results}, sum(us for _, us in answers))


async def serve_paths(request: Request) -> Response:
    """``POST /paths`` as a plain Starlette endpoint, as :func:`serve_path` serves ``/path``
    and for the same reason (``post_paths`` declares it and would answer the same bytes,
    ``tests/app/api/test_lean_path.py``): the body decoded as FastAPI decodes it and validated
    as FastAPI validates a body model (``from_attributes``), after the service's readiness
    (FastAPI solves the dependencies first)."""
    request.scope["route"] = LEAN_PATHS_ROUTE
    body = await json_body(request)
    state: ServiceState = request.app.state.service
    store = state.require_ready()
    if body is MISSING:
        missing = {"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}
        raise RequestValidationError([missing])
    batch = batch_body(body)
    if isinstance(batch, WorldBatchRequest):
        return await find_world_paths_answer(state, batch)
    return await find_paths_answer(state, store, batch)


# The routes that serve POST /path and POST /paths (main.py puts them ahead of the routers).
LEAN_PATH_ROUTE = Route("/path", serve_path, methods=["POST"], include_in_schema=False)
LEAN_PATHS_ROUTE = Route("/paths", serve_paths, methods=["POST"], include_in_schema=False)
