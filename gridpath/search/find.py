"""``find_path``: check the query, plan, run, post-process.

Which search serves a query is decided by :func:`gridpath.search.registry.plan` (the registry
of algorithms and their runners); each runner (:mod:`gridpath.search.runners`) searches and
rebuilds the path. All of them order the frontier the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from gridpath.errors import AlgorithmUnsupported, GoalBlocked, OutOfBounds, StartBlocked
from gridpath.grid.model import Grid
from gridpath.search._frontier import FOUND, LIMIT_REACHED, UNREACHABLE
from gridpath.search._records import UNIFORM_COSTS
from gridpath.search._sight import turning_points as _turning_points
from gridpath.search.options import (
    DEFAULT_OPTIONS,
    Algorithm,
    CostModel,
    Diagonal,
    InvalidOption,
    SearchOptions,
)
from gridpath.search.overlay import blocked_cells
from gridpath.search.registry import plan
from gridpath.search.runner import EMPTY_PATH, Outcome, Query
from gridpath.search.runners.jps import DEFAULT_JUMP_TABLE_MAX_CELLS
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
    (option ``smooth``) or the turning points of ``path`` (only when asked for).
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

    @property
    def turns(self) -> int:
        """Changes of direction along ``path``."""
        return count_turns(self.path)


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
    jump_table_max_cells: int = DEFAULT_JUMP_TABLE_MAX_CELLS,
    scratch: SearchScratch | None = None,
) -> PathResult:
    """Search from ``start`` to ``goal`` (or to the cheapest of ``goals``).

    ``blocked`` cells are treated as walls for this search only; ``explored_limit`` > 0
    returns up to that many expanded cells; ``waypoints`` also returns the path's waypoints
    (see :class:`PathResult`); ``jump_table_max_cells`` is ``JUMP_TABLE_MAX_CELLS``.
    Raises :class:`OutOfBounds`, :class:`StartBlocked` or :class:`GoalBlocked` for bad
    endpoints, :class:`AlgorithmUnsupported` when the algorithm asked for cannot serve.
    """
    query = checked_query(
        grid, start, goal, goals, options, blocked, explored_limit, jump_table_max_cells
    )
    chosen = plan(query)
    if chosen.runner is None:
        raise AlgorithmUnsupported(
            f"algorithm {chosen.algorithm.value} does not apply here: {chosen.reason}"
        )
    options = query.options = _with_algorithm(query.options, chosen.algorithm)
    verdict: dict = {
        "options": options,
        "optimal": options.optimal and (query.uniform or options.algorithm != Algorithm.BFS),
        "bounded_suboptimal": options.bounded_suboptimal,
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
        verdict["waypoints"] = _waypoints(grid, outcome.path, options, query.blocked, scratch)
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


def checked_query(
    grid: Grid,
    start: Cell,
    goal: Cell | None,
    goals: Sequence[Cell] | None,
    options: SearchOptions,
    blocked: Sequence[Cell],
    explored_limit: int,
    jump_table_max_cells: int,
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
        min_cost, jump_table_max_cells,
    )  # fmt: skip


def _waypoints(grid: Grid, path, options: SearchOptions, blocked, scratch) -> np.ndarray:
    """String-pulled waypoints (option ``smooth``) or the turning points of ``path``."""
    if path.shape[0] == 0:
        return path
    if not options.smooth:
        return turning_points(path)
    return smooth(
        grid,
        path,
        diagonal=options.diagonal,
        blocked=sorted(blocked),
        clearance=options.clearance,
        scratch=scratch,
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
