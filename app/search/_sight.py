"""Line of sight, string pulling and turning points: the kernels that look at a path
after it is found (and at a client's waypoints in :mod:`app.search._validate`).

Same grid layout as every kernel (padded flat clearance, see :mod:`app.search._records`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from app.search._records import is_open

# What a sight line needs where it passes exactly through a grid corner, of the two
# side cells that meet there (the cells it enters before and after are always checked).
CORNER_BOTH = 0  # both walkable: the no-corner-cut rule (and 4-connected movement)
CORNER_ONE = 1  # at least one walkable: the "one_free" diagonal rule
CORNER_NONE = 2  # neither needed: the "always" diagonal rule


@njit(nogil=True, cache=True)
def line_of_sight(grid, sight, marks, block_mark, a, b):
    """True if every cell the segment between the centres of cells ``a`` and ``b``
    (``(x, y)`` tuples) touches is open (clearance >= ``unit``, not blocked for this
    search: ``marks[:, BLOCKED] == block_mark``; ``marks=None``: nothing blocked).
    ``grid`` is the grid record (:mod:`app.search._records`), ``sight`` is ``(unit,
    corner_rule)``.

    The segment is walked cell by cell in exact integer arithmetic (a supercover line).
    Where it passes exactly through a grid corner, the two side cells that meet there
    must satisfy ``corner_rule`` (``CORNER_BOTH``: a sight line never squeezes between
    two diagonal walls, just as a diagonal step may not cut a corner).
    """
    passable, stride, _terrain = grid
    unit, corner_rule = sight
    x0, y0 = a
    x1, y1 = b
    dx = x1 - x0
    dy = y1 - y0
    nx = abs(dx)
    ny = abs(dy)
    sx = 1 if dx > 0 else -1
    sy = stride if dy > 0 else -stride
    i = (y0 + 1) * stride + (x0 + 1)
    if not is_open(passable, unit, marks, block_mark, i):
        return False
    ix = 0
    iy = 0
    while ix < nx or iy < ny:
        # Compare the parameters t at which the segment next crosses a vertical
        # (x) and a horizontal (y) cell boundary: (0.5 + ix) / nx vs (0.5 + iy) / ny.
        decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
        if decision == 0:  # exactly through a corner
            if corner_rule != CORNER_NONE:
                side_x = is_open(passable, unit, marks, block_mark, i + sx)
                side_y = is_open(passable, unit, marks, block_mark, i + sy)
                if corner_rule == CORNER_BOTH and not (side_x and side_y):
                    return False
                if corner_rule == CORNER_ONE and not (side_x or side_y):
                    return False
            i += sx + sy
            ix += 1
            iy += 1
        elif decision < 0:
            i += sx
            ix += 1
        else:
            i += sy
            iy += 1
        if not is_open(passable, unit, marks, block_mark, i):
            return False
    return True


@njit(nogil=True, cache=True)
def smooth_path(grid, sight, marks, block_mark, path):
    """Forward string pulling: from the current waypoint, advance along ``path`` while the
    next cell is still in sight (:func:`line_of_sight`, same arguments); the last cell in
    sight becomes the next waypoint.

    Returns the indices into ``path`` of the waypoints (first and last always included).
    """
    n = path.shape[0]
    keep = np.empty(n, dtype=np.int64)
    keep[0] = 0
    k = 1
    i = 0
    while i < n - 1:
        j = i + 1
        here = (path[i, 0], path[i, 1])
        while j + 1 < n and line_of_sight(
            grid, sight, marks, block_mark, here, (path[j + 1, 0], path[j + 1, 1])
        ):
            j += 1
        keep[k] = j
        k += 1
        i = j
    return keep[:k].copy()


@njit(nogil=True, cache=True)
def turning_points(path):
    """Indices of the start, every cell where the direction of travel changes, and the goal."""
    n = path.shape[0]
    keep = np.empty(n, dtype=np.int64)
    keep[0] = 0
    k = 1
    for i in range(1, n - 1):
        if (
            path[i, 0] - path[i - 1, 0] != path[i + 1, 0] - path[i, 0]
            or path[i, 1] - path[i - 1, 1] != path[i + 1, 1] - path[i, 1]
        ):
            keep[k] = i
            k += 1
    if n > 1:
        keep[k] = n - 1
        k += 1
    return keep[:k].copy()
