"""The fast A* kernel: 8-connected without corner cutting, octile heuristic, uniform cost.

Costs are exact (straight, diagonal) step-count pairs (see :mod:`gridpath.search._frontier`),
so equal costs are bit-for-bit equal floats. :mod:`gridpath.search._jps` shares the pair
helpers below (``open_start``, ``relax``).

The pair search's working set travels through the inlined helpers as one tuple,
``search = (nodes, frontier, open_mark, closed_mark, goal_x, goal_y, orth_w, diag_w)``
(numba keeps its parts in registers once the helpers are inlined).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._frontier import (
    CAME_FROM,
    CELL,
    COST_DIAG,
    COST_ORTH,
    FOUND,
    HEAP_POS,
    LIMIT_REACHED,
    NO_PARENT,
    STATE,
    UNREACHABLE,
    F,
    G,
    pop,
    sift_up,
)
from gridpath.search._prefetch import prefetch


@njit(nogil=True, cache=True, inline="always")
def octile_pair(x, y, goal_x, goal_y):
    """Octile distance from ``(x, y)`` to the goal as (straight steps, diagonal steps)."""
    dx = abs(x - goal_x)
    dy = abs(y - goal_y)
    if dx < dy:
        return dy - dx, dx
    return dx - dy, dy


@njit(nogil=True, cache=True, inline="always")
def pair_search(scratch, goal, stride, orth_w, diag_w):
    """The ``search`` tuple of a pair search towards padded cell ``goal``."""
    nodes, frontier, _g_cost, _marks, generation = scratch
    open_mark = np.int32(2 * generation)
    closed_mark = np.int32(2 * generation + 1)
    return (nodes, frontier, open_mark, closed_mark, goal % stride, goal // stride, orth_w, diag_w)


@njit(nogil=True, cache=True, inline="always")
def relax(search, size, cell, x, y, a, d, current):
    """Offer the route ``current -> cell`` (at ``(x, y)``) of cost ``(a, d)``; returns the
    new frontier size."""
    nodes, frontier, open_mark, closed_mark, goal_x, goal_y, orth_w, diag_w = search
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
    ha, hd = octile_pair(x, y, goal_x, goal_y)
    frontier[i, F] = (a + ha) * orth_w + (d + hd) * diag_w
    frontier[i, G] = g
    frontier[i, CELL] = cell
    sift_up(frontier, nodes, i, 0.0)  # pair costs are exact
    return size


@njit(nogil=True, cache=True, inline="always")
def open_start(search, start, stride):
    """Put ``start`` alone on the frontier of a pair search; returns the heap size."""
    nodes, frontier, open_mark, _closed, goal_x, goal_y, orth_w, diag_w = search
    nodes[start, STATE] = open_mark
    nodes[start, COST_ORTH] = 0
    nodes[start, COST_DIAG] = 0
    nodes[start, CAME_FROM] = NO_PARENT
    nodes[start, HEAP_POS] = 0
    ha, hd = octile_pair(start % stride, start // stride, goal_x, goal_y)
    frontier[0, F] = ha * orth_w + hd * diag_w
    frontier[0, G] = 0.0
    frontier[0, CELL] = start
    return 1


@njit(nogil=True, cache=True)
def astar_octile(grid, rules, scratch, start, goal):
    """A* on an 8-connected grid without corner cutting, octile heuristic.

    A diagonal step is allowed only when both orthogonally adjacent cells are walkable.
    Reads the step weights and ``max_expanded`` of ``rules``. Returns ``(status,
    expanded)``; on ``FOUND`` the route is in ``nodes[:, CAME_FROM]`` and its cost in
    ``nodes[goal, COST_ORTH]``, ``nodes[goal, COST_DIAG]``.
    """
    passable, stride, _terrain = grid
    _unit, _diagonal, orth_w, diag_w, _costs, _uniform, max_expanded, _max_cost, _turn = rules
    search = pair_search(scratch, goal, stride, orth_w, diag_w)
    nodes, frontier, _open_mark, closed_mark, _gx, _gy, _ow, _dw = search
    size = open_start(search, start, stride)
    expanded = 0

    while size > 0:
        current, size = pop(frontier, nodes, size, 0.0)
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
        # Unrolled on purpose: a loop over the eight directions measured slower.
        # N, E, S, W, then NE, SE, SW, NW; a diagonal needs both orthogonal sides open.
        if n_ok:
            size = relax(search, size, north, x, y - 1, a + 1, d, current)
        if e_ok:
            size = relax(search, size, current + 1, x + 1, y, a + 1, d, current)
        if s_ok:
            size = relax(search, size, south, x, y + 1, a + 1, d, current)
        if w_ok:
            size = relax(search, size, current - 1, x - 1, y, a + 1, d, current)
        if n_ok and e_ok and passable[north + 1] != 0:
            size = relax(search, size, north + 1, x + 1, y - 1, a, d + 1, current)
        if s_ok and e_ok and passable[south + 1] != 0:
            size = relax(search, size, south + 1, x + 1, y + 1, a, d + 1, current)
        if s_ok and w_ok and passable[south - 1] != 0:
            size = relax(search, size, south - 1, x - 1, y + 1, a, d + 1, current)
        if n_ok and w_ok and passable[north - 1] != 0:
            size = relax(search, size, north - 1, x - 1, y - 1, a, d + 1, current)
    return UNREACHABLE, expanded
