"""Request and response models of ``POST /group`` and of ``POST /validate`` with ``plans``
(docs/group.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from app.models.common import Cell, CellOut, MapName
from gridpath.search.options import Diagonal


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
    ]
    message: str


class GroupValidateResponse(BaseModel):
    map: str
    revision: int
    valid: bool
    violations: list[GroupViolationOut]
