"""Snapping a start or goal where the unit cannot stand, against brute force."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.errors import GoalBlocked, StartBlocked
from gridpath.grid import Grid
from gridpath.search import Diagonal, SearchOptions
from gridpath.search.snap import nearest_standable, snap_ends
from tests.conftest import make_grid


def reachable(open_: np.ndarray, origin, diagonals: bool) -> set:
    """Cells reachable from ``origin`` over open cells (BFS; 8 directions under ``always``,
    otherwise 4: the other diagonal rules connect exactly what 4 directions do)."""
    h, w = open_.shape
    steps = [(0, -1), (1, 0), (0, 1), (-1, 0)]
    if diagonals:
        steps += [(1, -1), (1, 1), (-1, 1), (-1, -1)]
    seen, todo = {origin}, deque([origin])
    while todo:
        x, y = todo.popleft()
        for dx, dy in steps:
            n = (x + dx, y + dy)
            if 0 <= n[0] < w and 0 <= n[1] < h and open_[n[1], n[0]] and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def brute_nearest(open_: np.ndarray, cell, radius: int, allowed=None):
    """Every cell within ``radius`` (Chebyshev), by distance, then y, then x."""
    h, w = open_.shape
    best = None
    for y in range(h):
        for x in range(w):
            if not open_[y, x] or max(abs(x - cell[0]), abs(y - cell[1])) > radius:
                continue
            if allowed is not None and (x, y) not in allowed:
                continue
            key = ((x - cell[0]) ** 2 + (y - cell[1]) ** 2, y, x)
            best = min(best or key, key)
    return None if best is None else (best[2], best[1])


def test_nearest_breaks_ties_by_row_then_column():
    grid = make_grid("""
        .#.
        #.#
        .#.
    """)
    assert nearest_standable(grid, (1, 0), 1, 8) == (0, 0)  # (2, 0) ties at 1: row, then column
    assert nearest_standable(grid, (0, 1), 1, 8) == (0, 0)  # (0, 2) and (1, 1) tie at 1
    assert nearest_standable(grid, (1, 1), 1, 8) == (1, 1)  # a standable cell is its own
    assert nearest_standable(make_grid("#" * 9), (0, 0), 1, 4) is None


def test_snap_moves_a_goal_on_a_wall_to_the_side_the_start_can_reach():
    grid = make_grid("""
        ...#...
        ...#...
        ...#...
    """)
    moved = snap_ends(grid, (0, 1), [(3, 1)], SearchOptions(), frozenset(), 8, skip=False)
    assert moved.goals == [(2, 1)] and moved.moved_goals == {0: (2, 1)}
    moved = snap_ends(grid, (6, 1), [(3, 1)], SearchOptions(), frozenset(), 8, skip=False)
    assert moved.goals == [(4, 1)]
    with pytest.raises(GoalBlocked):
        snap_ends(grid, (0, 1), [(3, 1)], SearchOptions(), frozenset(), 0, skip=False)


def test_several_goals_skip_those_with_nowhere_to_go():
    grid = make_grid("""
        ..#....
        ..#.###
        ..#.###
    """)
    moved = snap_ends(grid, (0, 0), [(5, 2), (2, 2), (1, 1)], SearchOptions(), (), 1, skip=True)
    assert moved.goals == [(1, 2), (1, 1)] and moved.kept == [1, 2] and moved.skipped == [0]
    with pytest.raises(GoalBlocked):
        snap_ends(grid, (0, 0), [(5, 2)], SearchOptions(), (), 1, skip=True)
    with pytest.raises(StartBlocked):
        snap_ends(grid, (5, 2), [(0, 0)], SearchOptions(), (), 1, skip=False)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    density=st.floats(0.1, 0.7),
    radius=st.integers(0, 12),
    unit=st.sampled_from([1, 1, 2]),
    always=st.booleans(),
    with_blocked=st.booleans(),
)
def test_snap_against_brute_force(seed, density, radius, unit, always, with_blocked):
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 13)), int(rng.integers(1, 13))
    grid = Grid.from_walkable("random", rng.random((h, w)) >= density)
    blocked = set()
    if with_blocked:
        blocked = {(int(rng.integers(w)), int(rng.integers(h))) for _ in range(3)}
    open_ = grid.passable[1:-1, 1:-1] >= unit
    for x, y in blocked:
        open_[y, x] = False
    start = (int(rng.integers(w)), int(rng.integers(h)))
    goal = (int(rng.integers(w)), int(rng.integers(h)))
    options = SearchOptions(
        clearance=unit, diagonal=Diagonal.ALWAYS if always else Diagonal.NO_CORNER_CUT
    )
    # Components come from the map (per-request blocked cells do not split them there).
    map_open = grid.passable[1:-1, 1:-1] >= unit

    def region(cell):
        return reachable(map_open, cell, always)

    want_start = start
    if not open_[start[1], start[0]]:
        allowed = region(goal) if open_[goal[1], goal[0]] else None
        want_start = brute_nearest(open_, start, radius, allowed)
    want_goal = goal
    if want_start is not None and not open_[goal[1], goal[0]]:
        want_goal = brute_nearest(open_, goal, radius, region(want_start))
    try:
        got = snap_ends(grid, start, [goal], options, blocked, radius, skip=False)
    except StartBlocked:
        assert want_start is None
        return
    except GoalBlocked:
        assert want_goal is None
        return
    assert (got.start, got.goals) == (want_start, [want_goal])
    assert (got.moved_start is not None) == (want_start != start)
    assert nearest_standable(grid, start, unit, radius, blocked=blocked) == brute_nearest(
        open_, start, radius
    )
