"""Compiled search kernels: numpy arrays and scalars in, arrays and scalars out.

Nothing here knows about HTTP, pydantic or map names. Every kernel is compiled by
numba with ``nogil=True`` (concurrent requests run on separate cores) and
``cache=True`` (compiled code is kept on disk, so a restart does not pay the JIT).

Grid layout
    ``passable`` is the *padded* grid flattened row-major, holding each cell's clearance
    (0: blocked; k: the largest walkable k x k square with this cell as its top-left
    corner, capped at 255), with one blocked cell of border
    around the map, so a neighbour is never out of bounds. ``stride`` is the padded
    row length (``width + 2``); cell ``(x, y)`` has flat index ``(y + 1) * stride + x + 1``.

Costs without rounding drift
    On a uniform-cost grid every path cost is ``a * orth + d * diag`` for whole numbers
    ``a`` (straight steps) and ``d`` (diagonal steps). The kernel stores the pair
    ``(a, d)`` per cell and evaluates ``g`` and ``f`` from integers each time, so equal
    costs are bit-for-bit equal floats, whatever order the steps were taken in. With
    ``orth, diag = 1, sqrt(2)`` this is the Euclidean step cost; with ``10, 14`` it is
    the integer cost model that many game clients use (exact in float64).

Scratch state and generations
    The per-search arrays (``nodes``: state, cost_so_far, came_from and heap position
    per cell, in one row so each cell is one cache line; ``frontier``: the heap) belong
    to one search at a time and are never cleared: a cell's state equals
    ``2 * generation`` while it is in the frontier and ``2 * generation + 1`` once it is
    closed; any other value means "not seen in this search" (Godot's pass counters).
    Starting a search costs O(1), not O(map).

Frontier order (the tie-breaking rule, part of the determinism contract)
    The frontier is a binary heap keyed by ``(f, -g, index)``: the smallest ``f`` first;
    among equal ``f`` the larger ``g`` (the node further from the start, closer to the
    goal); among equal ``f`` and ``g`` the smaller cell index (``y`` first, then ``x``).
    Neighbours are generated in the order N, E, S, W, NE, SE, SW, NW, and a cell's
    parent changes only when a strictly cheaper route to it is found.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from app.search._prefetch import prefetch

SQRT2 = math.sqrt(2.0)

# Search outcomes (kernel status codes).
FOUND = 0
UNREACHABLE = 1
LIMIT_REACHED = 2

_NO_PARENT = -1


# Columns of the per-cell scratch array ``nodes`` (int32, one row of 20 bytes per cell,
# so a search touches one cache line per cell it looks at).
STATE = 0  # 2*generation: in the frontier; 2*generation+1: closed; else unseen
COST_ORTH = 1  # cost_so_far as (straight steps, diagonal steps)
COST_DIAG = 2
CAME_FROM = 3  # parent cell index; -1 at the start
HEAP_POS = 4  # position in the frontier heap while open
NODE_COLUMNS = 5

# Columns of the per-cell ``marks`` array (int32), used by the option-rich search only.
BLOCKED = 0  # == generation: blocked for this search only (per-request obstacles)
GOAL = 1  # == generation: one of this search's goals
MARK_COLUMNS = 2

# Columns of the frontier heap ``frontier`` (float64 rows: f, g, cell index).
F = 0
G = 1
CELL = 2
FRONTIER_COLUMNS = 3


# Costs whose relative difference is below this are ties in the general kernel, whose
# float costs accumulated along different routes (terrain, weights) differ by rounding
# noise far below it. The pair costs of the default and JPS kernels tie exactly.
TIE_REL = 1e-12


@njit(nogil=True, cache=True, inline="always")
def _before(f_a, g_a, n_a, f_b, g_b, n_b, tie):
    """Frontier order: smaller f, then larger g, then smaller cell index.

    ``tie`` is the relative tolerance under which f (or g) values count as equal: 0 for the
    exact pair costs of the default and JPS kernels (a constant, so the compiler drops the
    tolerance arithmetic there), ``TIE_REL`` for the float costs of the general kernel.
    """
    if tie == 0.0:
        if f_a != f_b:
            return f_a < f_b
        if g_a != g_b:
            return g_a > g_b
        return n_a < n_b
    tol = tie * (abs(f_a) + abs(f_b))
    if f_a < f_b - tol:
        return True
    if f_b < f_a - tol:
        return False
    tol = tie * (g_a + g_b)
    if g_a > g_b + tol:
        return True
    if g_b > g_a + tol:
        return False
    return n_a < n_b


@njit(nogil=True, cache=True, inline="always")
def _sift_up(frontier, nodes, i, tie):
    f = frontier[i, F]
    g = frontier[i, G]
    cell = frontier[i, CELL]
    while i > 0:
        p = (i - 1) >> 1
        pf = frontier[p, F]
        pg = frontier[p, G]
        pc = frontier[p, CELL]
        if not _before(f, g, cell, pf, pg, pc, tie):
            break
        frontier[i, F] = pf
        frontier[i, G] = pg
        frontier[i, CELL] = pc
        nodes[int(pc), HEAP_POS] = i
        i = p
    frontier[i, F] = f
    frontier[i, G] = g
    frontier[i, CELL] = cell
    nodes[int(cell), HEAP_POS] = i


@njit(nogil=True, cache=True, inline="always")
def _sift_down(frontier, nodes, i, size, tie):
    f = frontier[i, F]
    g = frontier[i, G]
    cell = frontier[i, CELL]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        r = c + 1
        if r < size and _before(
            frontier[r, F],
            frontier[r, G],
            frontier[r, CELL],
            frontier[c, F],
            frontier[c, G],
            frontier[c, CELL],
            tie,
        ):
            c = r
        cf = frontier[c, F]
        cg = frontier[c, G]
        cc = frontier[c, CELL]
        if not _before(cf, cg, cc, f, g, cell, tie):
            break
        frontier[i, F] = cf
        frontier[i, G] = cg
        frontier[i, CELL] = cc
        nodes[int(cc), HEAP_POS] = i
        i = c
    frontier[i, F] = f
    frontier[i, G] = g
    frontier[i, CELL] = cell
    nodes[int(cell), HEAP_POS] = i


@njit(nogil=True, cache=True, inline="always")
def _pop(frontier, nodes, size, tie):
    """Take the first node off the frontier; returns ``(node, new size)``."""
    current = int(frontier[0, CELL])
    size -= 1
    if size > 0:
        frontier[0, F] = frontier[size, F]
        frontier[0, G] = frontier[size, G]
        frontier[0, CELL] = frontier[size, CELL]
        _sift_down(frontier, nodes, 0, size, tie)
    return current, size


@njit(nogil=True, cache=True, inline="always")
def _octile_pair(x, y, goal_x, goal_y):
    """Octile distance from ``(x, y)`` to the goal as (straight steps, diagonal steps)."""
    dx = abs(x - goal_x)
    dy = abs(y - goal_y)
    if dx < dy:
        return dy - dx, dx
    return dx - dy, dy


@njit(nogil=True, cache=True, inline="always")
def _relax(
    cell,
    x,
    y,
    a,
    d,
    current,
    goal_x,
    goal_y,
    orth_w,
    diag_w,
    nodes,
    frontier,
    size,
    open_mark,
    closed_mark,
):
    """Offer the route ``current -> cell`` of cost ``(a, d)``; returns the new frontier size."""
    s = nodes[cell, STATE]
    if s == closed_mark:
        return size
    g = a * orth_w + d * diag_w
    if s == open_mark:
        if not g < nodes[cell, COST_ORTH] * orth_w + nodes[cell, COST_DIAG] * diag_w:
            return size
        i = nodes[cell, HEAP_POS]
    else:
        nodes[cell, STATE] = open_mark
        i = size
        size += 1
    nodes[cell, COST_ORTH] = a
    nodes[cell, COST_DIAG] = d
    nodes[cell, CAME_FROM] = current
    ha, hd = _octile_pair(x, y, goal_x, goal_y)
    frontier[i, F] = (a + ha) * orth_w + (d + hd) * diag_w
    frontier[i, G] = g
    frontier[i, CELL] = cell
    _sift_up(frontier, nodes, i, 0.0)  # pair costs are exact
    return size


@njit(nogil=True, cache=True, inline="always")
def _open_start(nodes, frontier, start, stride, goal_x, goal_y, orth_w, diag_w, open_mark):
    """Put ``start`` alone on the frontier of an exact-pair search; returns the heap size."""
    nodes[start, STATE] = open_mark
    nodes[start, COST_ORTH] = 0
    nodes[start, COST_DIAG] = 0
    nodes[start, CAME_FROM] = _NO_PARENT
    nodes[start, HEAP_POS] = 0
    ha, hd = _octile_pair(start % stride, start // stride, goal_x, goal_y)
    frontier[0, F] = ha * orth_w + hd * diag_w
    frontier[0, G] = 0.0
    frontier[0, CELL] = start
    return 1


@njit(nogil=True, cache=True)
def astar_octile(
    passable, stride, start, goal, max_expanded, orth_w, diag_w, nodes, frontier, generation
):
    """A* on an 8-connected grid without corner cutting, octile heuristic.

    A diagonal step is allowed only when both orthogonally adjacent cells are walkable.
    ``nodes`` is the ``(cells, NODE_COLUMNS)`` int32 scratch, ``frontier`` the
    ``(cells, FRONTIER_COLUMNS)`` float64 heap. Returns ``(status, expanded)``; on
    ``FOUND`` the route is in ``nodes[:, CAME_FROM]`` and its cost in
    ``nodes[goal, COST_ORTH]``, ``nodes[goal, COST_DIAG]``.
    """
    open_mark = np.int32(2 * generation)
    closed_mark = np.int32(2 * generation + 1)
    goal_x = goal % stride
    goal_y = goal // stride

    size = _open_start(nodes, frontier, start, stride, goal_x, goal_y, orth_w, diag_w, open_mark)
    expanded = 0

    while size > 0:
        current, size = _pop(frontier, nodes, size, 0.0)
        nodes[current, STATE] = closed_mark
        # The rows above and below are in other cache lines: start loading them now.
        prefetch(nodes, current - stride)
        prefetch(nodes, current + stride)
        expanded += 1
        if current == goal:
            return FOUND, expanded
        if expanded >= max_expanded:
            return LIMIT_REACHED, expanded

        a = nodes[current, COST_ORTH]
        d = nodes[current, COST_DIAG]
        x = current % stride
        y = current // stride
        north = current - stride
        south = current + stride
        n_ok = passable[north] != 0
        e_ok = passable[current + 1] != 0
        s_ok = passable[south] != 0
        w_ok = passable[current - 1] != 0
        # Unrolled on purpose: a loop over the eight directions measured ~10% slower.
        # N, E, S, W, then NE, SE, SW, NW; a diagonal needs both orthogonal sides open.
        # fmt: off
        if n_ok:
            size = _relax(north, x, y - 1, a + 1, d, current, goal_x, goal_y, orth_w, diag_w,
                          nodes, frontier, size, open_mark, closed_mark)
        if e_ok:
            size = _relax(current + 1, x + 1, y, a + 1, d, current, goal_x, goal_y, orth_w,
                          diag_w, nodes, frontier, size, open_mark, closed_mark)
        if s_ok:
            size = _relax(south, x, y + 1, a + 1, d, current, goal_x, goal_y, orth_w, diag_w,
                          nodes, frontier, size, open_mark, closed_mark)
        if w_ok:
            size = _relax(current - 1, x - 1, y, a + 1, d, current, goal_x, goal_y, orth_w,
                          diag_w, nodes, frontier, size, open_mark, closed_mark)
        if n_ok and e_ok and passable[north + 1] != 0:
            size = _relax(north + 1, x + 1, y - 1, a, d + 1, current, goal_x, goal_y, orth_w,
                          diag_w, nodes, frontier, size, open_mark, closed_mark)
        if s_ok and e_ok and passable[south + 1] != 0:
            size = _relax(south + 1, x + 1, y + 1, a, d + 1, current, goal_x, goal_y, orth_w,
                          diag_w, nodes, frontier, size, open_mark, closed_mark)
        if s_ok and w_ok and passable[south - 1] != 0:
            size = _relax(south - 1, x - 1, y + 1, a, d + 1, current, goal_x, goal_y, orth_w,
                          diag_w, nodes, frontier, size, open_mark, closed_mark)
        if n_ok and w_ok and passable[north - 1] != 0:
            size = _relax(north - 1, x - 1, y - 1, a, d + 1, current, goal_x, goal_y, orth_w,
                          diag_w, nodes, frontier, size, open_mark, closed_mark)
        # fmt: on
    return UNREACHABLE, expanded


@njit(nogil=True, cache=True)
def reconstruct_path(nodes, goal, stride, dirs):
    """Follow ``came_from`` from the ``goal`` node back to the start; returns ``(n, 2)``
    int32 ``[x, y]``. A node is a cell, or ``cell * dirs + heading`` when ``dirs`` > 1."""
    n = 1
    node = goal
    while nodes[node, CAME_FROM] != _NO_PARENT:
        node = nodes[node, CAME_FROM]
        n += 1
    path = np.empty((n, 2), dtype=np.int32)
    node = goal
    for i in range(n - 1, -1, -1):
        cell = node // dirs
        path[i, 0] = cell % stride - 1
        path[i, 1] = cell // stride - 1
        node = nodes[node, CAME_FROM]
    return path


# What a sight line needs where it passes exactly through a grid corner, of the two
# side cells that meet there (the cells it enters before and after are always checked).
CORNER_BOTH = 0  # both walkable: the no-corner-cut rule (and 4-connected movement)
CORNER_ONE = 1  # at least one walkable: the "one_free" diagonal rule
CORNER_NONE = 2  # neither needed: the "always" diagonal rule


@njit(nogil=True, cache=True, inline="always")
def _open(passable, unit, marks, block_mark, i):
    """Room for a unit ``unit`` cells wide (clearance >= unit; 1: walkable) and not blocked
    for this search. ``marks=None`` (no per-request overlay) compiles a separate
    specialisation that never touches the overlay: ten times faster line-of-sight walks."""
    if marks is None:
        return passable[i] >= unit
    return passable[i] >= unit and marks[i, BLOCKED] != block_mark


@njit(nogil=True, cache=True)
def line_of_sight(passable, stride, unit, marks, block_mark, corner_rule, x0, y0, x1, y1):
    """True if every cell the segment between the centres of ``(x0, y0)`` and ``(x1, y1)``
    touches is open (clearance >= ``unit``, not blocked for this search).

    The segment is walked cell by cell in exact integer arithmetic (a supercover line).
    Where it passes exactly through a grid corner, the two side cells that meet there
    must satisfy ``corner_rule`` (``CORNER_BOTH``: a sight line never squeezes between
    two diagonal walls, just as a diagonal step may not cut a corner).
    """
    dx = x1 - x0
    dy = y1 - y0
    nx = abs(dx)
    ny = abs(dy)
    sx = 1 if dx > 0 else -1
    sy = stride if dy > 0 else -stride
    i = (y0 + 1) * stride + (x0 + 1)
    if not _open(passable, unit, marks, block_mark, i):
        return False
    ix = 0
    iy = 0
    while ix < nx or iy < ny:
        # Compare the parameters t at which the segment next crosses a vertical
        # (x) and a horizontal (y) cell boundary: (0.5 + ix) / nx vs (0.5 + iy) / ny.
        decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
        if decision == 0:  # exactly through a corner
            if corner_rule != CORNER_NONE:
                side_x = _open(passable, unit, marks, block_mark, i + sx)
                side_y = _open(passable, unit, marks, block_mark, i + sy)
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
        if not _open(passable, unit, marks, block_mark, i):
            return False
    return True


@njit(nogil=True, cache=True)
def smooth_path(passable, stride, unit, marks, block_mark, corner_rule, path):
    """Forward string pulling: from the current waypoint, advance along ``path`` while the
    next cell is still in sight; the last cell in sight becomes the next waypoint.

    Returns the indices into ``path`` of the waypoints (first and last always included).
    """
    n = path.shape[0]
    keep = np.empty(n, dtype=np.int64)
    keep[0] = 0
    k = 1
    i = 0
    while i < n - 1:
        j = i + 1
        while j + 1 < n and line_of_sight(
            passable,
            stride,
            unit,
            marks,
            block_mark,
            corner_rule,
            path[i, 0],
            path[i, 1],
            path[j + 1, 0],
            path[j + 1, 1],
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
