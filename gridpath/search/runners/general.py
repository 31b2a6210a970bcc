"""The general runner: every algorithm, heuristic, movement rule, cost model and
per-request option (goals, blocked cells, explored cells, closest, max_cost, turn
penalty, unit size) in one option-rich kernel (:mod:`gridpath.search._general`)."""

from __future__ import annotations

import time

import numpy as np

from gridpath.search import _general
from gridpath.search._frontier import BLOCKED, FOUND, GOAL, reconstruct_path
from gridpath.search._records import grid_record
from gridpath.search.options import (
    ALGORITHM_CODES,
    HEURISTIC_CODES,
    Algorithm,
    Heuristic,
    SearchOptions,
    kernel_rules,
)
from gridpath.search.overlay import stamp
from gridpath.search.runner import EMPTY_PATH, Outcome, Query, Runner, WarmUp
from gridpath.search.scratch import SearchScratch
from gridpath.search.warmup_grids import room, terrain_room


def refuses(query: Query) -> str | None:
    return None  # serves every query


def run(query: Query, scratch: SearchScratch) -> Outcome:
    grid, options = query.grid, query.options
    dirs = query.turn_states
    generation = scratch.begin(grid.flat.size * dirs)
    goal_cells = np.array([grid.index(x, y) for x, y in query.goals], dtype=np.int64)
    scratch.marks[goal_cells, GOAL] = generation
    stamp(grid, query.blocked, scratch.marks, BLOCKED, generation)
    orth_w, diag_w = options.step_weights
    max_cost = np.inf if options.max_cost is None else options.max_cost
    limits = {"max_cost": max_cost, "turn_penalty": options.turn_penalty}
    rules = kernel_rules(options, query.class_cost, query.uniform, query.max_expanded, **limits)
    h_factor = 0.0
    if options.heuristic != Heuristic.ZERO:
        h_factor = options.heuristic_weight * query.min_cost
    closest_kind = _general.OCTILE if options.diagonals else _general.MANHATTAN
    strategy = (
        ALGORITHM_CODES[options.algorithm],
        HEURISTIC_CODES[options.heuristic],
        float(h_factor),
        closest_kind,
    )
    goal_xy = np.array([(x + 1, y + 1) for x, y in query.goals], dtype=np.int64)
    explored = np.empty(max(0, query.explored_limit), dtype=np.int32)
    start = grid.index(*query.start)
    began = time.perf_counter_ns()
    status, expanded, reached, closest, n_explored = _general.search_grid(
        grid_record(grid), rules, strategy, scratch.record(generation, costs=True),
        (start, goal_xy, explored, 1),
    )  # fmt: skip
    search_us = (time.perf_counter_ns() - began) / 1000
    explored_xy = _cells_to_xy(explored[:n_explored], grid.stride)
    if status == FOUND:
        path = reconstruct_path(scratch.nodes, reached, grid.stride, dirs)
        goal_index = int(np.flatnonzero(goal_cells == reached // dirs)[0])
        partial = False
    elif options.closest:
        path = reconstruct_path(scratch.nodes, closest, grid.stride, dirs)
        goal_index, partial = None, True
    else:
        return Outcome(int(status), int(expanded), search_us, explored=explored_xy)
    cost = _general.path_cost(
        grid.terrain_flat, query.class_cost, query.uniform, grid.stride, path, orth_w, diag_w
    )
    return Outcome(
        int(status), int(expanded), search_us, path, cost, goal_index, partial, explored_xy
    )


def _cells_to_xy(cells: np.ndarray, stride: int) -> np.ndarray:
    if cells.size == 0:
        return EMPTY_PATH
    return np.stack([cells % stride - 1, cells // stride - 1], axis=1).astype(np.int32)


WARM_UPS = (
    WarmUp(
        room, (0, 0), None, SearchOptions(algorithm=Algorithm.DIJKSTRA, closest=True),
        goals=((4, 3), (3, 0)), blocked=((1, 1),), explored_limit=4,
    ),
    WarmUp(terrain_room, (0, 0), (4, 3), SearchOptions(terrain_costs=(("sand", 1.5),))),
)  # fmt: skip
RUNNER = Runner.plain("general", refuses, run, WARM_UPS)
