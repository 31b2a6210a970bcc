"""Solve a group move order: collision-free timed paths for many units (:func:`solve_group`).

Budgets count work, never time, so the same request gives the same plans on any machine
under any load: ``max_work`` is in *work units*, one per unit moved by PIBT and one per
:data:`DISTANCE_CELLS_PER_WORK` cells settled by the per-goal distances (:data:`WORK_PER_MS`
converts a time budget).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridpath.errors import DuplicateCells, GoalBlocked, InvalidRequest, OutOfBounds, StartBlocked
from gridpath.group import pools as P
from gridpath.group.distances import distance, make_distances
from gridpath.group.graph import MoveGraph
from gridpath.group.lacam import new_node, search
from gridpath.group.pibt import make_scratch

# Work units per millisecond of time budget: about what one core of the development machine
# does per millisecond of CPU time (bench-group prints the rate it measures); fixed, so the
# result never depends on the machine's speed or load.
WORK_PER_MS = 1000
# A distance cell is a load and a few compares, a unit move a sort and a dozen
# checks: a distance cell counts 1 / DISTANCE_CELLS_PER_WORK of a work unit.
DISTANCE_CELLS_PER_WORK = 64

FOUND = "found"
UNREACHABLE_REASON = "unreachable"
LIMIT_REACHED = "limit_reached"
NO_SOLUTION = "no_solution"


@dataclass(frozen=True)
class GroupResult:
    found: bool
    reason: str | None  # None when found; else unreachable, limit_reached, no_solution
    configs: np.ndarray | None  # int32 (makespan + 1, units): vertex ids per tick
    makespan: int
    sum_of_costs: int
    lower_bound: int
    optimal: bool  # LaCAM* exhausted its search: no plan of lower cost exists
    expanded: int  # configurations generated (PIBT calls)
    work: int
    unreachable: tuple[int, ...] = ()


def sum_of_costs(configs: np.ndarray, goals: np.ndarray) -> int:
    """Sum over units of the tick after which the unit never leaves its goal."""
    away = configs != goals[None, :]
    ticks = configs.shape[0]
    last = np.where(away.any(axis=0), ticks - np.argmax(away[::-1], axis=0), 0)
    return int(last.sum())


def _lower_bound(distances: tuple, graph: MoveGraph, starts: np.ndarray) -> int:
    return sum(int(distance(distances, graph.neighbours, i, int(s))) for i, s in enumerate(starts))


def _backtrack(pools: dict, goal: int) -> np.ndarray:
    chain = []
    node = goal
    while node >= 0:
        chain.append(node)
        node = int(pools["hparent"][node])
    return pools["config"][np.array(chain[::-1], dtype=np.int64)].copy()


def solve_group(
    graph: MoveGraph,
    starts: np.ndarray,
    goals: np.ndarray,
    max_work: int,
    *,
    seed: int = 0,
    refine: bool = True,
) -> GroupResult:
    """Plans from the vertices ``starts`` to ``goals`` (distinct, free) with LaCAM* over
    PIBT: the first solution found, improved while the budget lasts when ``refine``."""
    starts = np.ascontiguousarray(starts, dtype=np.int32)
    goals = np.ascontiguousarray(goals, dtype=np.int32)
    apart = np.nonzero(graph.component[starts] != graph.component[goals])[0]
    if apart.size:
        return GroupResult(
            False, UNREACHABLE_REASON, None, 0, 0, 0, False, 0, 0, tuple(int(i) for i in apart)
        )
    n = starts.shape[0]
    if n == 0:
        return GroupResult(True, None, np.zeros((1, 0), dtype=np.int32), 0, 0, 0, True, 0, 0)
    distances = make_distances(graph.vertex_count, goals)
    lower = _lower_bound(distances, graph, starts)
    moves = graph.neighbours.shape[1]
    pools = P.make_pools(n, moves)
    scratch = make_scratch(graph.vertex_count, n, moves, seed)
    state = pools["state"]
    state[P.GOAL] = -1
    root = new_node(
        starts,
        -1,
        0,
        goals,
        P.high(pools),
        P.low(pools),
        pools["slots"],
        graph.neighbours,
        distances,
        state,
    )
    pools["open"][0] = root
    state[P.TOP] = 1
    while True:
        search(
            goals,
            P.high(pools),
            P.low(pools),
            P.edges(pools),
            pools["slots"],
            pools["open"],
            state,
            graph.neighbours,
            graph.cross,
            graph.degree,
            distances,
            scratch,
            max_work,
            refine,
            DISTANCE_CELLS_PER_WORK,
        )
        if state[P.STATUS] != P.GROW:
            break
        P.grow(pools, moves)
    return _result(pools, goals, lower, int(distances[4][0]) // DISTANCE_CELLS_PER_WORK)


def _result(pools: dict, goals: np.ndarray, lower: int, distance_work: int) -> GroupResult:
    state = pools["state"]
    calls = int(state[P.CALLS])
    work = calls * goals.shape[0] + distance_work
    goal = int(state[P.GOAL])
    if goal < 0:
        reason = NO_SOLUTION if state[P.STATUS] == P.EXHAUSTED else LIMIT_REACHED
        return GroupResult(False, reason, None, 0, 0, lower, False, calls, work)
    configs = _backtrack(pools, goal)
    optimal = bool(state[P.STATUS] == P.EXHAUSTED)
    return GroupResult(
        True,
        None,
        configs,
        configs.shape[0] - 1,
        sum_of_costs(configs, goals),
        lower,
        optimal,
        calls,
        work,
    )


@dataclass(frozen=True)
class GroupOrder:
    """A group move order checked against its map: vertex ids of starts and goals."""

    graph: MoveGraph
    starts: np.ndarray
    goals: np.ndarray  # as given (with assign: the set of goal cells, in the request's order)


def _vertices(graph: MoveGraph, cells, what: str) -> np.ndarray:
    out = np.empty(len(cells), dtype=np.int32)
    for i, (x, y) in enumerate(cells):
        if not (0 <= x < graph.width and 0 <= y < graph.height):
            raise OutOfBounds(
                f"unit {i}: {what} ({x}, {y}) is outside the {graph.width}x{graph.height} map"
            )
        v = graph.vertex(x, y)
        if v < 0:
            error = StartBlocked if what == "start" else GoalBlocked
            raise error(f"unit {i}: {what} ({x}, {y}) is blocked (for this clearance)")
        out[i] = v
    seen: dict[int, int] = {}
    for i, v in enumerate(out.tolist()):
        if v in seen:
            raise DuplicateCells(f"units {seen[v]} and {i} have the same {what} {cells[i]}")
        seen[v] = i
    return out


def make_order(graph: MoveGraph, starts, goals) -> GroupOrder:
    """Check cells ((x, y) lists) against the graph: 422 errors name the unit."""
    if len(starts) != len(goals):
        raise InvalidRequest(f"{len(starts)} starts but {len(goals)} goals")
    return GroupOrder(graph, _vertices(graph, starts, "start"), _vertices(graph, goals, "goal"))


def solve_order(
    order: GroupOrder, max_work: int, *, assign: bool = False, refine: bool = True
) -> tuple[GroupResult, np.ndarray | None]:
    """Solve ``order``; with ``assign`` first choose the goals (``goal_of``, else None)."""
    goals = order.goals
    goal_of = None
    if assign and goals.shape[0]:
        from gridpath.group.assign import assign_goals  # scipy: only for anonymous goals

        goal_of = assign_goals(order.graph, order.starts, goals)
        if goal_of is None:  # some component has more units than goals: name its units
            comp = order.graph.component
            short = [
                c
                for c in set(comp[order.starts].tolist())
                if (comp[order.starts] == c).sum() > (comp[goals] == c).sum()
            ]
            apart = tuple(i for i, s in enumerate(order.starts.tolist()) if comp[s] in short)
            return GroupResult(False, UNREACHABLE_REASON, None, 0, 0, 0, False, 0, 0, apart), None
        goals = goals[goal_of]
    return solve_group(order.graph, order.starts, goals, max_work, refine=refine), goal_of


def warm_up() -> None:
    """Compile the group kernels (or load them from numba's cache): a tiny order, with a
    swap through a pocket (PIBT's swap, LaCAM's constraints, LaCAM*'s rewiring) and an
    assignment."""
    from gridpath.group.graph import build_graph

    free = np.ones((2, 4), dtype=bool)
    free[0, 1:] = False
    graph = build_graph(free)
    order = make_order(graph, [(0, 1), (3, 1)], [(3, 1), (0, 1)])
    solve_order(order, 100_000)
    solve_order(order, 100_000, assign=True)
