"""Models of ``POST /validate`` (grid and polygon maps)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, WrapValidator

from app.models.common import (
    Cell,
    FiniteFloat,
    MapName,
    MovementRules,
    Point,
    SeenRevision,
    any_object,
)
from app.models.group import GroupValidateRequest, WorldGroupValidateRequest


class ValidateRequest(MovementRules):
    """A path a client claims to have walked, and the rules to check it against."""

    map: MapName
    path: list[Cell] = Field(description="[[x, y], ...]: cells (mode cells) or waypoints.")
    mode: Literal["cells", "waypoints"] = "cells"
    revision: SeenRevision = None
    max_cost: FiniteFloat | None = Field(None, ge=0, description="Movement budget.")
    start: Cell | None = None
    goal: Cell | None = None
    compare_optimal: StrictBool = Field(False, description="Also return optimal_cost.")
    timing: StrictBool = Field(False, description="Also return search_us (kernel time).")


class PolygonValidateRequest(BaseModel):
    """A polyline a client claims to have walked on a polygon map."""

    model_config = ConfigDict(extra="forbid")

    map: MapName
    points: list[Point] = Field(
        min_length=1, description="[[x, y], ...]: every segment must stay in the walkable area."
    )
    revision: SeenRevision = None
    max_cost: FiniteFloat | None = Field(None, ge=0, description="Most length allowed.")
    start: Point | None = Field(None, description="Where the polyline must begin.")
    goal: Point | None = Field(None, description="Where the polyline must end.")


# A /validate body on a map: validated by the route against the model of the map's kind, or
# as a group move when it has ``plans`` (on a map or through a world);
# app.models.world_paths.AnyValidateRequest adds a path through a world.
MapValidateRequest = Annotated[
    ValidateRequest | PolygonValidateRequest | GroupValidateRequest | WorldGroupValidateRequest,
    WrapValidator(any_object),
]


class ViolationOut(BaseModel):
    index: int = Field(description="Index in `path` (-1: about the request, not a path entry).")
    code: Literal[
        "blocked_cell",
        "not_adjacent",
        "corner_cut",
        "no_line_of_sight",
        "out_of_bounds",
        "over_budget",
        "wrong_start",
        "wrong_goal",
        "stale_revision",
        "outside_area",
    ]
    message: str


class ValidateResponse(BaseModel):
    map: str
    revision: int
    valid: bool
    cost: float = Field(
        description="cells: the path's cost as /path computes it; waypoints: what walking the "
        "polyline costs (each segment's length inside each cell times that cell's terrain "
        "cost), the `waypoints_cost` /path reports for its own waypoints."
    )
    checked: int
    violations: list[ViolationOut]
    optimal_cost: float | None = Field(None, description="Only with compare_optimal.")
    search_us: float | None = Field(None, description="Only with timing.")
