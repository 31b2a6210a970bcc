"""Shared pieces of the API models: cells and points as the OpenAPI document spells them,
the error envelope, strict numbers, the movement rules every search takes.

Coordinates are ``[x, y]`` pairs of integers: ``x`` is the column, ``y`` the row,
origin at the top-left cell of the map as stored in its file.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, WithJsonSchema
from pydantic_core import PydanticCustomError

from gridpath.grid.model import MAP_NAME_PATTERN
from gridpath.grid.terrain import MAX_TERRAIN_COST, MIN_TERRAIN_COST
from gridpath.nav.model import MAX_COORDINATE
from gridpath.search.options import CostModel, Diagonal

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


# The optional fields several requests share (each ``= None``): one definition, one schema.
ExpectedRevision = Annotated[
    StrictInt | None,
    Field(
        ge=1,
        description="Expected map revision (1 or more): 409 stale_revision if the map has "
        "moved on.",
    ),
]
SeenRevision = Annotated[
    StrictInt | None, Field(ge=1, description="The map revision the client saw (1 or more).")
]
ExpansionCap = Annotated[
    StrictInt | None,
    Field(ge=1, description="Stop after this many expansions (capped by the server)."),
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


def any_object(value: Any, handler: object) -> dict:
    # Never calls the handler: each query is validated on its own when the batch runs, so
    # a bad one gets its error in its place and the others are answered. A JSON object is
    # returned as it is.
    if not isinstance(value, dict):
        raise PydanticCustomError("dict_type", "Input should be a valid dictionary")
    return value


class EncodedArray(BaseModel):
    dtype: str = Field(description="numpy dtype string, little-endian, e.g. '<f8', '|i1'.")
    shape: list[int] = Field(description="[height, width]: row y, column x.")
    data: str = Field(description="base64 of the raw array bytes, row-major.")


class TerrainInfo(BaseModel):
    name: str
    cost: float


class LoadError(BaseModel):
    file: str
    reason: str


STALE_REVISION_RESPONSE = {
    "model": ErrorResponse,
    "description": "`stale_revision`: the map is past the `revision` named, or this process "
    "has not reached it within REVISION_WAIT_MS.",
}
