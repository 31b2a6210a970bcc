"""Search: pure computation on :class:`~gridpath.grid.Grid` maps (numpy + numba, no HTTP).

Public surface: :func:`find_path`, :func:`smooth`, :func:`line_of_sight`,
:func:`turning_points`, :class:`PathResult`, :func:`jump_distances` (a map revision's
JPS+ jump distances), :func:`prepare_jps` (what a revision's JPS queries read, built before it is
served), :func:`subgoal_graph` (its subgoal tier), :func:`tiers`, and the scratch pool.
Kernel modules (``_*.py``) are internal.
"""

from gridpath.search.find import PathResult, find_path
from gridpath.search.options import (
    Algorithm,
    CostModel,
    Diagonal,
    Heuristic,
    InvalidOption,
    SearchOptions,
)
from gridpath.search.runners.jps import jump_distances
from gridpath.search.runners.jps_blocks import prepare_jps
from gridpath.search.runners.subgoal import subgoal_graph, tiers
from gridpath.search.scratch import ScratchPool, SearchScratch
from gridpath.search.smooth import line_of_sight, smooth, turning_points

__all__ = [
    "Algorithm",
    "CostModel",
    "Diagonal",
    "Heuristic",
    "InvalidOption",
    "PathResult",
    "ScratchPool",
    "SearchOptions",
    "SearchScratch",
    "find_path",
    "jump_distances",
    "prepare_jps",
    "line_of_sight",
    "smooth",
    "subgoal_graph",
    "tiers",
    "turning_points",
]
