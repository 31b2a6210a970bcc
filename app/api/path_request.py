"""``POST /path`` and ``/paths`` queries as domain requests: parsed for the kind of the map
they run on, checked against its revision, their caps applied once, and their worst-case
cost known before they are scheduled (``ServiceState.search`` runs them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi.exceptions import RequestValidationError

from app.api.deps import wait_for_revision
from app.api.errors import describe_errors, error_code_for
from app.api.kinds import kind_of, map_name_of, parse_for_kind
from app.api.worlds import world_maps
from app.config import Settings
from app.models import PathQuery, PathRequest, PolygonPathQuery, PolygonPathRequest
from app.models.world_paths import WorldPathQuery, WorldPathRequest
from app.observability import note_map
from app.state import SearchRequest, ServiceState
from gridpath.errors import InvalidRequest, ServiceError
from gridpath.maps.snapshot import MapSnapshot
from gridpath.search.scratch import SearchScratch
from gridpath.world import WorldMaps, WorldNotFound
from gridpath.world.model import NAME as WORLD_NAME

# The models of a /path body and of a /paths query, by kind of map.
PATH_MODELS = {"grid": PathRequest, "polygon": PolygonPathRequest, "world": WorldPathRequest}
QUERY_MODELS = {"grid": PathQuery, "polygon": PolygonPathQuery, "world": WorldPathQuery}


async def path_snapshot(
    state: ServiceState, raw: dict, models: dict[str, type] = PATH_MODELS
) -> MapSnapshot:
    """Step 1 of ``POST /path`` (and ``/validate``, with its ``models``): the snapshot the
    body names, looked up once, after waiting
    for the ``revision`` it names (a map created elsewhere may be coming). A map that is
    not loaded: the body is judged as a grid's first (422 before 404), then 404."""
    if "world" in raw:  # through a world: the same road, its own snapshot
        return await world_snapshot(state, raw, models)
    store = state.require_ready()
    name, revision = map_name_of(raw), raw.get("revision")
    if name is not None and type(revision) is int:
        await wait_for_revision(state, name, revision)
    snapshot = store.find(name) if name is not None else None
    if snapshot is None:
        parse_for_kind(raw, "grid", models, name or "")
        snapshot = store.get(raw["map"])  # 404 map_not_found
    note_map(snapshot.name, snapshot.revision)
    return snapshot


async def world_snapshot(state: ServiceState, raw: dict, models: dict[str, type]) -> WorldMaps:
    """Step 1 through a world: its view (the world revision, waited for when ``raw`` names
    ``world_revision``, and its maps' snapshots). A body naming both ``map`` and ``world``,
    or a world name that is not one, is judged before the lookup (422 before 404)."""
    state.require_ready()
    if "map" in raw:
        raise InvalidRequest("give either 'map' or 'world', not both")
    name, revision = raw.get("world"), raw.get("world_revision")
    if not isinstance(name, str) or not WORLD_NAME.match(name):
        parse_for_kind(raw, "world", models, "")  # raises the name's 422
    try:
        maps = await world_maps(state, name, revision if type(revision) is int else None)
    except WorldNotFound:
        parse_for_kind(raw, "world", models, name)  # a bad body is 422 first, as with maps
        raise
    note_map(maps.name, maps.revision)
    return maps


def path_request(
    raw: Any,
    snapshot: MapSnapshot,
    settings: Settings,
    models: dict[str, type] = PATH_MODELS,
    expansion_cap: int | None = None,
) -> SearchRequest[tuple[dict, float]]:
    """Step 2: ``raw`` parsed for ``snapshot``'s kind into one request that carries its caps
    (``expansion_cap``: a batch query's share) and its cost. Raises the answer's 422 or
    409 (a ``revision`` that is not the snapshot's)."""
    query = parse_for_kind(raw, snapshot.kind, models, snapshot.name)
    return kind_of(snapshot).path_request(query, snapshot, settings, expansion_cap)


@dataclass(slots=True)
class BatchQuery:
    """One query of a ``/paths`` batch, parsed where it runs: a query that fails gets
    ``{"error": {...}}`` in its place, the others are answered. Never changed once made
    (not frozen: a frozen dataclass's ``__init__`` costs a microsecond more, a hundred per
    batch on the event loop)."""

    raw: Any
    settings: Settings
    share: int  # its share of the batch's expansion budget
    cost: int

    def run(self, snapshot: MapSnapshot, scratch: SearchScratch) -> tuple[dict, float]:
        try:
            request = path_request(self.raw, snapshot, self.settings, QUERY_MODELS, self.share)
            return request.run(snapshot, scratch)
        except RequestValidationError as exc:
            errors = list(exc.errors())
            code, message = error_code_for(errors), describe_errors(errors)
            return {"error": {"code": code, "message": message}}, 0.0
        except ServiceError as exc:
            return {"error": {"code": exc.code, "message": exc.message}}, 0.0

    @staticmethod
    def run_many(
        queries: list[BatchQuery], snapshot: MapSnapshot, scratch: SearchScratch
    ) -> list[tuple[dict, float]]:
        """A chunk of a batch's queries (``ServiceState.search_all``), in order, as the
        map's kind answers them (a grid: the common ones in one compiled call,
        :mod:`app.api.path_batch`; the others one by one)."""
        return kind_of(snapshot).answer_chunk(queries, snapshot, scratch)


def batch_requests(
    queries: list[Any], snapshot: MapSnapshot, settings: Settings
) -> list[BatchQuery]:
    """A ``/paths`` batch's queries, sharing ``MAX_BATCH_EXPANDED`` (a polygon batch:
    4 x ``MAX_POLYGON_EXPANDED``, as a grid batch's budget is 4 x ``MAX_EXPANDED`` by
    default), so one request cannot tie the server up."""
    share, cost = kind_of(snapshot).batch_budget(snapshot, settings, max(1, len(queries)))
    return [BatchQuery(raw, settings, share, cost) for raw in queries]
