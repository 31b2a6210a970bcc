"""Flow fields: one Dijkstra search from a goal gives every cell its cost to the goal and
the first step towards it, so many units heading to one point share one search.

Movement is symmetric (a step costs its length times the mean cost of the two cells it
joins, and every corner rule is symmetric), so the cost from the goal to a cell equals
the cost from the cell to the goal, and the cell's parent in the search tree is its
next step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from gridpath.grid.model import Grid
from gridpath.search import _general
from gridpath.search._frontier import BLOCKED, CAME_FROM, STATE
from gridpath.search._records import grid_record
from gridpath.search.find import check_cell, terrain_prices
from gridpath.search.options import DEFAULT_OPTIONS, InvalidOption, SearchOptions, kernel_rules
from gridpath.search.overlay import blocked_cells, stamp
from gridpath.search.scratch import SearchScratch, thread_scratch
from gridpath.search.warming import require as require_warm

# Next-step codes, in the kernels' neighbour order; -1: no step (goal, blocked, unreachable).
DIRECTIONS = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
_OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1))
UNREACHABLE_COST = -1.0
_NO_GOALS = np.empty((0, 2), dtype=np.int64)
_NO_EXPLORED = np.empty(0, dtype=np.int32)


@dataclass(frozen=True)
class FlowField:
    cost: np.ndarray  # (height, width) float64 cost to the goal; -1 where unreachable/blocked
    next: np.ndarray  # (height, width) int8 direction code of the first step; -1 for none
    expanded: int

    @property
    def reachable(self) -> int:
        return int((self.cost >= 0).sum())


@njit(nogil=True, cache=True)
def _extract(nodes, g_cost, generation, stride, height, width, cost, step):
    closed = np.int32(2 * generation + 1)
    for y in range(height):
        for x in range(width):
            cell = (y + 1) * stride + x + 1
            if nodes[cell, STATE] != closed:
                cost[y, x] = UNREACHABLE_COST
                step[y, x] = -1
                continue
            cost[y, x] = g_cost[cell]
            parent = nodes[cell, CAME_FROM]
            if parent < 0:
                step[y, x] = -1
                continue
            dx = parent % stride - (x + 1)
            dy = parent // stride - (y + 1)
            for k in range(8):
                if _OFFSETS[k][0] == dx and _OFFSETS[k][1] == dy:
                    step[y, x] = k
                    break


def flow_field(
    grid: Grid,
    goal: tuple[int, int],
    options: SearchOptions = DEFAULT_OPTIONS,
    *,
    blocked: Sequence[tuple[int, int]] = (),
    scratch: SearchScratch | None = None,
) -> FlowField:
    """Cost to ``goal`` and next step for every cell, under the movement rules of ``options``
    (algorithm and heuristic do not apply: it is always a full Dijkstra search)."""
    require_warm("flowfield")
    if options.turn_penalty > 0:
        raise InvalidOption("turn_penalty", "flow fields do not support turn_penalty")
    blocked_set = blocked_cells(grid, blocked)
    check_cell(grid, goal, "goal", blocked_set, options.clearance)
    options = options.resolved()
    class_cost, uniform, _ = terrain_prices(grid, options)
    scratch = scratch or thread_scratch()
    generation = scratch.begin(grid.flat.size)
    stamp(grid, blocked_set, scratch.marks, BLOCKED, generation)
    rules = kernel_rules(options, class_cost, uniform, grid.cell_count + 1)
    dijkstra = (_general.DIJKSTRA, _general.ZERO, 0.0, _general.OCTILE)
    query = (grid.index(*goal), _NO_GOALS, _NO_EXPLORED, 1)  # no goal: every reachable cell
    records = (grid_record(grid), rules, dijkstra, scratch.record(generation, costs=True))
    _, expanded, _, _, _ = _general.search_grid(*records, query)
    cost = np.empty((grid.height, grid.width), dtype=np.float64)
    step = np.empty((grid.height, grid.width), dtype=np.int8)
    _extract(
        scratch.nodes, scratch.g_cost, generation, grid.stride, grid.height, grid.width, cost, step
    )
    return FlowField(cost, step, int(expanded))


__all__ = ["DIRECTIONS", "UNREACHABLE_COST", "FlowField", "flow_field"]
