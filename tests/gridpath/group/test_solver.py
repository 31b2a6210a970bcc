"""LaCAM* over PIBT: hand-made cases, a brute-force comparison on tiny maps, and every
plan through the independent checker (tests/gridpath/group/checker.py)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridpath.errors import DuplicateCells, GoalBlocked, OutOfBounds, StartBlocked
from gridpath.group.graph import build_graph
from gridpath.group.solve import make_order, solve_order
from tests.gridpath.group.checker import check_plans, sum_of_costs

BUDGET = 5_000_000


def parse(rows: list[str]) -> np.ndarray:
    return np.array([[c != "#" for c in row] for row in rows], dtype=bool)


def solve(free, starts, goals, *, connectivity=4, refine=True, budget=BUDGET, assign=False):
    graph = build_graph(free, connectivity)
    result, goal_of = solve_order(
        make_order(graph, starts, goals), budget, assign=assign, refine=refine
    )
    plans = None
    if result.found:
        plans = [
            [(int(graph.xs[v]), int(graph.ys[v])) for v in result.configs[:, i]]
            for i in range(len(starts))
        ]
        targets = goals if goal_of is None else [goals[k] for k in goal_of]
        assert check_plans(free, plans, starts, targets, connectivity) == []
        assert result.sum_of_costs == sum_of_costs(plans, targets)
        assert result.makespan == len(plans[0]) - 1
    return result, plans, goal_of


def test_corridor_with_an_alcove_needs_waiting_and_a_swap():
    free = parse(["#.###", "....."])  # the alcove at (1, 0)
    result, plans, _ = solve(free, [(0, 1), (4, 1)], [(4, 1), (0, 1)])
    assert result.found and result.optimal
    assert result.lower_bound == 8
    # one unit steps into the alcove and waits while the other passes
    assert any((1, 0) in p for p in plans)
    assert result.sum_of_costs > result.lower_bound


def test_swap_in_a_corridor_without_a_pocket_has_no_solution():
    result, _, _ = solve(parse(["...."]), [(0, 0), (3, 0)], [(3, 0), (0, 0)])
    assert not result.found and result.reason == "no_solution"


def test_goal_is_another_units_start():
    free = parse(["......"])
    result, plans, _ = solve(free, [(0, 0), (1, 0), (2, 0)], [(1, 0), (2, 0), (3, 0)])
    assert result.found and result.makespan == 1 and result.sum_of_costs == 3


def test_dead_end_the_unit_inside_must_leave_and_come_back():
    free = parse(["#.##", "...."])  # a dead end at (1, 0) holding a unit at its goal
    result, plans, _ = solve(free, [(1, 0), (0, 1)], [(1, 0), (1, 0 + 1)])
    assert result.found
    result, plans, _ = solve(free, [(1, 1), (0, 1)], [(1, 0), (3, 1)])
    assert result.found and result.sum_of_costs == result.lower_bound


def test_all_units_already_at_their_goals():
    free = parse(["...", "..."])
    result, plans, _ = solve(free, [(0, 0), (2, 1)], [(0, 0), (2, 1)])
    assert result.found and result.makespan == 0 and result.sum_of_costs == 0
    assert plans == [[(0, 0)], [(2, 1)]]


def test_goal_in_another_component_is_unreachable_and_names_the_unit():
    free = parse(["..#..", "..#.."])
    result, _, _ = solve(free, [(0, 0), (3, 0)], [(1, 1), (0, 1)])
    assert not result.found and result.reason == "unreachable" and result.unreachable == (1,)


def test_input_errors_name_the_unit():
    graph = build_graph(parse(["..#", "..."]))
    with pytest.raises(OutOfBounds, match="unit 1"):
        make_order(graph, [(0, 0), (5, 0)], [(1, 0), (0, 1)])
    with pytest.raises(StartBlocked, match="unit 0"):
        make_order(graph, [(2, 0)], [(1, 0)])
    with pytest.raises(GoalBlocked, match="unit 0"):
        make_order(graph, [(0, 0)], [(2, 0)])
    with pytest.raises(DuplicateCells, match="units 0 and 1"):
        make_order(graph, [(0, 0), (0, 0)], [(1, 0), (0, 1)])


def test_budget_out_is_limit_reached():
    rng = np.random.default_rng(3)
    free = rng.random((16, 16)) >= 0.2
    cells = [(int(x), int(y)) for y, x in zip(*np.nonzero(free))]
    result, _, _ = solve(free, cells[:60], cells[-60:][::-1], budget=100)
    assert not result.found and result.reason in ("limit_reached", "unreachable")


def test_eight_connected_plans_never_cross_diagonally():
    free = np.ones((6, 6), dtype=bool)
    starts = [(0, 0), (1, 0), (0, 1), (1, 1), (5, 5), (4, 5)]
    goals = [(1, 1), (0, 1), (1, 0), (0, 0), (4, 4), (5, 4)]
    result, plans, _ = solve(free, starts, goals, connectivity=8)
    assert result.found


def test_assign_picks_bottleneck_then_sum():
    free = parse(["......", "......"])
    result, plans, goal_of = solve(free, [(0, 0), (5, 0)], [(5, 1), (0, 1)], assign=True)
    assert list(goal_of) == [1, 0] and result.found and result.sum_of_costs == 2


def _joint_bfs(free, starts, goals, connectivity=4) -> bool:
    """Is there any collision-free plan? Breadth-first over joint configurations."""
    graph = build_graph(free, connectivity)
    moves = {
        (x, y): [(x, y)]
        + [
            (int(graph.xs[w]), int(graph.ys[w]))
            for w in graph.neighbours[graph.vertex(x, y)]
            if w >= 0
        ]
        for x, y in zip(graph.xs.tolist(), graph.ys.tolist())
    }
    start, goal = tuple(starts), tuple(goals)
    seen = {start}
    queue = deque([start])
    while queue:
        q = queue.popleft()
        if q == goal:
            return True
        for nxt in itertools.product(*(moves[c] for c in q)):
            if nxt in seen or len(set(nxt)) < len(nxt):
                continue
            pairs = {(a, b) for a, b in zip(q, nxt) if a != b}
            if any((b, a) in pairs for a, b in pairs):
                continue
            seen.add(nxt)
            queue.append(nxt)
    return False


@st.composite
def tiny_instances(draw):
    w, h = draw(st.integers(2, 4)), draw(st.integers(1, 3))
    walls = draw(st.lists(st.booleans(), min_size=w * h, max_size=w * h))
    free = ~np.array(walls, dtype=bool).reshape(h, w) | (np.arange(w * h).reshape(h, w) % 3 == 0)
    cells = [(x, y) for y in range(h) for x in range(w) if free[y, x]]
    n = draw(st.integers(1, min(3, len(cells))))
    starts = draw(st.permutations(cells))[:n]
    goals = draw(st.permutations(cells))[:n]
    return free, starts, goals


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_instances())
def test_found_matches_brute_force_on_tiny_maps(instance):
    free, starts, goals = instance
    result, _, _ = solve(free, starts, goals)
    assert result.found == _joint_bfs(free, starts, goals)
    if not result.found:
        assert result.reason in ("unreachable", "no_solution")


def test_deterministic_across_two_processes():
    script = (
        "import numpy as np\n"
        "from gridpath.group.graph import build_graph\n"
        "from gridpath.group.solve import make_order, solve_order\n"
        "rng = np.random.default_rng(7); free = rng.random((24, 24)) >= 0.2\n"
        "g = build_graph(free); comp = g.component; big = np.bincount(comp).argmax()\n"
        "cells = np.nonzero(comp == big)[0]; r = np.random.default_rng(1)\n"
        "s = r.choice(cells, 120, replace=False); t = r.choice(cells, 120, replace=False)\n"
        "res, _ = solve_order(make_order(g, [(int(g.xs[v]), int(g.ys[v])) for v in s],"
        " [(int(g.xs[v]), int(g.ys[v])) for v in t]), 3_000_000)\n"
        "print(res.found, res.sum_of_costs, res.configs.tobytes().hex() if res.found else '')\n"
    )
    outs = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert outs[0] == outs[1] and outs[0].startswith("True")


def test_large_distance_arrays_start_zeroed_and_writable():
    from gridpath.group.distances import HUGE_PAGE, make_distances

    vertices = HUGE_PAGE // 4 + 7  # one row over a huge page: the mmap path
    no_moves = np.full((vertices, 1), -1, dtype=np.int32)
    dist, queue, head, tail, work, _ = make_distances(no_moves, np.array([3, vertices - 1]))
    assert dist.shape == (2, vertices) and dist.flags.writeable and queue.flags.writeable
    assert dist[0, 3] == 1 and dist[1, vertices - 1] == 1
    assert int(dist.sum()) == 2 and list(queue[:, 0]) == [3, vertices - 1]
