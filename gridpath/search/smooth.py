"""Path post-processing: line of sight, string-pulled waypoints, turning points.

Line of sight between two cells: every cell the straight segment between their centres
touches is walkable (and not among the request's ``blocked`` cells; for a unit of size
``clearance`` > 1, every such cell has at least that clearance); where the segment
passes exactly through a grid corner, the two side cells meeting there must obey the
diagonal rule (both walkable for ``no_corner_cut``, ``never`` and 4-connected movement;
at least one for ``one_free``; neither needed for ``always``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search import _cost, _sight
from gridpath.search._records import grid_record
from gridpath.search.options import CORNER_RULES, Diagonal
from gridpath.search.overlay import overlay
from gridpath.search.scratch import SearchScratch, thread_scratch

Cell = tuple[int, int]


def line_of_sight(
    grid: Grid,
    a: Cell,
    b: Cell,
    *,
    diagonal: Diagonal = Diagonal.NO_CORNER_CUT,
    blocked: Sequence[Cell] = (),
    clearance: int = 1,
    scratch: SearchScratch | None = None,
) -> bool:
    """True if cells ``a`` and ``b`` see each other (see the module docstring).

    Cells outside the map count as blocked.
    """
    if not (grid.in_bounds(*a) and grid.in_bounds(*b)):
        return False
    marks, mark = overlay(grid, blocked, scratch or thread_scratch())
    sight = (int(clearance), CORNER_RULES[diagonal])
    ends = (int(a[0]), int(a[1])), (int(b[0]), int(b[1]))
    return bool(_sight.line_of_sight(grid_record(grid), sight, marks, mark, *ends))


def smooth(
    grid: Grid,
    path: np.ndarray,
    *,
    diagonal: Diagonal = Diagonal.NO_CORNER_CUT,
    blocked: Sequence[Cell] = (),
    clearance: int = 1,
    scratch: SearchScratch | None = None,
    price: tuple | None = None,
) -> np.ndarray:
    """Waypoints of ``path`` by forward string pulling (a subsequence of ``path`` whose
    consecutive pairs have line of sight). ``path`` must be a legal cell path on ``grid``.

    With ``price`` (:func:`gridpath.search.cost.price_record`) on terrain that is not
    uniform, a shortcut is also taken only if it costs no more than the section of path it
    replaces (:func:`gridpath.search._cost.string_pull`): the waypoints never cost more
    than the path. On uniform terrain a straight segment never costs more than the steps it
    replaces, so the plain string pulling is kept there."""
    path = np.ascontiguousarray(path, dtype=np.int32)
    if path.shape[0] == 0:
        return path
    marks, mark = overlay(grid, blocked, scratch or thread_scratch())
    sight = (int(clearance), CORNER_RULES[diagonal])
    priced = price if price is not None and not price[2] else None
    return path[_cost.string_pull(grid_record(grid), sight, marks, mark, path, priced)]


def turning_points(path: np.ndarray) -> np.ndarray:
    """The start, each cell where the direction changes, and the goal."""
    path = np.ascontiguousarray(path, dtype=np.int32)
    if path.shape[0] == 0:
        return path
    return path[_sight.turning_points(path)]
