"""``find_path``: one road for every query: check the endpoints, take the query's plan,
run its runner, finish the answer.

* check (:func:`checked_ends`): the common query (one start, one goal, nothing per
  request) with two reads, the others cell by cell; the domain error names what is wrong;
* plan (:func:`gridpath.search.plan.plan_for`): which runner serves the query, chosen by
  :func:`gridpath.search.algorithms.choose_runner` once per map revision, options and
  query shape, and kept with the revision;
* runner (:mod:`gridpath.search.runners`): searches and rebuilds the path (the exact-pair
  runners all through :class:`~gridpath.search.runner.PairRun`: one kernel call, one
  compiled call for the path, its turns and its waypoints); all of them order the
  frontier the same way;
* finish (:func:`finish`): the one place a :class:`PathResult` is built, found or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields

import numpy as np

from gridpath.errors import GoalBlocked, OutOfBounds, StartBlocked
from gridpath.grid.components import Components
from gridpath.grid.model import Grid
from gridpath.search._frontier import FOUND, LIMIT_REACHED, UNREACHABLE
from gridpath.search._sight import turning_points as _turning_points
from gridpath.search.cost import price_record, reported_cost, reported_walk, walked_cost
from gridpath.search.options import DEFAULT_OPTIONS, SearchOptions
from gridpath.search.overlay import blocked_cells
from gridpath.search.plan import BLOCKED, EXPLORED, SEVERAL_GOALS, Plan, plan_for, terrain_prices
from gridpath.search.runner import EMPTY_PATH, Outcome, Query
from gridpath.search.scratch import SearchScratch, thread_scratch
from gridpath.search.smooth import smooth, turning_points

Cell = tuple[int, int]

_REASONS = {UNREACHABLE: "unreachable", LIMIT_REACHED: "limit_reached"}
_EMPTY = EMPTY_PATH
_NO_CELLS: frozenset[Cell] = frozenset()


@dataclass(frozen=True)
class PathResult:
    """The outcome of one search.

    ``path`` is an ``(n, 2)`` int32 array of ``[x, y]`` cells from start to goal inclusive
    (empty when not found, unless ``partial``); ``cost`` is its cost under the cost model
    (``None`` when not found); ``reason`` says why the goal was not reached;
    ``goal_index`` which goal was reached; ``partial`` that ``path`` ends at the expanded
    cell nearest the goal instead (``closest`` option); ``explored`` the expanded cells in
    order (``[x, y]``, only when asked for); ``waypoints`` the string-pulled waypoints
    (option ``smooth``) or the turning points of ``path`` (only when asked for);
    ``waypoints_cost`` what walking the waypoints costs (:mod:`gridpath.search.cost`; None
    without waypoints): never more than ``cost``.
    """

    found: bool
    path: np.ndarray
    cost: float | None
    expanded: int
    reason: str | None = None
    goal_index: int | None = None
    partial: bool = False
    options: SearchOptions = DEFAULT_OPTIONS
    explored: np.ndarray = field(default_factory=lambda: _EMPTY)
    optimal: bool = True  # the cost is the minimum under the cost model
    bounded_suboptimal: bool = False  # cost <= heuristic_weight x optimal
    search_us: float = 0.0  # time in the search kernel (path rebuilding excluded)
    waypoints: np.ndarray | None = None
    known_turns: int | None = field(default=None, repr=False)  # counted with the path
    waypoints_cost: float | int | None = None

    @property
    def turns(self) -> int:
        """Changes of direction along ``path``."""
        return count_turns(self.path) if self.known_turns is None else self.known_turns


# The fields of PathResult that have a default, with it, for _path_result.
_RESULT_DEFAULTS = {
    f.name: f.default_factory() if f.default_factory is not MISSING else f.default
    for f in fields(PathResult)
    if f.default is not MISSING or f.default_factory is not MISSING
}


def _path_result(**given: object) -> PathResult:
    """``PathResult(**given)`` without the frozen dataclass's one ``object.__setattr__``
    call per field (a third of the common query's Python once): the same fields and defaults,
    written at once; PathResult has no ``__post_init__`` to skip."""
    result = object.__new__(PathResult)
    result.__dict__.update(_RESULT_DEFAULTS, **given)
    return result


def check_cell(
    grid: Grid, cell: Cell, role: str, blocked: frozenset[Cell] = frozenset(), size: int = 1
) -> None:
    """Raise the domain error for a start/goal outside the map or where the unit cannot stand."""
    x, y = cell
    if not grid.in_bounds(x, y):
        raise OutOfBounds(
            f"{role} [{x}, {y}] is outside map {grid.name!r} "
            f"(x must be in 0..{grid.width - 1}, y in 0..{grid.height - 1})"
        )
    error = StartBlocked if role == "start" else GoalBlocked
    if not grid.is_walkable(x, y):
        raise error(f"{role} [{x}, {y}] is a blocked cell on map {grid.name!r}")
    if (x, y) in blocked:
        raise error(f"{role} [{x}, {y}] is a cell listed in blocked")
    if grid.clearance_at(x, y) < size:
        raise error(
            f"{role} [{x}, {y}] has clearance {grid.clearance_at(x, y)} on map "
            f"{grid.name!r}: no room for a unit of size {size}"
        )


def find_path(
    grid: Grid,
    start: Cell,
    goal: Cell | None = None,
    options: SearchOptions = DEFAULT_OPTIONS,
    *,
    goals: Sequence[Cell] | None = None,
    blocked: Sequence[Cell] = (),
    explored_limit: int = 0,
    waypoints: bool = False,
    scratch: SearchScratch | None = None,
) -> PathResult:
    """Search from ``start`` to ``goal`` (or to the cheapest of ``goals``).

    ``blocked`` cells are treated as walls for this search only; ``explored_limit`` > 0
    returns up to that many expanded cells; ``waypoints`` also returns the path's waypoints
    (see :class:`PathResult`).
    Raises :class:`OutOfBounds`, :class:`StartBlocked` or :class:`GoalBlocked` for bad
    endpoints, :class:`AlgorithmUnsupported` when the algorithm asked for cannot serve.
    """
    goal_list, blocked_set = checked_ends(grid, start, goal, goals, options, blocked)
    shape = 0  # the common query's
    if len(goal_list) != 1 or blocked_set or explored_limit > 0:
        shape = (
            (SEVERAL_GOALS if len(goal_list) != 1 else 0)
            | (BLOCKED if blocked_set else 0)
            | (EXPLORED if explored_limit > 0 else 0)
        )
    plan = plan_for(grid, options, shape)
    query = Query(
        grid, start, goal_list, plan.options, blocked_set, explored_limit, plan.class_cost,
        plan.uniform, plan.min_cost,
    )  # fmt: skip
    scratch = scratch or thread_scratch()
    if not plan.options.closest and _in_other_components(grid, plan.components, start, goal_list):
        outcome = Outcome(UNREACHABLE, 0, 0.0)  # no search needed
    else:
        outcome = plan.run(query, scratch)
    return finish(plan, query, outcome, waypoints, scratch)


def finish(
    plan: Plan, query: Query, outcome: Outcome, waypoints: bool, scratch: SearchScratch
) -> PathResult:
    """The answer to ``query`` from its runner's ``outcome``: the cost as the cost model
    reports it, the plan's verdicts, and when asked the waypoints (the runner's own, else
    pulled from the path) with what walking them costs."""
    found, cost = outcome.status == FOUND, outcome.cost
    if cost is not None:
        cost = reported_cost(cost, plan.integer)
    pulled = walked = None
    if waypoints:
        pulled, walked = outcome.waypoints, outcome.walked
        if pulled is None:
            pulled = _waypoints(query, outcome.path, scratch)
        if walked is None:
            walked = walked_cost(query.grid, plan.options, plan.class_cost, plan.uniform, pulled)
        else:  # priced by the run
            walked = reported_walk(walked, plan.integer)
    return _path_result(
        found=found,
        path=outcome.path,
        cost=cost,
        expanded=outcome.expanded,
        reason=None if found else _REASONS[outcome.status],
        goal_index=outcome.goal_index,
        partial=outcome.partial,
        options=plan.options,
        explored=outcome.explored,
        optimal=plan.optimal,
        bounded_suboptimal=plan.bounded_suboptimal,
        search_us=outcome.search_us,
        waypoints=pulled,
        known_turns=outcome.turns,
        waypoints_cost=walked,
    )


def checked_ends(
    grid: Grid,
    start: Cell,
    goal: Cell | None,
    goals: Sequence[Cell] | None,
    options: SearchOptions,
    blocked: Sequence[Cell],
) -> tuple[tuple[Cell, ...], frozenset[Cell]]:
    """The goals and the distinct blocked cells, with every endpoint checked: in the map
    and where the unit can stand (the domain error otherwise)."""
    if goals is None and goal is not None and not blocked:
        # One start, one goal, nothing per request: two reads, the checks below only to
        # name what is wrong.
        (x, y), (gx, gy) = start, goal
        width, height, flat, stride = grid.width, grid.height, grid.flat, grid.width + 2
        unit = options.clearance
        if (
            0 <= x < width and 0 <= y < height and 0 <= gx < width and 0 <= gy < height
            and flat[(y + 1) * stride + x + 1] >= unit
            and flat[(gy + 1) * stride + gx + 1] >= unit
        ):  # fmt: skip
            return (goal,), _NO_CELLS
    if (goal is None) == (goals is None):
        raise ValueError("give exactly one of goal and goals")
    goal_list = (goal,) if goals is None else tuple(goals)
    if not goal_list:
        raise ValueError("goals must not be empty")
    blocked_set = blocked_cells(grid, blocked)
    check_cell(grid, start, "start", blocked_set, options.clearance)
    for g in goal_list:
        check_cell(grid, g, "goal", blocked_set, options.clearance)
    return goal_list, blocked_set


def checked_query(
    grid: Grid,
    start: Cell,
    goal: Cell | None,
    goals: Sequence[Cell] | None,
    options: SearchOptions,
    blocked: Sequence[Cell],
    explored_limit: int,
) -> Query:
    """The query with its endpoints checked, its options resolved and its terrain priced
    (for callers that run a runner themselves: the table, the benchmarks, the tests)."""
    goal_list, blocked_set = checked_ends(grid, start, goal, goals, options, blocked)
    options = options.resolved()
    class_cost, uniform, min_cost = terrain_prices(grid, options)
    return Query(
        grid, start, goal_list, options, blocked_set, explored_limit, class_cost, uniform,
        min_cost,
    )  # fmt: skip


def _waypoints(query: Query, path, scratch) -> np.ndarray:
    """String-pulled waypoints (option ``smooth``; a shortcut never costs more than the
    section it replaces) or the turning points of ``path``."""
    if path.shape[0] == 0:
        return path
    options = query.options
    if not options.smooth:
        return turning_points(path)
    return smooth(
        query.grid,
        path,
        diagonal=options.diagonal,
        blocked=sorted(query.blocked),
        clearance=options.clearance,
        scratch=scratch,
        price=price_record(query.grid, options, query.class_cost, query.uniform),
    )


def _in_other_components(
    grid: Grid, components: Components, start: Cell, goals: Sequence[Cell]
) -> bool:
    """True if no goal is in the start's connected component: unreachable, no search needed
    (per-request blocked cells only split components, so this stays sound with them)."""
    stride, of = grid.width + 2, components.of
    mine = of((start[1] + 1) * stride + start[0] + 1)
    if len(goals) == 1:  # the common query, without a generator
        return of((goals[0][1] + 1) * stride + goals[0][0] + 1) != mine
    return all(of((y + 1) * stride + x + 1) != mine for x, y in goals)


def count_turns(path: np.ndarray) -> int:
    """Changes of direction along a cell path: the turning points between its two ends
    (one compiled pass, cheaper per answer than numpy's diff-and-compare: bench/README.md,
    "Figures behind decisions in the code")."""
    if path.shape[0] < 3:
        return 0
    return int(_turning_points(path).shape[0]) - 2
