"""The continuous cost of a polyline on a grid: the kernels.

Cell ``(x, y)`` is the unit square centred on ``(x, y)``. A segment between two cell
centres costs, over the cells it passes through, the length of the segment inside the
cell times the cell's terrain cost. A segment that touches a cell only at a point (a
grid corner) spends no length there. A legal grid step therefore costs exactly what the
search charges for it (half its length in each of the two cells it joins), and a cell
path walked through cell centres costs exactly its ``cost``.

Which cells a segment crosses is decided exactly, in integer arithmetic, by the same
walk as the line-of-sight test (:func:`gridpath.search._sight.sight_walk`); only the
piece lengths are floats.

The price record ``(terrain, class_cost, uniform, stride, orth_w, diag_w, integer)``:
the padded terrain classes, the per-class costs (ignored when ``uniform``), the padded
row length, the straight and diagonal step weights and whether the cost model is the
integer one. Under the float model a segment costs its Euclidean length times its mean
terrain cost (:func:`mean_terrain`). Under the integer model it costs its octile length
(``orth_w`` per straight and ``diag_w`` per diagonal unit of its displacement, the way
the model prices free movement) times its mean terrain cost, rounded to a whole number:
a grid step, and a straight run of steps, then cost exactly what the search charges.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gridpath.search._sight import line_of_sight


@njit(nogil=True, cache=True)
def mean_terrain(terrain, class_cost, stride, a, b):
    """The mean terrain cost along the segment between the centres of cells ``a`` and
    ``b`` (unpadded ``(x, y)``): the sum over the cells it crosses of the share of its
    length inside the cell times the cell's cost. ``a == b``: the cost of that cell."""
    x0, y0 = a
    x1, y1 = b
    nx = abs(x1 - x0)
    ny = abs(y1 - y0)
    sx = 1 if x1 > x0 else -1
    sy = stride if y1 > y0 else -stride
    i = (y0 + 1) * stride + (x0 + 1)
    if nx == 0 and ny == 0:
        return class_cost[terrain[i]]
    ix = 0
    iy = 0
    entered = 0.0  # the parameter t at which the walk entered cell i
    total = 0.0
    while ix < nx or iy < ny:
        # The next crossings of a vertical and of a horizontal cell side, at parameters
        # (0.5 + ix) / nx and (0.5 + iy) / ny, compared exactly in integers.
        decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
        if decision <= 0:
            left = (0.5 + ix) / nx
        else:
            left = (0.5 + iy) / ny
        total += (left - entered) * class_cost[terrain[i]]
        entered = left
        if decision == 0:  # exactly through a corner: no length in the two side cells
            i += sx + sy
            ix += 1
            iy += 1
        elif decision < 0:
            i += sx
            ix += 1
        else:
            i += sy
            iy += 1
    total += (1.0 - entered) * class_cost[terrain[i]]
    return total


@njit(nogil=True, cache=True, inline="always")
def _octile(nx, ny, orth_w, diag_w):
    return orth_w * (max(nx, ny) - min(nx, ny)) + diag_w * min(nx, ny)


@njit(nogil=True, cache=True)
def segment_cost(price, a, b):
    """The cost of the straight segment between the centres of cells ``a`` and ``b``
    (unpadded ``(x, y)``) under the price record (see the module docstring)."""
    terrain, class_cost, uniform, stride, orth_w, diag_w, integer = price
    nx = abs(b[0] - a[0])
    ny = abs(b[1] - a[1])
    if integer:
        length = _octile(nx, ny, orth_w, diag_w)
        if uniform:
            return float(length)
        return math.floor(length * mean_terrain(terrain, class_cost, stride, a, b) + 0.5)
    if nx == 0 or ny == 0:
        length = float(nx + ny) * orth_w
    elif nx == ny:
        length = nx * diag_w  # as a run of diagonal steps is charged
    else:
        length = math.sqrt(float(nx * nx + ny * ny)) * orth_w
    if uniform:
        return length
    return length * mean_terrain(terrain, class_cost, stride, a, b)


@njit(nogil=True, cache=True)
def polyline_cost(price, vertices):
    """The cost of the polyline through the centres of the cells ``vertices`` (``(n, 2)``
    ``[x, y]``, every vertex on the map): the sum of its segments' costs."""
    total = 0.0
    for v in range(vertices.shape[0] - 1):
        a = (vertices[v, 0], vertices[v, 1])
        b = (vertices[v + 1, 0], vertices[v + 1, 1])
        total += segment_cost(price, a, b)
    return total


# A shortcut may cost this much (relative) more than the section it replaces: float
# noise between two ways of summing the same pieces (a straight run of steps against
# the segment along it), never a real detour. Under the integer model costs are whole
# numbers and compared exactly.
SHORTCUT_SLACK = 1e-12


@njit(nogil=True, cache=True)
def string_pull(grid, sight, marks, block_mark, path, price):
    """Forward string pulling: from the current waypoint, advance along ``path`` while the
    next cell is in sight (:func:`gridpath.search._sight.line_of_sight`, same arguments)
    and, with ``price`` (``None``: sight alone, the branches compiled out), the straight
    segment to it costs no more than the section of ``path`` it replaces (both priced by
    ``price``); the first cell that fails ends the advance, and the last cell reached
    becomes the next waypoint. With ``price`` each segment then costs at most its section,
    so the waypoints' polyline costs at most the path.

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
        section = 0.0
        if price is not None:
            section = segment_cost(price, here, (path[j, 0], path[j, 1]))
        while j + 1 < n:
            after = (path[j + 1, 0], path[j + 1, 1])
            if price is not None:
                section += segment_cost(price, (path[j, 0], path[j, 1]), after)
            if not line_of_sight(grid, sight, marks, block_mark, here, after):
                break
            if price is not None:
                allowed = section if price[6] else section * (1.0 + SHORTCUT_SLACK)
                if segment_cost(price, here, after) > allowed:
                    break
            j += 1
        keep[k] = j
        k += 1
        i = j
    return keep[:k].copy()
