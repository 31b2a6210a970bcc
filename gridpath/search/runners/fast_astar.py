"""The fast A* runner: the default options on uniform terrain (8-connected without corner
cutting, octile heuristic, weight 1, one goal, nothing per request), exact pair costs."""

from __future__ import annotations

from gridpath.search._astar import astar_octile
from gridpath.search._batch import pairs_astar
from gridpath.search.options import Algorithm, Diagonal, Heuristic, SearchOptions
from gridpath.search.runner import PairKernel, Query, Runner, WarmUp
from gridpath.search.warmup_grids import room


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


_PAIR = PairKernel(astar_octile, (), jumps=False, many=pairs_astar)


def pair(query: Query) -> PairKernel:
    return _PAIR  # the kernel, the path rebuilt cell by cell


WARM_UPS = (
    WarmUp(room, (0, 0), (4, 3), SearchOptions(algorithm=Algorithm.ASTAR)),
    WarmUp(room, (0, 0), (4, 3), SearchOptions(max_expanded=1)),
)
RUNNER = Runner.exact_pair("fast_astar", refuses, pair, WARM_UPS)
