"""What every request through a world names (docs/worlds.md): the world, a place of one of its
maps, the world revision, and the links a unit may not take. One definition for the searches
(``app.models.world_paths``) and the group moves (``app.models.group``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from app.models.common import Cell, CellOut, MapName
from gridpath.world.model import NAME

WORLD_NAME_PATTERN = NAME.pattern

WorldName = Annotated[
    str,
    Field(
        pattern=WORLD_NAME_PATTERN,
        max_length=128,
        description="World name: 1-128 characters of [A-Za-z0-9_-].",
        examples=["keep"],
    ),
]
WorldRevision = Annotated[
    StrictInt | None,
    Field(
        ge=1,
        description="Expected world revision (1 or more): waited for (read your writes), "
        "409 stale_revision if the world has moved on or is not reached in time.",
    ),
]
LinkName = Annotated[str, Field(pattern=WORLD_NAME_PATTERN, max_length=128)]


class WorldPlace(BaseModel):
    """A cell of a map of the world."""

    model_config = ConfigDict(extra="forbid")

    map: MapName
    cell: Cell


class PlaceOut(BaseModel):
    map: str
    cell: CellOut


class LinkChoice(BaseModel):
    """The links this unit may not take (a unit that cannot climb: ``exclude_tags``)."""

    model_config = ConfigDict(extra="forbid")

    exclude_ids: list[LinkName] = Field(default_factory=list, max_length=100_000)
    exclude_tags: list[LinkName] = Field(default_factory=list, max_length=1_000)
