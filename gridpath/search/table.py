"""Cost tables: the optimal cost from each of many sources to each of many targets, with
the searches starting at the sources, or at the targets when targets are fewer.

Searching from a target is exact because movement is symmetric: a step costs its length
times the mean cost of the two cells it joins, and the corner, clearance and per-request
blocked rules test the same cells in both directions (see :mod:`gridpath.search.flowfield`).
Turn penalties are not offered here (they are in ``/path`` only).

From each origin, one of two ways, decided once per table by :func:`plan_table`:

* a flood: the general kernel (:func:`gridpath.search._general.search_grid`) as Dijkstra, every
  cell of the other side stamped as a goal and ``settle`` set to their number, so it stops
  once the last of them is settled. A cost is read from the settled cell's parent chain
  and summed from the source, as ``find_path`` does, so it is the cost ``/path`` reports
  for the same pair (bit for bit on uniform terrain, where an optimal cost has one value);
* pairwise: where the runner chosen for a pair is jump point search or the subgoal tier
  and an origin has at most :data:`PAIRWISE_MAX_ENDS` ends, ``find_path`` per pair (``/path``'s very
  search), since a query on JPS+ jump distances costs a small fraction of a flood.

The work is split in three steps so the service can run the searches on its search
threads: :func:`plan_table` (checks, no search), :func:`search_line` (one search, any
thread, its own scratch), :func:`assemble` (the matrix). :func:`cost_table` runs them in
order, for library use.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numba import njit

from gridpath.errors import OutOfBounds
from gridpath.grid.model import Grid
from gridpath.search import _general
from gridpath.search._frontier import BLOCKED, GOAL, LIMIT_REACHED, STATE, reconstruct_path
from gridpath.search._records import grid_record
from gridpath.search.algorithms import choose_runner
from gridpath.search.cost import reported_cost
from gridpath.search.find import checked_query, find_path, terrain_prices
from gridpath.search.options import (
    DEFAULT_OPTIONS,
    Algorithm,
    CostModel,
    Diagonal,
    InvalidOption,
    SearchOptions,
    kernel_rules,
)
from gridpath.search.overlay import blocked_cells, stamp
from gridpath.search.scratch import SearchScratch, thread_scratch
from gridpath.search.warming import require as require_warm

Cell = tuple[int, int]

# What an entry of the table is.
COMPUTED = 0  # an optimal cost
UNREACHABLE = 1  # no path (or a blocked source or target)
NOT_COMPUTED = 2  # its search reached its expansion share first

# Up to this many ends per origin, where jump point search (or the subgoal tier) serves the
# pairs, one query per pair costs less than one flood (bench/README.md, 'bench.table').
PAIRWISE_MAX_ENDS = 128
_DIJKSTRA = (_general.DIJKSTRA, _general.ZERO, 0.0, _general.OCTILE)
_NO_GOAL_XY = np.empty((0, 2), dtype=np.int64)  # Dijkstra needs no heuristic
_NO_EXPLORED = np.empty(0, dtype=np.int32)


@dataclass(frozen=True)
class TablePlan:
    """A checked table request: which cells are searched from (``origins``, distinct and
    open) towards which (``ends``, distinct and open), and each one's expansion share."""

    grid: Grid
    sources: tuple[Cell, ...]
    targets: tuple[Cell, ...]
    options: SearchOptions  # resolved
    blocked: frozenset[Cell]
    class_cost: np.ndarray
    uniform: bool
    reverse: bool  # searches start at the targets
    origins: tuple[Cell, ...]
    ends: tuple[Cell, ...]
    max_expanded: int  # a flood's cap: its origin's share, at most one search's cap
    pairwise: bool  # one jump point search per pair instead of one flood per origin
    blocked_sources: tuple[int, ...]
    blocked_targets: tuple[int, ...]
    # Pairwise lines: one search's cap (MAX_EXPANDED, at most the map), and what an origin's
    # searches may spend together (its share of the total, at most a cap per end).
    search_cap: int
    line_budget: int


@dataclass(frozen=True)
class TableLine:
    """One search's answer: the cost to each of the plan's ``ends`` and what it is."""

    costs: np.ndarray  # float64, NaN where not COMPUTED
    kinds: np.ndarray  # int8: COMPUTED, UNREACHABLE, NOT_COMPUTED
    expanded: int
    search_us: float
    searches: int = 1


@dataclass(frozen=True)
class CostTable:
    costs: list[list[float | int | None]]  # [source][target]; None: no cost
    kinds: np.ndarray  # int8 [source, target]
    expanded: int
    searches: int
    reverse: bool
    search_us: float
    blocked_sources: tuple[int, ...]
    blocked_targets: tuple[int, ...]

    @property
    def not_computed(self) -> list[list[int]]:
        """``[source, target]`` of the entries whose search reached its share, row-major."""
        return np.argwhere(self.kinds == NOT_COMPUTED).tolist()


def _open(grid: Grid, cell: Cell, blocked: frozenset[Cell], unit: int) -> bool:
    x, y = cell
    return grid.clearance_at(x, y) >= unit and cell not in blocked


def _checked(grid: Grid, cells: Sequence[Cell], role: str) -> tuple[Cell, ...]:
    out = []
    for i, (x, y) in enumerate(cells):
        if not grid.in_bounds(x, y):
            raise OutOfBounds(
                f"{role}[{i}] [{x}, {y}] is outside map {grid.name!r} "
                f"(x must be in 0..{grid.width - 1}, y in 0..{grid.height - 1})"
            )
        out.append((int(x), int(y)))
    return tuple(out)


def plan_table(
    grid: Grid,
    sources: Sequence[Cell],
    targets: Sequence[Cell],
    options: SearchOptions = DEFAULT_OPTIONS,
    *,
    blocked: Sequence[Cell] = (),
    max_expanded: int | None = None,
    max_expanded_total: int | None = None,
) -> TablePlan:
    """Check a table request and decide its searches. A source or target outside the map
    raises :class:`OutOfBounds` naming its index; one where the unit cannot stand (a wall,
    a ``blocked`` cell, too little clearance) gets a row or column of no costs. The
    searches share ``max_expanded_total`` expansions evenly (default: each may expand the
    whole map, each at most ``max_expanded``)."""
    require_warm("table")
    if options.turn_penalty > 0:
        raise InvalidOption("turn_penalty", "cost tables do not support turn_penalty")
    sources_t = _checked(grid, sources, "sources")
    targets_t = _checked(grid, targets, "targets")
    blocked_set = blocked_cells(grid, blocked)
    options = options.resolved()
    class_cost, uniform, _ = terrain_prices(grid, options)
    unit = options.clearance
    open_sources = [c for c in dict.fromkeys(sources_t) if _open(grid, c, blocked_set, unit)]
    open_targets = [c for c in dict.fromkeys(targets_t) if _open(grid, c, blocked_set, unit)]
    reverse = len(open_targets) < len(open_sources)
    origins, ends = (open_targets, open_sources) if reverse else (open_sources, open_targets)
    search_cap = min(grid.cell_count + 1, max_expanded or grid.cell_count + 1)
    share = None
    if max_expanded_total is not None:
        share = max(1, max_expanded_total // max(1, len(origins)))
    per_search = search_cap if share is None else min(search_cap, share)
    line_budget = search_cap * max(1, len(ends))
    if share is not None:
        line_budget = min(line_budget, share)
    pairwise = False
    if origins and ends and len(ends) <= PAIRWISE_MAX_ENDS:
        pair = checked_query(grid, origins[0], ends[0], None, options, tuple(blocked_set), 0)
        pairwise = choose_runner(pair).algorithm in (Algorithm.JPS, Algorithm.SUBGOAL)
    return TablePlan(
        grid, sources_t, targets_t, options, blocked_set, class_cost, uniform, reverse,
        tuple(origins), tuple(ends), per_search, pairwise,
        tuple(i for i, c in enumerate(sources_t) if not _open(grid, c, blocked_set, unit)),
        tuple(j for j, c in enumerate(targets_t) if not _open(grid, c, blocked_set, unit)),
        search_cap, line_budget,
    )  # fmt: skip


def search_line(plan: TablePlan, k: int, scratch: SearchScratch | None = None) -> TableLine:
    """The costs from ``plan.origins[k]`` to every end in its component: one flood that
    stops once they are settled, or one search per end (``plan.pairwise``)."""
    grid, options = plan.grid, plan.options
    scratch = scratch or thread_scratch()
    n = len(plan.ends)
    costs = np.full(n, np.nan)
    kinds = np.full(n, UNREACHABLE, dtype=np.int8)
    components = grid.components(options.clearance, options.diagonal == Diagonal.ALWAYS)
    origin = grid.index(*plan.origins[k])
    mine = components.of(origin)
    ends = np.array(plan.ends, dtype=np.int64).reshape(-1, 2)
    end_cells = (ends[:, 1] + 1) * grid.stride + ends[:, 0] + 1
    # Ends in another component are unreachable: no search floods its component for them.
    if components.minor_cells is None:  # labels tell every component apart
        wanted = components.labels[end_cells] == mine
    else:
        wanted = np.array([components.of(int(c)) == mine for c in end_cells], dtype=bool)
    if not wanted.any():
        return TableLine(costs, kinds, 0, 0.0, 0)
    if plan.pairwise:
        return _pairwise_line(plan, k, wanted, costs, kinds, scratch)
    generation = scratch.begin(grid.flat.size)
    scratch.marks[end_cells[wanted], GOAL] = generation
    stamp(grid, plan.blocked, scratch.marks, BLOCKED, generation)
    rules = kernel_rules(options, plan.class_cost, plan.uniform, plan.max_expanded)
    query = (origin, _NO_GOAL_XY, _NO_EXPLORED, int(wanted.sum()))
    began = time.perf_counter_ns()
    status, expanded, _, _, _ = _general.search_grid(
        grid_record(grid), rules, _DIJKSTRA, scratch.record(generation, costs=True), query
    )
    search_us = (time.perf_counter_ns() - began) / 1000
    settled = wanted & (scratch.nodes[end_cells, STATE] == np.int32(2 * generation + 1))
    if status == LIMIT_REACHED:
        kinds[wanted & ~settled] = NOT_COMPUTED
    chosen = np.flatnonzero(settled)
    orth_w, diag_w = options.step_weights
    found = np.empty(chosen.size, dtype=np.float64)
    _chain_costs(
        scratch.nodes, grid.stride, end_cells[chosen], plan.reverse, grid.terrain_flat,
        plan.class_cost, plan.uniform, orth_w, diag_w, found,
    )  # fmt: skip
    costs[chosen], kinds[chosen] = found, COMPUTED
    return TableLine(costs, kinds, int(expanded), search_us)


@njit(nogil=True, cache=True)
def _chain_costs(nodes, stride, ends, from_end, terrain, class_cost, uniform, orth_w, diag_w, out):
    """The cost of each settled end's path from the origin, summed from the source as
    ``find_path`` sums it: the rebuilt path runs origin to end, reversed when the end is
    the source (``from_end``: the searches started at the targets)."""
    for i in range(ends.shape[0]):
        path = reconstruct_path(nodes, ends[i], stride, 1)
        if from_end:
            path = path[::-1].copy()
        out[i] = _general.path_cost(terrain, class_cost, uniform, stride, path, orth_w, diag_w)


def _pairwise_line(plan: TablePlan, k: int, wanted, costs, kinds, scratch) -> TableLine:
    """Origin ``k``'s line by one search per end (in the plan's order, sharing the origin's
    expansion share): the very search and cost of ``/path``, a step costing the same both
    ways on the uniform terrain that jump point search needs."""
    left, expanded, search_us, searches = plan.line_budget, 0, 0.0, 0
    for i in np.flatnonzero(wanted):
        if left <= 0:
            kinds[i] = NOT_COMPUTED
            continue
        searches += 1
        options = replace(plan.options, max_expanded=min(left, plan.search_cap))
        result = find_path(plan.grid, plan.origins[k], plan.ends[i], options, scratch=scratch)
        left -= result.expanded
        expanded += result.expanded
        search_us += result.search_us
        if result.found:
            costs[i], kinds[i] = result.cost, COMPUTED
        elif result.reason == "limit_reached":
            kinds[i] = NOT_COMPUTED
    return TableLine(costs, kinds, expanded, search_us, searches)


def assemble(plan: TablePlan, lines: Sequence[TableLine]) -> CostTable:
    """The ``[source][target]`` matrix from the plan's searches, in the plan's order."""
    # lines[k] holds origin k's row over the ends; a source/target maps to its origin or end
    # (-1: blocked), and with reverse searches the rows are the targets.
    origin_at = {c: k for k, c in enumerate(plan.origins)}
    end_at = {c: k for k, c in enumerate(plan.ends)}
    rows, cols = (plan.targets, plan.sources) if plan.reverse else (plan.sources, plan.targets)
    row_of = np.array([origin_at.get(c, -1) for c in rows], dtype=np.int64)
    col_of = np.array([end_at.get(c, -1) for c in cols], dtype=np.int64)
    costs = np.full((len(rows) + 1, len(cols) + 1), np.nan)  # the last row/column: blocked
    kinds = np.full(costs.shape, UNREACHABLE, dtype=np.int8)
    if lines:
        costs[: len(lines), : len(plan.ends)] = np.stack([line.costs for line in lines])
        kinds[: len(lines), : len(plan.ends)] = np.stack([line.kinds for line in lines])
    costs, kinds = costs[np.ix_(row_of, col_of)], kinds[np.ix_(row_of, col_of)]
    if plan.reverse:
        costs, kinds = costs.T, kinds.T
    opts = plan.options
    integer = opts.cost_model == CostModel.INTEGER
    matrix = [[None if math.isnan(c) else reported_cost(c, integer) for c in row]
              for row in costs.tolist()]  # fmt: skip
    return CostTable(
        matrix,
        np.ascontiguousarray(kinds),
        sum(line.expanded for line in lines),
        sum(line.searches for line in lines),
        plan.reverse,
        sum(line.search_us for line in lines),
        plan.blocked_sources,
        plan.blocked_targets,
    )


def cost_table(
    grid: Grid,
    sources: Sequence[Cell],
    targets: Sequence[Cell],
    options: SearchOptions = DEFAULT_OPTIONS,
    *,
    scratch: SearchScratch | None = None,
    **limits: Any,
) -> CostTable:
    """Plan (``limits``: :func:`plan_table`'s keywords), search from every origin in turn,
    assemble (see the module docstring)."""
    plan = plan_table(grid, sources, targets, options, **limits)
    return assemble(plan, [search_line(plan, k, scratch) for k in range(len(plan.origins))])


__all__ = ["CostTable", "TableLine", "TablePlan", "assemble", "cost_table", "plan_table"]
