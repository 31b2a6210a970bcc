"""Request and response models of ``POST /group`` and of ``POST /validate`` with ``plans``
(docs/group.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, StrictBool, StrictInt, Tag

from app.models.common import Cell, CellOut, MapName
from app.models.places import LinkChoice, WorldName, WorldPlace
from gridpath.search.options import Diagonal

# A place of a world in a group plan: [x, y, m], m the index of its map in the answer's "maps".
WorldCell = Annotated[
    tuple[StrictInt, StrictInt, StrictInt],
    Field(description="[x, y, m]: a cell of map m, the index in the world's maps."),
]
WorldCellOut = tuple[int, int, int]


class GroupRules(BaseModel):
    """How the units move, one tick a step: 4 moves (the MAPF convention) or 8."""

    model_config = ConfigDict(extra="forbid")

    connectivity: Literal[4, 8] = Field(4, description="Moves a tick, besides waiting.")
    diagonal: Diagonal = Field(
        Diagonal.NO_CORNER_CUT, description="8-connected only: the map's diagonal rule."
    )
    clearance: StrictInt = Field(1, ge=1, le=255, description="Unit size in cells.")
    blocked: list[Cell] = Field(default_factory=list, description="Extra walls, this request.")


class GroupUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    start: Cell
    goal: Cell


class GroupRequest(GroupRules):
    map: MapName
    units: list[GroupUnit] = Field(description="Each unit's start and goal cell.")
    assign: StrictBool = Field(
        False,
        description="The goals are a set of cells: the service picks which unit takes which, "
        "least longest path first, then least sum (`goal_index` in the answer).",
    )
    time_budget_ms: StrictInt | None = Field(
        None, ge=1, description="Search budget, counted in work (not wall time), capped."
    )
    revision: StrictInt | None = Field(
        None, description="Read your writes: at least this revision."
    )


class WorldGroupRules(GroupRules):
    """The moves through a world: a map's, with ``blocked`` places and the links to avoid."""

    blocked: list[WorldPlace] = Field(  # type: ignore[assignment]
        default_factory=list, description="Extra walls, this request."
    )
    links: LinkChoice = Field(default_factory=LinkChoice, description="Links not to take.")


class WorldGroupUnit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    start: WorldPlace
    goal: WorldPlace


class WorldGroupRequest(WorldGroupRules):
    """``POST /group`` through a world: a link traversal is one tick (docs/group.md)."""

    world: WorldName
    units: list[WorldGroupUnit] = Field(description="Each unit's start and goal place.")
    assign: StrictBool = Field(False, description="As on one map: the goals are a set.")
    time_budget_ms: StrictInt | None = Field(None, ge=1, description="As on one map.")
    world_revision: StrictInt | None = Field(
        None, ge=1, description="Read your writes: at least this world revision."
    )


def _group_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "world" if "world" in value else "map"
    return "world" if hasattr(value, "world") else "map"


# A /group body: on one map (``"map"``) or through a world (``"world"``).
AnyGroupRequest = Annotated[
    Annotated[GroupRequest, Tag("map")] | Annotated[WorldGroupRequest, Tag("world")],
    Discriminator(_group_kind),
]


class MapRevision(BaseModel):
    name: str
    revision: int


class GroupResponse(BaseModel):
    map: str
    revision: int
    found: bool
    reason: Literal["unreachable", "limit_reached", "no_solution"] | None = Field(
        description="Why not found: a goal in another component than its unit's start "
        "(`unreachable_units` names them), out of budget, or no plan exists."
    )
    unreachable_units: list[int] = Field(description="Units whose goal they cannot reach.")
    makespan: int = Field(description="Ticks until the last unit rests at its goal.")
    sum_of_costs: int = Field(
        description="Sum over units of the tick after which it stays at its goal."
    )
    lower_bound: int = Field(description="Sum of each unit's shortest path length alone.")
    plans: list[list[CellOut]] = Field(description="Unit i's cell at every tick 0..makespan.")
    goal_index: list[int] | None = Field(description="With assign: the goal each unit got.")
    algorithm: str
    optimal: bool = Field(
        description="No cheaper plan exists: LaCAM* ran to completion, or the sum of costs is "
        "the lower bound."
    )
    expanded: int = Field(description="Configurations LaCAM* generated.")
    work: int = Field(
        description="Work units spent (units moved, SIPP expansions, table cells settled)."
    )


class WorldGroupResponse(BaseModel):
    """``POST /group`` through a world: as on one map, each plan entry ``[x, y, m]``."""

    world: str
    world_revision: int
    maps: list[MapRevision] = Field(description="The world's maps: a plan entry's m indexes it.")
    found: bool
    reason: Literal["unreachable", "limit_reached", "no_solution"] | None
    unreachable_units: list[int]
    makespan: int
    sum_of_costs: int
    lower_bound: int
    plans: list[list[WorldCellOut]] = Field(description="Unit i's [x, y, m] at every tick.")
    goal_index: list[int] | None
    algorithm: str
    optimal: bool
    expanded: int
    work: int


class GroupValidateRequest(GroupRules):
    map: MapName
    plans: list[Annotated[list[Cell], Field(min_length=1)]] = Field(
        min_length=1, description="Each unit's cell at every tick (at least its start)."
    )
    revision: StrictInt | None = Field(None, description="The map revision the plans were made on.")


class GroupViolationOut(BaseModel):
    unit: int
    tick: int
    code: Literal[
        "illegal_step",
        "blocked_cell",
        "vertex_conflict",
        "edge_conflict",
        "crossing_conflict",
        "stale_revision",
        "link_missing",
        "link_disabled",
        "link_one_way",
    ]
    message: str


class GroupValidateResponse(BaseModel):
    map: str
    revision: int
    valid: bool
    violations: list[GroupViolationOut]


class WorldGroupValidateRequest(WorldGroupRules):
    """A claimed group move through a world: each unit's ``[x, y, m]`` at every tick."""

    world: WorldName
    plans: list[Annotated[list[WorldCell], Field(min_length=1)]] = Field(
        min_length=1, description="Each unit's [x, y, m] at every tick (at least its start)."
    )
    world_revision: StrictInt | None = Field(
        None, ge=1, description="The world revision the plans were made on."
    )


class WorldGroupValidateResponse(BaseModel):
    world: str
    world_revision: int
    maps: list[MapRevision]
    valid: bool
    violations: list[GroupViolationOut]
