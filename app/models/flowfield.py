"""Models of ``POST /flowfield``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, StrictInt

from app.models.common import Cell, CellOut, EncodedArray, MapName, MovementRules


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
