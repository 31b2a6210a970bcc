"""SIPP around a group plan, against a breadth-first search over (cell, tick) written here
from the issue's rules; every path it returns goes through the independent checker."""

from __future__ import annotations

import numpy as np
import pytest

from gridpath.group.distances import make_distances
from gridpath.group.graph import build_graph
from gridpath.group.sipp import empty_plan, occupy, plan_arrays, plan_unit, sipp_arrays
from gridpath.group.solve import make_order, solve_group
from tests.gridpath.group.checker import check_plans
from tests.gridpath.group.instances import cells_of, random_order


def _earliest_by_bfs(free, others, start, goal, ticks, connectivity) -> int:
    """The earliest tick a unit can rest on ``goal`` for good, moving among ``others``
    (lists of cells per tick): -1 if it cannot within ``ticks``."""
    at = [{p[t]: i for i, p in enumerate(others)} for t in range(ticks)]
    steps = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    if connectivity == 8:
        steps += [(1, 1), (-1, 1), (-1, -1), (1, -1)]
    last_on_goal = max((t for t in range(ticks) if goal in at[t]), default=-1)

    def legal(a, b, t) -> bool:
        if b in at[t + 1]:
            return False
        j = at[t].get(b)
        if j is not None and others[j][t + 1] == a:
            return False  # a swap
        if a[0] != b[0] and a[1] != b[1]:
            if not (free[a[1], b[0]] and free[b[1], a[0]]):
                return False  # no corner cutting
            c, d = (a[0], b[1]), (b[0], a[1])
            for p in others:
                if (p[t], p[t + 1]) in ((c, d), (d, c)):
                    return False
        return True

    layer = {start}
    for t in range(ticks):
        if goal in layer and t > last_on_goal:
            return t
        if t + 1 == ticks:
            break
        nxt = set()
        for a in layer:
            for dx, dy in [(0, 0)] + steps:
                b = (a[0] + dx, a[1] + dy)
                if 0 <= b[0] < free.shape[1] and 0 <= b[1] < free.shape[0] and free[b[1], b[0]]:
                    if legal(a, b, t):
                        nxt.add(b)
        layer = nxt
    return -1


def _instance(seed: int, n: int, connectivity: int):
    free, graph, order = random_order(seed, n, (10, 12), 0.2, connectivity)
    result = solve_group(graph, order.starts, order.goals, 2_000_000, refine=False)
    assert result.found
    return free, graph, order, result.configs


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("connectivity", [4, 8])
def test_sipp_finds_the_earliest_rest_the_bfs_finds(seed, connectivity):
    free, graph, order, configs = _instance(seed, 14, connectivity)
    ticks = configs.shape[0] + 6
    padded = np.concatenate([configs, np.repeat(configs[-1:], 6, axis=0)])
    paths, occ, busy = plan_arrays(padded, graph.vertex_count)
    distances = make_distances(graph.reverse, order.goals)
    sipp = sipp_arrays(graph.vertex_count, ticks)
    for i in range(0, len(order.starts), 3):
        occupy(occ, busy, paths, i, -1)
        others = [cells_of(graph, paths[:, j]) for j in range(paths.shape[1]) if j != i]
        start, goal = cells_of(graph, [order.starts[i], order.goals[i]])
        expected = _earliest_by_bfs(free, others, start, goal, ticks, connectivity)
        got, _ = plan_unit(
            i, order.starts[i], order.goals[i], ticks, occ, busy, paths,
            graph.neighbours, graph.cross, distances, sipp,
        )  # fmt: skip
        assert got == expected, (i, got, expected)
        occupy(occ, busy, paths, i, i)
        plans = [cells_of(graph, paths[:, j]) for j in range(paths.shape[1])]
        goals = cells_of(graph, order.goals)
        assert check_plans(free, plans, cells_of(graph, order.starts), goals, connectivity) == []


def test_a_bound_below_the_earliest_rest_fails_and_leaves_the_path():
    free, graph, order, configs = _instance(3, 14, 4)
    paths, occ, busy = plan_arrays(configs, graph.vertex_count)
    distances = make_distances(graph.reverse, order.goals)
    sipp = sipp_arrays(graph.vertex_count, configs.shape[0])
    occupy(occ, busy, paths, 0, -1)
    args = (occ, busy, paths, graph.neighbours, graph.cross, distances, sipp)
    best, _ = plan_unit(0, order.starts[0], order.goals[0], configs.shape[0], *args)
    assert best >= 0
    before = paths[:, 0].copy()
    assert plan_unit(0, order.starts[0], order.goals[0], best, *args)[0] == -1
    assert (paths[:, 0] == before).all()


def test_an_empty_plan_gives_each_unit_its_lone_distance():
    free = np.ones((5, 7), dtype=bool)
    graph = build_graph(free)
    order = make_order(graph, [(0, 0), (6, 4)], [(6, 0), (0, 0)])
    paths, occ, busy = empty_plan(2, graph.vertex_count, 20)
    distances = make_distances(graph.reverse, order.goals)
    sipp = sipp_arrays(graph.vertex_count, 20)
    for i, distance in ((0, 6), (1, 10)):
        got, _ = plan_unit(
            i, order.starts[i], order.goals[i], 20, occ, busy, paths,
            graph.neighbours, graph.cross, distances, sipp,
        )  # fmt: skip
        assert got == distance


def test_a_path_as_short_keeps_off_the_goals_of_units_still_to_plan():
    """From (0, 0) to (2, 2) on an open 3x3 square six paths take 4 ticks; with two cells
    marked as goals of units still to plan, one of them misses both, and SIPP takes it
    (both mirror images: no order of the moves picks both by chance). Marked from a tick
    after the unit has passed, they change nothing: it still arrives at 4."""
    graph = build_graph(np.ones((3, 3), dtype=bool))
    order = make_order(graph, [(0, 0)], [(2, 2)])
    distances = make_distances(graph.reverse, order.goals)
    down_first = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]
    right_first = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]
    for marks, late, expected in (
        ([(1, 0), (1, 1)], 0, down_first),
        ([(0, 1), (1, 1)], 0, right_first),
        ([(1, 0), (0, 1)], 50, None),
    ):
        paths, occ, busy = empty_plan(1, graph.vertex_count, 12)
        sipp = sipp_arrays(graph.vertex_count, 12)
        sipp[5][[graph.vertex(x, y) for x, y in marks]] = late
        got, _ = plan_unit(
            0, order.starts[0], order.goals[0], 12, occ, busy, paths,
            graph.neighbours, graph.cross, distances, sipp,
        )  # fmt: skip
        assert got == 4
        if expected:
            assert cells_of(graph, paths[:5, 0]) == expected


def test_a_crossing_never_costs_more_than_its_detour():
    """A corridor with a marked goal in the middle: crossing it is the only way, so the
    unit crosses and arrives as early as alone."""
    graph = build_graph(np.ones((1, 7), dtype=bool))
    order = make_order(graph, [(0, 0)], [(6, 0)])
    distances = make_distances(graph.reverse, order.goals)
    paths, occ, busy = empty_plan(1, graph.vertex_count, 12)
    sipp = sipp_arrays(graph.vertex_count, 12)
    sipp[5][graph.vertex(3, 0)] = 0
    got, _ = plan_unit(
        0, order.starts[0], order.goals[0], 12, occ, busy, paths,
        graph.neighbours, graph.cross, distances, sipp,
    )  # fmt: skip
    assert got == 6


def test_a_path_as_short_keeps_off_the_start_of_a_unit_still_to_plan_early_on():
    """The start of a unit still to plan is marked until a tick (``early``): from (0, 0) to
    (2, 2) the path keeps off two marked cells while it would be on them by then (both
    mirror images), and a mark that ends before the unit gets there changes nothing (the
    unmarked search goes down first)."""
    graph = build_graph(np.ones((3, 3), dtype=bool))
    order = make_order(graph, [(0, 0)], [(2, 2)])
    distances = make_distances(graph.reverse, order.goals)
    down_first = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]
    right_first = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]
    for marks, until, expected in (
        ([(1, 0), (1, 1)], 4, down_first),
        ([(0, 1), (1, 1)], 4, right_first),
        ([(0, 1), (1, 1)], 1, None),  # (0, 1) at tick 1: still marked, (1, 1) no longer
        ([(0, 1), (1, 1)], 0, down_first),  # the marks end before the unit comes
    ):
        paths, occ, busy = empty_plan(1, graph.vertex_count, 12)
        sipp = sipp_arrays(graph.vertex_count, 12)
        sipp[7][[graph.vertex(x, y) for x, y in marks]] = until
        got, _ = plan_unit(
            0, order.starts[0], order.goals[0], 12, occ, busy, paths,
            graph.neighbours, graph.cross, distances, sipp,
        )  # fmt: skip
        path = cells_of(graph, paths[:5, 0])
        assert got == 4 and (path == expected if expected else (0, 1) not in path), path


@pytest.mark.parametrize("late, arrival", [(30, 40), (0, 42)])
def test_a_goal_crossed_long_after_its_unit_could_rest_there_is_worth_a_detour(late, arrival):
    """Along the middle row of a 3x41 strip, the goal of a unit still to plan at (38, 1):
    crossing it at tick 38 costs 1 + (38 - late) // 16 in the search's order, a detour round
    it 2 ticks. Marked from tick 30 the unit crosses (arriving at 40); marked from tick 0,
    it goes round (arriving at 42): the soft rule trades one unit's ticks for another's."""
    graph = build_graph(np.ones((3, 41), dtype=bool))
    order = make_order(graph, [(0, 1)], [(40, 1)])
    distances = make_distances(graph.reverse, order.goals)
    paths, occ, busy = empty_plan(1, graph.vertex_count, 60)
    sipp = sipp_arrays(graph.vertex_count, 60)
    sipp[5][graph.vertex(38, 1)] = late
    got, _ = plan_unit(
        0, order.starts[0], order.goals[0], 60, occ, busy, paths,
        graph.neighbours, graph.cross, distances, sipp,
    )  # fmt: skip
    assert got == arrival
    assert (graph.vertex(38, 1) in paths[: got + 1, 0].tolist()) == (arrival == 40)
