"""Models of the ``/maps`` resources: listing, upload, edits, cells, nearest cell, reload."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from app.models.common import (
    Cell,
    CellOrNull,
    EncodedArray,
    FiniteFloat,
    LoadError,
    Point,
    Rect,
    TerrainInfo,
)
from gridpath.grid.terrain import MAX_TERRAIN_COST, MIN_TERRAIN_COST


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


class ReloadedMap(BaseModel):
    name: str
    revision: int
    deleted: bool


class MapReload(BaseModel):
    changed: list[ReloadedMap] = Field(description="Maps that became a new revision.")
    errors: list[LoadError] = Field(
        description="Files that did not load (their maps keep their previous revision)."
    )


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
