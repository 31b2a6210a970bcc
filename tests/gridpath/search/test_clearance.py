"""Clearance maps and searches for units larger than one cell."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.errors import GoalBlocked, StartBlocked
from gridpath.grid import Grid
from gridpath.grid.clearance import clearance_map
from gridpath.search import Algorithm, Diagonal, SearchOptions, find_path, line_of_sight, smooth
from tests.reference import reference_line_of_sight_rule


def brute_clearance(walkable):
    h, w = walkable.shape
    out = np.zeros((h, w), dtype=int)
    for y in range(h):
        for x in range(w):
            k = 0
            while y + k < h and x + k < w and walkable[y : y + k + 1, x : x + k + 1].all():
                k += 1
            out[y, x] = k
    return out


@st.composite
def grids(draw):
    width, height = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.1, 0.25]))


@settings(max_examples=200, deadline=None)
@given(walkable=grids())
def test_clearance_map_matches_brute_force(walkable):
    assert (clearance_map(walkable) == brute_clearance(walkable)).all()


@pytest.mark.parametrize("size", [2, 3])
@settings(max_examples=80, deadline=None)
@given(walkable=grids(), data=st.data())
def test_large_unit_equals_search_on_cells_with_room(size, walkable, data):
    room = brute_clearance(walkable) >= size
    cells = [(int(x), int(y)) for y, x in np.argwhere(room)]
    if not cells:
        return
    start = data.draw(st.sampled_from(cells))
    goal = data.draw(st.sampled_from(cells))
    grid = Grid.from_walkable("c", walkable)
    big = find_path(grid, start, goal, SearchOptions(clearance=size))  # auto: jps
    astar = find_path(
        grid,
        start,
        goal,
        SearchOptions(clearance=size, algorithm=Algorithm.ASTAR),
        explored_limit=1,
    )
    same = find_path(Grid.from_walkable("r", room), start, goal, explored_limit=1)
    assert big.found == same.found and big.cost == same.cost == astar.cost
    assert astar.path.tolist() == same.path.tolist()
    if big.found:  # every square the unit stands on is free
        for x, y in big.path.tolist():
            assert walkable[y : y + size, x : x + size].all()
        waypoints = smooth(grid, big.path, clearance=size).tolist()
        for a, b in zip(waypoints, waypoints[1:]):
            assert reference_line_of_sight_rule(room, tuple(a), tuple(b), "no_corner_cut")


def test_door_too_narrow_for_big_unit():
    rows = ["..#..", ".....", "..#..", "..#..", "....."]
    walkable = np.array([[c == "." for c in r] for r in rows])
    grid = Grid.from_walkable("door", walkable)
    small = find_path(grid, (0, 0), (3, 0))
    assert small.found and small.cost < 5
    # Column 2 has no two free cells one above the other: a 2x2 unit cannot get through.
    big = find_path(grid, (0, 0), (3, 0), SearchOptions(clearance=2))
    assert not big.found and big.reason == "unreachable"
    with pytest.raises(StartBlocked, match="clearance"):
        find_path(grid, (4, 4), (0, 0), SearchOptions(clearance=2))
    with pytest.raises(GoalBlocked, match="no room for a unit of size 2"):
        find_path(grid, (0, 0), (4, 4), SearchOptions(clearance=2))


def test_line_of_sight_for_big_unit():
    walkable = np.ones((4, 6), dtype=bool)
    walkable[3, 3] = False
    grid = Grid.from_walkable("los", walkable)
    assert line_of_sight(grid, (0, 2), (4, 2))
    assert not line_of_sight(grid, (0, 2), (4, 2), clearance=2)
    assert line_of_sight(grid, (0, 1), (4, 1), clearance=2, diagonal=Diagonal.ALWAYS)
