"""line_of_sight, smooth and turning_points, checked against exact geometry."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.search import find_path, line_of_sight, smooth, turning_points
from tests.conftest import make_grid
from tests.reference import reference_line_of_sight, touched_cells


def test_reference_geometry_sanity():
    assert touched_cells((0, 0), (1, 1)) == {(0, 0), (1, 0), (0, 1), (1, 1)}
    assert touched_cells((0, 0), (2, 1)) == {(0, 0), (1, 0), (1, 1), (2, 1)}
    assert touched_cells((0, 0), (3, 0)) == {(0, 0), (1, 0), (2, 0), (3, 0)}


def test_sight_blocked_by_wall():
    grid = make_grid("""
        .....
        ..#..
        .....
    """)
    assert not line_of_sight(grid, (0, 1), (4, 1))
    assert line_of_sight(grid, (0, 0), (4, 0))


def test_sight_through_exact_corner_needs_all_four_cells():
    open_grid = make_grid("..\n..")
    assert line_of_sight(open_grid, (0, 0), (1, 1))
    one_wall = make_grid(".#\n..")
    assert not line_of_sight(one_wall, (0, 0), (1, 1))
    # A longer diagonal through corner points: (0,0)->(2,2) passes corners (1,1) and (2,2).
    grid = make_grid("...\n..#\n...")
    assert not line_of_sight(grid, (0, 0), (2, 2))


def test_sight_grazing_a_wall_edge_is_refused():
    # (0,0)->(2,1): the segment crosses cell (1,0) and (1,1); block (1,1).
    grid = make_grid("...\n.#.")
    assert not line_of_sight(grid, (0, 0), (2, 1))
    grid2 = make_grid("...\n#..")
    assert line_of_sight(grid2, (0, 0), (2, 1))


def test_sight_off_map_is_false():
    grid = make_grid("..")
    assert not line_of_sight(grid, (0, 0), (5, 0))


def test_smooth_open_field_is_one_segment():
    grid = make_grid("\n".join(["......."] * 5))
    path = find_path(grid, (0, 0), (6, 4)).path
    assert smooth(grid, path).tolist() == [[0, 0], [6, 4]]


def test_smooth_around_a_wall():
    grid = make_grid("""
        .......
        .......
        ...#...
        ...#...
        ...#...
    """)
    path = find_path(grid, (0, 4), (6, 4)).path
    waypoints = smooth(grid, path).tolist()
    assert waypoints[0] == [0, 4] and waypoints[-1] == [6, 4]
    assert len(waypoints) <= 4
    for a, b in zip(waypoints, waypoints[1:]):
        assert reference_line_of_sight(grid.walkable, a, b)


def test_turning_points():
    path = np.array([[0, 0], [1, 0], [2, 0], [3, 1], [4, 2], [4, 3]], dtype=np.int32)
    assert turning_points(path).tolist() == [[0, 0], [2, 0], [4, 2], [4, 3]]
    assert turning_points(path[:1]).tolist() == [[0, 0]]


def forward_string_pull(walkable, cells):
    """The rule as written: advance while the next path cell is in sight."""
    out = [cells[0]]
    i = 0
    while i < len(cells) - 1:
        j = i + 1
        while j + 1 < len(cells) and reference_line_of_sight(walkable, cells[i], cells[j + 1]):
            j += 1
        out.append(cells[j])
        i = j
    return out


@st.composite
def grids(draw, max_side=12):
    width = draw(st.integers(1, max_side))
    height = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.15, 0.3]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return rng.random((height, width)) >= density


@settings(max_examples=300, deadline=None)
@given(grids(), st.data())
def test_line_of_sight_matches_exact_geometry(walkable, data):
    h, w = walkable.shape
    a = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    b = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    grid = Grid.from_walkable("los", walkable)
    assert line_of_sight(grid, a, b) == reference_line_of_sight(walkable, a, b)
    assert line_of_sight(grid, a, b) == line_of_sight(grid, b, a)


@settings(max_examples=200, deadline=None)
@given(grids(), st.data())
def test_waypoints_are_the_forward_string_pull(walkable, data):
    cells = np.argwhere(walkable)
    if len(cells) == 0:
        return
    i = data.draw(st.integers(0, len(cells) - 1))
    j = data.draw(st.integers(0, len(cells) - 1))
    grid = Grid.from_walkable("smooth", walkable)
    result = find_path(
        grid, (int(cells[i][1]), int(cells[i][0])), (int(cells[j][1]), int(cells[j][0]))
    )
    if not result.found:
        return
    path = [tuple(c) for c in result.path.tolist()]
    waypoints = [tuple(c) for c in smooth(grid, result.path).tolist()]
    assert waypoints == forward_string_pull(walkable, path)
    # A subsequence of the path, from start to goal, every pair in sight.
    assert waypoints[0] == path[0] and waypoints[-1] == path[-1]
    positions = [path.index(w) for w in waypoints]
    assert positions == sorted(positions)
    for a, b in zip(waypoints, waypoints[1:]):
        assert reference_line_of_sight(walkable, a, b)


@pytest.mark.parametrize("n", [1, 2])
def test_smooth_short_paths(n):
    grid = make_grid("...")
    path = np.array([[0, 0], [1, 0]][:n], dtype=np.int32)
    assert smooth(grid, path).tolist() == path.tolist()
