"""Request and response models of the HTTP API (pydantic only; no numpy here).

Coordinates are ``[x, y]`` pairs of integers: ``x`` is the column, ``y`` the row,
origin at the top-left cell of the map as stored in its file.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    WithJsonSchema,
    WrapValidator,
)
from pydantic_core import PydanticCustomError

from gridpath.grid.model import MAP_NAME_PATTERN, MAX_TERRAIN_COST, MIN_TERRAIN_COST
from gridpath.nav.model import MAX_COORDINATE
from gridpath.search.algorithms import algorithm_description
from gridpath.search.options import Algorithm, CostModel, Diagonal, Heuristic

# Cells are spelled in the OpenAPI document as arrays of exactly two integers (``items`` with
# min/max 2), not as ``prefixItems`` tuples: the same constraint, and one that every client
# generator (openapi-typescript's --array-length gives [number, number]) and response
# validator reads (schemathesis rejects nested prefixItems). Requests stay strict integers.
_PAIR_SCHEMA = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}
Cell = Annotated[
    tuple[StrictInt, StrictInt],
    WithJsonSchema(
        {
            **_PAIR_SCHEMA,
            "description": "A cell as [x, y]: x the column, y the row, origin top-left.",
            "examples": [[1, 1]],
        }
    ),
]
CellOut = Annotated[tuple[int, int], WithJsonSchema(_PAIR_SCHEMA)]
Rect = Annotated[
    tuple[StrictInt, StrictInt, StrictInt, StrictInt],
    WithJsonSchema({"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4}),
]
CellOrNull = Annotated[
    tuple[int, int] | None, WithJsonSchema({"anyOf": [_PAIR_SCHEMA, {"type": "null"}]})
]
MapName = Annotated[
    str,
    Field(
        pattern=MAP_NAME_PATTERN,
        description="Map name: 1-64 characters of [A-Za-z0-9_-].",
        examples=["arena"],
    ),
]


class ErrorBody(BaseModel):
    code: str = Field(description="Stable machine-readable error code.", examples=["map_not_found"])
    message: str = Field(description="What was wrong, for people.")


class ErrorResponse(BaseModel):
    """Every error has this shape."""

    error: ErrorBody


# Numbers are strict like the StrictInt and StrictBool fields: a JSON number (integers
# too), never a bool or a numeric string (lax mode read `true` as 1 and `"3"` as 3, so a
# PATCH with `"value": true` changed the map).
FiniteFloat = Annotated[float, Field(strict=True, allow_inf_nan=False)]
# Out of range: 422 invalid_terrain_costs (gridpath.grid.model.TERRAIN_COST_RULE).
TerrainCost = Annotated[
    float, Field(strict=True, ge=MIN_TERRAIN_COST, le=MAX_TERRAIN_COST, allow_inf_nan=False)
]
Include = Literal["path", "waypoints", "explored", "timing"]

# Polygon maps: points in continuous coordinates, spelled like cells (arrays of exactly two
# numbers); requests take JSON numbers only (finite, never a bool or a string).
_POINT_SCHEMA = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
Coordinate = Annotated[
    float, Field(strict=True, allow_inf_nan=False, ge=-MAX_COORDINATE, le=MAX_COORDINATE)
]
_BOUNDED_NUMBER = {"type": "number", "minimum": -MAX_COORDINATE, "maximum": MAX_COORDINATE}
Point = Annotated[
    tuple[Coordinate, Coordinate],
    WithJsonSchema(
        {
            **_POINT_SCHEMA,
            "items": _BOUNDED_NUMBER,
            "description": "A point of a polygon map as [x, y] (numbers within ±1e15).",
            "examples": [[1.5, 2.0]],
        }
    ),
]
PointOut = Annotated[tuple[float, float], WithJsonSchema(_POINT_SCHEMA)]
PointOrNull = Annotated[
    tuple[float, float] | None, WithJsonSchema({"anyOf": [_POINT_SCHEMA, {"type": "null"}]})
]


class MovementRules(BaseModel):
    """How units move: shared by ``/path``, ``/paths``, ``/flowfield`` and ``/validate``."""

    model_config = ConfigDict(extra="forbid")

    connectivity: Literal[4, 8] = 8
    diagonal: Diagonal = Field(
        Diagonal.NO_CORNER_CUT,
        description="8-connected only: never, no_corner_cut (both "
        "orthogonal neighbours walkable), one_free (at least one), always.",
    )
    cost_model: CostModel = Field(
        CostModel.FLOAT, description="float: 1 and sqrt(2) per step; integer: 10 and 14."
    )
    clearance: StrictInt = Field(
        1,
        ge=1,
        le=255,
        description="Unit size in cells: the unit occupies the k x k square "
        "whose top-left cell is its position, and keeps to cells with clearance >= k.",
    )
    terrain_costs: dict[str, TerrainCost] = Field(
        default_factory=dict,
        description="Override terrain class costs for this request, "
        'e.g. {"sand": 1.5} for a unit that prefers sand (classes: GET /maps).',
    )
    blocked: list[Cell] = Field(
        default_factory=list, description="Extra blocked cells for this request only."
    )


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
    max_expanded: StrictInt | None = Field(
        None, ge=1, description="Stop after this many expansions (capped by the server)."
    )
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
    revision: StrictInt | None = Field(
        None,
        ge=1,
        description="Expected map revision (1 or more): 409 stale_revision if the map has "
        "moved on.",
    )


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
    max_expanded: StrictInt | None = Field(
        None, ge=1, description="Stop after this many expansions (capped by the server)."
    )
    revision: StrictInt | None = Field(
        None,
        ge=1,
        description="Expected map revision (1 or more): 409 stale_revision if the map has "
        "moved on.",
    )


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


def any_object(value: Any, handler: object) -> dict:
    # Never calls the handler: each query is validated on its own when the batch runs, so
    # a bad one gets its error in its place and the others are answered. A JSON object is
    # returned as it is.
    if not isinstance(value, dict):
        raise PydanticCustomError("dict_type", "Input should be a valid dictionary")
    return value


# A /paths query as the batch receives it: any JSON object (a dict at run time), documented
# as a PathQuery (a typed model for generated clients).
BatchQuery = Annotated[PathQuery | PolygonPathQuery, WrapValidator(any_object)]
# A /path body: validated by the route against the model of the map's kind (grid or polygon).
AnyPathRequest = Annotated[PathRequest | PolygonPathRequest, WrapValidator(any_object)]


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    map: MapName
    revision: StrictInt | None = Field(
        None,
        ge=1,
        description="Expected map revision (1 or more): 409 stale_revision if the map has "
        "moved on.",
    )
    queries: list[BatchQuery] = Field(
        description="Each one a /path request without `map` (of the map's kind); a query "
        "that is not valid is answered in its place with its error, the others still run."
    )


class FlowFieldRequest(MovementRules):
    """One Dijkstra search from ``goal``: every cell's cost to it and first step towards it."""

    map: MapName
    goal: Cell
    revision: StrictInt | None = Field(
        None,
        ge=1,
        description="Expected map revision (1 or more): 409 stale_revision if the map has "
        "moved on.",
    )
    format: Literal["base64", "png"] = Field(
        "base64", description="base64: arrays in JSON; png: a picture of the cost field."
    )


class TableRequest(MovementRules):
    """Optimal costs from every source to every target, under the movement rules of /path."""

    map: MapName
    sources: list[Cell] = Field(min_length=1, description="Rows of the table: [[x, y], ...].")
    targets: list[Cell] = Field(min_length=1, description="Columns of the table: [[x, y], ...].")
    revision: StrictInt | None = Field(
        None,
        ge=1,
        description="Expected map revision (1 or more): 409 stale_revision if the map has "
        "moved on.",
    )


class TableResponse(BaseModel):
    map: str
    revision: int = Field(description="Revision of the map the table was computed on.")
    costs: list[list[float | None]] = Field(
        description="costs[i][j]: the optimal cost from sources[i] to targets[j] (an integer "
        "with the integer cost model), as /path reports it; null when there is no path, the "
        "source or target is blocked, or the entry is listed in `limit_reached`."
    )
    limit_reached: list[CellOut] = Field(
        description="[i, j] of the entries not computed: their search used up its share of "
        "MAX_BATCH_EXPANDED first (row-major order; empty when the table is complete)."
    )
    blocked_sources: list[int] = Field(
        description="Indices of sources where the unit cannot stand (a wall, a `blocked` "
        "cell, too little clearance): their rows are null."
    )
    blocked_targets: list[int] = Field(description="The same for targets: their columns are null.")
    searched_from: Literal["sources", "targets"] = Field(
        description="Searches start at the distinct open sources, or at the targets when fewer."
    )
    searches: int = Field(
        description="Searches run: one Dijkstra flood per origin, or one jump point search "
        "per pair where JPS applies and an origin has at most 128 ends."
    )
    expanded: int = Field(description="Nodes expanded by all the searches.")
    options: dict = Field(description="The effective movement rules, defaults filled in.")


class EncodedArray(BaseModel):
    dtype: str = Field(description="numpy dtype string, little-endian, e.g. '<f8', '|i1'.")
    shape: list[int] = Field(description="[height, width]: row y, column x.")
    data: str = Field(description="base64 of the raw array bytes, row-major.")


class FlowFieldResponse(BaseModel):
    map: str
    revision: int
    goal: CellOut
    width: int
    height: int
    reachable: int = Field(description="Cells that can reach the goal.")
    expanded: int
    cost: EncodedArray = Field(description="float64 cost to the goal; -1: blocked or unreachable.")
    next: EncodedArray = Field(
        description="int8 first step towards the goal as an index into "
        "`directions`; -1: none (goal, blocked, unreachable)."
    )
    directions: list[str]
    options: dict


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


class NearestCell(BaseModel):
    """``GET /maps/{name}/nearest``: the nearest cell where a unit can stand."""

    map: str
    revision: int
    found: bool = Field(description="false: no such cell within SNAP_RADIUS cells.")
    cell: CellOrNull = Field(
        description="Nearest by Euclidean distance between cell centres; ties: smaller y, "
        "then smaller x."
    )
    distance: float | None = Field(description="Euclidean distance from the cell asked about.")


class BatchResponse(BaseModel):
    map: str
    results: list[PathResponse | PolygonPathResponse | ErrorResponse]


class TerrainInfo(BaseModel):
    name: str
    cost: float


class MapInfo(BaseModel):
    name: str
    kind: Literal["grid"] = Field("grid", description="A grid map (cells).")
    width: int
    height: int
    walkable: int = Field(description="Number of walkable cells.")
    terrain: list[TerrainInfo] = Field(description="Terrain classes and their costs.")
    revision: int
    sha256: str = Field(description="SHA-256 of the map content (size and walkability).")
    source: str = Field(description="File the map was loaded from.")
    jump_table: bool = Field(
        description="JPS runs with a JPS+ jump table on this revision (else it scans)."
    )
    memory_bytes: int = Field(description="Bytes this revision of the map holds in memory.")
    tiers: dict[str, int] = Field(
        default_factory=dict,
        description="Preprocessed tiers this revision has, by algorithm, with their bytes "
        "(included in memory_bytes): `jps` (the JPS+ jump table), `subgoal` (the subgoal "
        "graph and its contraction hierarchy).",
    )


class PolygonMapInfo(BaseModel):
    """A polygon map (``NAME.nav.json``): a walkable outline with holes, in continuous
    coordinates."""

    name: str
    kind: Literal["polygon"] = Field(description="A polygon map.")
    bounds: list[float] = Field(
        min_length=4, max_length=4, description="[min_x, min_y, max_x, max_y] of the outline."
    )
    vertices: int = Field(description="Vertices of the outline and the holes.")
    holes: int = Field(description="Number of holes.")
    waypoints: int = Field(description="Number of waypoints (for mode waypoints).")
    triangles: int = Field(description="Triangles of its navigation mesh.")
    revision: int
    sha256: str = Field(description="SHA-256 of the map's canonical encoding.")
    source: str = Field(description="File the map was loaded from.")
    memory_bytes: int = Field(description="Bytes this revision of the map holds in memory.")


AnyMapInfo = Annotated[MapInfo | PolygonMapInfo, Field(discriminator="kind")]


class MapList(BaseModel):
    maps: list[AnyMapInfo]


class LoadError(BaseModel):
    file: str
    reason: str


class KernelWarmUp(BaseModel):
    """The kernels' staged warm-up (gridpath/search/staged.py): ``steps`` in all, those
    ``ready``, those ``compiling`` (in worker processes or here) and all still ``waiting``."""

    steps: int
    ready: list[str]
    compiling: list[str]
    waiting: list[str]
    elapsed_s: float


class Health(BaseModel):
    status: Literal["ok", "starting"]
    maps: list[str]
    errors: list[LoadError]
    version: str
    commit: str = Field(description="Git commit of the build, or 'unknown'.")
    store: Literal["ok", "degraded"] = Field(
        "ok", description="The map store: degraded while MAP_STORE is unreachable."
    )
    store_type: Literal["folder", "redis"] = "folder"
    store_reason: str | None = Field(None, description="Why the store is degraded.")
    waiting_for: str | None = Field(
        None,
        description="While starting: what readiness waits for (maps loading, the kernel "
        "being compiled, n of m steps, seconds elapsed); after: the kernels still compiling "
        "in the background (their queries answer 503 `warming_up`); null once all are ready.",
    )
    kernels: KernelWarmUp | None = None


class Liveness(BaseModel):
    status: Literal["alive"]


class Readiness(BaseModel):
    status: Literal["ready", "not_ready"]
    checks: dict[str, str] = Field(
        description="Why the service is not ready, by check (maps, store, ...); empty when ready."
    )


STALE_REVISION_RESPONSE = {
    "model": ErrorResponse,
    "description": "`stale_revision`: the map is past the `revision` named, or this process "
    "has not reached it within REVISION_WAIT_MS.",
}


class ReloadedMap(BaseModel):
    name: str
    revision: int
    deleted: bool


class MapReload(BaseModel):
    changed: list[ReloadedMap] = Field(description="Maps that became a new revision.")
    errors: list[LoadError] = Field(
        description="Files that did not load (their maps keep their previous revision)."
    )


class ValidateRequest(MovementRules):
    """A path a client claims to have walked, and the rules to check it against."""

    map: MapName
    path: list[Cell] = Field(description="[[x, y], ...]: cells (mode cells) or waypoints.")
    mode: Literal["cells", "waypoints"] = "cells"
    revision: StrictInt | None = Field(
        None, ge=1, description="The map revision the client saw (1 or more)."
    )
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
    revision: StrictInt | None = Field(
        None, ge=1, description="The map revision the client saw (1 or more)."
    )
    max_cost: FiniteFloat | None = Field(None, ge=0, description="Most length allowed.")
    start: Point | None = Field(None, description="Where the polyline must begin.")
    goal: Point | None = Field(None, description="Where the polyline must end.")


# A /validate body: validated by the route against the model of the map's kind.
AnyValidateRequest = Annotated[ValidateRequest | PolygonValidateRequest, WrapValidator(any_object)]


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


class MapEdit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cells: list[Cell] = Field(default_factory=list)
    rect: Rect | None = Field(None, description="[x0, y0, x1, y1], inclusive.")
    # A number out of TerrainCost's range is refused by the edit itself (422
    # invalid_terrain_costs, as in requests and uploads), hence a plain finite number here.
    value: Literal["blocked", "walkable"] | FiniteFloat = Field(
        description='"blocked", "walkable" or a terrain cost '
        f"({MIN_TERRAIN_COST:g} to {MAX_TERRAIN_COST:,.0f}; else invalid_terrain_costs)."
    )


class HoleEdit(BaseModel):
    """One change to a polygon map's holes."""

    model_config = ConfigDict(extra="forbid")

    op: Literal["add", "replace", "remove"]
    index: StrictInt | None = Field(
        None, description="replace, remove: which hole (0-based, as the edit finds them)."
    )
    ring: list[Point] | None = Field(None, description="add, replace: the hole's vertices.")


class MapPatch(BaseModel):
    """Grid maps: ``set``. Polygon maps: ``holes`` and/or ``waypoints``."""

    model_config = ConfigDict(extra="forbid")

    set: list[MapEdit] | None = Field(None, min_length=1, description="Grid maps: cell edits.")
    holes: list[HoleEdit] | None = Field(
        None, min_length=1, description="Polygon maps: hole edits, applied in order."
    )
    waypoints: list[Point] | None = Field(
        None, description="Polygon maps: the new waypoints (all of them)."
    )
    if_revision: StrictInt | None = Field(
        None, ge=1, description="Apply only if the map is at this revision (1 or more)."
    )


class MapDeleted(BaseModel):
    name: str
    deleted: bool
    revision: int


class MapCells(BaseModel):
    """Every cell of a map in one array, for the browser page (``GET /maps/{name}/cells``)."""

    map: str
    revision: int
    width: int
    height: int
    terrain: list[TerrainInfo] = Field(description="Terrain classes, in class-index order.")
    cells: EncodedArray = Field(
        description="uint8 (uint16 with 256 classes) [height, width]: 0 blocked, k >= 1 "
        "walkable with terrain class k - 1 (an index into `terrain`)."
    )


# PUT /maps/{name}: the map file as the raw body (its format sniffed from the bytes), or a
# form with the file and its sidecar (gridpath.grid.upload). OpenAPI only: the route reads the
# raw body itself.
_BINARY = {"type": "string", "format": "binary"}
UPLOAD_BODY = {
    "required": True,
    "content": {
        "image/png": {"schema": {**_BINARY, "description": "A lossless image (JPEG refused)."}},
        "text/plain": {"schema": {"type": "string", "description": "A Moving AI .map file."}},
        "application/json": {
            "schema": {
                "type": "object",
                "description": "A Tiled .tmj map, or a polygon map (.nav.json: outline, "
                "holes, waypoints; see the README's Polygon maps section).",
            }
        },
        "application/xml": {"schema": {"type": "string", "description": "A Tiled .tmx map."}},
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["map"],
                "properties": {
                    "map": {
                        **_BINARY,
                        "description": "The map file (PNG, .map, .tmj, .tmx, .nav.json); "
                        "the file name's suffix names the format, else it is sniffed.",
                    },
                    "sidecar": {
                        "type": "object",
                        "description": "What a NAME.json sidecar holds: 'palette', "
                        "'costs' and/or 'tiles' (see the README's Maps section).",
                    },
                },
            },
            "encoding": {"sidecar": {"contentType": "application/json"}},
        },
    },
}
