"""Repairing a stuck search: the region's move graph is the map's, the repaired ticks join
the stuck configuration to the goals moving only the region, and the knot the bench found
(three units in a T of two dead ends, 400 units on a 32x32 map) is untied. Every plan goes
through the independent checker."""

from __future__ import annotations

import numpy as np

from gridpath.group.repair import region, repair, subgraph
from gridpath.group.solve import solve_group
from tests.gridpath.group.checker import check_plans
from tests.gridpath.group.instances import cells_of, random_order


def _random_instance(seed: int, n: int):
    """As bench/group.py makes them: 32x32, 20 % walls."""
    return random_order(seed, n, (32, 32), 0.2, as_bench=True)


def test_the_region_graph_has_the_maps_moves_between_itscells_of():
    free, graph, _ = _random_instance(3, 10)
    keep = region(graph, np.array([0, graph.vertex_count - 1]), 4)
    sub, old, new_of = subgraph(graph, keep)
    assert sub.vertex_count == int(keep.sum())
    for v in range(sub.vertex_count):
        full = {int(w) for w in graph.neighbours[old[v]] if w >= 0 and keep[w]}
        assert {int(old[w]) for w in sub.neighbours[v] if w >= 0} == full
        assert sub.vertex(int(sub.xs[v]), int(sub.ys[v])) == v and new_of[old[v]] == v


def test_a_repair_moves_only_the_region_and_ends_on_the_goals():
    free, graph, order = _random_instance(5, 120)
    config = order.goals.copy()
    a, b = 7, 11  # two units swap goals: a knot of two
    config[a], config[b] = order.goals[b], order.goals[a]

    def small(sub, starts, goals, budget):
        return solve_group(sub, starts, goals, budget, refine=False, repair=False)

    ticks, work = repair(graph, config, order.goals, 1_000_000, small)
    assert ticks is not None and work > 0
    assert (ticks[0] == config).all() and (ticks[-1] == order.goals).all()
    keep = region(graph, np.array([config[a], config[b], order.goals[a], order.goals[b]]), 3)
    moved = np.nonzero((ticks != ticks[0]).any(axis=0))[0]
    assert keep[ticks[0][moved]].all()
    plans = [cells_of(graph, ticks[:, i]) for i in range(ticks.shape[1])]
    starts = cells_of(graph, config)
    assert check_plans(free, plans, starts, cells_of(graph, order.goals)) == []


def test_the_knot_the_bench_found_is_untied():
    free, graph, order = _random_instance(16, 400)
    result = solve_group(graph, order.starts, order.goals, 3_200_000, refine=False)
    assert result.found
    plans = [cells_of(graph, result.configs[:, i]) for i in range(400)]
    assert (
        check_plans(free, plans, cells_of(graph, order.starts), cells_of(graph, order.goals)) == []
    )
    stuck = solve_group(graph, order.starts, order.goals, 3_200_000, refine=False, repair=False)
    assert not stuck.found  # without the repair this order has no plan within the budget
