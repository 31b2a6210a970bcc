"""The order of prioritized planning (gridpath.group.order): a permutation that follows the
preference except where a resting goal would cut a unit still to plan from its goal,
checked against a breadth-first search written here."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from gridpath.group.graph import build_graph
from gridpath.group.order import planning_order
from gridpath.group.solve import make_order
from tests.gridpath.group.instances import random_order


def _reaches(graph, walls: set, start: int, goal: int) -> bool:
    """Can a unit on ``start`` reach ``goal`` among ``walls`` (it may leave ``start`` even if
    ``start`` is a wall: its owner rests there only later)?"""
    seen, todo = {start}, deque([start])
    while todo:
        v = todo.popleft()
        if v == goal:
            return True
        for w in graph.neighbours[v].tolist():
            if w >= 0 and w not in walls and w not in seen:
                seen.add(w)
                todo.append(w)
    return False


def _nobody_cut_off(graph, order, starts, goals) -> bool:
    walls: set = set()
    for k, a in enumerate(order.tolist()):
        walls.add(int(goals[a]))
        for b in order[k + 1 :].tolist():
            if not _reaches(graph, walls, int(starts[b]), int(goals[b])):
                return False
    return True


def test_a_goal_at_a_dead_ends_mouth_waits_for_the_unit_going_deeper():
    """A dead-end corridor off a room: unit 0 rests at its mouth, unit 1 at its end. Preferred
    first, unit 0 would shut unit 1 out: unit 1 goes first."""
    free = np.zeros((3, 8), dtype=bool)
    free[:, 4:] = True  # the room
    free[1, :4] = True  # the corridor, its end at (0, 1)
    graph = build_graph(free)
    order = make_order(graph, [(7, 0), (7, 2)], [(3, 1), (0, 1)])
    got, work = planning_order(
        graph.neighbours, order.starts, order.goals, np.array([0, 1], dtype=np.int32), 10**9
    )
    assert got.tolist() == [1, 0] and work > 0
    assert _nobody_cut_off(graph, got, order.starts, order.goals)


@pytest.mark.parametrize("seed", range(10))
def test_each_unit_is_the_preferred_one_that_cuts_nobody_off(seed):
    free, graph, order = random_order(seed, 40, (12, 12), 0.3, 4)
    preference = np.arange(40, dtype=np.int32)[::-1].copy()
    got, _ = planning_order(graph.neighbours, order.starts, order.goals, preference, 10**9)
    assert sorted(got.tolist()) == list(range(40))
    # the greedy order fails only where no unit can rest without cutting someone off
    walls: set = set()
    left = set(range(40))
    for a in got.tolist():
        fits = [b for b in left if _fits(graph, walls, b, left, order)]
        if fits:
            assert a in fits
            assert [b for b in preference.tolist() if b in fits][0] == a
        else:
            assert a == [b for b in preference.tolist() if b in left][0]
        walls.add(int(order.goals[a]))
        left.discard(a)


def _fits(graph, walls: set, a: int, left: set, order) -> bool:
    """Resting on its goal, ``a`` cuts off no unit still to plan that reaches its goal now."""
    with_a = walls | {int(order.goals[a])}
    ends = [(int(order.starts[b]), int(order.goals[b])) for b in left if b != a]
    return not any(
        _reaches(graph, walls, s, g) and not _reaches(graph, with_a, s, g) for s, g in ends
    )


def test_without_work_the_order_is_the_preference():
    free, graph, order = random_order(1, 30, (10, 10), 0.3, 4)
    preference = np.arange(30, dtype=np.int32)[::-1].copy()
    got, work = planning_order(graph.neighbours, order.starts, order.goals, preference, 0)
    assert got.tolist() == preference.tolist() and work == 0
