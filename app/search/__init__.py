"""Search: pure computation on :class:`~app.grid.Grid` maps (numpy + numba, no HTTP).

Public surface: :func:`find_path`, :func:`smooth`, :func:`line_of_sight`,
:func:`turning_points`, :class:`PathResult`, and the scratch pool.
"""

from app.search.find import PathResult, find_path
from app.search.options import (
    Algorithm,
    CostModel,
    Diagonal,
    Heuristic,
    InvalidOption,
    SearchOptions,
)
from app.search.scratch import ScratchPool, SearchScratch
from app.search.smooth import line_of_sight, smooth, turning_points

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
    "line_of_sight",
    "smooth",
    "turning_points",
]
