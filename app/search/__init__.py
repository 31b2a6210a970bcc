"""Search: pure computation on :class:`~app.grid.Grid` maps (numpy + numba, no HTTP).

Public surface: :func:`find_path`, :func:`smooth`, :func:`line_of_sight`,
:func:`turning_points`, :class:`PathResult`, and the scratch pool.
"""

from app.search.astar import PathResult, find_path
from app.search.scratch import ScratchPool, SearchScratch
from app.search.smooth import line_of_sight, smooth, turning_points

__all__ = ["PathResult", "ScratchPool", "SearchScratch", "find_path", "line_of_sight", "smooth",
           "turning_points"]
