"""validate_path: every path /path returns validates; every kind of cheat is caught."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.search import CostModel, Diagonal, SearchOptions, find_path, smooth
from gridpath.search.validate import validate_path
from tests.conftest import make_grid
from tests.reference import path_cost, reference_line_of_sight_rule, step_is_legal

RULES = [
    (4, Diagonal.NO_CORNER_CUT),
    (8, Diagonal.NO_CORNER_CUT),
    (8, Diagonal.ONE_FREE),
    (8, Diagonal.ALWAYS),
]


@st.composite
def case(draw):
    width, height = draw(st.integers(2, 12)), draw(st.integers(2, 12))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.2, 0.35]))
    cells = np.argwhere(walkable)
    if len(cells) < 2:
        walkable[:, :] = True
        cells = np.argwhere(walkable)
    i, j = draw(st.integers(0, len(cells) - 1)), draw(st.integers(0, len(cells) - 1))
    return walkable, (int(cells[i][1]), int(cells[i][0])), (int(cells[j][1]), int(cells[j][0]))


@pytest.mark.parametrize("connectivity,diagonal", RULES)
@settings(max_examples=60, deadline=None)
@given(c=case())
def test_found_and_smoothed_paths_validate(connectivity, diagonal, c):
    walkable, start, goal = c
    grid = Grid.from_walkable("v", walkable)
    options = SearchOptions(connectivity=connectivity, diagonal=diagonal)
    result = find_path(grid, start, goal, options)
    if not result.found:
        return
    check = validate_path(
        grid,
        result.path,
        options=options,
        max_cost=result.cost,
        start=start,
        goal=goal,
        compare_optimal=True,
    )
    assert check.valid, check.violations
    assert check.cost == result.cost and check.optimal_cost == result.cost
    waypoints = smooth(grid, result.path, diagonal=options.resolved().diagonal)
    check = validate_path(grid, waypoints, mode="waypoints", options=options, max_cost=result.cost)
    assert check.valid, check.violations


@pytest.mark.parametrize("connectivity,diagonal", RULES)
@settings(max_examples=100, deadline=None)
@given(c=case(), data=st.data())
def test_cells_mode_agrees_with_reference_rules(connectivity, diagonal, c, data):
    walkable, _, _ = c
    h, w = walkable.shape
    coords = st.tuples(st.integers(-1, w), st.integers(-1, h))
    path = data.draw(st.lists(coords, min_size=1, max_size=6))
    rule = "never" if connectivity == 4 else diagonal.value
    grid = Grid.from_walkable("r", walkable)
    check = validate_path(
        grid, path, options=SearchOptions(connectivity=connectivity, diagonal=diagonal)
    )
    inside = [0 <= x < w and 0 <= y < h for x, y in path]
    legal = (
        all(inside)
        and all(walkable[y, x] for x, y in path)
        and all(step_is_legal(walkable, a, b, rule) for a, b in zip(path, path[1:]))
    )
    assert check.valid == legal
    codes = {v.code for v in check.violations}
    assert ("out_of_bounds" in codes) == (not all(inside))


@settings(max_examples=100, deadline=None)
@given(c=case(), data=st.data())
def test_waypoints_mode_agrees_with_exact_geometry(c, data):
    walkable, _, _ = c
    h, w = walkable.shape
    cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    path = data.draw(st.lists(st.sampled_from(cells), min_size=1, max_size=5))
    check = validate_path(Grid.from_walkable("w", walkable), path, mode="waypoints")
    expected = all(
        reference_line_of_sight_rule(walkable, a, b, "no_corner_cut")
        for a, b in zip(path, path[1:])
    )
    assert check.valid == expected


GRID = """
......
..##..
......
......
"""


@pytest.mark.parametrize(
    "path,code,index",
    [
        ([(1, 0), (2, 1)], "blocked_cell", 1),  # a step into a wall
        ([(0, 0), (3, 0)], "not_adjacent", 1),  # a teleport
        ([(0, 0), (0, 0)], "not_adjacent", 1),  # standing still is not a step
        ([(1, 2), (2, 1)], "blocked_cell", 1),
        ([(1, 0), (2, 1), (3, 2)], "blocked_cell", 1),
        ([(1, 1), (2, 0)], "corner_cut", 1),  # squeezes past the wall's corner
        ([(5, 3), (6, 3)], "out_of_bounds", 1),
    ],
)
def test_each_cheat_is_caught(path, code, index):
    grid = make_grid(GRID)
    check = validate_path(grid, path)
    assert not check.valid
    assert any(v.code == code and v.index == index for v in check.violations), check.violations


def test_waypoints_through_a_wall_and_budget():
    grid = make_grid(GRID)
    check = validate_path(grid, [(0, 1), (5, 1)], mode="waypoints")
    assert [(v.code, v.index) for v in check.violations] == [("no_line_of_sight", 1)]
    assert check.cost == pytest.approx(5.0)
    over = validate_path(grid, [(0, 0), (1, 0), (2, 0)], max_cost=1.5)
    assert [v.code for v in over.violations] == ["over_budget"] and over.cost == 2.0
    ends = validate_path(grid, [(0, 0), (1, 0)], start=(1, 0), goal=(0, 0))
    assert [v.code for v in ends.violations] == ["wrong_start", "wrong_goal"]


def test_first_violation_of_each_kind_is_listed():
    grid = make_grid("." * 400)
    path = [(i * 2, 0) for i in range(150)] + [(900, 0)]  # 149 teleports, then off the map
    check = validate_path(grid, path)
    codes = [v.code for v in check.violations]
    assert "out_of_bounds" in codes and codes.count("not_adjacent") <= 64
    assert check.checked == len(path)


def test_integer_model_and_cost_with_blocked_overlay():
    grid = make_grid("....\n....")
    path = [(0, 0), (1, 1), (2, 1), (3, 1)]
    check = validate_path(grid, path, options=SearchOptions(cost_model=CostModel.INTEGER))
    assert check.valid and check.cost == 14 + 10 + 10
    blocked = validate_path(grid, path, blocked=[(2, 1)])
    assert [(v.code, v.index) for v in blocked.violations] == [("blocked_cell", 2)]
    assert abs(validate_path(grid, path).cost - path_cost(path)) < 1e-12
