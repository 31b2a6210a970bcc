"""``find_path``: check the query, choose its runner, run, post-process.

Which search serves a query is decided by
:func:`gridpath.search.algorithms.choose_runner` (the table of algorithms and their
runners); each runner (:mod:`gridpath.search.runners`) searches and rebuilds the path.
All of them order the frontier the same way.

The common query (one start, one goal, no per-request cells, served by an exact-pair
runner: :class:`~gridpath.search.runner.PairKernel`) takes a shorter road to the same
result: its plan is kept per map revision and options, its ends are checked with two reads
(the general road raises the error when one fails), and after the kernel one compiled call
(:func:`gridpath.search._finish.finish_pair`) rebuilds the path, counts its turns and pulls
its waypoints. ``tests/gridpath/search/test_common_query.py`` checks both roads give the
same result.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from functools import lru_cache

import numpy as np

from gridpath.errors import AlgorithmUnsupported, GoalBlocked, OutOfBounds, StartBlocked
from gridpath.grid.components import Components
from gridpath.grid.model import Grid
from gridpath.search._finish import finish_pair
from gridpath.search._frontier import FOUND, LIMIT_REACHED, UNREACHABLE
from gridpath.search._records import UNIFORM_COSTS, rules_record
from gridpath.search._sight import turning_points as _turning_points
from gridpath.search.algorithms import (
    ALGORITHMS,
    choose_runner,
    is_bounded_suboptimal,
    is_optimal,
)
from gridpath.search.cost import price_record, walked_cost
from gridpath.search.options import (
    CORNER_RULES,
    DEFAULT_OPTIONS,
    Algorithm,
    CostModel,
    Diagonal,
    InvalidOption,
    SearchOptions,
)
from gridpath.search.overlay import blocked_cells
from gridpath.search.runner import EMPTY_PATH, Outcome, Query
from gridpath.search.scratch import SearchScratch, thread_scratch
from gridpath.search.smooth import smooth, turning_points

Cell = tuple[int, int]

_REASONS = {UNREACHABLE: "unreachable", LIMIT_REACHED: "limit_reached"}
_EMPTY = EMPTY_PATH


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
    call per field (a third of the common query's Python): the same fields and defaults,
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
    if goals is None and goal is not None and not blocked and explored_limit <= 0:
        result = common_query(grid, start, goal, options, waypoints, scratch)
        if result is not None:
            return result
    query = checked_query(grid, start, goal, goals, options, blocked, explored_limit)
    return general_query(query, waypoints, scratch)


def general_query(
    query: Query, waypoints: bool = False, scratch: SearchScratch | None = None
) -> PathResult:
    """:func:`find_path` for any checked query, step by step (the common query's road
    checks itself against this one)."""
    grid, start = query.grid, query.start
    chosen = choose_runner(query)
    if chosen.runner is None:
        raise AlgorithmUnsupported(
            f"algorithm {chosen.algorithm.value} does not apply here: {chosen.reason}"
        )
    options = query.options = _with_algorithm(query.options, chosen.algorithm)
    verdict: dict = {
        "options": options,
        "optimal": is_optimal(options) and (query.uniform or options.algorithm != Algorithm.BFS),
        "bounded_suboptimal": is_bounded_suboptimal(options),
    }
    scratch = scratch or thread_scratch()
    if not options.closest and _in_other_components(grid, options, start, query.goals):
        outcome = Outcome(UNREACHABLE, 0, 0.0)  # no search needed
    else:
        outcome = chosen.runner.run(query, scratch)
    found = outcome.status == FOUND
    if waypoints and outcome.waypoints is not None:
        verdict["waypoints"] = outcome.waypoints  # an any-angle runner's own vertices
    elif waypoints:
        verdict["waypoints"] = _waypoints(query, outcome.path, scratch)
    if waypoints:
        verdict["waypoints_cost"] = walked_cost(
            grid, options, query.class_cost, query.uniform, verdict["waypoints"]
        )
    return PathResult(
        found,
        outcome.path,
        None if outcome.cost is None else _as_cost(outcome.cost, options),
        outcome.expanded,
        None if found else _REASONS[outcome.status],
        goal_index=outcome.goal_index,
        partial=outcome.partial,
        explored=outcome.explored,
        search_us=outcome.search_us,
        **verdict,
    )


@dataclass(frozen=True, slots=True)
class _CommonPlan:
    """What the common query needs of its plan, for one map revision and options."""

    options: SearchOptions  # resolved, with the algorithm the plan chose
    optimal: bool
    bounded_suboptimal: bool
    kernel: Callable[..., tuple[int, int]]
    extra: tuple
    jumps: bool
    records: tuple  # (grid record, rules record)
    sight: tuple[int, int]
    steps: tuple[float, float]  # straight and diagonal step costs
    integer: bool  # the integer cost model
    unit: int
    components: Components


# Per map revision (weakly: a revision no longer served takes its plans with it), under
# the options: (the common plan or None for a query the general road serves, the late
# tables the choice depends on); under _LAST, the last options and their entry. Bounded
# per revision; past the bound plans are made per query.
_PLANS: weakref.WeakKeyDictionary[Grid, dict[SearchOptions, tuple]] = weakref.WeakKeyDictionary()
_PLANS_LOCK = threading.Lock()
_PLANS_PER_REVISION = 256
_LAST = "last"  # the key of (the options last asked for, their entry)


def _common_plan(grid: Grid, options: SearchOptions) -> _CommonPlan | None:
    plans = _PLANS.get(grid)
    if plans is None:
        with _PLANS_LOCK:
            plans = _PLANS.setdefault(grid, {})
    # The revision's last options first, by identity (the service shares one SearchOptions
    # per distinct request options, and hashing one costs about a microsecond, as much as
    # the rest of this lookup), then by equality.
    last = plans.get(_LAST)
    seen = last[1] if last is not None and last[0] is options else plans.get(options)
    # A plan made before a late table of this revision appeared (a runner ahead of the
    # chosen one refused for want of it, or reads it) is made again: tables only appear.
    if seen is None or (seen[1] and any(grid.built(key) is not None for key in seen[1])):
        seen = _make_common_plan(grid, options)
        if len(plans) < _PLANS_PER_REVISION:
            plans[options] = seen
    plans[_LAST] = (options, seen)
    return seen[0]


def _late_tables(grid: Grid, options: SearchOptions, chosen) -> tuple[str, ...]:
    """The tables not yet built on ``grid`` that the runners up to ``chosen`` (all of the
    algorithm's runners if None) declare as late: what the choice depends on."""
    keys: list[str] = []
    for runner, _ in ALGORITHMS[options.algorithm].runners:
        keys.extend(k for k in runner.late_tables if grid.built(k) is None)
        if runner is chosen:
            break
    return tuple(dict.fromkeys(keys))


def _make_common_plan(grid: Grid, options: SearchOptions) -> tuple[_CommonPlan | None, tuple]:
    if options.closest:
        return None, ()
    resolved = options.resolved()
    try:
        class_cost, uniform, min_cost = terrain_table(grid, resolved)
    except InvalidOption:
        return None, ()  # the general road raises it, after the endpoint checks
    # No runner's refusal reads the cells (only how many goals): placeholders here.
    query = Query(grid, (0, 0), ((0, 0),), resolved, frozenset(), 0, class_cost, uniform, min_cost)
    chosen = choose_runner(query)
    watch = _late_tables(grid, resolved, chosen.runner)
    if chosen.runner is None or chosen.runner.pair is None:
        return None, watch
    chosen_options = query.options = _with_algorithm(resolved, chosen.algorithm)
    pair = chosen.runner.pair(query)
    orth_w, diag_w = chosen_options.step_weights
    rules = rules_record(  # as run_pair_kernel builds it
        unit=chosen_options.clearance,
        orth_w=orth_w,
        diag_w=diag_w,
        max_expanded=query.max_expanded,
    )
    return _CommonPlan(
        options=chosen_options,
        optimal=is_optimal(chosen_options),  # uniform terrain: the verdict of find_path
        bounded_suboptimal=is_bounded_suboptimal(chosen_options),
        kernel=pair.kernel,
        extra=pair.extra,
        jumps=pair.jumps,
        records=((grid.flat, grid.stride, grid.terrain_flat), rules),
        sight=(int(chosen_options.clearance), CORNER_RULES[chosen_options.diagonal]),
        steps=(orth_w, diag_w),
        integer=chosen_options.cost_model == CostModel.INTEGER,
        unit=chosen_options.clearance,
        components=grid.components(
            chosen_options.clearance, chosen_options.diagonal == Diagonal.ALWAYS
        ),
    ), watch


def common_query(
    grid: Grid,
    start: Cell,
    goal: Cell,
    options: SearchOptions = DEFAULT_OPTIONS,
    waypoints: bool = False,
    scratch: SearchScratch | None = None,
) -> PathResult | None:
    """:func:`find_path` from ``start`` to ``goal`` with nothing per request, when an
    exact-pair runner serves it and both ends are open; else None (the general road then
    answers, or raises the error)."""
    common = _common_plan(grid, options)
    if common is None:
        return None
    (x, y), (gx, gy) = start, goal
    width, height, flat, stride = grid.width, grid.height, grid.flat, grid.width + 2
    if not (0 <= x < width and 0 <= y < height and 0 <= gx < width and 0 <= gy < height):
        return None
    begin, end = (y + 1) * stride + x + 1, (gy + 1) * stride + gx + 1
    if flat[begin] < common.unit or flat[end] < common.unit:
        return None
    if common.components.of(begin) != common.components.of(end):
        return _not_found(common, UNREACHABLE, 0, 0.0, waypoints)  # no search needed
    scratch = scratch or thread_scratch()
    records = common.records
    began = time.perf_counter_ns()
    status, expanded = common.kernel(
        records[0], records[1], scratch.record(scratch.begin(flat.size)), *common.extra,
        begin, end,
    )  # fmt: skip
    search_us = (time.perf_counter_ns() - began) / 1000
    if status != FOUND:
        return _not_found(common, int(status), int(expanded), search_us, waypoints)
    path, pulled, orth, diag, turns = finish_pair(
        scratch.nodes, end, stride, common.jumps, records[0], common.sight,
        common.options.smooth,
    )  # fmt: skip
    cost = int(orth) * common.steps[0] + int(diag) * common.steps[1]
    return _path_result(
        found=True,
        path=path,
        cost=int(round(cost)) if common.integer else float(cost),
        expanded=int(expanded),
        goal_index=0,
        options=common.options,
        optimal=common.optimal,
        bounded_suboptimal=common.bounded_suboptimal,
        search_us=search_us,
        waypoints=pulled if waypoints else None,
        known_turns=int(turns),
        waypoints_cost=walked_cost(grid, common.options, UNIFORM_COSTS, True, pulled)
        if waypoints
        else None,
    )


def _not_found(
    common: _CommonPlan, status: int, expanded: int, search_us: float, waypoints: bool
) -> PathResult:
    return _path_result(
        found=False,
        path=_EMPTY,
        cost=None,
        expanded=expanded,
        reason=_REASONS[status],
        options=common.options,
        optimal=common.optimal,
        bounded_suboptimal=common.bounded_suboptimal,
        search_us=search_us,
        waypoints=_EMPTY if waypoints else None,
        known_turns=0,
    )


def checked_query(
    grid: Grid,
    start: Cell,
    goal: Cell | None,
    goals: Sequence[Cell] | None,
    options: SearchOptions,
    blocked: Sequence[Cell],
    explored_limit: int,
) -> Query:
    """The query with its endpoints checked, its options resolved and its terrain priced."""
    if (goal is None) == (goals is None):
        raise ValueError("give exactly one of goal and goals")
    goal_list = (goal,) if goals is None else tuple(goals)
    if not goal_list:
        raise ValueError("goals must not be empty")
    blocked_set = blocked_cells(grid, blocked)
    check_cell(grid, start, "start", blocked_set, options.clearance)
    for g in goal_list:
        check_cell(grid, g, "goal", blocked_set, options.clearance)
    options = options.resolved()
    class_cost, uniform, min_cost = terrain_table(grid, options)
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


@lru_cache(maxsize=1024)
def _with_algorithm(options: SearchOptions, algorithm: Algorithm) -> SearchOptions:
    """``options`` with ``algorithm`` (cached: ``replace`` re-validates every field)."""
    if options.algorithm == algorithm:
        return options
    return replace(options, algorithm=algorithm)


def _in_other_components(
    grid: Grid, options: SearchOptions, start: Cell, goals: Sequence[Cell]
) -> bool:
    """True if no goal is in the start's connected component: unreachable, no search needed
    (per-request blocked cells only split components, so this stays sound with them)."""
    components = grid.components(options.clearance, options.diagonal == Diagonal.ALWAYS)
    stride = grid.stride
    mine = components.of((start[1] + 1) * stride + start[0] + 1)
    return all(components.of((y + 1) * stride + x + 1) != mine for x, y in goals)


def terrain_table(grid: Grid, options: SearchOptions) -> tuple[np.ndarray, bool, float]:
    """Per-class costs for this search (map costs, then the request's overrides), whether
    every walkable cell costs 1, and the cheapest walkable class cost (scales h)."""
    if not options.terrain_costs and grid.uniform:
        return UNIFORM_COSTS, True, 1.0  # the common case, without per-request work
    costs = [tc.cost for tc in grid.terrain_classes]
    names = [tc.name for tc in grid.terrain_classes]
    for name, cost in options.terrain_costs:
        if name not in names:
            raise InvalidOption(
                "terrain_costs",
                f"map {grid.name!r} has no terrain class {name!r} (classes: {', '.join(names)})",
            )
        costs[names.index(name)] = float(cost)
    present = [costs[i] for i in grid.present_classes] or [1.0]
    if options.cost_model == CostModel.INTEGER:
        for i in grid.present_classes:
            if costs[i] != int(costs[i]):
                raise InvalidOption(
                    "cost_model",
                    f"the integer cost model needs whole-number "
                    f"terrain costs; class {names[i]!r} costs {costs[i]}",
                )
    table = np.ones(256, dtype=np.float64)
    table[: len(costs)] = costs
    return table, all(c == 1.0 for c in present), min(present)


def count_turns(path: np.ndarray) -> int:
    """Changes of direction along a cell path: the turning points between its two ends
    (one compiled pass; numpy's diff-and-compare took ~7 µs per answer, one-off)."""
    if path.shape[0] < 3:
        return 0
    return int(_turning_points(path).shape[0]) - 2


def _as_cost(cost: float, options: SearchOptions) -> float | int:
    return int(round(cost)) if options.cost_model == CostModel.INTEGER else float(cost)
