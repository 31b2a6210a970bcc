"""``find_path``: check the query, run a search kernel, rebuild the path from the parent chain.

The default options (A*, octile, 8-connected without corner cutting) run the exact
fast kernel of :mod:`app.search._kernels`; any other option runs the option-rich kernel
of :mod:`app.search._general`. Both order the frontier the same way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from app.errors import AlgorithmUnsupported, GoalBlocked, OutOfBounds, StartBlocked
from app.grid.model import Grid
from app.search import _general, _jps, _kernels
from app.search.options import (
    ALGORITHM_CODES,
    DEFAULT_OPTIONS,
    DIAGONAL_CODES,
    HEURISTIC_CODES,
    Algorithm,
    CostModel,
    Diagonal,
    Heuristic,
    InvalidOption,
    SearchOptions,
    jps_blocker,
)
from app.search.overlay import blocked_cells, stamp
from app.search.scratch import SearchScratch, thread_scratch

Cell = tuple[int, int]

_REASONS = {_kernels.UNREACHABLE: "unreachable", _kernels.LIMIT_REACHED: "limit_reached"}
_EMPTY = np.empty((0, 2), dtype=np.int32)
_NO_CELLS = np.empty(0, dtype=np.int32)


@dataclass(frozen=True)
class PathResult:
    """The outcome of one search.

    ``path`` is an ``(n, 2)`` int32 array of ``[x, y]`` cells from start to goal inclusive
    (empty when not found, unless ``partial``); ``cost`` is its cost under the cost model
    (``None`` when not found); ``reason`` says why the goal was not reached;
    ``goal_index`` which goal was reached; ``partial`` that ``path`` ends at the expanded
    cell nearest the goal instead (``closest`` option); ``explored`` the expanded cells in
    order (``[x, y]``, only when asked for).
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
    scratch: SearchScratch | None = None,
) -> PathResult:
    """Search from ``start`` to ``goal`` (or to the cheapest of ``goals``).

    ``blocked`` cells are treated as walls for this search only; ``explored_limit`` > 0
    returns up to that many expanded cells. Raises :class:`OutOfBounds`,
    :class:`StartBlocked` or :class:`GoalBlocked` for bad endpoints.
    """
    if (goal is None) == (goals is None):
        raise ValueError("give exactly one of goal and goals")
    goal_list = [goal] if goals is None else list(goals)
    if not goal_list:
        raise ValueError("goals must not be empty")
    blocked_set = blocked_cells(grid, blocked)
    check_cell(grid, start, "start", blocked_set, options.clearance)
    for g in goal_list:
        check_cell(grid, g, "goal", blocked_set, options.clearance)
    options = options.resolved()
    class_cost, uniform, min_cost = terrain_table(grid, options)
    if options.algorithm in (Algorithm.AUTO, Algorithm.JPS):
        blocker = jps_blocker(
            options,
            uniform=uniform,
            blocked=bool(blocked_set),
            goals=len(goal_list),
            explored=explored_limit > 0,
        )
        if options.algorithm == Algorithm.JPS and blocker:
            raise AlgorithmUnsupported(f"algorithm jps does not apply here: {blocker}")
        options = _with_algorithm(options, Algorithm.ASTAR if blocker else Algorithm.JPS)
    optimal = options.optimal and (uniform or options.algorithm != Algorithm.BFS)
    verdict: dict = {
        "options": options,
        "optimal": optimal,
        "bounded_suboptimal": options.bounded_suboptimal,
    }
    if not options.closest and _in_other_components(grid, options, start, goal_list):
        return PathResult(False, _EMPTY, None, 0, "unreachable", **verdict)
    if scratch is None:
        scratch = thread_scratch()
    dirs = 9 if options.turn_penalty > 0 else 1  # (cell, heading) states with a turn penalty
    limit = options.max_expanded or grid.cell_count * dirs
    generation = scratch.begin(grid.flat.size * dirs)
    start_i = grid.index(*start)
    orth_w, diag_w = options.step_weights

    jump = options.algorithm == Algorithm.JPS
    if jump or (
        options.is_fast_path
        and uniform
        and len(goal_list) == 1
        and not blocked_set
        and explored_limit <= 0
    ):
        goal_i = grid.index(*goal_list[0])
        began = time.perf_counter_ns()
        if jump:
            status, expanded = _jps.jps(
                grid.flat,
                grid.stride,
                options.clearance,
                grid.jump_table if options.clearance == 1 else None,
                start_i,
                goal_i,
                limit,
                orth_w,
                diag_w,
                scratch.nodes,
                scratch.frontier,
                generation,
            )
        else:
            status, expanded = _kernels.astar_octile(
                grid.flat,
                grid.stride,
                start_i,
                goal_i,
                limit,
                orth_w,
                diag_w,
                scratch.nodes,
                scratch.frontier,
                generation,
            )
        verdict["search_us"] = (time.perf_counter_ns() - began) / 1000
        if status != _kernels.FOUND:
            return PathResult(False, _EMPTY, None, int(expanded), _REASONS[int(status)], **verdict)
        if jump:
            path = _jps.expand_jumps(scratch.nodes, goal_i, grid.stride)
        else:
            path = _kernels.reconstruct_path(scratch.nodes, goal_i, grid.stride, 1)
        straight = int(scratch.nodes[goal_i, _kernels.COST_ORTH])
        diagonal = int(scratch.nodes[goal_i, _kernels.COST_DIAG])
        cost = straight * orth_w + diagonal * diag_w
        return PathResult(
            True, path, _as_cost(cost, options), int(expanded), goal_index=0, **verdict
        )

    marks = scratch.marks
    goal_cells = np.array([grid.index(x, y) for x, y in goal_list], dtype=np.int64)
    marks[goal_cells, _kernels.GOAL] = generation
    stamp(grid, blocked_set, marks, _kernels.BLOCKED, generation)
    goal_xy = np.array([(x + 1, y + 1) for x, y in goal_list], dtype=np.int64)
    explored = np.empty(max(0, explored_limit), dtype=np.int32)
    h_factor = 0.0 if options.heuristic == Heuristic.ZERO else options.heuristic_weight * min_cost
    closest_kind = _general.OCTILE if options.diagonals else _general.MANHATTAN
    max_cost = np.inf if options.max_cost is None else float(options.max_cost)
    began = time.perf_counter_ns()
    status, expanded, reached, closest, n_explored = _general.search_grid(
        grid.flat,
        grid.stride,
        options.clearance,
        grid.terrain_flat,
        class_cost,
        uniform,
        start_i,
        goal_xy,
        ALGORITHM_CODES[options.algorithm],
        HEURISTIC_CODES[options.heuristic],
        h_factor,
        closest_kind,
        DIAGONAL_CODES[options.diagonal],
        orth_w,
        diag_w,
        limit,
        max_cost,
        float(options.turn_penalty),
        scratch.nodes,
        marks,
        scratch.g_cost,
        scratch.frontier,
        generation,
        explored,
    )
    verdict["search_us"] = (time.perf_counter_ns() - began) / 1000
    explored_xy = _cells_to_xy(explored[:n_explored], grid.stride)
    if status == _kernels.FOUND:
        path = _kernels.reconstruct_path(scratch.nodes, reached, grid.stride, dirs)
        goal_index = int(np.flatnonzero(goal_cells == reached // dirs)[0])
        found, partial, reason = True, False, None
    elif options.closest:
        path = _kernels.reconstruct_path(scratch.nodes, closest, grid.stride, dirs)
        goal_index, found, partial, reason = None, False, True, _REASONS[int(status)]
    else:
        return PathResult(
            False,
            _EMPTY,
            None,
            int(expanded),
            _REASONS[int(status)],
            explored=explored_xy,
            **verdict,
        )
    cost = _general.path_cost(
        grid.terrain_flat, class_cost, uniform, grid.stride, path, orth_w, diag_w
    )
    return PathResult(
        found,
        path,
        _as_cost(cost, options),
        int(expanded),
        reason,
        goal_index=goal_index,
        partial=partial,
        explored=explored_xy,
        **verdict,
    )


@lru_cache(maxsize=1024)
def _with_algorithm(options: SearchOptions, algorithm: Algorithm) -> SearchOptions:
    """``options`` with ``algorithm`` (cached: ``replace`` re-validates every field)."""
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
        return _UNIFORM_TABLE, True, 1.0  # the common case, without per-request work
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


_UNIFORM_TABLE = np.ones(256, dtype=np.float64)  # never written (same array type as others)


def count_turns(path: np.ndarray) -> int:
    """Changes of direction along a cell path: the turning points between its two ends
    (one compiled pass; numpy's diff-and-compare took ~7 µs per answer, one-off)."""
    if path.shape[0] < 3:
        return 0
    return int(_kernels.turning_points(path).shape[0]) - 2


def _as_cost(cost: float, options: SearchOptions) -> float | int:
    return int(round(cost)) if options.cost_model == CostModel.INTEGER else float(cost)


def _cells_to_xy(cells: np.ndarray, stride: int) -> np.ndarray:
    if cells.size == 0:
        return _EMPTY
    return np.stack([cells % stride - 1, cells // stride - 1], axis=1).astype(np.int32)
