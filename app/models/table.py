"""Models of ``POST /table``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.models.common import Cell, CellOut, ExpectedRevision, MapName, MovementRules


class TableRequest(MovementRules):
    """Optimal costs from every source to every target, under the movement rules of /path."""

    map: MapName
    sources: list[Cell] = Field(min_length=1, description="Rows of the table: [[x, y], ...].")
    targets: list[Cell] = Field(min_length=1, description="Columns of the table: [[x, y], ...].")
    revision: ExpectedRevision = None


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
