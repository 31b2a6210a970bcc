"""``validate_path``: check a client's claimed path against the map and the movement rules.

Modes:

* ``cells``: every consecutive pair is one legal step (a neighbour under the connectivity
  and diagonal rule, onto an open cell, no forbidden corner cut). ``cost`` is the path's
  cost under the cost model and terrain, exactly as ``find_path`` reports it.
* ``waypoints``: every consecutive pair has line of sight under the same rule that
  smoothing uses, so a smoothed path from ``find_path`` always validates. ``cost`` is the
  polyline's Euclidean length times the cheapest terrain cost on the map (10x with the
  integer model): a lower bound of what walking it costs, so an honest client is never
  over budget.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from app.errors import ServiceError
from app.grid.model import Grid
from app.search import _validate
from app.search.find import find_path, terrain_table
from app.search.options import (
    CORNER_RULES,
    DEFAULT_OPTIONS,
    DIAGONAL_CODES,
    Algorithm,
    CostModel,
    SearchOptions,
)
from app.search.overlay import overlay
from app.search.scratch import SearchScratch, thread_scratch

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
    if mode not in ("cells", "waypoints"):
        raise ValueError(f"mode must be 'cells' or 'waypoints', got {mode!r}")
    cells = np.asarray(path, dtype=np.int64).reshape(-1, 2)
    options = options.resolved()
    class_cost, uniform, min_cost = terrain_table(grid, options)
    marks, block_mark = overlay(grid, blocked, scratch or thread_scratch())
    orth_w, diag_w = options.step_weights
    out_index = np.empty(MAX_LISTED, dtype=np.int64)
    out_code = np.empty(MAX_LISTED, dtype=np.int64)
    first = np.full(len(_validate.VIOLATION_CODES), -1, dtype=np.int64)
    began = time.perf_counter_ns()
    if mode == "cells":
        cost, found = _validate.validate_cells(
            grid.flat,
            grid.stride,
            grid.width,
            grid.height,
            options.clearance,
            grid.terrain_flat,
            class_cost,
            uniform,
            marks,
            block_mark,
            DIAGONAL_CODES[options.diagonal],
            orth_w,
            diag_w,
            cells,
            out_index,
            out_code,
            first,
        )
    else:
        cost, found = _validate.validate_waypoints(
            grid.flat,
            grid.stride,
            grid.width,
            grid.height,
            options.clearance,
            marks,
            block_mark,
            CORNER_RULES[options.diagonal],
            orth_w * min_cost,
            cells,
            out_index,
            out_code,
            first,
        )
    search_us = (time.perf_counter_ns() - began) / 1000
    listed = {(int(out_index[k]), int(out_code[k])) for k in range(min(found, MAX_LISTED))}
    listed |= {(int(i), code) for code, i in enumerate(first) if i >= 0}
    violations = [
        Violation(
            i,
            _validate.VIOLATION_CODES[c],
            _message(_validate.VIOLATION_CODES[c], i, cells, grid, options.clearance),
        )
        for i, c in sorted(listed)
    ]
    if options.cost_model == CostModel.INTEGER and mode == "cells":
        cost = int(round(cost))
    else:
        cost = float(cost)
    n = len(cells)
    if n == 0:
        violations.append(Violation(0, "not_adjacent", "the path is empty"))
    else:
        if start is not None and tuple(int(v) for v in cells[0]) != tuple(start):
            violations.append(
                Violation(
                    0,
                    "wrong_start",
                    f"the path starts at {cells[0].tolist()}, not at {list(start)}",
                )
            )
        if goal is not None and tuple(int(v) for v in cells[-1]) != tuple(goal):
            violations.append(
                Violation(
                    n - 1,
                    "wrong_goal",
                    f"the path ends at {cells[-1].tolist()}, not at {list(goal)}",
                )
            )
    if max_cost is not None and cost > max_cost + 1e-9 * max(1.0, abs(max_cost)):
        violations.append(
            Violation(
                max(n - 1, 0),
                "over_budget",
                f"the path costs {cost}, over the budget of {max_cost}",
            )
        )
    optimal_cost = None
    if compare_optimal and n > 0:
        ends = (tuple(int(v) for v in cells[0]), tuple(int(v) for v in cells[-1]))
        if all(grid.in_bounds(*c) for c in ends):
            try:
                optimal_cost = find_path(
                    grid,
                    ends[0],
                    ends[1],
                    _optimal_options(options),
                    blocked=blocked,
                    scratch=scratch,
                ).cost
            except ServiceError:  # an end is blocked: the violations say so already
                optimal_cost = None
    return ValidationResult(
        valid=not violations,
        cost=cost,
        checked=n,
        violations=violations,
        optimal_cost=optimal_cost,
        search_us=search_us,
    )


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
