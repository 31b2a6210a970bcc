"""Request and response models of the HTTP API (pydantic only; no numpy here).

Coordinates are ``[x, y]`` pairs of integers: ``x`` is the column, ``y`` the row,
origin at the top-left cell of the map as stored in its file.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from app.grid.model import MAP_NAME_PATTERN

Cell = Annotated[
    tuple[StrictInt, StrictInt],
    Field(description="A cell as [x, y]: x the column, y the row, origin top-left.",
          examples=[[1, 1]]),
]
MapName = Annotated[
    str,
    Field(pattern=MAP_NAME_PATTERN, description="Map name: 1-64 characters of [A-Za-z0-9_-].",
          examples=["arena"]),
]


class ErrorBody(BaseModel):
    code: str = Field(description="Stable machine-readable error code.", examples=["map_not_found"])
    message: str = Field(description="What was wrong, for people.")


class ErrorResponse(BaseModel):
    """Every error has this shape."""

    error: ErrorBody


class PathRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    map: MapName
    start: Cell
    goal: Cell
    smooth: StrictBool = Field(
        True,
        description="true: waypoints are string-pulled (consecutive waypoints see each other). "
        "false: waypoints are the path's turning points.",
    )


class PathResponse(BaseModel):
    map: str
    revision: int = Field(description="Revision of the map the path was computed on.")
    found: bool
    reason: Literal["unreachable", "limit_reached"] | None = Field(
        description="Why no path was returned; null when found.")
    cost: float | None = Field(
        description="Length of `path`: 1 per straight step, sqrt(2) per diagonal step; "
        "null when not found.")
    path: list[tuple[int, int]] = Field(description="Every cell from start to goal inclusive.")
    waypoints: list[tuple[int, int]] = Field(
        description="Subsequence of `path` from start to goal in which consecutive waypoints "
        "have line of sight.")
    expanded: int = Field(description="Nodes the search expanded.")


class MapInfo(BaseModel):
    name: str
    width: int
    height: int
    walkable: int = Field(description="Number of walkable cells.")
    revision: int
    sha256: str = Field(description="SHA-256 of the map content (size and walkability).")
    source: str = Field(description="File the map was loaded from.")


class MapList(BaseModel):
    maps: list[MapInfo]


class LoadError(BaseModel):
    file: str
    reason: str


class Health(BaseModel):
    status: Literal["ok", "starting"]
    maps: list[str]
    errors: list[LoadError]
