"""Models of the searches through a world (docs/worlds.md, "Every endpoint through a world"):
``/path``, ``/paths``, ``/table``, ``/flowfield`` and ``/validate`` with ``"world"`` instead
of ``"map"``. Cells are places ``{"map", "cell"}``; ``blocked`` names its map per cell; the
request's options are ``/path``'s and apply on every map of the world."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, WrapValidator
from pydantic.json_schema import SkipJsonSchema

from app.models.common import (
    CellOut,
    EncodedArray,
    FiniteFloat,
    MovementRules,
    any_object,
)
from app.models.flowfield import FlowFieldRequest
from app.models.paths import BatchRequest, EffectiveOptions, MapPathRequest, PathOptions
from app.models.places import (
    LinkChoice,
    PlaceOut,
    WorldName,
    WorldPlace,
    WorldRevision,
)
from app.models.table import TableRequest
from app.models.validate import MapValidateRequest
from gridpath.search.options import Algorithm, Heuristic


class WorldRules(MovementRules):
    """The movement rules through a world: a map's, with ``blocked`` places and links."""

    blocked: list[WorldPlace] = Field(  # type: ignore[assignment]
        default_factory=list, description="Extra blocked cells for this request only."
    )
    links: LinkChoice = Field(default_factory=LinkChoice, description="Links not to take.")


class WorldPathQuery(WorldRules, PathOptions):
    """One query through a world (``/path`` with ``world``, each ``/paths`` query)."""

    include: list[Literal["path", "waypoints", "timing"]] = Field(  # type: ignore[assignment]
        default_factory=lambda: ["path", "waypoints"],
        description="Parts of each leg to return; timing adds search_us.",
    )
    goals: SkipJsonSchema[None] = None  # type: ignore[assignment]  # one goal through a world
    start: WorldPlace
    goal: WorldPlace


class WorldPathRequest(WorldPathQuery):
    world: WorldName
    world_revision: WorldRevision = None


class WorldBatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    world: WorldName
    world_revision: WorldRevision = None
    queries: list[Annotated[WorldPathQuery, WrapValidator(any_object)]] = Field(
        description="Each one a /path request through the world without `world`; a query "
        "that is not valid is answered in its place with its error, the others still run."
    )


class WorldLeg(BaseModel):
    map: str
    revision: int = Field(description="Revision of the map the leg was computed on.")
    path: list[CellOut] | None = Field(None, description="Every cell of the leg (included).")
    waypoints: list[CellOut] | None = Field(None, description="The leg's waypoints (included).")
    cost: float = Field(description="The leg's cost on its map, as /path reports it.")
    waypoints_cost: float | None = Field(None, description="What walking `waypoints` costs.")
    link: str | None = Field(
        description="The link taken from the leg's last cell (null on the last leg); the next "
        "leg starts on its exit (its `to`, or its `from` when taken backwards)."
    )


class WorldOptions(EffectiveOptions):
    """A map search's options, with the heuristic the world's legs used (null when they
    used none), terrain costs per map and the link choice."""

    heuristic: Heuristic | None
    terrain_costs: dict[str, dict[str, float]] = Field(
        description="Per map of the world: every terrain class's cost for this search."
    )
    links: LinkChoice


class WorldPathResponse(BaseModel):
    world: str
    world_revision: int = Field(description="Revision of the world the path was computed on.")
    found: bool
    reason: Literal["unreachable", "limit_reached"] | None
    partial: bool = Field(description="The path ends at the reachable cell nearest the goal.")
    cost: float | None = Field(description="The legs' costs plus the links' costs.")
    legs: list[WorldLeg]
    links: list[str] = Field(description="The ids of the links taken, in order.")
    path_hash: str = Field(
        description="SHA-256 (hex) over the legs in order, each as its map name in UTF-8, a "
        "NUL byte, its cell count as a little-endian uint32, its cells as little-endian int32 "
        "x, y pairs, then its link id in UTF-8 (nothing on the last leg) and a NUL byte."
    )
    expanded: int = Field(description="Nodes expanded by every leg's search.")
    search_us: float | None = Field(None, description="Only with include timing.")
    algorithm: Algorithm
    optimal: bool = Field(description="`cost` is the minimum over the whole world.")
    options: WorldOptions


class WorldBatchResponse(BaseModel):
    world: str
    world_revision: int
    results: list[dict] = Field(description="Each a WorldPathResponse or an ErrorResponse.")


class WorldTableRequest(WorldRules):
    world: WorldName
    world_revision: WorldRevision = None
    sources: list[WorldPlace] = Field(min_length=1, description="Rows of the table.")
    targets: list[WorldPlace] = Field(min_length=1, description="Columns of the table.")


class WorldTableResponse(BaseModel):
    world: str
    world_revision: int
    revisions: dict[str, int] = Field(description="Each map's revision the table read.")
    costs: list[list[float | None]] = Field(
        description="costs[i][j]: the world-optimal cost from sources[i] to targets[j]; null: "
        "no path, a blocked end, or listed in `limit_reached`."
    )
    limit_reached: list[CellOut]
    blocked_sources: list[int]
    blocked_targets: list[int]
    expanded: int
    options: dict


class WorldFlowFieldRequest(WorldRules):
    world: WorldName
    world_revision: WorldRevision = None
    goal: WorldPlace
    format: Literal["base64"] = Field("base64", description="Arrays in JSON (base64).")


class MapField(BaseModel):
    map: str
    revision: int
    width: int
    height: int
    reachable: int
    cost: EncodedArray = Field(description="float64 cost to the goal through the links; -1: none.")
    next: EncodedArray = Field(description="int8 first move as an index into `directions`.")
    link: EncodedArray = Field(
        description="int32 index in the world's `links` of the link to take from the cell; "
        "-1 where the first step is a move (or there is none)."
    )


class WorldFlowFieldResponse(BaseModel):
    world: str
    world_revision: int
    goal: PlaceOut
    expanded: int
    fields: list[MapField] = Field(description="One per map of the world, in its order.")
    directions: list[str]
    options: dict


class WorldValidateRequest(WorldRules):
    """A path through a world a client claims to have walked (cells mode)."""

    world: WorldName
    world_revision: WorldRevision = None
    path: list[WorldPlace] = Field(description="Every cell walked, link traversals included.")
    mode: Literal["cells"] = "cells"
    max_cost: FiniteFloat | None = Field(None, ge=0, description="Movement budget.")
    start: WorldPlace | None = None
    goal: WorldPlace | None = None
    compare_optimal: StrictBool = Field(False, description="Also return optimal_cost.")
    timing: StrictBool = Field(False, description="Also return search_us.")


class WorldViolation(BaseModel):
    index: int = Field(description="Index in `path` (-1: about the request).")
    code: str = Field(
        description="A /validate code, or link_missing (a jump no link makes), link_disabled, "
        "link_one_way (a link taken against its direction)."
    )
    message: str


class WorldValidateResponse(BaseModel):
    world: str
    world_revision: int
    valid: bool
    cost: float = Field(description="The moves' cost as /path computes it plus the links'.")
    checked: int
    violations: list[WorldViolation]
    optimal_cost: float | None = Field(None, description="Only with compare_optimal.")
    search_us: float | None = Field(None, description="Only with timing.")


def any_value(value: Any, handler: object) -> Any:
    # Never calls the handler: the route validates the body against the model it names
    # (app.api.kinds.map_or_world), so a map's body gets exactly its model's errors.
    return value


WORLD_ALTERNATIVE_TITLE = "On a map"  # app.api.openapi makes such a body's anyOf a oneOf


def _either(on_map: Any, through_world: type[BaseModel], check: Any) -> Any:
    """A body on a map or through a world (``map`` or ``world``): the OpenAPI document
    says ``oneOf`` (app.api.openapi), validated by the route."""
    return Annotated[
        Annotated[on_map, Field(title=WORLD_ALTERNATIVE_TITLE)] | through_world,
        WrapValidator(check),
    ]


AnyPathRequest = _either(MapPathRequest, WorldPathRequest, any_object)
AnyBatchRequest = _either(BatchRequest, WorldBatchRequest, any_value)
AnyTableRequest = _either(TableRequest, WorldTableRequest, any_value)
AnyFlowFieldRequest = _either(FlowFieldRequest, WorldFlowFieldRequest, any_value)
AnyValidateRequest = _either(MapValidateRequest, WorldValidateRequest, any_object)
