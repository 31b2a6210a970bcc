"""GET /maps/{name}/cells: every cell's walkability and terrain class in one compact array,
so a client (the browser page) can draw and edit a map in its own colours: the PNG of
``/maps/{name}/image`` shades costs in grey and cannot tell two classes of equal cost apart."""

from __future__ import annotations

import numpy as np
from fastapi import APIRouter

from app.api.deps import RegistryDep
from app.api.kinds import require_grid
from app.api.map_info import check_map_name, map_info
from app.api.responses import encode_array
from app.models import ErrorResponse, MapCells

router = APIRouter(tags=["maps"])


@router.get(
    "/maps/{name}/cells",
    response_model=MapCells,
    responses={404: {"model": ErrorResponse}, 422: {"model": ErrorResponse}},
)
def get_map_cells(name: str, store: RegistryDep) -> MapCells:
    """The current revision's cells: 0 blocked, k >= 1 walkable of terrain class k - 1."""
    check_map_name(name)
    grid = require_grid(store.get(name), "GET /maps/{name}/cells")
    # A map holds at most 256 classes, so class + 1 fits uint8 unless all 256 are used.
    dtype = np.uint8 if len(grid.terrain_classes) < 256 else np.dtype("<u2")
    inner = grid.terrain[1:-1, 1:-1].astype(dtype) + 1
    inner[grid.passable[1:-1, 1:-1] == 0] = 0
    info = map_info(grid)
    return MapCells(
        map=grid.name,
        revision=grid.revision,
        width=grid.width,
        height=grid.height,
        terrain=info.terrain,
        cells=encode_array(inner),
    )
