"""The fast A* runner: the default options on uniform terrain (8-connected without corner
cutting, octile heuristic, weight 1, one goal, nothing per request), exact pair costs."""

from __future__ import annotations

import time

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search._astar import astar_octile
from gridpath.search._frontier import COST_DIAG, COST_ORTH, FOUND, reconstruct_path
from gridpath.search._records import grid_record, rules_record
from gridpath.search.options import Algorithm, Diagonal, Heuristic, SearchOptions
from gridpath.search.runner import Outcome, PairKernel, Query, Runner, WarmUp
from gridpath.search.scratch import SearchScratch


def refuses(query: Query) -> str | None:
    o = query.options
    if o.diagonal != Diagonal.NO_CORNER_CUT or o.heuristic != Heuristic.OCTILE:
        return "it runs 8-connected without corner cutting, octile heuristic"
    if o.heuristic_weight != 1 or o.turn_penalty or o.clearance != 1:
        return "it runs with weight 1, no turn penalty, units of size 1"
    if o.max_cost is not None or o.closest:
        return "it does not support closest or max_cost"
    if not query.uniform or len(query.goals) != 1 or query.blocked or query.explored_limit > 0:
        return "it needs uniform terrain, one goal, no blocked cells, no explored cells"
    return None


def run_pair_kernel(query: Query, scratch: SearchScratch, kernel, *extra) -> tuple[int, int, float]:
    """Run an exact-pair kernel, ``kernel(grid, rules, scratch, *extra, start, goal)``;
    returns its status, its expansions and the µs it took."""
    grid = query.grid
    orth_w, diag_w = query.options.step_weights
    rules = rules_record(
        unit=query.options.clearance, orth_w=orth_w, diag_w=diag_w, max_expanded=query.max_expanded
    )
    records = (grid_record(grid), rules, scratch.record(scratch.begin(grid.flat.size)))
    start, goal = grid.index(*query.start), grid.index(*query.goals[0])
    began = time.perf_counter_ns()
    status, expanded = kernel(*records, *extra, start, goal)
    return int(status), int(expanded), (time.perf_counter_ns() - began) / 1000


def pair_cost(query: Query, scratch: SearchScratch, goal: int) -> float:
    """The cost of the path found to padded cell ``goal``, from its exact step counts."""
    orth_w, diag_w = query.options.step_weights
    return (
        int(scratch.nodes[goal, COST_ORTH]) * orth_w + int(scratch.nodes[goal, COST_DIAG]) * diag_w
    )


def run(query: Query, scratch: SearchScratch) -> Outcome:
    status, expanded, search_us = run_pair_kernel(query, scratch, astar_octile)
    if status != FOUND:
        return Outcome(status, expanded, search_us)
    goal = query.grid.index(*query.goals[0])
    path = reconstruct_path(scratch.nodes, goal, query.grid.stride, 1)
    return Outcome(status, expanded, search_us, path, pair_cost(query, scratch, goal), 0)


_PAIR = PairKernel(astar_octile, (), jumps=False)


def pair(query: Query) -> PairKernel:
    return _PAIR  # as run: the kernel, the path rebuilt cell by cell


def _warmup_grid() -> Grid:
    walkable = np.ones((4, 5), dtype=bool)
    walkable[1, 2] = False
    return Grid.from_walkable("_warmup", walkable)


WARM_UPS = (
    WarmUp(_warmup_grid, (0, 0), (4, 3), SearchOptions(algorithm=Algorithm.ASTAR)),
    WarmUp(_warmup_grid, (0, 0), (4, 3), SearchOptions(max_expanded=1)),
)
RUNNER = Runner("fast_astar", refuses, run, WARM_UPS, pair)
