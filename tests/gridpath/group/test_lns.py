"""Prioritized planning and LNS on group plans: every plan through the independent checker,
the sum of costs never up, a failed step undone exactly, the same plans from the same seed."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from gridpath.group.distances import distance, make_distances
from gridpath.group.lns import improve, prioritized, replan
from gridpath.group.sipp import arrival, empty_plan, plan_arrays, sipp_arrays
from gridpath.group.solve import solve_group
from tests.gridpath.group.checker import check_plans, sum_of_costs
from tests.gridpath.group.instances import cells_of, random_order


def _setup(seed=5, n=60, shape=(16, 16), walls=0.2, connectivity=4):
    free, graph, order = random_order(seed, n, shape, walls, connectivity)
    first = solve_group(graph, order.starts, order.goals, 5_000_000, refine=False)
    distances = make_distances(graph.reverse, order.goals)
    lower = np.array([distance(distances, i, s) for i, s in enumerate(order.starts)])
    task = (order.starts, order.goals, lower)
    ticks = first.configs.shape[0]
    moves = (graph.neighbours, graph.cross, distances, sipp_arrays(graph.vertex_count, ticks))
    return free, graph, order, first, task, moves


def _plan(first, graph, goals):
    plan = plan_arrays(first.configs, graph.vertex_count)
    return plan + (np.array([arrival(plan[0], i, g) for i, g in enumerate(goals)]),)


def _checked(free, graph, order, plan, connectivity=4) -> int:
    end = int(plan[3].max()) + 1
    plans = [cells_of(graph, plan[0][:end, i]) for i in range(plan[0].shape[1])]
    goals = cells_of(graph, order.goals)
    starts = cells_of(graph, order.starts)
    assert check_plans(free, plans, starts, goals, connectivity) == []
    assert sum_of_costs(plans, goals) == int(plan[3].sum())
    return int(plan[3].sum())


@pytest.mark.parametrize("connectivity", [4, 8])
def test_improve_keeps_the_plan_legal_and_lowers_its_cost(connectivity):
    free, graph, order, first, task, moves = _setup(connectivity=connectivity)
    plan = _plan(first, graph, order.goals)
    before = _checked(free, graph, order, plan, connectivity)
    rng = np.array([11], dtype=np.uint64)
    work = improve(task, plan, moves, rng, 400_000, 100_000)
    after = _checked(free, graph, order, plan, connectivity)
    assert 0 < work and after < before
    assert after >= int(task[2].sum())


def test_improve_is_deterministic():
    runs = []
    for _ in range(2):
        free, graph, order, first, task, moves = _setup(seed=9)
        plan = _plan(first, graph, order.goals)
        improve(task, plan, moves, np.array([3], dtype=np.uint64), 200_000, 50_000)
        runs.append(plan[0].tobytes())
    assert runs[0] == runs[1]


def test_a_step_that_cannot_gain_puts_everything_back():
    free, graph, order, first, task, moves = _setup(seed=2)
    plan = _plan(first, graph, order.goals)
    on_time = np.nonzero(plan[3] == task[2])[0][:4].astype(np.int32)  # nothing to gain
    assert on_time.shape[0] >= 2
    copies = [a.copy() for a in plan]
    gain, work = replan(
        on_time.copy(), on_time.shape[0], task, plan, moves, np.ones(1, np.uint64), 0
    )
    assert gain == 0 and work > 0
    for a, b in zip(plan, copies):
        assert (a == b).all()


def test_prioritized_planning_on_an_open_map_plans_every_unit():
    free, graph, order, first, task, moves = _setup(seed=4, n=30, shape=(20, 20), walls=0.0)
    n, ticks = order.starts.shape[0], first.configs.shape[0]
    plan = empty_plan(n, graph.vertex_count, ticks) + (np.zeros(n, dtype=np.int64),)
    longest_first = np.argsort(-task[2], kind="stable").astype(np.int32)
    planned, work = prioritized(longest_first, task, plan, moves, 10**9)
    assert planned == n and work > 0
    _checked(free, graph, order, plan)


def test_the_solver_returns_the_improved_plan():
    free, graph, order, first, task, moves = _setup(seed=6, n=80)
    better = solve_group(graph, order.starts, order.goals, 1_000_000)
    assert better.found and better.sum_of_costs < first.sum_of_costs
    plans = [cells_of(graph, better.configs[:, i]) for i in range(order.starts.shape[0])]
    assert (
        check_plans(free, plans, cells_of(graph, order.starts), cells_of(graph, order.goals)) == []
    )
    assert better.work <= 1_000_000 + 100_000  # a step may finish past the budget


def test_the_warm_up_compiles_the_improvement_kernels():
    # In a process of its own: in this one other tests have compiled them already.
    script = (
        "from gridpath.group import lns, sipp\n"
        "from gridpath.group.solve import warm_up\n"
        "kernels = (lns.prioritized, lns.improve, sipp.occupy, sipp.arrival)\n"
        "before = [bool(k.signatures) for k in kernels]\n"
        "warm_up()\n"
        "print(before, [bool(k.signatures) for k in kernels])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() and out.stdout.strip().endswith("[True, True, True, True]")
    assert out.stdout.startswith("[False, False, False, False]")  # called from Python
