"""``validate_path``: check a client's claimed path against the map and the movement rules.

Modes:

* ``cells``: every consecutive pair is one legal step (a neighbour under the connectivity
  and diagonal rule, onto an open cell, no forbidden corner cut). ``cost`` is the path's
  cost under the cost model and terrain, exactly as ``find_path`` reports it.
* ``waypoints``: every consecutive pair has line of sight under the same rule that
  smoothing uses, so a smoothed path from ``find_path`` always validates. ``cost`` is what
  walking the polyline costs under the request's terrain costs
  (:mod:`gridpath.search.cost`: each segment's length inside each cell times that cell's
  cost; integer model: each segment's octile length times its mean terrain cost,
  rounded), exactly the ``waypoints_cost`` ``find_path`` reports for its own waypoints.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from gridpath.errors import ServiceError
from gridpath.grid.model import Grid
from gridpath.search import _validate
from gridpath.search._records import grid_record
from gridpath.search.cost import price_record, reported_cost
from gridpath.search.find import find_path, terrain_prices
from gridpath.search.options import (
    CORNER_RULES,
    DEFAULT_OPTIONS,
    Algorithm,
    CostModel,
    SearchOptions,
    kernel_rules,
)
from gridpath.search.overlay import overlay
from gridpath.search.scratch import SearchScratch, thread_scratch
from gridpath.search.warming import require as require_warm

Cell = tuple[int, int]
MAX_LISTED = 64  # violations listed in path order (plus the first of every kind)


@dataclass(frozen=True)
class Violation:
    index: int
    code: str
    message: str


@dataclass(frozen=True)
class ValidationResult:
    valid: bool
    cost: float | int
    checked: int
    violations: list[Violation] = field(default_factory=list)
    optimal_cost: float | int | None = None
    search_us: float = 0.0  # time in the validation kernel


def _message(code: str, i: int, path: np.ndarray, grid: Grid, unit: int) -> str:
    x, y = (int(v) for v in path[i])
    prev = f"[{int(path[i - 1][0])}, {int(path[i - 1][1])}]" if i > 0 else ""
    return {
        "out_of_bounds": f"[{x}, {y}] is outside map {grid.name!r} ({grid.width}x{grid.height})",
        "blocked_cell": f"[{x}, {y}] is blocked"
        + (f" or too narrow for size {unit}" if unit > 1 else ""),
        "not_adjacent": f"{prev} -> [{x}, {y}] is not one step under the movement rules",
        "corner_cut": f"{prev} -> [{x}, {y}] cuts a corner the diagonal rule forbids",
        "no_line_of_sight": f"{prev} and [{x}, {y}] do not see each other",
    }[code]


def new_report() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The validation kernels' violation report ``(out_index, out_code, first)``."""
    out_index = np.empty(MAX_LISTED, dtype=np.int64)
    out_code = np.empty(MAX_LISTED, dtype=np.int64)
    first = np.full(len(_validate.VIOLATION_CODES), -1, dtype=np.int64)
    return out_index, out_code, first


def kernel_call(
    grid: Grid,
    cells: np.ndarray,
    mode: str,
    options: SearchOptions,
    terrain: tuple[np.ndarray, bool, float],
    marks: np.ndarray | None,
    block_mark: int,
    report: tuple,
) -> Callable[[], tuple[float, int]]:
    """The validation kernel of ``mode`` with its records ready: call it for ``(cost,
    violations found)``. ``options`` resolved; ``terrain`` is :func:`terrain_prices`'s
    answer; ``marks``, ``block_mark`` as :func:`overlay` gives them; ``report`` from
    :func:`new_report`."""
    class_cost, uniform, _min_cost = terrain
    if mode == "cells":
        rules = kernel_rules(options, class_cost, uniform, 0)
        args = (grid_record(grid), rules, marks, block_mark, cells, report)
        return lambda: _validate.validate_cells(*args)
    sight = (int(options.clearance), CORNER_RULES[options.diagonal])
    price = price_record(grid, options, class_cost, uniform)
    args = (grid_record(grid), sight, marks, block_mark, cells, report, price)
    return lambda: _validate.validate_waypoints(*args)


def validate_path(
    grid: Grid,
    path: Sequence[Sequence[int]] | np.ndarray,
    *,
    mode: str = "cells",
    options: SearchOptions = DEFAULT_OPTIONS,
    blocked: Sequence[Cell] = (),
    max_cost: float | None = None,
    start: Cell | None = None,
    goal: Cell | None = None,
    compare_optimal: bool = False,
    scratch: SearchScratch | None = None,
) -> ValidationResult:
    """Validate ``path`` (``[[x, y], ...]``); see the module docstring for the modes."""
    require_warm("validate")
    if mode not in ("cells", "waypoints"):
        raise ValueError(f"mode must be 'cells' or 'waypoints', got {mode!r}")
    cells = np.asarray(path, dtype=np.int64).reshape(-1, 2)
    options = options.resolved()
    terrain = terrain_prices(grid, options)
    marks, block_mark = overlay(grid, blocked, scratch or thread_scratch())
    report = new_report()
    check = kernel_call(grid, cells, mode, options, terrain, marks, block_mark, report)
    began = time.perf_counter_ns()
    cost, found = check()
    search_us = (time.perf_counter_ns() - began) / 1000
    violations = _reported(report, found, cells, grid, options.clearance)
    cost = reported_cost(cost, options.cost_model == CostModel.INTEGER)
    violations += _wrong_ends(cells, start, goal)
    n = len(cells)
    if max_cost is not None and cost > max_cost + 1e-9 * max(1.0, abs(max_cost)):
        message = f"the path costs {cost}, over the budget of {max_cost}"
        violations.append(Violation(max(n - 1, 0), "over_budget", message))
    optimal_cost = None
    if compare_optimal and n > 0:
        optimal_cost = _optimal_cost(grid, cells, options, blocked, scratch)
    return ValidationResult(not violations, cost, n, violations, optimal_cost, search_us)


def _reported(report: tuple, found: int, cells, grid: Grid, unit: int) -> list[Violation]:
    """The kernel's violations: those listed in path order and the first of each kind."""
    out_index, out_code, first = report
    listed = {(int(out_index[k]), int(out_code[k])) for k in range(min(found, MAX_LISTED))}
    listed |= {(int(i), code) for code, i in enumerate(first) if i >= 0}
    codes = _validate.VIOLATION_CODES
    return [
        Violation(i, codes[c], _message(codes[c], i, cells, grid, unit)) for i, c in sorted(listed)
    ]


def _wrong_ends(cells: np.ndarray, start: Cell | None, goal: Cell | None) -> list[Violation]:
    """An empty path, or one that does not start at ``start`` / end at ``goal``."""
    n = len(cells)
    if n == 0:
        return [Violation(0, "not_adjacent", "the path is empty")]
    wrong = []
    if start is not None and tuple(int(v) for v in cells[0]) != tuple(start):
        message = f"the path starts at {cells[0].tolist()}, not at {list(start)}"
        wrong.append(Violation(0, "wrong_start", message))
    if goal is not None and tuple(int(v) for v in cells[-1]) != tuple(goal):
        message = f"the path ends at {cells[-1].tolist()}, not at {list(goal)}"
        wrong.append(Violation(n - 1, "wrong_goal", message))
    return wrong


def _optimal_cost(grid: Grid, cells, options: SearchOptions, blocked, scratch) -> float | None:
    """The optimal cost between the path's ends (None: an end is off the map or blocked)."""
    ends = (tuple(int(v) for v in cells[0]), tuple(int(v) for v in cells[-1]))
    if not all(grid.in_bounds(*c) for c in ends):
        return None
    try:
        optimal = _optimal_options(options)
        return find_path(grid, *ends, optimal, blocked=blocked, scratch=scratch).cost
    except ServiceError:  # an end is blocked: the violations say so already
        return None


def _optimal_options(options: SearchOptions) -> SearchOptions:
    """The same movement and cost rules, searched optimally."""
    return replace(
        options,
        algorithm=Algorithm.ASTAR,
        heuristic=None,
        heuristic_weight=1.0,
        max_cost=None,
        closest=False,
        turn_penalty=0.0,
    ).resolved()
