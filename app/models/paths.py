"""Models of ``POST /path`` and ``POST /paths`` (grid and polygon maps)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, WrapValidator

from app.models.common import (
    Cell,
    CellOrNull,
    CellOut,
    ErrorResponse,
    ExpansionCap,
    ExpectedRevision,
    FiniteFloat,
    Include,
    MapName,
    MovementRules,
    Point,
    PointOrNull,
    PointOut,
    any_object,
)
from gridpath.search.algorithms import algorithm_description
from gridpath.search.options import Algorithm, CostModel, Diagonal, Heuristic


class PathOptions(MovementRules):
    """Search options of ``/path`` and of each ``/paths`` query."""

    algorithm: Algorithm = Field(
        Algorithm.AUTO,
        description=algorithm_description(),  # from the registry of algorithms
    )
    heuristic: Heuristic | None = Field(
        None,
        description="octile (default with diagonals), manhattan (default for "
        "4-connected), euclidean, chebyshev, zero.",
    )
    heuristic_weight: FiniteFloat = Field(
        1.0, ge=1.0, description="Weighted A*: the cost is at most weight x optimal."
    )
    max_expanded: ExpansionCap = None
    max_cost: FiniteFloat | None = Field(
        None, ge=0, description="Do not extend routes costing more than this."
    )
    time_budget_ms: StrictInt | None = Field(
        None,
        ge=1,
        description="Work budget in milliseconds (capped by the server's MAX_SEARCH_MS): "
        "converted to an expansion budget at SEARCH_EXPANSIONS_PER_MS, so the answer stays "
        "deterministic; past it the search ends with reason limit_reached.",
    )
    closest: StrictBool = Field(
        False,
        description="If the goal is not reached, return the path to the expanded cell "
        "nearest it (partial: true).",
    )
    turn_penalty: FiniteFloat = Field(
        0.0,
        ge=0,
        description="Extra cost per change of direction: among equally short "
        "paths, the straightest (searches over (cell, heading) states; optimal for the "
        "penalised cost).",
    )
    goals: list[Cell] | None = Field(
        None,
        min_length=1,
        description="Several goals: the path goes to the cheapest to "
        "reach (goal_index says which). Use instead of goal.",
    )
    smooth: StrictBool = Field(
        True,
        description="true: waypoints are string-pulled (consecutive waypoints see each "
        "other). false: waypoints are the path's turning points.",
    )
    include: list[Include] = Field(
        default_factory=lambda: ["path", "waypoints"],
        description="Parts of the result to return; explored lists expanded cells (capped); "
        "timing adds search_us (responses are otherwise byte-for-byte deterministic).",
    )


class PathQuery(PathOptions):
    """One query: a start, and a goal (or goals), with options."""

    start: Cell
    goal: Cell | None = None
    snap: StrictBool = Field(
        False,
        description="A start or goal where the unit cannot stand moves to the nearest cell "
        "where it can that is reachable from the other end (within SNAP_RADIUS cells); "
        "snapped_start / snapped_goal(s) say so. With goals, goals with nowhere to go are "
        "skipped and listed in skipped_goals.",
    )
    revision: ExpectedRevision = None


class PathRequest(PathQuery):
    map: MapName


class PolygonPathQuery(BaseModel):
    """One query on a polygon map (``/path``, each ``/paths`` query)."""

    model_config = ConfigDict(extra="forbid")

    start: Point
    goal: Point
    mode: Literal["exact", "waypoints"] = Field(
        "exact",
        description="exact: the Euclidean shortest path (Polyanya on the navigation mesh). "
        "waypoints: the route over the map's waypoints, smoothed by skip-ahead.",
    )
    snap: StrictBool = Field(
        False,
        description="A start or goal outside the walkable area moves to the nearest walkable "
        "point (snapped_start / snapped_goal say where); without it: 422 target_not_walkable.",
    )
    max_expanded: ExpansionCap = None
    revision: ExpectedRevision = None


class PolygonPathRequest(PolygonPathQuery):
    map: MapName


class PolygonPathResponse(BaseModel):
    map: str
    revision: int = Field(description="Revision of the map the path was computed on.")
    found: bool
    reason: Literal["unreachable", "limit_reached"] | None = Field(
        description="Why no path was found; null when found."
    )
    cost: float | None = Field(description="Euclidean length of `points`; null when not found.")
    points: list[PointOut] = Field(
        description="[[x, y], ...] from start to goal, where the path turns (empty when not found)."
    )
    mode: Literal["exact", "waypoints"]
    expanded: int = Field(description="Search nodes expanded.")
    optimal: bool = Field(description="The shortest path in the walkable area (mode exact).")
    snapped_start: PointOrNull = Field(None, description="Where `start` moved to (snap).")
    snapped_goal: PointOrNull = Field(None, description="Where `goal` moved to (snap).")


# A /paths query as the batch receives it: any JSON object (a dict at run time), documented
# as a PathQuery (a typed model for generated clients).
BatchQuery = Annotated[PathQuery | PolygonPathQuery, WrapValidator(any_object)]


# A /path body on a map: validated by the route against the model of the map's kind (grid or
# polygon); app.models.world_paths.AnyPathRequest adds the world's.
MapPathRequest = Annotated[PathRequest | PolygonPathRequest, WrapValidator(any_object)]


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    map: MapName
    revision: ExpectedRevision = None
    queries: list[BatchQuery] = Field(
        description="Each one a /path request without `map` (of the map's kind); a query "
        "that is not valid is answered in its place with its error, the others still run."
    )


class EffectiveOptions(BaseModel):
    algorithm: Algorithm
    heuristic: Heuristic
    heuristic_weight: float
    connectivity: int
    diagonal: Diagonal
    cost_model: CostModel
    max_expanded: int
    max_cost: float | None
    closest: bool
    clearance: int
    turn_penalty: float
    terrain_costs: dict[str, float] = Field(description="Every class's cost for this search.")
    smooth: bool


class SnappedGoal(BaseModel):
    index: int
    cell: CellOut


class PathResponse(BaseModel):
    map: str
    revision: int = Field(description="Revision of the map the path was computed on.")
    found: bool
    reason: Literal["unreachable", "limit_reached"] | None = Field(
        description="Why the goal was not reached; null when found."
    )
    partial: bool = Field(description="`path` ends at the expanded cell nearest the goal.")
    goal_index: int | None = Field(description="Which of `goals` was reached (0 with `goal`).")
    cost: float | None = Field(
        description="Cost of `path` under the cost model (float: 1 per straight step, sqrt(2) "
        "per diagonal; integer: 10 and 14; theta: the length of `waypoints`); null when "
        "there is no path."
    )
    path: list[CellOut] | None = Field(
        None, description="Every cell from start to goal inclusive (when included)."
    )
    waypoints: list[CellOut] | None = Field(
        None,
        description="Subsequence of `path` from start to goal in which consecutive "
        "waypoints have line of sight (when included); with theta, the any-angle vertices.",
    )
    waypoints_cost: float | None = Field(
        None,
        description="What walking `waypoints` costs (with them; null when there are none): "
        "each segment's length inside each cell times that cell's terrain cost (integer "
        "model: each segment's octile length, 10 per straight and 14 per diagonal unit, "
        "times its mean terrain cost, rounded). Never more than `cost`; with `smooth` false "
        "it equals `cost`.",
    )
    path_hash: str = Field(
        description="SHA-256 (hex) of the cell path as little-endian int32 "
        "x, y pairs: compare a client's prediction in one field."
    )
    turns: int = Field(description="Changes of direction along the path.")
    expanded: int = Field(description="Nodes the search expanded.")
    explored: list[CellOut] | None = Field(
        None, description="Expanded cells in order, capped (only when included)."
    )
    search_us: float | None = Field(
        None,
        description="Microseconds in the search kernel (only with include timing; "
        "always in the Server-Timing header).",
    )
    algorithm: Algorithm
    optimal: bool = Field(description="The cost is the minimum under the cost model.")
    bounded_suboptimal: bool = Field(
        description="Weighted A*: the cost is at most heuristic_weight x optimal."
    )
    options: EffectiveOptions = Field(description="The effective options, defaults filled in.")
    # snap: present only when snapping moved or skipped something
    snapped_start: CellOrNull = Field(None, description="Where `start` moved to.")
    snapped_goal: CellOrNull = Field(None, description="Where `goal` moved to.")
    snapped_goals: list[SnappedGoal] | None = Field(
        None, description="Which of `goals` moved, and where to."
    )
    skipped_goals: list[int] | None = Field(
        None, description="Indices of `goals` with no cell to stand on within reach."
    )


class BatchResponse(BaseModel):
    map: str
    results: list[PathResponse | PolygonPathResponse | ErrorResponse]
