"""Compile every kernel once (or load it from numba's on-disk cache) before serving.

Run at service start-up and at image build time: ``python -m gridpath.search.warmup``.
"""

from __future__ import annotations

import time

import numpy as np

from gridpath.grid.model import Grid, TerrainClass
from gridpath.group.solve import warm_up as group_warm_up
from gridpath.search.find import find_path
from gridpath.search.flowfield import flow_field
from gridpath.search.registry import RUNNERS
from gridpath.search.scratch import SearchScratch
from gridpath.search.smooth import line_of_sight, smooth, turning_points
from gridpath.search.table import cost_table
from gridpath.search.validate import validate_path


def warm_up() -> float:
    """Run each kernel on a tiny grid with the exact argument types the service uses.

    Returns the seconds it took (compile time on a cold cache, milliseconds when warm).
    """
    began = time.perf_counter()
    walkable = np.ones((4, 5), dtype=bool)
    walkable[1, 2] = False
    grid = Grid.from_walkable("_warmup", walkable)
    scratch = SearchScratch()
    for runner in RUNNERS:  # each runner compiles its own kernels
        runner.warm_up(scratch)
    result = find_path(grid, (0, 0), (4, 3), scratch=scratch, waypoints=True)
    smooth(grid, result.path)
    turning_points(result.path)
    line_of_sight(grid, (0, 0), (4, 3))
    line_of_sight(grid, (0, 0), (4, 3), blocked=[(1, 1)], scratch=scratch)
    smooth(grid, result.path, blocked=[(1, 1)], scratch=scratch)
    # over 254 components, a few of them too small for a label of their own: 360 single
    # cells below one open region (gridpath.grid.components)
    islands = np.zeros((40, 80), dtype=bool)
    islands[:20] = True
    islands[22::2, ::2] = True
    assert Grid.from_walkable("_warmup_islands", islands).components().minor_cells is not None
    flow_field(grid, (4, 3), blocked=[(1, 1)], scratch=scratch)
    terrain = Grid.from_walkable(
        "_warmup_terrain",
        walkable,
        terrain=(walkable * 1).astype(np.uint8),
        terrain_classes=(TerrainClass("ground", 1.0), TerrainClass("sand", 2.0)),
    )
    flow_field(terrain, (4, 3), scratch=scratch)
    cost_table(terrain, [(0, 0), (4, 3)], [(4, 3)], scratch=scratch)  # a flood, searched back
    for blocked in ([], [(1, 1)]):  # without and with an overlay: two specialisations
        validate_path(grid, result.path, blocked=blocked, compare_optimal=True, scratch=scratch)
        validate_path(grid, result.path, mode="waypoints", blocked=blocked, scratch=scratch)
    group_warm_up()  # POST /group's kernels
    return time.perf_counter() - began


if __name__ == "__main__":
    print(f"kernels ready in {warm_up():.2f} s")
