"""What the map routes answer about a map (``MapInfo``, ``PolygonMapInfo``), and the map
name check of every route with ``{name}`` in its path."""

from __future__ import annotations

from app.api.polygon import polygon_map_info
from app.models import MapInfo, PolygonMapInfo, TerrainInfo
from gridpath.errors import InvalidRequest
from gridpath.grid import Grid, is_valid_map_name
from gridpath.nav.snapshot import PolygonMap
from gridpath.search import tiers


def map_info(grid: Grid | PolygonMap) -> MapInfo | PolygonMapInfo:
    if grid.kind == "polygon":
        return polygon_map_info(grid)
    return MapInfo(
        name=grid.name,
        width=grid.width,
        height=grid.height,
        walkable=grid.walkable_count,
        terrain=[TerrainInfo(name=tc.name, cost=tc.cost) for tc in grid.terrain_classes],
        revision=grid.revision,
        sha256=grid.sha256,
        source=grid.source,
        jump_table=grid.jump_table is not None,
        memory_bytes=grid.nbytes,
        tiers=tiers(grid),
    )


def check_map_name(name: str) -> None:
    if not is_valid_map_name(name):
        raise InvalidRequest(f"map name {name!r} is not 1-64 characters of [A-Za-z0-9_-]")
