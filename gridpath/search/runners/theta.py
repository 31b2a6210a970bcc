"""The any-angle runner: Lazy Theta* (:mod:`gridpath.search._theta`).

What its answer holds:

* ``waypoints``: the path's vertices, cell centres, each pair in sight of the next under
  the request's line-of-sight rule (diagonal rule, unit size, blocked cells), so they
  validate in ``/validate``'s ``waypoints`` mode;
* ``path``: the cells a unit crosses walking those segments (the same supercover walk as
  the sight test), one legal step apart under the movement rule, so ``path`` validates in
  ``cells`` mode too;
* ``cost``: what walking the waypoints' polyline costs (its continuous cost,
  :mod:`gridpath.search.cost`: the Euclidean length on uniform terrain), not the cost of
  ``path`` as cells; ``waypoints_cost`` is the same number. It refuses the integer cost
  model and the turn penalty, which price steps between neighbours, not segments.
"""

from __future__ import annotations

import time

from gridpath.search._frontier import BLOCKED, FOUND, reconstruct_path
from gridpath.search._records import grid_record, rules_record
from gridpath.search._sight import polyline_cells
from gridpath.search._theta import lazy_theta
from gridpath.search.cost import price_record
from gridpath.search.options import (
    CORNER_RULES,
    DIAGONAL_CODES,
    Algorithm,
    CostModel,
    Diagonal,
    SearchOptions,
)
from gridpath.search.overlay import stamp
from gridpath.search.runner import Outcome, Query, Runner, WarmUp
from gridpath.search.scratch import SearchScratch
from gridpath.search.warmup_grids import room


def refuses(query: Query) -> str | None:
    o = query.options
    if o.turn_penalty or o.cost_model != CostModel.FLOAT:
        return (
            "any-angle costs are continuous segment costs: it needs "
            "the float cost model and no turn penalty"
        )
    if o.heuristic_weight != 1:
        return "it runs with weight 1"
    if len(query.goals) != 1 or o.closest or o.max_cost is not None:
        return "it searches for a single goal, without closest or max_cost"
    if query.explored_limit > 0:
        return "it does not report explored cells"
    return None


def run(query: Query, scratch: SearchScratch) -> Outcome:
    grid, o = query.grid, query.options
    generation = scratch.begin(grid.flat.size)
    marks = None  # the kernels' faster specialisation without an overlay
    if query.blocked:
        marks = scratch.marks
        stamp(grid, query.blocked, marks, BLOCKED, generation)
    rules = rules_record(
        unit=o.clearance, diagonal=DIAGONAL_CODES[o.diagonal], max_expanded=query.max_expanded
    )
    sight = (int(o.clearance), CORNER_RULES[o.diagonal])
    price = price_record(grid, o, query.class_cost, query.uniform)
    records = (
        grid_record(grid), rules, sight, price, float(query.min_cost),
        scratch.record(generation, costs=True), marks,
    )  # fmt: skip
    start, goal = grid.index(*query.start), grid.index(*query.goals[0])
    began = time.perf_counter_ns()
    status, expanded = lazy_theta(*records, start, goal)
    search_us = (time.perf_counter_ns() - began) / 1000
    if status != FOUND:
        return Outcome(int(status), int(expanded), search_us)
    vertices = reconstruct_path(scratch.nodes, goal, grid.stride, 1)
    straight_only = o.diagonal == Diagonal.NEVER
    path = polyline_cells(grid_record(grid), sight, marks, generation, vertices, straight_only)
    cost = float(scratch.g_cost[goal])
    return Outcome(int(status), int(expanded), search_us, path, cost, 0, waypoints=vertices)


_THETA = SearchOptions(algorithm=Algorithm.THETA)
WARM_UPS = (
    WarmUp(room, (0, 0), (4, 3), _THETA),
    WarmUp(room, (0, 0), (4, 3), _THETA, blocked=((1, 1),)),
    WarmUp(room, (0, 0), (4, 3), SearchOptions(algorithm=Algorithm.THETA, connectivity=4)),
)
RUNNER = Runner.plain("theta", refuses, run, WARM_UPS)
