"""Line of sight, string pulling and turning points: the kernels that look at a path
after it is found (and at a client's waypoints in :mod:`gridpath.search._validate`).

Same grid layout as every kernel (padded flat clearance, see :mod:`gridpath.search._records`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._records import is_open

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
    ``grid`` is the grid record (:mod:`gridpath.search._records`), ``sight`` is ``(unit,
    corner_rule)``.

    The segment is walked cell by cell in exact integer arithmetic (a supercover line).
    Where it passes exactly through a grid corner, the two side cells that meet there
    must satisfy ``corner_rule`` (``CORNER_BOTH``: a sight line never squeezes between
    two diagonal walls, just as a diagonal step may not cut a corner).
    """
    return sight_walk(grid, sight, marks, block_mark, a, b, None, 0, False) >= 0


@njit(nogil=True, cache=True, inline="always")
def sight_walk(grid, sight, marks, block_mark, a, b, out, k, straight_only):
    """The walk of :func:`line_of_sight` (same arguments), recording the cells it enters.

    With ``out`` (an ``(n, 2)`` int32 array; ``None``: nothing recorded) the cells from
    ``a`` (included) up to ``b`` (excluded) are written as ``[x, y]`` from row ``k`` on,
    one legal step apart: a straight step where the segment crosses a cell side, a
    diagonal step where it passes exactly through a corner (the corner rule checked
    there is the diagonal rule of that step), or, with ``straight_only`` (4-connected
    movement, whose corner rule needs both side cells open), the side cell across x
    first and then the diagonal cell. Returns the next free row, or -1 if the segment is
    blocked."""
    passable, stride, _terrain = grid
    unit, corner_rule = sight
    x0, y0 = a
    x1, y1 = b
    dx = x1 - x0
    dy = y1 - y0
    nx = abs(dx)
    ny = abs(dy)
    step_x = 1 if dx > 0 else -1
    step_y = 1 if dy > 0 else -1
    sx = step_x
    sy = stride if dy > 0 else -stride
    i = (y0 + 1) * stride + (x0 + 1)
    if not is_open(passable, unit, marks, block_mark, i):
        return -1
    cx = x0
    cy = y0
    ix = 0
    iy = 0
    while ix < nx or iy < ny:
        if out is not None:
            out[k, 0] = cx
            out[k, 1] = cy
            k += 1
        # Compare the parameters t at which the segment next crosses a vertical
        # (x) and a horizontal (y) cell boundary: (0.5 + ix) / nx vs (0.5 + iy) / ny.
        decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
        if decision == 0:  # exactly through a corner
            if corner_rule != CORNER_NONE:
                side_x = is_open(passable, unit, marks, block_mark, i + sx)
                side_y = is_open(passable, unit, marks, block_mark, i + sy)
                if corner_rule == CORNER_BOTH and not (side_x and side_y):
                    return -1
                if corner_rule == CORNER_ONE and not (side_x or side_y):
                    return -1
            if out is not None and straight_only:
                out[k, 0] = cx + step_x
                out[k, 1] = cy
                k += 1
            i += sx + sy
            cx += step_x
            cy += step_y
            ix += 1
            iy += 1
        elif decision < 0:
            i += sx
            cx += step_x
            ix += 1
        else:
            i += sy
            cy += step_y
            iy += 1
        if not is_open(passable, unit, marks, block_mark, i):
            return -1
    return k


@njit(nogil=True, cache=True)
def polyline_cells(grid, sight, marks, block_mark, vertices, straight_only):
    """The cells a unit crosses walking the polyline ``vertices`` (``(n, 2)`` ``[x, y]``
    cell centres, consecutive vertices in sight of each other), one legal step apart
    (:func:`sight_walk`); no rows if a segment is blocked."""
    n = vertices.shape[0]
    room = 1
    for v in range(n - 1):
        room += 2 * abs(vertices[v + 1, 0] - vertices[v, 0])
        room += 2 * abs(vertices[v + 1, 1] - vertices[v, 1])
    out = np.empty((room, 2), dtype=np.int32)
    k = 0
    for v in range(n - 1):
        a = (vertices[v, 0], vertices[v, 1])
        b = (vertices[v + 1, 0], vertices[v + 1, 1])
        k = sight_walk(grid, sight, marks, block_mark, a, b, out, k, straight_only)
        if k < 0:
            return out[:0].copy()
    out[k, 0] = vertices[n - 1, 0]
    out[k, 1] = vertices[n - 1, 1]
    return out[: k + 1].copy()


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
