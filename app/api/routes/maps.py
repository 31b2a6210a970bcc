"""Maps: list and inspect them (open), change them (admin token), look at them (PNG)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from app.api.auth import ADMIN_TOKEN
from app.api.deps import RegistryDep, StateDep, wait_for_revision
from app.api.kinds import require_grid
from app.api.map_info import check_map_name, map_info
from app.api.polygon import polygon_upload
from app.config import Settings
from app.models import (
    STALE_REVISION_RESPONSE,
    UPLOAD_BODY,
    AnyMapInfo,
    ErrorResponse,
    LoadError,
    MapDeleted,
    MapInfo,
    MapList,
    MapPatch,
    MapReload,
    PolygonMapInfo,
    ReloadedMap,
)
from gridpath.errors import InvalidField, InvalidRequest, MapLoadError, TerrainCostOutOfRange
from gridpath.grid import Grid
from gridpath.grid.edits import Edit, GridEdit
from gridpath.grid.upload import load_upload
from gridpath.nav.model import NAV_SUFFIX
from gridpath.nav.snapshot import (
    HoleEdit,
    PolygonEdit,
    PolygonMap,
    polygon_map,
)
from gridpath.picture import render_map
from gridpath.search import SearchOptions, find_path
from gridpath.search.scratch import SearchScratch

router = APIRouter(tags=["maps"])

_ADMIN_ERRORS = {
    401: {"model": ErrorResponse, "description": "Missing or wrong token (`unauthorized`)."},
    403: {"model": ErrorResponse, "description": "No ADMIN_TOKEN configured (`admin_disabled`)."},
    404: {"model": ErrorResponse, "description": "`map_not_found`."},
    409: {
        "model": ErrorResponse,
        "description": "`if_revision` is not current (`revision_conflict`).",
    },
    422: {"model": ErrorResponse, "description": "Bad map data or edit; nothing changed."},
    503: {
        "model": ErrorResponse,
        "description": "Nothing changed: `store_unavailable` (MAP_STORE unreachable), "
        "`shared_store_required` (other processes serve the same folder and no MAP_STORE is "
        "set), `storage_error` (MAPS_WRITABLE could not write), `not_ready`.",
    },
}


@router.get(
    "/maps",
    response_model=MapList,
    responses={503: {"model": ErrorResponse, "description": "Still starting."}},
)
def list_maps(store: RegistryDep) -> MapList:
    """Every loaded map, sorted by name."""
    return MapList(maps=[map_info(grid) for grid in store.all()])


@router.get(
    "/maps/{name}",
    response_model=AnyMapInfo,
    responses={
        404: {"model": ErrorResponse},
        409: STALE_REVISION_RESPONSE,
    },
)
async def get_map(
    name: str,
    state: StateDep,
    store: RegistryDep,
    revision: Annotated[
        int | None,
        Query(ge=1, description="Wait (up to REVISION_WAIT_MS) until this revision is served."),
    ] = None,
) -> MapInfo | PolygonMapInfo:
    """One map's metadata, with its current revision and content hash."""
    check_map_name(name)
    await wait_for_revision(state, name, revision)
    return map_info(store.get(name))


# A revision below 1 names none: 422, never a conflict (revisions start at 1).
IfRevision = Annotated[
    int | None, Query(ge=1, description="Change only if the map is at this revision.")
]

_CELL_PARAM = re.compile(r"(-?[0-9]{1,9}),(-?[0-9]{1,9})")  # ASCII digits, no spaces


def _cell_param(value: str | None, field: str) -> tuple[int, int] | None:
    if value is None:
        return None
    match = _CELL_PARAM.fullmatch(value)
    if match is None:
        raise InvalidField(field, f"{field} must be 'x,y' integers, got {value!r}")
    return int(match[1]), int(match[2])


@dataclass(frozen=True)
class MapPicture:
    """A map drawn as PNG, with the default ``/path`` result between two cells if given:
    run by the search scheduler as any search (bounded by MAX_IMAGE_PIXELS and
    MAX_EXPANDED, at most SEARCH_THREADS at once), never on the framework's thread pool."""

    ends: tuple[tuple[int, int], tuple[int, int]] | None
    scale: int
    max_expanded: int
    cost: int  # its worst case: the pixels drawn, and the cells a path search may expand

    def run(self, grid: Grid, scratch: SearchScratch) -> bytes:
        path = waypoints = None
        if self.ends is not None:
            # smooth=True: the waypoints find_path gives, never dearer than the path on terrain
            options = SearchOptions(max_expanded=self.max_expanded, smooth=True)
            result = find_path(grid, *self.ends, options, waypoints=True, scratch=scratch)
            path, waypoints = result.path, result.waypoints
        return render_map(grid, path, waypoints, self.scale)


def map_picture(
    grid: Grid, settings: Settings, start: str | None, goal: str | None, scale: int | None
) -> MapPicture:
    """The picture a ``GET /maps/{name}/image`` asks for, checked against the caps."""
    if scale is None:
        scale = max(1, min(8, 512 // max(grid.width, grid.height)))
    pixels = grid.cell_count * scale * scale
    if pixels > settings.max_image_pixels:
        raise InvalidField("scale", f"scale {scale} makes the image too large")
    start_cell, goal_cell = _cell_param(start, "start"), _cell_param(goal, "goal")
    if (start_cell is None) != (goal_cell is None):
        raise InvalidRequest("give both start and goal, or neither")
    ends = (start_cell, goal_cell) if start_cell is not None and goal_cell is not None else None
    max_expanded = min(settings.max_expanded, grid.cell_count)
    return MapPicture(ends, scale, max_expanded, pixels + (max_expanded if ends else 0))


@router.get(
    "/maps/{name}/image",
    response_class=Response,
    responses={
        200: {"content": {"image/png": {}}},
        404: {"model": ErrorResponse},
        422: {"model": ErrorResponse},
        503: {
            "model": ErrorResponse,
            "description": "Still starting (`not_ready`), or the search threads busy past "
            "SEARCH_QUEUE_WAIT_MS (`overloaded`, with `Retry-After`).",
        },
    },
)
async def get_map_image(
    name: str,
    state: StateDep,
    store: RegistryDep,
    start: Annotated[str | None, Query(description="x,y")] = None,
    goal: Annotated[str | None, Query(description="x,y")] = None,
    scale: Annotated[int | None, Query(ge=1, le=16)] = None,
) -> Response:
    """The map as PNG; with ``start`` and ``goal``, the default ``/path`` result drawn on it."""
    check_map_name(name)
    grid = require_grid(store.get(name), "GET /maps/{name}/image")
    picture = map_picture(grid, state.settings, start, goal, scale)
    return Response(await state.search(grid, picture), media_type="image/png")


@router.patch(
    "/maps/{name}",
    response_model=AnyMapInfo,
    responses=_ADMIN_ERRORS,
    dependencies=[ADMIN_TOKEN],
)
async def patch_map(
    name: str, patch: MapPatch, state: StateDep, store: RegistryDep
) -> MapInfo | PolygonMapInfo:
    """Apply edits atomically: all of them, as one new revision, or none. Grid maps:
    ``set`` (cells, rectangles). Polygon maps: ``holes`` (add a ring, replace or remove
    hole ``index``) and ``waypoints`` (all of them); the result is validated as a file is.
    The answer's ``revision`` is served by this process already; pass it as ``revision``
    to read it from any process."""
    check_map_name(name)
    change: GridEdit | PolygonEdit
    if patch.set is not None:
        if patch.holes is not None or patch.waypoints is not None:
            raise InvalidRequest("give 'set' (grid maps) or 'holes'/'waypoints' (polygon maps)")
        change = GridEdit(
            [Edit(value=e.value, cells=[tuple(c) for c in e.cells], rect=e.rect) for e in patch.set]
        )
    elif patch.holes is not None or patch.waypoints is not None:
        change = PolygonEdit(
            holes=[HoleEdit(h.op, h.index, h.ring) for h in patch.holes or ()],
            waypoints=patch.waypoints,
        )
    else:
        raise InvalidRequest("missing field 'set' (or, for a polygon map, 'holes'/'waypoints')")
    return map_info(await state.authority.update(name, change, patch.if_revision))


@router.put(
    "/maps/{name}",
    response_model=AnyMapInfo,
    status_code=200,
    responses={**_ADMIN_ERRORS, 201: {"model": AnyMapInfo, "description": "Created."}},
    dependencies=[ADMIN_TOKEN],
    openapi_extra={"requestBody": UPLOAD_BODY},
)
async def put_map(
    name: str, request: Request, state: StateDep, store: RegistryDep, if_revision: IfRevision = None
) -> Response:
    """Create or replace a map from a PNG (or another lossless image), a Moving AI ``.map``
    or a Tiled map, as the body or as a form with a ``sidecar`` (palette, costs, tiles); or
    a polygon map: a ``.nav.json`` document (outline, holes, waypoints) as the body.
    The same size limits as at start-up apply; a bad file changes nothing."""
    check_map_name(name)
    data = await request.body()  # the size limit is enforced before this is read
    settings = state.settings
    content_type = request.headers.get("content-type", "")

    def parse() -> Grid | PolygonMap:
        try:
            nav_json = polygon_upload(data, content_type)
            if nav_json is not None:  # a NAME.nav.json, stored as sent
                return polygon_map(name, nav_json, source=f"{name}{NAV_SUFFIX}").prepare()
            return load_upload(
                name,
                data,
                content_type,
                max_cells=settings.max_map_cells,
                max_bytes=settings.max_map_bytes,
            )
        except TerrainCostOutOfRange as exc:
            reason = f"cannot load the uploaded map: {exc.reason}"
            raise InvalidField("terrain_costs", reason) from None
        except MapLoadError as exc:
            raise InvalidField("map_data", f"cannot load the uploaded map: {exc.reason}") from None

    parsed = await run_in_threadpool(parse)

    # A grid is stored in its canonical encoding (gridpath.maps.persist), the sidecar
    # included; a polygon map as its bytes (gridpath.nav.snapshot).
    grid, replaced = await state.authority.replace(name, parsed, None, if_revision)
    body = map_info(grid).model_dump_json().encode()
    return Response(body, status_code=200 if replaced else 201, media_type="application/json")


@router.delete(
    "/maps/{name}",
    response_model=MapDeleted,
    responses=_ADMIN_ERRORS,
    dependencies=[ADMIN_TOKEN],
)
async def delete_map(
    name: str, state: StateDep, store: RegistryDep, if_revision: IfRevision = None
) -> MapDeleted:
    """Remove a map (and, with MAPS_WRITABLE, its files)."""
    check_map_name(name)
    grid = await state.authority.delete(name, if_revision)
    return MapDeleted(name=name, deleted=True, revision=grid.revision)


@router.post(
    "/maps/reload",
    response_model=MapReload,
    responses={k: v for k, v in _ADMIN_ERRORS.items() if k in (401, 403, 503)},
    dependencies=[ADMIN_TOKEN],
)
async def reload_maps(state: StateDep, store: RegistryDep) -> MapReload:
    """Catch up with the map source now, as ``SIGHUP`` does: the folder store re-reads
    changed files of MAPS_DIR (a file that fails keeps its map's previous revision); the
    shared store reloads every revision this process is behind on. Worlds are reloaded
    too, after the maps (`errors` lists their files that did not load)."""
    report = await state.reload()
    return MapReload(
        changed=[
            ReloadedMap(name=c.name, revision=c.revision, deleted=c.deleted) for c in report.changes
        ],
        errors=[LoadError(file=e.file, reason=e.reason) for e in report.errors],
    )
