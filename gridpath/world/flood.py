"""Leg costs from one place to many places of its map by one bounded Dijkstra flood.

When a settled place of the overlay has many targets left on its map, searching a leg per
target costs a search each; one Dijkstra from the place, stopped once its radius passes a
bound (the kernel's ``max_cost``) or once every target is settled, gives the exact cost of
every target within the radius at once. Only optimal legs are costed this way (the flood's
cost is then the leg's cost); the legs of the final path are searched again with the
request's algorithm for their cells (:mod:`gridpath.world.search`). The flood follows the
leg's own rules: clearance, corner rule, step weights, terrain prices and blocked cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search import _general
from gridpath.search._frontier import BLOCKED, GOAL, LIMIT_REACHED, STATE, UNREACHABLE
from gridpath.search._records import grid_record
from gridpath.search.algorithms import is_optimal
from gridpath.search.options import Algorithm, SearchOptions, kernel_rules
from gridpath.search.overlay import stamp
from gridpath.search.plan import terrain_prices
from gridpath.search.scratch import SearchScratch

Cell = tuple[int, int]
# Per-pair legs from one settled place before its remaining targets are flooded: few
# targets are cheaper searched one by one (a 10-link world never floods).
FLOOD_AFTER = 8
# The least radius of a flood, in steps of the map's cheapest straight move.
MIN_RADIUS_STEPS = 16
_DIJKSTRA = (_general.DIJKSTRA, _general.ZERO, 0.0, _general.OCTILE)
_NO_GOAL_XY = np.empty((0, 2), dtype=np.int64)
_NO_EXPLORED = np.empty(0, dtype=np.int32)


@dataclass(frozen=True)
class Flood:
    costs: np.ndarray  # float64 per target: the leg's cost, inf where not settled
    expanded: int
    exhausted: bool  # every reachable cell was settled: an unsettled target is unreachable
    budget_spent: bool  # stopped by ``max_expanded``, not by the radius


def floods(options: SearchOptions) -> bool:
    """Legs with these options may be costed by a flood: optimal, no turn penalty, costed
    (not counted in steps)."""
    resolved = options.resolved()
    return (
        resolved.algorithm != Algorithm.BFS and resolved.turn_penalty == 0 and is_optimal(resolved)
    )


def flood(
    grid: Grid,
    options: SearchOptions,
    walls: frozenset[Cell],
    origin: Cell,
    cells: np.ndarray,
    radius: float,
    max_expanded: int,
    scratch: SearchScratch,
) -> Flood:
    """The cost from ``origin`` to each of ``cells`` (int64 ``(k, 2)``, distinct, open)
    within ``radius`` (leg ``options``, resolved)."""
    class_cost, uniform, _ = terrain_prices(grid, options)
    generation = scratch.begin(grid.flat.size)
    ends = (cells[:, 1] + 1) * grid.stride + cells[:, 0] + 1
    scratch.marks[ends, GOAL] = generation
    stamp(grid, walls, scratch.marks, BLOCKED, generation)
    rules = kernel_rules(options, class_cost, uniform, max_expanded, max_cost=radius)
    query = (grid.index(*origin), _NO_GOAL_XY, _NO_EXPLORED, int(ends.size))
    record = scratch.record(generation, costs=True)
    status, expanded, _, _, _ = _general.search_grid(grid_record(grid), rules, _DIJKSTRA,
                                                     record, query)  # fmt: skip
    settled = scratch.nodes[ends, STATE] == np.int32(2 * generation + 1)
    costs = np.where(settled, scratch.g_cost[ends], np.inf)
    spent = status == LIMIT_REACHED and expanded >= max_expanded
    return Flood(costs, int(expanded), status == UNREACHABLE, bool(spent))
