"""GET /maps: the loaded maps."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import StoreDep
from app.grid import Grid
from app.schemas import ErrorResponse, MapInfo, MapList, TerrainInfo

router = APIRouter(tags=["maps"])


def map_info(grid: Grid) -> MapInfo:
    return MapInfo(name=grid.name, width=grid.width, height=grid.height,
                   walkable=grid.walkable_count,
                   terrain=[TerrainInfo(name=tc.name, cost=tc.cost) for tc in grid.terrain_classes],
                   revision=grid.revision, sha256=grid.sha256,
                   source=grid.source)


@router.get("/maps", response_model=MapList,
            responses={503: {"model": ErrorResponse, "description": "Still starting."}})
def list_maps(store: StoreDep) -> MapList:
    """Every loaded map, sorted by name."""
    return MapList(maps=[map_info(grid) for grid in store.all()])
