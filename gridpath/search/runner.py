"""The contract between ``find_path`` and the searches: a checked :class:`Query` in, one
:class:`Outcome` out, and a :class:`Runner` per search strategy.

A runner is one module under :mod:`gridpath.search.runners` with one entry point (``run``),
a ``refuses`` test (why it cannot serve a query; ``None``: it can), and as data: the
queries that compile its kernels with the service's argument types (:class:`WarmUp`, run
through ``find_path`` by :mod:`gridpath.search.warmup`) and the per-revision tables it
reads that a revision may get after its first queries (``late_tables``). Which runner
serves a query is decided by :func:`gridpath.search.algorithms.choose_runner`, never
inside a runner; no runner imports ``find_path``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search.options import DEFAULT_OPTIONS, SearchOptions
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
    class_cost: np.ndarray  # per terrain class (find.terrain_table)
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
    waypoints: np.ndarray | None = None  # an any-angle runner's vertices (else from path)


@dataclass(frozen=True)
class PairKernel:
    """How an exact-pair runner serves a query, for ``find_path``'s common-query path (one
    kernel call, then one compiled call for the rest): ``kernel(grid, rules, scratch,
    *extra, start, goal)`` returns ``(status, expanded)`` with the exact step counts in the
    nodes, and links ``came_from`` between jump points (``jumps``) or cell by cell."""

    kernel: Callable[..., tuple[int, int]]
    extra: tuple
    jumps: bool


@dataclass(frozen=True)
class WarmUp:
    """One query the warm-up sends through ``find_path`` (the runner as the service reaches
    it): on a grid made by ``grid()``, after ``prepare(grid)`` (a per-revision table the
    query reads, built as the service builds it before publishing a revision)."""

    grid: Callable[[], Grid]
    start: Cell
    goal: Cell | None = None
    options: SearchOptions = DEFAULT_OPTIONS
    goals: tuple[Cell, ...] | None = None
    blocked: tuple[Cell, ...] = ()
    explored_limit: int = 0
    waypoints: bool = False
    prepare: Callable[[Grid], object] | None = None


@dataclass(frozen=True)
class Runner:
    """One search strategy. ``refuses(query)`` says why it cannot serve a query (None: it
    can); ``run(query, scratch)`` searches and rebuilds the path. ``pair(query)``, for
    the runners of one start and one goal with exact step costs, says which kernel
    ``run`` calls (:class:`PairKernel`), so ``find_path`` may call it directly; it must
    answer exactly as ``run``. As data: ``warm_ups``, the queries that compile its
    kernels; ``warm_kernels``, a call compiling the kernels no query reaches (a table's
    update); ``late_tables``, the keys of the per-revision tables (``Grid.built``) whose
    absence it refuses and which a revision may get later: ``find_path`` chooses again
    for a revision once one of them appears."""

    name: str
    refuses: Callable[[Query], str | None]
    run: Callable[[Query, SearchScratch], Outcome]
    warm_ups: tuple[WarmUp, ...] = ()
    pair: Callable[[Query], PairKernel] | None = None
    late_tables: tuple[str, ...] = ()
    warm_kernels: Callable[[], object] | None = None
