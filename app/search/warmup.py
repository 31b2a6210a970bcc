"""Compile every kernel once (or load it from numba's on-disk cache) before serving.

Run at service start-up and at image build time: ``python -m app.search.warmup``.
"""

from __future__ import annotations

import time

import numpy as np

from app.grid.model import Grid, TerrainClass
from app.search.find import find_path
from app.search.flowfield import flow_field
from app.search.options import Algorithm, SearchOptions
from app.search.scratch import SearchScratch
from app.search.smooth import line_of_sight, smooth, turning_points
from app.search.validate import validate_path


def warm_up() -> float:
    """Run each kernel on a tiny grid with the exact argument types the service uses.

    Returns the seconds it took (compile time on a cold cache, milliseconds when warm).
    """
    began = time.perf_counter()
    walkable = np.ones((4, 5), dtype=bool)
    walkable[1, 2] = False
    grid = Grid.from_walkable("_warmup", walkable)
    scratch = SearchScratch()
    result = find_path(grid, (0, 0), (4, 3), scratch=scratch)
    smooth(grid, result.path)
    turning_points(result.path)
    line_of_sight(grid, (0, 0), (4, 3))
    line_of_sight(grid, (0, 0), (4, 3), blocked=[(1, 1)], scratch=scratch)
    find_path(grid, (0, 0), (4, 3), SearchOptions(max_expanded=1), scratch=scratch)
    find_path(grid, (0, 0), (4, 3), SearchOptions(algorithm=Algorithm.ASTAR), scratch=scratch)
    # over 254 components, a few of them too small for a label of their own: 360 single
    # cells below one open region (app.grid.components)
    islands = np.zeros((40, 80), dtype=bool)
    islands[:20] = True
    islands[22::2, ::2] = True
    assert Grid.from_walkable("_warmup_islands", islands).components().minor_cells is not None
    open_grid = Grid.from_walkable("_warmup_open", np.ones((8, 8), dtype=bool))
    assert open_grid.jump_table is not None  # runs long enough for JPS+ (app.grid.jumps)
    find_path(open_grid, (0, 0), (7, 5), scratch=scratch)  # JPS+: jumps by table lookup
    # JPS for units of size 2 scans the grid (the jump table is for size 1)
    find_path(open_grid, (0, 0), (5, 3), SearchOptions(clearance=2), scratch=scratch)
    general = find_path(
        grid,
        (0, 0),
        None,
        SearchOptions(algorithm=Algorithm.DIJKSTRA, closest=True),
        goals=[(4, 3), (3, 0)],
        blocked=[(1, 1)],
        explored_limit=4,
        scratch=scratch,
    )
    smooth(grid, general.path, blocked=[(1, 1)], scratch=scratch)
    flow_field(grid, (4, 3), blocked=[(1, 1)], scratch=scratch)
    terrain = Grid.from_walkable(
        "_warmup_terrain",
        walkable,
        terrain=(walkable * 1).astype(np.uint8),
        terrain_classes=(TerrainClass("ground", 1.0), TerrainClass("sand", 2.0)),
    )
    find_path(
        terrain, (0, 0), (4, 3), SearchOptions(terrain_costs=(("sand", 1.5),)), scratch=scratch
    )
    flow_field(terrain, (4, 3), scratch=scratch)
    for blocked in ([], [(1, 1)]):  # without and with an overlay: two specialisations
        validate_path(grid, result.path, blocked=blocked, compare_optimal=True, scratch=scratch)
        validate_path(grid, result.path, mode="waypoints", blocked=blocked, scratch=scratch)
    return time.perf_counter() - began


if __name__ == "__main__":
    print(f"kernels ready in {warm_up():.2f} s")
