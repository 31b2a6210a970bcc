"""The common query's road (``find.common_query``: a plan kept per revision, one compiled
call after the kernel) gives exactly what the general road (``find.general_query``) gives,
field by field, on every exact-pair runner and every outcome."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gridpath.grid import Grid
from gridpath.search import SearchOptions
from gridpath.search.find import checked_query, common_query, find_path, general_query
from gridpath.search.options import Algorithm, CostModel
from gridpath.search.runners import jps
from gridpath.search.scratch import SearchScratch
from tests.conftest import MAPS_DIR

OPTIONS = [
    SearchOptions(),  # auto: block JPS on long runs, byte-scan JPS on short ones
    SearchOptions(smooth=True),
    SearchOptions(algorithm=Algorithm.ASTAR, smooth=True),  # the fast A* runner
    SearchOptions(algorithm=Algorithm.JPS, cost_model=CostModel.INTEGER),
    SearchOptions(clearance=2, smooth=True),  # byte-scan JPS for a larger unit
    SearchOptions(max_expanded=3),  # limit_reached
]


def _grids() -> list[Grid]:
    rng = np.random.default_rng(15)
    open_rooms = np.ones((40, 90), dtype=bool)  # long runs: block JPS
    open_rooms[10:30, 45] = False
    open_rooms[20, 10:80] = False
    open_rooms[20, 44:47] = True
    scattered = rng.random((30, 30)) > 0.3  # short runs, several components
    walled = np.ones((12, 12), dtype=bool)
    walled[:, 6] = False  # two components: unreachable without a search
    grids = [
        Grid.from_walkable("rooms", open_rooms),
        Grid.from_walkable("scattered", scattered),
        Grid.from_walkable("walled", walled),
    ]
    with_table = Grid.from_walkable("table", open_rooms)
    assert jps.jump_table(with_table) is not None  # the JPS+ table where one is built
    return [*grids, with_table]


def _open_cells(grid: Grid, rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    ys, xs = np.nonzero(grid.walkable)
    picks = rng.integers(0, len(xs), size=n)
    return [(int(xs[i]), int(ys[i])) for i in picks]


def _general(grid: Grid, start, goal, options: SearchOptions, waypoints: bool):
    query = checked_query(grid, start, goal, None, options, (), 0)
    return general_query(query, waypoints)


def _same(a, b) -> None:
    for f in dataclasses.fields(a):
        if f.name == "search_us" or f.name == "known_turns":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), f.name
            assert x.flags.c_contiguous and y.flags.c_contiguous
        else:
            assert x == y and type(x) is type(y), (f.name, x, y)
    assert a.turns == b.turns


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_common_road_answers_as_the_general_road(options: SearchOptions) -> None:
    rng = np.random.default_rng(7)
    scratch = SearchScratch()
    served = 0
    for grid in _grids():
        cells = _open_cells(grid, rng, 60)
        for start, goal in zip(cells[::2], cells[1::2], strict=True):
            for waypoints in (False, True):
                fast = common_query(grid, start, goal, options, waypoints, scratch=scratch)
                if fast is None:  # the plan or an end is not for this road
                    continue
                served += 1
                _same(fast, _general(grid, start, goal, options, waypoints))
    assert served > 100


def test_the_general_road_raises_what_the_common_road_leaves() -> None:
    grid = Grid.from_walkable("walled", np.eye(5, dtype=bool) | np.eye(5, k=1, dtype=bool))
    assert common_query(grid, (0, 0), (4, 0)) is None  # a blocked goal
    assert common_query(grid, (0, 0), (9, 9)) is None  # outside the map
    with pytest.raises(Exception, match="blocked cell"):
        find_path(grid, (0, 0), (4, 0))
    with pytest.raises(Exception, match="outside map"):
        find_path(grid, (0, 0), (9, 9))


def test_the_demo_arena_takes_the_common_road() -> None:
    from gridpath.grid.loader import load_map

    arena = load_map(MAPS_DIR / "arena.png", max_cells=1 << 20, max_bytes=1 << 24)
    result = common_query(arena, (2, 2), (24, 9), SearchOptions(smooth=True), True)
    assert result is not None and result.found and result.options.algorithm == Algorithm.JPS
    _same(result, _general(arena, (2, 2), (24, 9), SearchOptions(smooth=True), True))
