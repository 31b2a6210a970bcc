"""The JPS runner: jump point search (JPS+ with the map's jump distances for units of size 1,
scanning otherwise), for uniform cost, 8-connected movement without corner cutting.

Jump distances are built per map revision by :func:`jump_distances` and kept with the
:class:`~gridpath.grid.model.Grid` through its ``derived`` hook (the map layer never imports
the search layer). Block JPS (:mod:`.jps_blocks`, first in the list of algorithms) serves
every map JPS+ would serve, with the same answers and no jump distances, so the service
builds none (``prepare_jps``); this runner scans the bytes (maps of short runs, larger
units), and uses jump distances only where they were built by hand (the benchmarks' JPS+
column).
"""

from __future__ import annotations

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search._batch import pairs_jps
from gridpath.search._jps import jps
from gridpath.search._jumps import jump_distances_for
from gridpath.search.options import Diagonal, Heuristic, SearchOptions
from gridpath.search.runner import PairKernel, Query, Runner, WarmUp
from gridpath.search.warmup_grids import open_square

JUMP_DISTANCES = "jump_distances"  # its key among a revision's derived data
DEFAULT_JUMP_DISTANCES_MAX_CELLS = 4_194_304  # the largest map given jump distances (16 B a cell)


def jump_distances(
    grid: Grid, max_cells: int = DEFAULT_JUMP_DISTANCES_MAX_CELLS
) -> np.ndarray | None:
    """The JPS+ jump distances of this revision for units of size 1 (read-only), built now
    if it has none yet, or None: terrain with costs, a map over ``max_cells`` (0: never), or
    jumps too short to gain from one. The service builds none (block JPS serves those
    maps); the JPS runner reads one only where it was built (:meth:`Grid.built`)."""
    max_cells = max(0, int(max_cells))

    def build(grid: Grid) -> np.ndarray | None:
        if not grid.uniform:
            return None
        return jump_distances_for(grid.flat, grid.stride, grid.width, grid.height, max_cells)

    return grid.derived((JUMP_DISTANCES, max_cells), build)


def refuses(query: Query) -> str | None:
    """Why jump point search cannot serve this query (None: it can)."""
    o = query.options
    if not (o.connectivity == 8 and o.diagonal == Diagonal.NO_CORNER_CUT):
        return "it needs 8-connected movement without corner cutting (diagonal no_corner_cut)"
    if not query.uniform:
        return "it needs uniform terrain costs"
    if o.turn_penalty:
        return "it does not support turn_penalty"
    if o.heuristic != Heuristic.OCTILE or o.heuristic_weight != 1:
        return "it uses the octile heuristic with weight 1"
    if query.blocked:
        return "it does not support per-request blocked cells"
    if len(query.goals) != 1:
        return "it searches for a single goal"
    if o.closest or o.max_cost is not None:
        return "it does not support closest or max_cost"
    if query.explored_limit > 0:
        return "it does not report explored cells"
    return None


def _jump_distances(query: Query) -> np.ndarray | None:
    if query.options.clearance != 1:
        return None
    return query.grid.built(JUMP_DISTANCES)


def pair(query: Query) -> PairKernel:
    """The JPS kernel with the revision's jump distances (or None: it scans the bytes),
    linking jump points in ``came_from``."""
    return PairKernel(jps, (_jump_distances(query),), jumps=True, many=pairs_jps)


WARM_UPS = (
    # JPS+: jumps by lookup (runs long enough for jump distances on this grid)
    WarmUp(open_square, (0, 0), (7, 5), prepare=jump_distances),
    # JPS for units of size 2 scans the grid (jump distances are for size 1)
    WarmUp(open_square, (0, 0), (5, 3), SearchOptions(clearance=2)),
)
RUNNER = Runner.exact_pair("jps", refuses, pair, WARM_UPS, late_preprocessing=(JUMP_DISTANCES,))
