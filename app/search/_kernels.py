"""Compiled search kernels: numpy arrays and scalars in, arrays and scalars out.

Nothing here knows about HTTP, pydantic or map names. Every kernel is compiled by
numba with ``nogil=True`` (concurrent requests run on separate cores) and
``cache=True`` (compiled code is kept on disk, so a restart does not pay the JIT).

Grid layout
    ``passable`` is the *padded* grid flattened row-major: one blocked cell of border
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
    The per-search arrays (``cost_orth``, ``cost_diag``, ``came_from``, ``state``,
    ``heap_pos``) belong to one search at a time and are never cleared: ``state[i]``
    equals ``2 * generation`` while ``i`` is in the frontier and ``2 * generation + 1``
    once it is closed; any other value means "not seen in this search" (Godot's pass
    counters). Starting a search costs O(1), not O(map).

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

SQRT2 = math.sqrt(2.0)

# Search outcomes (kernel status codes).
FOUND = 0
UNREACHABLE = 1
LIMIT_REACHED = 2

_NO_PARENT = -1


@njit(nogil=True, cache=True, inline="always")
def _before(f_a, g_a, n_a, f_b, g_b, n_b):
    """Frontier order: smaller f, then larger g, then smaller cell index."""
    if f_a != f_b:
        return f_a < f_b
    if g_a != g_b:
        return g_a > g_b
    return n_a < n_b


@njit(nogil=True, cache=True, inline="always")
def _sift_up(heap_node, heap_f, heap_g, heap_pos, i):
    node = heap_node[i]
    f = heap_f[i]
    g = heap_g[i]
    while i > 0:
        p = (i - 1) >> 1
        if _before(f, g, node, heap_f[p], heap_g[p], heap_node[p]):
            heap_node[i] = heap_node[p]
            heap_f[i] = heap_f[p]
            heap_g[i] = heap_g[p]
            heap_pos[heap_node[i]] = i
            i = p
        else:
            break
    heap_node[i] = node
    heap_f[i] = f
    heap_g[i] = g
    heap_pos[node] = i


@njit(nogil=True, cache=True, inline="always")
def _sift_down(heap_node, heap_f, heap_g, heap_pos, i, size):
    node = heap_node[i]
    f = heap_f[i]
    g = heap_g[i]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        r = c + 1
        if r < size and _before(heap_f[r], heap_g[r], heap_node[r], heap_f[c], heap_g[c], heap_node[c]):
            c = r
        if _before(heap_f[c], heap_g[c], heap_node[c], f, g, node):
            heap_node[i] = heap_node[c]
            heap_f[i] = heap_f[c]
            heap_g[i] = heap_g[c]
            heap_pos[heap_node[i]] = i
            i = c
        else:
            break
    heap_node[i] = node
    heap_f[i] = f
    heap_g[i] = g
    heap_pos[node] = i


@njit(nogil=True, cache=True, inline="always")
def _octile_pair(x, y, goal_x, goal_y):
    """Octile distance from ``(x, y)`` to the goal as (straight steps, diagonal steps)."""
    dx = abs(x - goal_x)
    dy = abs(y - goal_y)
    if dx < dy:
        return dy - dx, dx
    return dx - dy, dy


@njit(nogil=True, cache=True, inline="always")
def _relax(node, x, y, a, d, current, goal_x, goal_y, orth_w, diag_w,
           cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f, heap_g,
           size, open_mark, closed_mark):
    """Offer the route ``current -> node`` of cost ``(a, d)``; returns the new heap size."""
    s = state[node]
    if s == closed_mark:
        return size
    g = a * orth_w + d * diag_w
    if s == open_mark:
        if not g < cost_orth[node] * orth_w + cost_diag[node] * diag_w:
            return size
        i = heap_pos[node]
    else:
        state[node] = open_mark
        i = size
        size += 1
        heap_node[i] = node
    cost_orth[node] = a
    cost_diag[node] = d
    came_from[node] = current
    ha, hd = _octile_pair(x, y, goal_x, goal_y)
    heap_f[i] = (a + ha) * orth_w + (d + hd) * diag_w
    heap_g[i] = g
    _sift_up(heap_node, heap_f, heap_g, heap_pos, i)
    return size


@njit(nogil=True, cache=True)
def astar_octile(passable, stride, start, goal, max_expanded, orth_w, diag_w,
                 cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f, heap_g,
                 generation):
    """A* on an 8-connected grid without corner cutting, octile heuristic.

    A diagonal step is allowed only when both orthogonally adjacent cells are walkable.
    Returns ``(status, expanded)``; on ``FOUND`` the route is in ``came_from`` and its cost
    in ``cost_orth[goal]``, ``cost_diag[goal]``.
    """
    open_mark = np.uint32(2 * generation)
    closed_mark = np.uint32(2 * generation + 1)
    goal_x = goal % stride
    goal_y = goal // stride

    state[start] = open_mark
    cost_orth[start] = 0
    cost_diag[start] = 0
    came_from[start] = _NO_PARENT
    ha, hd = _octile_pair(start % stride, start // stride, goal_x, goal_y)
    heap_node[0] = start
    heap_f[0] = ha * orth_w + hd * diag_w
    heap_g[0] = 0.0
    heap_pos[start] = 0
    size = 1
    expanded = 0

    while size > 0:
        current = heap_node[0]
        size -= 1
        if size > 0:
            heap_node[0] = heap_node[size]
            heap_f[0] = heap_f[size]
            heap_g[0] = heap_g[size]
            _sift_down(heap_node, heap_f, heap_g, heap_pos, 0, size)
        state[current] = closed_mark
        expanded += 1
        if current == goal:
            return FOUND, expanded
        if expanded >= max_expanded:
            return LIMIT_REACHED, expanded

        a = cost_orth[current]
        d = cost_diag[current]
        x = current % stride
        y = current // stride
        north = current - stride
        south = current + stride
        n_ok = passable[north] != 0
        e_ok = passable[current + 1] != 0
        s_ok = passable[south] != 0
        w_ok = passable[current - 1] != 0
        if n_ok:
            size = _relax(north, x, y - 1, a + 1, d, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
        if e_ok:
            size = _relax(current + 1, x + 1, y, a + 1, d, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
        if s_ok:
            size = _relax(south, x, y + 1, a + 1, d, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
        if w_ok:
            size = _relax(current - 1, x - 1, y, a + 1, d, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
        if n_ok and e_ok and passable[north + 1] != 0:
            size = _relax(north + 1, x + 1, y - 1, a, d + 1, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
        if s_ok and e_ok and passable[south + 1] != 0:
            size = _relax(south + 1, x + 1, y + 1, a, d + 1, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
        if s_ok and w_ok and passable[south - 1] != 0:
            size = _relax(south - 1, x - 1, y + 1, a, d + 1, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
        if n_ok and w_ok and passable[north - 1] != 0:
            size = _relax(north - 1, x - 1, y - 1, a, d + 1, current, goal_x, goal_y, orth_w, diag_w,
                          cost_orth, cost_diag, came_from, state, heap_pos, heap_node, heap_f,
                          heap_g, size, open_mark, closed_mark)
    return UNREACHABLE, expanded


@njit(nogil=True, cache=True)
def reconstruct_path(came_from, goal, stride):
    """Follow the parent chain from ``goal`` back to the start; returns ``(n, 2)`` int32 ``[x, y]``."""
    n = 1
    node = goal
    while came_from[node] != _NO_PARENT:
        node = came_from[node]
        n += 1
    path = np.empty((n, 2), dtype=np.int32)
    node = goal
    for i in range(n - 1, -1, -1):
        path[i, 0] = node % stride - 1
        path[i, 1] = node // stride - 1
        node = came_from[node]
    return path


@njit(nogil=True, cache=True)
def line_of_sight(passable, stride, x0, y0, x1, y1):
    """True if every cell the segment between the centres of ``(x0, y0)`` and ``(x1, y1)``
    touches is walkable.

    The segment is walked cell by cell in exact integer arithmetic (a supercover line).
    Where it passes exactly through a grid corner, all four cells that meet there must
    be walkable: a sight line never squeezes between two diagonal walls, just as a
    diagonal step may not cut a corner.
    """
    dx = x1 - x0
    dy = y1 - y0
    nx = abs(dx)
    ny = abs(dy)
    sx = 1 if dx > 0 else -1
    sy = stride if dy > 0 else -stride
    i = (y0 + 1) * stride + (x0 + 1)
    if passable[i] == 0:
        return False
    ix = 0
    iy = 0
    while ix < nx or iy < ny:
        # Compare the parameters t at which the segment next crosses a vertical
        # (x) and a horizontal (y) cell boundary: (0.5 + ix) / nx vs (0.5 + iy) / ny.
        decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
        if decision == 0:  # exactly through a corner: both side cells must be open
            if passable[i + sx] == 0 or passable[i + sy] == 0:
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
        if passable[i] == 0:
            return False
    return True


@njit(nogil=True, cache=True)
def smooth_path(passable, stride, path):
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
        while j + 1 < n and line_of_sight(passable, stride, path[i, 0], path[i, 1],
                                          path[j + 1, 0], path[j + 1, 1]):
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
        if (path[i, 0] - path[i - 1, 0] != path[i + 1, 0] - path[i, 0]
                or path[i, 1] - path[i - 1, 1] != path[i + 1, 1] - path[i, 1]):
            keep[k] = i
            k += 1
    if n > 1:
        keep[k] = n - 1
        k += 1
    return keep[:k].copy()
