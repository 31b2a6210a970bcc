"""The contract between ``find_path`` and the searches: a checked :class:`Query` in, one
:class:`Outcome` out, and a :class:`Runner` per search strategy.

A runner is one module under :mod:`gridpath.search.runners` with one entry point (``run``,
made per plan by ``bind``; the exact-pair runners name a kernel and share :class:`PairRun`),
a ``refuses`` test (why it cannot serve a query; ``None``: it can), and as data: the
queries that compile its kernels with the service's argument types (:class:`WarmUp`, run
through ``find_path`` by :mod:`gridpath.search.warmup`) and the per-revision preprocessing it
reads that a revision may get after its first queries (``late_preprocessing``). Which runner
serves a query is decided by :func:`gridpath.search.algorithms.choose_runner`, never
inside a runner; no runner imports ``find_path``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search._finish import finish_pair
from gridpath.search._frontier import FOUND
from gridpath.search._records import grid_record, rules_record
from gridpath.search.cost import price_record
from gridpath.search.options import CORNER_RULES, DEFAULT_OPTIONS, SearchOptions
from gridpath.search.scratch import SearchScratch

Cell = tuple[int, int]
EMPTY_PATH = np.empty((0, 2), dtype=np.int32)
EMPTY_PATH.flags.writeable = False


@dataclass(slots=True)
class Query:
    """A checked query: endpoints in bounds and open, options resolved, terrain priced.
    ``find_path`` sets ``options.algorithm`` to the one its plan chose before running."""

    grid: Grid
    start: Cell
    goals: tuple[Cell, ...]
    options: SearchOptions  # resolved (defaults filled in)
    blocked: frozenset[Cell]  # per-request walls
    explored_limit: int  # > 0: report up to this many expanded cells
    class_cost: np.ndarray  # per terrain class (find.terrain_prices)
    uniform: bool  # every walkable cell costs 1 under these options
    min_cost: float  # the cheapest walkable class cost (scales the heuristic)

    @property
    def turn_states(self) -> int:
        """Search states per cell: 9 (cell, heading) with a turn penalty, else 1."""
        return 9 if self.options.turn_penalty > 0 else 1

    @property
    def max_expanded(self) -> int:
        return self.options.max_expanded or self.grid.cell_count * self.turn_states


@dataclass(slots=True)
class Outcome:
    """What every runner returns. ``status`` is a kernel status code
    (:data:`gridpath.search._frontier.FOUND`, ``UNREACHABLE``, ``LIMIT_REACHED``); ``path`` the
    cells from start to the goal reached (or to the expanded cell nearest a goal when
    ``partial``), empty otherwise; ``cost`` its cost under the cost model before rounding."""

    status: int
    expanded: int
    search_us: float  # time in the search kernel (path rebuilding excluded)
    path: np.ndarray = field(default_factory=lambda: EMPTY_PATH)
    cost: float | None = None
    goal_index: int | None = None
    partial: bool = False
    explored: np.ndarray = field(default_factory=lambda: EMPTY_PATH)  # expanded, in order
    # The runner's own waypoints (an any-angle runner's vertices; an exact-pair run's,
    # pulled in the compiled call that rebuilt its path), else None: find_path pulls them.
    waypoints: np.ndarray | None = None
    turns: int | None = None  # the path's turns, where counted with it
    # What walking ``waypoints`` costs (before the integer model's rounding), where priced
    # with them (an exact-pair run's), else None: find_path prices them.
    walked: float | None = None


@dataclass(frozen=True)
class PairKernel:
    """How an exact-pair runner searches (one start, one goal, exact step costs):
    ``kernel(grid, rules, scratch, *extra, start, goal)`` returns ``(status, expanded)``
    with the exact step counts in the nodes, and links ``came_from`` between jump points
    (``jumps``) or cell by cell. Every such runner runs through :class:`PairRun`. ``many``:
    the kernel's loop over a batch (:mod:`gridpath.search._batch`; None: one call per query)."""

    kernel: Callable[..., tuple[int, int]]
    extra: tuple
    jumps: bool
    many: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None


class PairRun:
    """An exact-pair runner's ``run`` for every query of one plan (map revision, options):
    the records made once, then per query one kernel call and one compiled call
    (:func:`gridpath.search._finish.finish_pair`) that rebuilds the path with its exact
    step counts, its turns and its waypoints (string-pulled under ``smooth``; a pair
    runner serves no per-request blocked cells, so no overlay)."""

    __slots__ = (
        "kernel", "extra", "jumps", "many", "grid", "rules", "sight", "steps", "smooth", "price",
    )  # fmt: skip

    def __init__(self, pair: PairKernel, query: Query) -> None:
        grid, options = query.grid, query.options
        self.kernel, self.extra, self.jumps = pair.kernel, pair.extra, pair.jumps
        self.many = pair.many
        self.steps = orth_w, diag_w = options.step_weights
        self.grid = grid_record(grid)
        self.rules = rules_record(
            unit=options.clearance, orth_w=orth_w, diag_w=diag_w, max_expanded=query.max_expanded
        )
        self.sight = (int(options.clearance), CORNER_RULES[options.diagonal])
        self.smooth = bool(options.smooth)
        self.price = price_record(grid, options, query.class_cost, query.uniform)

    def __call__(self, query: Query, scratch: SearchScratch) -> Outcome:
        flat, stride, _ = record = self.grid
        (x, y), (gx, gy) = query.start, query.goals[0]
        start, goal = (y + 1) * stride + x + 1, (gy + 1) * stride + gx + 1
        began = time.perf_counter_ns()
        status, expanded = self.kernel(
            record, self.rules, scratch.record(scratch.begin(flat.size)), *self.extra, start,
            goal,
        )  # fmt: skip
        search_us = (time.perf_counter_ns() - began) / 1000
        if status != FOUND:
            return Outcome(int(status), int(expanded), search_us)
        path, pulled, orth, diag, turns, walked = finish_pair(
            scratch.nodes, goal, stride, self.jumps, record, self.sight, self.smooth, self.price
        )
        cost = int(orth) * self.steps[0] + int(diag) * self.steps[1]
        # every field given: no default factory runs
        return Outcome(FOUND, int(expanded), search_us, path, cost, 0, False, EMPTY_PATH, pulled,
                       int(turns), float(walked))  # fmt: skip

    def run_many(self, ends: np.ndarray, table: np.ndarray, scratch: SearchScratch) -> tuple:
        """Every query of ``ends`` (rows of padded start, goal) in one compiled call, as
        ``__call__`` runs each: ``table`` (:mod:`gridpath.search._batch`'s columns) has
        ``SEARCH`` in the rows to search, the status to keep in the others. Returns
        ``(walked, cells, waypoints, search_us)``: what walking each found path's
        waypoints costs, the flat path and waypoint buffers, the call's microseconds."""
        record = self.grid
        walked = np.zeros(ends.shape[0], dtype=np.float64)
        generation = scratch.begin_many(record[0].size, ends.shape[0])
        finish = (record[1], self.jumps, record, self.sight, self.smooth, self.price)
        began = time.perf_counter_ns()
        cells, ways = self.many(
            record, self.rules, scratch.record(generation), *self.extra, ends, finish, table,
            walked,
        )  # fmt: skip
        return walked, cells, ways, (time.perf_counter_ns() - began) / 1000


@dataclass(frozen=True)
class WarmUp:
    """One query the warm-up sends through ``find_path`` (the runner as the service reaches
    it, waypoints asked for as the service's answers have them): on a grid made by ``grid()``
    (one of :mod:`gridpath.search.warmup_grids`), after ``prepare(grid)`` (the per-revision
    preprocessing the query reads, built as the service builds it before publishing a
    revision)."""

    grid: Callable[[], Grid]
    start: Cell
    goal: Cell | None = None
    options: SearchOptions = DEFAULT_OPTIONS
    goals: tuple[Cell, ...] | None = None
    blocked: tuple[Cell, ...] = ()
    explored_limit: int = 0
    prepare: Callable[[Grid], object] | None = None


@dataclass(frozen=True)
class Runner:
    """One search strategy. ``refuses(query)`` says why it cannot serve a query (None: it
    can); it reads only the options, the map revision and the query's shape (one goal or
    several, blocked cells or none, explored cells or none), so ``find_path`` chooses
    once per plan. ``bind(query)`` gives the ``run(query, scratch)`` that searches every
    query of the plan ``query`` stands for (its per-plan records made once); ``run`` is
    ``bind(query)(query, scratch)`` for one query. As data: ``warm_ups``, the queries
    that compile its kernels; ``warm_kernels``, a call compiling the kernels no query
    reaches (an update of its preprocessing); ``late_preprocessing``, the keys of the
    per-revision preprocessing (``Grid.built``) whose absence it refuses and which a
    revision may get later: ``find_path`` chooses again for a revision once one of them
    appears. ``kernels_of``: the runner whose kernels this one runs (another entry to the
    same search, e.g. ``auto``'s use of the subgoal tier), which the warm-up compiles in
    that runner's step instead of its own ``warm_ups``."""

    name: str
    refuses: Callable[[Query], str | None]
    bind: Callable[[Query], Callable[[Query, SearchScratch], Outcome]]
    warm_ups: tuple[WarmUp, ...] = ()
    late_preprocessing: tuple[str, ...] = ()
    warm_kernels: Callable[[], object] | None = None
    kernels_of: Runner | None = None

    @classmethod
    def plain(cls, name: str, refuses, run, warm_ups=(), **more) -> Runner:
        """A runner whose ``run`` needs nothing made per plan."""
        return cls(name, refuses, lambda query: run, warm_ups, **more)

    @classmethod
    def exact_pair(cls, name: str, refuses, pair, warm_ups=(), **more) -> Runner:
        """An exact-pair runner: ``pair(query)`` names its kernel (:class:`PairKernel`);
        it runs and finishes through :class:`PairRun` like every other."""
        return cls(name, refuses, lambda query: PairRun(pair(query), query), warm_ups, **more)

    def run(self, query: Query, scratch: SearchScratch) -> Outcome:
        return self.bind(query)(query, scratch)
