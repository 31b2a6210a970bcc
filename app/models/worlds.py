"""Models of the ``/worlds`` resources: worlds of grid maps joined by links
(``gridpath.world``).

The bodies of ``PUT`` and ``PATCH`` are declared here in full, and checked by the world
model itself (``gridpath.world.parse_world``, ``apply_patch``), so every refusal of their
content is ``invalid_world`` (or ``unsupported_map_kind``, ``link_not_found``) with the
same message whether it comes from the API or a file.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, WrapValidator

from app.models.common import CellOut, MapName, any_object


class Place(BaseModel):
    """A cell of a map of the world."""

    model_config = ConfigDict(extra="forbid")

    map: MapName
    cell: CellOut = Field(description="[x, y] inside the map.")


class Link(BaseModel):
    """A link: one move from `from` to `to` (and back when `bidirectional`), costing
    `cost` whatever the cost model or terrain. A link whose end cell is blocked, or outside
    its map now, is unusable until the cell is walkable again."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$", max_length=128, description="Unique in the world.")
    source: Place = Field(alias="from")
    target: Place = Field(alias="to")
    cost: float = Field(1.0, ge=0, le=1e12, description="Finite, >= 0 (zero allowed).")
    bidirectional: bool = Field(False, description="false: only from -> to.")
    enabled: bool = True
    tags: list[str] = Field(default_factory=list, max_length=32)


class WorldDocument(BaseModel):
    """A world's file form (``MAPS_DIR/NAME.world.json``), the body of ``PUT``."""

    model_config = ConfigDict(extra="forbid")

    maps: list[MapName] = Field(min_length=1, max_length=256, description="Grid maps only.")
    links: list[Link] = Field(default_factory=list)


class LinkChange(BaseModel):
    """Fields of an existing link to change (``PATCH`` ``set``)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    enabled: bool | None = None
    cost: float | None = Field(None, ge=0, le=1e12)
    bidirectional: bool | None = None
    tags: list[str] | None = None


class WorldPatch(BaseModel):
    """Applied all or nothing, in this order: ``remove`` ids, ``add`` links, ``set`` fields."""

    model_config = ConfigDict(extra="forbid")

    add: list[Link] = Field(default_factory=list)
    remove: list[str] = Field(default_factory=list)
    set: list[LinkChange] = Field(default_factory=list)
    if_revision: int | None = Field(
        None, ge=1, description="Apply only if the world is at this revision (else 409)."
    )


# Declared in full, checked by the world model (invalid_world names what is wrong).
WorldBody = Annotated[WorldDocument, WrapValidator(any_object)]
WorldPatchBody = Annotated[WorldPatch, WrapValidator(any_object)]


class WorldSummary(BaseModel):
    name: str
    revision: int
    maps: list[str]
    links: int = Field(description="How many links the world declares.")


class WorldList(BaseModel):
    worlds: list[WorldSummary]


class WorldMap(BaseModel):
    name: str
    revision: int | None = Field(
        description="The map's current revision; null if the map is gone (queries through "
        "the world answer map_not_found until it is back)."
    )


class WorldInfo(BaseModel):
    name: str
    revision: int
    maps: list[WorldMap]
    links: list[Link] = Field(description="The world's links, in its order.")
    map_links: list[Link] = Field(
        description="Same-map links its Tiled maps declare (object class `link`), in the "
        "order of `maps`; they join `links` in queries (indices continue after `links`)."
    )


class WorldRevision(BaseModel):
    """The new revision a change made (served by this process already: pass it as
    `world_revision` to read it from any process)."""

    name: str
    revision: int


class WorldDeleted(BaseModel):
    name: str
    deleted: bool
    revision: int
