"""Solve a group move order: collision-free timed paths for many units (:func:`solve_group`).

Three stages share one budget: LaCAM* over PIBT finds a first plan (complete: it finds
one whenever one exists, given budget) and refines it while that keeps paying; then a
plan by prioritized planning replaces it if cheaper, and LNS shortens it until the budget
is spent or it stops gaining (:mod:`gridpath.group.lns`).

Budgets count work, never time, so the same request gives the same plans on any machine
under any load: ``max_work`` is in *work units*, one per unit moved by PIBT, one per SIPP
expansion or tick written by LNS, and one per :data:`CELLS_PER_WORK` cells of a
breadth-first search (:mod:`gridpath.group.budget` converts a time budget).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridpath.errors import DuplicateCells, GoalBlocked, InvalidRequest, OutOfBounds, StartBlocked
from gridpath.group import pools as P
from gridpath.group.distances import UNREACHABLE, distance, make_distances
from gridpath.group.graph import MoveGraph, lane_costs
from gridpath.group.lacam import new_node, search
from gridpath.group.lns import improve, prioritized
from gridpath.group.order import planning_order
from gridpath.group.pibt import make_scratch
from gridpath.group.repair import repair as repair_knot
from gridpath.group.sipp import arrival, empty_plan, plan_arrays, sipp_arrays

# A cell of a breadth-first search (the distances, the planning order's checks) is a load
# and a few compares, a unit move a sort and a dozen checks: such a cell counts
# 1 / CELLS_PER_WORK of a work unit.
CELLS_PER_WORK = 64
# LaCAM*'s refinement stops this much work after its last improvement: on hundreds of
# units it improves a plan by a few per cent at most while it spends the whole budget
# (measured: docs/group.md), so an answer no longer waits for the budget to run out.
LACAM_STALL = 20_000
# The first search repairs its closest configuration (gridpath.group.repair) when that
# has not come closer to the goals for this much work.
REPAIR_AFTER = 200_000
# Then prioritized planning and LNS shorten the plan (gridpath.group.lns) while their
# tick-by-vertex arrays stay under PLAN_MAX_CELLS (about 12 bytes a cell), until the budget is
# spent or the last PATIENCE work units gained nothing (on the most crowded orders LNS
# rarely gains: it gives up after about a second).
PLAN_MAX_CELLS = 4_000_000
PATIENCE = 800_000

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
    repair: bool = True,
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
    distances = make_distances(graph.reverse, goals)
    lower = _lower_bounds(distances, starts)
    apart = np.nonzero(lower >= UNREACHABLE)[0]  # one-way links: a component is not enough
    if apart.size:
        return GroupResult(
            False, UNREACHABLE_REASON, None, 0, 0, 0, False, 0, 0, tuple(int(i) for i in apart)
        )
    search = _LaCAM(graph, starts, goals, distances, seed)
    repaired = search.first_plan(max_work, repair, int(lower.sum()))
    if repaired is not None:
        first = repaired
    elif not refine or search.state[P.GOAL] < 0:
        return _result(search, goals, int(lower.sum()))
    else:
        search.refine(max_work)
        first = _result(search, goals, int(lower.sum()))
    if not refine:
        return first
    if first.optimal or first.sum_of_costs == first.lower_bound:
        return first
    return _improved(first, graph, (starts, goals, lower), distances, seed, max_work)


class _LaCAM:
    """LaCAM*'s pools and loop: run until a solution (or the end), then refine while it
    keeps improving."""

    def __init__(self, graph: MoveGraph, starts, goals, distances, seed: int) -> None:
        self.graph, self.goals, self.distances = graph, goals, distances
        self.moves = graph.neighbours.shape[1]
        self.pools = P.make_pools(starts.shape[0], self.moves)
        self.scratch = make_scratch(graph.vertex_count, starts.shape[0], self.moves, seed)
        self.state = self.pools["state"]
        self.state[P.GOAL] = -1
        pools = self.pools
        self.pools["open"][0] = new_node(
            starts,
            -1,
            0,
            goals,
            P.high(pools),
            P.low(pools),
            pools["slots"],
            graph.neighbours,
            distances,
            self.state,
        )
        self.state[P.TOP] = 1
        self.extra_work = 0  # spent outside the loop (repairs)

    @property
    def work(self) -> int:
        calls = int(self.state[P.CALLS])
        return calls * self.goals.shape[0] + self.distance_work + self.extra_work

    @property
    def distance_work(self) -> int:
        return int(self.distances[4][0]) // CELLS_PER_WORK

    def run(self, max_work: int, star: bool) -> None:
        pools, graph = self.pools, self.graph
        while True:
            search(
                self.goals,
                P.high(pools),
                P.low(pools),
                P.edges(pools),
                pools["slots"],
                pools["open"],
                self.state,
                graph.neighbours,
                graph.cross,
                graph.degree,
                self.distances,
                self.scratch,
                max_work - self.extra_work,
                star,
                CELLS_PER_WORK,
            )
            if self.state[P.STATUS] != P.GROW:
                return
            P.grow(pools, self.moves)

    def first_plan(self, max_work: int, repair: bool, lower: int) -> GroupResult | None:
        """Search for a first plan. If the closest configuration to the goals has not
        improved for :data:`REPAIR_AFTER` work, solve the region around its units off
        their goals alone (:mod:`gridpath.group.repair`): the plan so found is returned;
        else (None) the search goes on, and the state holds whatever it found."""
        best, since, tried = -1, 0, -1
        while self.work < max_work:
            self.run(min(max_work, self.work + REPAIR_AFTER // 4), star=False)
            if self.state[P.STATUS] != P.LIMIT:
                return None  # found, or the search space is exhausted
            node = int(np.argmin(self.pools["h"][: self.state[P.HNODES]]))
            h = int(self.pools["h"][node])
            if best < 0 or h < best:
                best, since = h, self.work
            elif repair and tried != best and self.work - since >= REPAIR_AFTER:
                tried = best
                plan = self._repaired(node, max_work, lower)
                if plan is not None:
                    return plan
        return None

    def _repaired(self, node: int, max_work: int, lower: int) -> GroupResult | None:
        config = self.pools["config"][node].copy()

        def small(graph, starts, goals, budget):
            return solve_group(graph, starts, goals, budget, refine=False, repair=False)

        ticks, work = repair_knot(self.graph, config, self.goals, max_work - self.work, small)
        self.extra_work += work
        if ticks is None:
            return None
        configs = np.concatenate((_backtrack(self.pools, node), ticks[1:]))
        return _found(configs, self.goals, lower, False, int(self.state[P.CALLS]), self.work)

    def refine(self, max_work: int) -> None:
        """LaCAM*'s own improvement, while the budget lasts and it keeps finding cheaper
        plans: it stops :data:`LACAM_STALL` work after its last improvement. On few units
        it often exhausts its search, which proves the plan optimal."""
        best, since = self.cost, self.work
        while self.state[P.STATUS] in (P.FOUND, P.LIMIT) and self.work < max_work:
            self.run(min(max_work, self.work + LACAM_STALL // 4), star=True)
            if self.cost < best:
                best, since = self.cost, self.work
            elif self.work - since >= LACAM_STALL:
                return

    @property
    def cost(self) -> int:
        return int(self.pools["g"][self.state[P.GOAL]])


def _lower_bounds(distances: tuple, starts: np.ndarray) -> np.ndarray:
    return np.array(
        [distance(distances, i, int(s)) for i, s in enumerate(starts)],
        dtype=np.int64,
    )


def _improved(first: GroupResult, graph: MoveGraph, task: tuple, distances, seed: int, max_work):
    """LaCAM*'s plan shortened with the work left (:mod:`gridpath.group.lns`): a plan by
    prioritized planning replaces it if it is cheaper; then LNS. Skipped when the plan's
    tick-by-vertex arrays would pass :data:`PLAN_MAX_CELLS`."""
    ticks, goals = first.configs.shape[0], task[1]
    if max_work <= first.work or ticks * graph.vertex_count > PLAN_MAX_CELLS:
        return first
    distance_work = int(distances[4][0])
    sipp = sipp_arrays(graph.vertex_count, ticks, lane_costs(graph))
    moves = (graph.neighbours, graph.cross, distances, sipp)
    plan = plan_arrays(first.configs, graph.vertex_count)
    plan = plan + (np.array([arrival(plan[0], i, g) for i, g in enumerate(goals)]),)
    work_left = max_work - first.work
    fresh, work = _prioritized(task, moves, graph.vertex_count, ticks, work_left * 2 // 3)
    if fresh is not None and fresh[3].sum() < plan[3].sum():
        plan = fresh
    rng = np.array([seed * 2654435761 + 1442695040888963407], dtype=np.uint64)
    work += improve(task, plan, moves, rng, work_left - work, PATIENCE)
    work += (int(distances[4][0]) - distance_work) // CELLS_PER_WORK
    configs = plan[0][: int(plan[3].max()) + 1].copy()
    lower = first.lower_bound
    optimal = sum_of_costs(configs, goals) == lower  # nothing is cheaper than the bound
    return _found(configs, goals, lower, optimal, first.expanded, first.work + work)


def _prioritized(task: tuple, moves: tuple, vertex_count: int, ticks: int, max_work: int):
    """A whole plan by prioritized planning within ``ticks``, the units with the longest way
    first unless their goal would cut others off (:mod:`gridpath.group.order`); a unit
    that finds no path goes first in the next attempt, while work remains and each attempt
    plans more units than the one before (on crowded maps it never gets far, and the work
    is better spent by LNS). Returns ``(plan or None, work)``."""
    n = task[0].shape[0]
    longest = np.argsort(-task[2], kind="stable").astype(np.int32)
    order, cells = planning_order(moves[0], task[0], task[1], longest, max_work * CELLS_PER_WORK)
    work, best = cells // CELLS_PER_WORK, 0
    while work < max_work:
        plan = empty_plan(n, vertex_count, ticks) + (np.zeros(n, dtype=np.int64),)
        planned, spent = prioritized(order, task, plan, moves, max_work - work)
        work += spent
        if planned == n:
            return plan, work
        if planned <= best:
            break
        best = planned
        failed = order[planned : planned + 1]
        order = np.concatenate((failed, order[:planned], order[planned + 1 :]))
    return None, work


def _result(search: _LaCAM, goals: np.ndarray, lower: int) -> GroupResult:
    state = search.state
    calls = int(state[P.CALLS])
    goal = int(state[P.GOAL])
    if goal < 0:
        reason = NO_SOLUTION if state[P.STATUS] == P.EXHAUSTED else LIMIT_REACHED
        return GroupResult(False, reason, None, 0, 0, lower, False, calls, search.work)
    configs = _backtrack(search.pools, goal)
    optimal = bool(state[P.STATUS] == P.EXHAUSTED)
    return _found(configs, goals, lower, optimal, calls, search.work)


def _found(configs, goals, lower: int, optimal: bool, expanded: int, work: int) -> GroupResult:
    """The result of a plan ``configs`` (ticks x units)."""
    cost = sum_of_costs(configs, goals)
    return GroupResult(
        True, None, configs, configs.shape[0] - 1, cost, lower, optimal, expanded, work
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
            apart = apart or tuple(range(goals.shape[0]))  # one-way links: no component to name
            return GroupResult(False, UNREACHABLE_REASON, None, 0, 0, 0, False, 0, 0, apart), None
        goals = goals[goal_of]
    return solve_group(order.graph, order.starts, goals, max_work, refine=refine), goal_of


def warm_up() -> None:
    """Compile the group kernels (or load them from numba's cache): a tiny order, with a
    swap through a pocket (PIBT's swap, LaCAM's constraints, LaCAM*'s rewiring), an
    assignment, and a crowded open square whose first plan LNS shortens."""
    from gridpath.group.graph import build_graph

    free = np.ones((2, 4), dtype=bool)
    free[0, 1:] = False
    graph = build_graph(free)
    order = make_order(graph, [(0, 1), (3, 1)], [(3, 1), (0, 1)])
    solve_order(order, 100_000)
    solve_order(order, 100_000, assign=True)
    graph = build_graph(np.ones((5, 5), dtype=bool))
    cells = [(x, y) for y in range(5) for x in range(5)]
    order = make_order(graph, cells[:12], cells[-12:])
    solve_order(order, 200_000)
