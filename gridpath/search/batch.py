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
    CLOSED,
    COLUMNS,
    DIAG,
    EXPANDED,
    ORTH,
    PATH_END,
    SEARCH,
    STATUS,
    TURNS,
    WAYS_END,
    runs_json,
)
from gridpath.search._frontier import FOUND, UNREACHABLE
from gridpath.search.find import PathResult, finish
from gridpath.search.options import DEFAULT_OPTIONS, SearchOptions
from gridpath.search.plan import Plan, plan_for
from gridpath.search.runner import EMPTY_PATH, Outcome, PairRun, Query
from gridpath.search.scratch import SearchScratch, thread_scratch


@dataclass(frozen=True, slots=True)
class PairAnswers:
    """The answers of :func:`find_pairs`, in flat arrays: ``table`` one row per query
    (:mod:`gridpath.search._batch`'s columns), the found paths and their waypoints one
    after the other in ``cells`` and ``waypoints``, ``walked`` what walking each found
    path's waypoints costs. ``search_us`` is the compiled call's time (path finishing
    included), shared evenly by the queries it searched (``searched``: not told
    unreachable by their components) in ``search_us_of``."""

    grid: Grid
    plan: Plan
    table: np.ndarray
    walked: np.ndarray
    cells: np.ndarray
    waypoints: np.ndarray
    answered: np.ndarray  # both ends open: the rows answered (find_path raises the others')
    searched: np.ndarray
    search_us: float
    share_us: float  # search_us per searched query

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

    def texts(self) -> tuple[bytes, list[int], bytes, list[int]]:
        """Every path and every waypoint list as JSON text (``[[x,y],...]``, as orjson
        writes a list of pairs; ``[]`` when not found), one after the other: the paths'
        bytes and where each query's ends, the same for the waypoints."""
        paths, path_ends = runs_json(self.cells, np.ascontiguousarray(self.table[:, PATH_END]))
        ways, ways_ends = runs_json(self.waypoints, np.ascontiguousarray(self.table[:, WAYS_END]))
        return paths.tobytes(), path_ends.tolist(), ways.tobytes(), ways_ends.tolist()

    def exact_cost(self, i: int) -> float:
        """A found path's cost before the cost model's rounding (as ``PairRun`` adds it)."""
        orth_w, diag_w = self.plan.options.step_weights
        return int(self.table[i, ORTH]) * orth_w + int(self.table[i, DIAG]) * diag_w

    def search_us_of(self, i: int) -> float:
        return self.share_us if self.searched[i] else 0.0

    def result(self, i: int) -> PathResult:
        """Query ``i``'s :class:`PathResult`, as ``find_path(..., waypoints=True)`` gives."""
        if not self.answered[i]:
            raise ValueError(f"query {i} has an end where the unit cannot stand")
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


def _padded(grid: Grid, unit: int, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The padded index of each cell of ``cells`` (0 outside the map), and whether a unit
    of size ``unit`` can stand there (``find_path``'s check of its ends)."""
    x, y = cells[:, 0], cells[:, 1]
    inside = (0 <= x) & (x < grid.width) & (0 <= y) & (y < grid.height)
    padded = np.where(inside, (y + 1) * (grid.width + 2) + x + 1, 0)
    return padded, inside & (grid.flat[padded] >= unit)


def find_pairs(
    grid: Grid,
    starts: np.ndarray,
    goals: np.ndarray,
    options: SearchOptions = DEFAULT_OPTIONS,
    scratch: SearchScratch | None = None,
) -> PairAnswers | None:
    """Row ``i`` of ``starts`` to row ``i`` of ``goals`` (``(n, 2)`` int64 cells) for every
    ``i``, as ``find_path(grid, start, goal, options, waypoints=True)`` would answer each;
    ``None`` when their plan has no batch loop (then ask ``find_path``). A row with an end
    outside the map or where the unit cannot stand is not answered (``answered``: False;
    ``find_path`` raises its error). Raises the plan's error (an option the map cannot
    price, an algorithm that cannot serve)."""
    plan = plan_for(grid, options, 0)
    run = plan.run
    if not isinstance(run, PairRun) or run.many is None or plan.options.closest:
        return None
    start_cells, start_open = _padded(grid, options.clearance, starts)
    goal_cells, goal_open = _padded(grid, options.clearance, goals)
    answered = start_open & goal_open
    components = plan.components
    searched = answered & (components.of_many(start_cells) == components.of_many(goal_cells))
    table = np.zeros((starts.shape[0], COLUMNS), dtype=np.int64)
    table[:, STATUS] = np.where(searched, SEARCH, np.where(answered, UNREACHABLE, CLOSED))
    ends = np.stack([start_cells, goal_cells], axis=1).astype(np.int64)
    walked, cells, ways, search_us = run.run_many(ends, table, scratch or thread_scratch())
    share_us = search_us / max(1, int(np.count_nonzero(searched)))
    return PairAnswers(
        grid, plan, table, walked, cells, ways, answered, searched, search_us, share_us
    )
