"""Lazy Theta* (Nash, Koenig and Tovey, AAAI 2010): any-angle paths between cell centres.

A* over the grid's cells (the same neighbours, movement rule and unit size as every
kernel), except that a cell reached from ``current`` is given ``current``'s own parent
as its parent, at the cost of the straight segment between their centres (on terrain,
where that segment may cost more than going through ``current``, the cheaper of the two
is offered, as Basic Theta* compares them). The segment
is only checked when the cell is expanded (the "lazy" part): if its parent cannot see
it under the service's line-of-sight rule (:func:`gridpath.search._sight.line_of_sight`,
the rule smoothing and ``/validate`` waypoints mode use), it takes instead the closed
neighbour that reaches it most cheaply by one legal step. Every parent link is
therefore a segment in sight, and the chain of parents from the goal is the path's
vertices.

A parent link costs the continuous cost of its segment (:mod:`gridpath.search._cost`:
the length inside each cell times the cell's terrain cost; on uniform terrain its
Euclidean length, as before terrain was priced), so the answer's cost is exactly what
walking its vertices costs. The heuristic is the Euclidean distance to the goal times the
cheapest terrain cost (consistent for these costs: every unit of length costs at least
that). The frontier order is the
shared one (:mod:`gridpath.search._frontier`: smaller ``f``, then larger ``g``, then smaller
cell index, ties within ``TIE_REL``); neighbours are generated in the shared order and a
cell's parent changes only on a strictly cheaper route, so the answer is deterministic.
Theta* paths are not guaranteed shortest (its parents are limited to parents of
neighbours).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gridpath.search._cost import segment_cost
from gridpath.search._frontier import (
    CAME_FROM,
    FOUND,
    LIMIT_REACHED,
    NO_PARENT,
    STATE,
    TIE_REL,
    UNREACHABLE,
    pop,
)
from gridpath.search._general import (
    ASTAR,
    EUCLIDEAN,
    neighbour,
    offer,
    open_origin,
    open_sides,
)
from gridpath.search._records import DIAGONAL_NEVER, SQRT2, is_open
from gridpath.search._sight import line_of_sight


@njit(nogil=True, cache=True, inline="always")
def _length(a, b, stride):
    """Euclidean distance between the centres of padded cells ``a`` and ``b``."""
    dx = a % stride - b % stride
    dy = a // stride - b // stride
    return math.sqrt(dx * dx + dy * dy)


@njit(nogil=True, cache=True, inline="always")
def _sees(grid, sight, marks, block_mark, a, b, stride):
    """Line of sight between padded cells ``a`` and ``b`` (unpadded for the sight kernel)."""
    ends_a = (a % stride - 1, a // stride - 1)
    ends_b = (b % stride - 1, b // stride - 1)
    return line_of_sight(grid, sight, marks, block_mark, ends_a, ends_b)


@njit(nogil=True, cache=True, inline="always")
def _segment(price, a, b, stride):
    """The cost of the segment between the centres of padded cells ``a`` and ``b``: its
    Euclidean length on uniform terrain (bit for bit the cost before terrain was priced),
    else its continuous cost under ``price``."""
    if price[2]:
        return _length(a, b, stride)
    ends_a = (a % stride - 1, a // stride - 1)
    ends_b = (b % stride - 1, b // stride - 1)
    return segment_cost(price, ends_a, ends_b)


@njit(nogil=True, cache=True)
def lazy_theta(grid, rules, sight, price, h_factor, scratch, marks, start, goal):
    """Search from padded cell ``start`` to padded cell ``goal``.

    Records (:mod:`gridpath.search._records`): ``grid``, ``rules`` (unit, diagonal rule and
    ``max_expanded`` are read), ``scratch`` (``nodes``, ``frontier``, ``g_cost``, its
    generation); ``sight`` is ``(unit, corner_rule)`` for the line-of-sight kernel;
    ``marks`` the per-request blocked cells stamped with the scratch's generation (or
    ``None``); ``price`` the price record of :mod:`gridpath.search._cost` and ``h_factor``
    the cheapest walkable class cost (scales the Euclidean heuristic). Returns
    ``(status, expanded)``; on ``FOUND`` the ``CAME_FROM`` chain from ``goal`` holds the
    path's vertices and ``g_cost[goal]`` its cost.
    """
    passable, stride, _terrain = grid
    unit, diagonal, max_expanded = rules[0], rules[1], rules[6]
    nodes, frontier, g_cost, _marks, generation = scratch
    open_mark = np.int32(2 * generation)
    closed_mark = np.int32(2 * generation + 1)
    goal_xy = np.empty((1, 2), dtype=np.int64)
    goal_xy[0, 0] = goal % stride
    goal_xy[0, 1] = goal // stride
    # The shared offer rule (_general.offer) as A* with the Euclidean heuristic on unit
    # steps: f = g + distance to the goal, parent changed only on a strictly cheaper route.
    search = (nodes, g_cost, frontier, open_mark, closed_mark, ASTAR, EUCLIDEAN, h_factor,
              goal_xy, 1.0, SQRT2, np.inf)  # fmt: skip
    size = open_origin(search, start)
    expanded = 0
    directions = 8 if diagonal != DIAGONAL_NEVER else 4
    while size > 0:
        current, size = pop(frontier, nodes, size, TIE_REL)
        nodes[current, STATE] = closed_mark
        expanded += 1
        x = current % stride
        y = current // stride
        sides = open_sides(passable, unit, marks, generation, current, stride)
        parent = nodes[current, CAME_FROM]
        if parent != NO_PARENT and not _sees(
            grid, sight, marks, generation, parent, current, stride
        ):
            # The lazy check failed: the cheapest closed neighbour one legal step away
            # (there is one: the cell this one was reached from is closed).
            best = -1.0  # none yet
            for k in range(directions):
                ok, cell, _nx, _ny = neighbour(k, current, x, y, stride, sides, diagonal)
                if k >= 4:
                    ok = ok and is_open(passable, unit, marks, generation, cell)
                if not ok or nodes[cell, STATE] != closed_mark:
                    continue
                if price[2]:
                    g = g_cost[cell] + (SQRT2 if k >= 4 else 1.0)
                else:
                    g = g_cost[cell] + _segment(price, cell, current, stride)
                if best < 0 or g < best - TIE_REL * (g + best):
                    best = g
                    parent = cell
            nodes[current, CAME_FROM] = parent
            g_cost[current] = best
        if current == goal:
            return FOUND, expanded
        if expanded >= max_expanded:
            return LIMIT_REACHED, expanded
        origin = current if parent == NO_PARENT else parent
        for k in range(directions):
            ok, cell, nx, ny = neighbour(k, current, x, y, stride, sides, diagonal)
            if k >= 4:
                ok = ok and is_open(passable, unit, marks, generation, cell)
            if not ok:
                continue
            g = g_cost[origin] + _segment(price, origin, cell, stride)
            via = origin
            if not price[2] and origin != current:
                # On terrain the segment from the parent may cross dearer ground than the
                # step from here (no triangle inequality): offer the cheaper of the two,
                # as Basic Theta* does (the step needs no sight check).
                step = g_cost[current] + _segment(price, current, cell, stride)
                if step < g - TIE_REL * (step + g):
                    g = step
                    via = current
            size, _pruned = offer(search, size, cell, nx, ny, g, via)
    return UNREACHABLE, expanded
