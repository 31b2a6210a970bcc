"""``find_pairs``: many common queries (one start, one goal, nothing per request) under one
options on one map revision, searched in one compiled call.

The answers are :func:`~gridpath.search.find.find_path`'s, query by query (same plan, same
kernel, same path finishing, in the same order on one scratch), with waypoints; what
changes is the cost around them: one plan lookup, the ends checked and their components
compared in numpy, and one call of the runner's batch loop (:mod:`gridpath.search._batch`)
that gives the GIL up once for the whole batch instead of twice per query. A plan that no
exact-pair runner with a batch loop serves (an option, a map without block JPS, ...) gets
``None``: its queries go through ``find_path`` one by one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search._batch import (
    COLUMNS,
    DIAG,
    EXPANDED,
    ORTH,
    PATH_END,
    SEARCH,
    STATUS,
    TURNS,
    WAYS_END,
)
from gridpath.search._frontier import FOUND, UNREACHABLE
from gridpath.search.find import PathResult, checked_ends, finish
from gridpath.search.options import DEFAULT_OPTIONS, SearchOptions
from gridpath.search.plan import Plan, plan_for
from gridpath.search.runner import EMPTY_PATH, Outcome, PairRun, Query
from gridpath.search.scratch import SearchScratch, thread_scratch


@dataclass(frozen=True, slots=True)
class PairAnswers:
    """The answers of :func:`find_pairs`, in flat arrays: ``table`` one row per query
    (:mod:`gridpath.search._batch`'s columns), the found paths and their waypoints one
    after the other in ``cells`` and ``waypoints``, ``walked`` what walking each found
    path's waypoints costs. ``search_us`` is the compiled call's time, shared evenly by the
    queries it searched (``searched``: not told unreachable by their components)."""

    grid: Grid
    plan: Plan
    table: np.ndarray
    walked: np.ndarray
    cells: np.ndarray
    waypoints: np.ndarray
    searched: np.ndarray
    search_us: float

    def __len__(self) -> int:
        return self.table.shape[0]

    def found(self, i: int) -> bool:
        return bool(self.table[i, STATUS] == FOUND)

    def path(self, i: int) -> np.ndarray:
        """Query ``i``'s cells from start to goal (a view; empty when not found)."""
        begin = self.table[i - 1, PATH_END] if i > 0 else 0
        return self.cells[begin : self.table[i, PATH_END]]

    def waypoints_of(self, i: int) -> np.ndarray:
        begin = self.table[i - 1, WAYS_END] if i > 0 else 0
        return self.waypoints[begin : self.table[i, WAYS_END]]

    def exact_cost(self, i: int) -> float:
        """A found path's cost before the cost model's rounding (as ``PairRun`` adds it)."""
        orth_w, diag_w = self.plan.options.step_weights
        return int(self.table[i, ORTH]) * orth_w + int(self.table[i, DIAG]) * diag_w

    def search_us_of(self, i: int) -> float:
        if not self.searched[i]:
            return 0.0
        return self.search_us / max(1, int(np.count_nonzero(self.searched)))

    def result(self, i: int) -> PathResult:
        """Query ``i``'s :class:`PathResult`, as ``find_path(..., waypoints=True)`` gives."""
        status, expanded = int(self.table[i, STATUS]), int(self.table[i, EXPANDED])
        us = self.search_us_of(i)
        if status != FOUND:
            outcome = Outcome(status, expanded, us)
        else:
            outcome = Outcome(
                FOUND, expanded, us, self.path(i), self.exact_cost(i), 0, False, EMPTY_PATH,
                self.waypoints_of(i), int(self.table[i, TURNS]), float(self.walked[i]),
            )  # fmt: skip
        # finish reads the query only to price waypoints it was not given: an unfound
        # query's, which are empty and cost None whatever its ends
        plan = self.plan
        query = Query(self.grid, (0, 0), ((0, 0),), plan.options, frozenset(), 0,
                      plan.class_cost, plan.uniform, plan.min_cost)  # fmt: skip
        return finish(plan, query, outcome, True, thread_scratch())


def open_pairs(grid: Grid, options: SearchOptions, starts: np.ndarray, goals: np.ndarray):
    """Which rows of ``starts`` and ``goals`` (``(n, 2)`` int64 cells) have both ends in
    the map where the unit can stand: the queries :func:`find_pairs` takes (the others
    get ``find_path``'s error)."""
    flat, stride, unit = grid.flat, grid.width + 2, options.clearance
    ok = np.ones(starts.shape[0], dtype=bool)
    for ends in (starts, goals):
        x, y = ends[:, 0], ends[:, 1]
        inside = (0 <= x) & (x < grid.width) & (0 <= y) & (y < grid.height)
        cells = np.where(inside, (y + 1) * stride + x + 1, 0)
        ok &= inside & (flat[cells] >= unit)
    return ok


def find_pairs(
    grid: Grid,
    starts: np.ndarray,
    goals: np.ndarray,
    options: SearchOptions = DEFAULT_OPTIONS,
    scratch: SearchScratch | None = None,
) -> PairAnswers | None:
    """Row ``i`` of ``starts`` to row ``i`` of ``goals`` (``(n, 2)`` int64 cells) for every
    ``i``, as ``find_path(grid, start, goal, options, waypoints=True)`` would answer each;
    ``None`` when their plan has no batch loop (then ask ``find_path``). Raises
    ``find_path``'s error for the first query with an end :func:`open_pairs` refuses, and
    the plan's (an option the map cannot price, an algorithm that cannot serve)."""
    ok = open_pairs(grid, options, starts, goals)
    if not ok.all():
        i = int(np.argmin(ok))
        start, goal = tuple(map(int, starts[i])), tuple(map(int, goals[i]))
        checked_ends(grid, start, goal, None, options, ())  # raises the domain error
        raise ValueError(f"query {i}: an end where the unit cannot stand")
    plan = plan_for(grid, options, 0)
    run = plan.run
    if not isinstance(run, PairRun) or run.many is None or plan.options.closest:
        return None
    stride = grid.width + 2
    ends = np.empty((starts.shape[0], 2), dtype=np.int64)
    ends[:, 0] = (starts[:, 1] + 1) * stride + starts[:, 0] + 1
    ends[:, 1] = (goals[:, 1] + 1) * stride + goals[:, 0] + 1
    components = plan.components
    searched = components.of_many(ends[:, 0]) == components.of_many(ends[:, 1])
    table = np.zeros((ends.shape[0], COLUMNS), dtype=np.int64)
    table[:, STATUS] = np.where(searched, SEARCH, UNREACHABLE)
    walked, cells, ways, search_us = run.run_many(ends, table, scratch or thread_scratch())
    return PairAnswers(grid, plan, table, walked, cells, ways, searched, search_us)
