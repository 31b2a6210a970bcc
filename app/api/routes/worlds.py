"""Worlds: list and inspect them (open), create, change and delete them (admin token).

A world is stored by the map store in use as maps are (app/authority: the folder writes
``NAME.world.json`` back with MAPS_WRITABLE, Redis shares it between processes), with
revisions, ``if_revision`` and read-your-writes (``revision`` here, ``world_revision`` on
searches). A change touches no map and no map's preprocessing: a door opened by ``PATCH``
is served as soon as the new revision is applied.
"""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.api.auth import ADMIN_TOKEN
from app.api.deps import RegistryDep, StateDep
from app.api.worlds import check_world_name, wait_for_world, world_body, world_summary
from app.authority.documents import map_lookup
from app.models import STALE_REVISION_RESPONSE, ErrorResponse
from app.models.worlds import (
    WorldBody,
    WorldDeleted,
    WorldInfo,
    WorldList,
    WorldPatchBody,
    WorldRevision,
)
from app.state import ServiceState
from gridpath.world.model import (
    WORLD_SUFFIX,
    InvalidWorld,
    World,
    WorldPatch,
    parse_world,
    with_map_links,
)

router = APIRouter(tags=["worlds"])

_CHANGE_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorResponse, "description": "Missing or wrong token (`unauthorized`)."},
    403: {"model": ErrorResponse, "description": "No ADMIN_TOKEN configured (`admin_disabled`)."},
    404: {
        "model": ErrorResponse,
        "description": "`world_not_found`; PATCH: `link_not_found` (an id in `remove` or `set`).",
    },
    409: {
        "model": ErrorResponse,
        "description": "`if_revision` is not current (`revision_conflict`); nothing changed.",
    },
    422: {
        "model": ErrorResponse,
        "description": "`invalid_world` (an unknown map, a cell outside its map, a duplicate "
        "link id, a bad cost, a bad patch), `unsupported_map_kind` (a polygon map); "
        "nothing changed.",
    },
    503: {
        "model": ErrorResponse,
        "description": "Nothing changed: `store_unavailable` (MAP_STORE unreachable), "
        "`shared_store_required` (other processes serve the same folder and no MAP_STORE is "
        "set), `storage_error` (MAPS_WRITABLE could not write), `not_ready`.",
    },
}

IfRevision = Annotated[
    int | None, Query(ge=1, description="Change only if the world is at this revision.")
]


def _json(body: dict[str, Any], status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


@router.get(
    "/worlds",
    response_model=WorldList,
    responses={503: {"model": ErrorResponse, "description": "Still starting."}},
)
async def list_worlds(state: StateDep, store: RegistryDep) -> Response:
    """Every world, sorted by name: its revision, its maps and how many links it declares."""
    return _json({"worlds": [world_summary(world) for world in state.worlds.all()]})


@router.get(
    "/worlds/{name}",
    response_model=WorldInfo,
    responses={
        404: {"model": ErrorResponse, "description": "`world_not_found`."},
        409: STALE_REVISION_RESPONSE,
    },
)
async def get_world(
    name: str,
    state: StateDep,
    store: RegistryDep,
    revision: Annotated[
        int | None,
        Query(ge=1, description="Wait (up to REVISION_WAIT_MS) until this revision is served."),
    ] = None,
) -> Response:
    """One world: its revision, its maps with their current revisions, its links."""
    check_world_name(name)
    await wait_for_world(state, name, revision)
    return _json(world_body(state.worlds.get(name), store))


def _checked(state: ServiceState, world: World) -> World:
    """A world as written: its maps' Tiled links must not take its link ids."""
    grids = {n: g for n in world.maps if (g := state.registry.find(n)) is not None}
    with_map_links(world, grids)
    return world


@router.put(
    "/worlds/{name}",
    response_model=WorldInfo,
    status_code=200,
    responses={**_CHANGE_ERRORS, 201: {"model": WorldInfo, "description": "Created."}},
    dependencies=[ADMIN_TOKEN],
)
async def put_world(
    name: str,
    body: WorldBody,
    state: StateDep,
    store: RegistryDep,
    if_revision: IfRevision = None,
) -> Response:
    """Create or replace a world from its file form (``{"maps": [...], "links": [...]}``),
    checked against the maps served now; a bad one changes nothing."""
    check_world_name(name)
    world = parse_world(name, body, map_lookup(store), source=f"{name}{WORLD_SUFFIX}")
    world, replaced = await state.world_authority.replace(
        name, _checked(state, world), None, if_revision
    )
    return _json(world_body(world, store), 200 if replaced else 201)


@router.patch(
    "/worlds/{name}",
    response_model=WorldRevision,
    responses=_CHANGE_ERRORS,
    dependencies=[ADMIN_TOKEN],
)
async def patch_world(
    name: str, patch: WorldPatchBody, state: StateDep, store: RegistryDep
) -> Response:
    """Remove, add and set links (open or close a door: ``{"set": [{"id": "gate",
    "enabled": true}]}``) as one new revision, or nothing; answers that revision."""
    check_world_name(name)
    if_revision = patch.get("if_revision")
    if if_revision is not None and (
        isinstance(if_revision, bool) or not isinstance(if_revision, int) or if_revision < 1
    ):
        raise InvalidWorld("if_revision must be an integer of 1 or more")
    change = WorldPatch(patch, map_lookup(store), lambda world: _checked(state, world))
    world = await state.world_authority.update(name, change, if_revision)
    return _json({"name": name, "revision": world.revision})


@router.delete(
    "/worlds/{name}",
    response_model=WorldDeleted,
    responses=_CHANGE_ERRORS,
    dependencies=[ADMIN_TOKEN],
)
async def delete_world(
    name: str, state: StateDep, store: RegistryDep, if_revision: IfRevision = None
) -> Response:
    """Remove a world (and, with MAPS_WRITABLE, its file); its maps stay."""
    check_world_name(name)
    world = await state.world_authority.delete(name, if_revision)
    return _json({"name": name, "deleted": True, "revision": world.revision})
