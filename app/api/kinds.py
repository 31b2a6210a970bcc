"""The kinds of map over HTTP: the one mapping from a snapshot's ``kind`` to what the service
does with a map of that kind, and the request parsing by kind.

The library's snapshots share a protocol (:class:`gridpath.maps.snapshot.MapSnapshot`:
``prepare``, ``edit``, ``encode``, ``summary``); their HTTP faces (request and answer
models, caps) cannot live in the library, so they live here, one class per kind
(:class:`app.api.grid_kind.GridKind`, :class:`app.api.polygon.PolygonKind`), and callers
dispatch by their methods through :func:`kind_of`: no route branches on ``kind``.

A route body that differs by kind (``/path``, ``/paths`` queries, ``/validate``) arrives as a
JSON object and is validated against the model of the named map's kind: a grid keeps
its integer cells (``[1.5, 2]`` stays a 422 ``invalid_request``), a polygon map takes
numbers. A field of the other kind (``mode`` on a grid's ``/path``, ``connectivity`` on a
polygon map's) is ``unsupported_map_kind``, as is a grid-only route on a polygon map.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from app.api.grid_kind import GridKind
from app.api.polygon import PolygonKind
from app.api.world_kind import WorldKind
from app.config import Settings
from gridpath.errors import InvalidRequest, UnsupportedMapKind
from gridpath.grid import Grid, is_valid_map_name
from gridpath.maps.snapshot import MapSnapshot
from gridpath.search.scratch import SearchScratch

M = TypeVar("M", bound=BaseModel)


class MapKind(Protocol):
    """What the service does with a map of one kind. The requests it returns carry their
    ``cost`` and ``run(snapshot, scratch)`` (``app.state.SearchRequest``)."""

    noun: str  # "a grid map", in messages
    rival: str | None  # the kind whose fields, sent here, are unsupported_map_kind

    def info(self, snapshot: Any) -> BaseModel:
        """The answer of ``GET /maps/{name}`` (``MapInfo`` or ``PolygonMapInfo``)."""
        ...

    def require_grid(self, snapshot: Any, what: str) -> Grid:
        """The snapshot if it is a grid, else ``unsupported_map_kind`` naming ``what``."""
        ...

    def path_request(
        self, query: Any, snapshot: Any, settings: Settings, expansion_cap: int | None
    ) -> Any:
        """A parsed ``/path`` query (or a ``/paths`` one, capped at ``expansion_cap``) as
        the request ``state.search`` runs."""
        ...

    def batch_budget(self, snapshot: Any, settings: Settings, count: int) -> tuple[int, int]:
        """``(share, cost)`` of each query of a ``/paths`` batch of ``count``."""
        ...

    def answer_chunk(self, queries: Any, snapshot: Any, scratch: SearchScratch) -> list:
        """A chunk of a ``/paths`` batch's queries (``BatchQuery``), answered in order."""
        ...

    def validation(self, query: Any, snapshot: Any, settings: Settings) -> Any:
        """A parsed ``/validate`` body as the request ``state.search`` runs."""
        ...


# A world (gridpath.world.WorldMaps, kind "world") is served like a map: its requests take
# the same road (snapshot, domain request, state.search, answer) with their own models.
KINDS: dict[str, MapKind] = {"grid": GridKind(), "polygon": PolygonKind(), "world": WorldKind()}


def kind_of(snapshot: MapSnapshot) -> MapKind:
    """What the service does with ``snapshot``'s kind of map."""
    return KINDS[snapshot.kind]


def require_grid(snapshot: MapSnapshot, what: str) -> Grid:
    """``snapshot`` if it is a grid, else ``unsupported_map_kind`` naming ``what``."""
    return kind_of(snapshot).require_grid(snapshot, what)


def map_name_of(raw: dict) -> str | None:
    """The body's ``map``, if it is a valid map name (else the model's validation says why)."""
    name = raw.get("map")
    return name if isinstance(name, str) and is_valid_map_name(name) else None


def parse_for_kind(raw: dict, kind: str, models: dict[str, type[M]], name: str) -> M:
    """``raw`` validated against ``models[kind]``; a field only another kind has is
    ``unsupported_map_kind``; a validation error is raised as FastAPI's own (the same
    ``invalid_*`` answer as a body the route declares)."""
    model = models[kind]
    foreign = _foreign_fields(models, kind).intersection(raw)
    if foreign:
        other = KINDS[kind].rival
        raise UnsupportedMapKind(
            f"{min(foreign)!r} is for {other} maps; map {name!r} is {KINDS[kind].noun}"
        )
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
        ) from None


# (model, kind) -> the fields only the other kind's model has (a handful of pairs).
_FOREIGN: dict[tuple[type, str], frozenset[str]] = {}


def _foreign_fields(models: dict[str, type[M]], kind: str) -> frozenset[str]:
    """The fields only the rival kind's model has (worked out once per model and kind); a
    world has no rival: a field it does not take is unknown, as any other."""
    model = models[kind]
    found = _FOREIGN.get((model, kind))
    if found is None:
        rival = KINDS[kind].rival
        other = models[rival].model_fields if rival is not None else model.model_fields
        found = frozenset(other) - frozenset(model.model_fields)
        _FOREIGN[(model, kind)] = found
    return found


def map_or_world(body: Any, on_map: type[M], through_world: type[BaseModel]) -> Any:
    """A route's body validated as FastAPI validates a body model (``from_attributes``):
    ``through_world`` when it names ``world``, else ``on_map``, whose errors stay exactly
    the ones FastAPI gave when the route took ``on_map`` alone. Both ``map`` and ``world``:
    422 ``invalid_request``."""
    model: type[BaseModel] = on_map
    if isinstance(body, dict) and "world" in body:
        if "map" in body:
            raise InvalidRequest("give either 'map' or 'world', not both")
        model = through_world
    try:
        return model.model_validate(body, from_attributes=True)
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]
        raise RequestValidationError(errors, body=body) from None
