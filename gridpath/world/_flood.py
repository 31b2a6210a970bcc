"""The world flow field's kernel: one Dijkstra from the goal over every map of the world at
once, the usable link ways relaxed backwards (a way's entrance is offered at its exit's
cost plus the way's cost, never the other way round).

The maps are stacked: their padded flat arrays (:mod:`gridpath.search._frontier`'s grid
layout) laid end to end, map ``m``'s cells from ``offsets[m]`` on. Each map keeps its
blocked border, so a move never leaves its map; only a link way joins two maps. The moves
are the general kernel's (:func:`gridpath.search._general.search_grid`: the same neighbour
order, corner rules, clearance and step cost ``length * mean cell cost``), and the frontier
is the shared heap with its tie rule, so one map without links gets the single-map flow
field's costs. This is the per-map multi-source Dijkstra iterated to its fixpoint (each
map seeded with the goal and its ways' entrances at ``cost + exit's cost``) done in one
pass: each cell is settled once, so the work is bounded by the world's cells, not by the
number of ways times the cells.

``came_from`` of a cell is its first step towards the goal: the neighbour it moves to, ``-1``
for none (the goal), or ``LINK_PARENT - link`` when the first step is link ``link`` (its
index in ``world.links``). A cell's parent is settled before it, so the steps form a tree
and following them always ends at the goal.

Ties (equal cost within the frontier's ``TIE_REL``): a move wins over a link, so a unit
takes a link only where it is strictly cheaper than walking; between links, the first
offered (the search's order: the exit settled first, then the lower way) keeps the cell.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._frontier import (
    CAME_FROM,
    CELL,
    GOAL,
    HEAP_POS,
    STATE,
    TIE_REL,
    F,
    G,
    pop,
    sift_up,
)
from gridpath.search._general import neighbour, open_sides
from gridpath.search._records import DIAGONAL_NEVER, is_open

LINK_PARENT = -2  # came_from <= LINK_PARENT: the first step is link LINK_PARENT - came_from
# Neighbour offsets (dx, dy) in the kernels' order: gridpath.search.flowfield.DIRECTIONS.
OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1))


@njit(nogil=True, cache=True, inline="always")
def _relax(search, size, node, g, parent, move):
    """Offer ``node`` at cost ``g`` with first step ``parent``; returns the heap size.
    ``search``: ``(nodes, g_cost, frontier, open_mark, closed_mark)``."""
    nodes, g_cost, frontier, open_mark, closed_mark = search
    s = nodes[node, STATE]
    if s == closed_mark:
        return size
    if s == open_mark:
        old = g_cost[node]
        tol = TIE_REL * (g + old)
        if not g < old - tol:
            # Not strictly cheaper: only a move tying a link takes the cell (moves win ties).
            if not (move and nodes[node, CAME_FROM] <= LINK_PARENT and g <= old + tol):
                return size
            g = min(g, old)
        i = nodes[node, HEAP_POS]
    else:
        nodes[node, STATE] = open_mark
        i = size
        size += 1
    g_cost[node] = g
    nodes[node, CAME_FROM] = parent
    frontier[i, F] = g
    frontier[i, G] = g
    frontier[i, CELL] = node
    sift_up(frontier, nodes, i, TIE_REL)
    return size


@njit(nogil=True, cache=True)
def flood(world, rules, ways, scratch, goal):
    """Dijkstra from stacked cell ``goal``; returns ``(expanded, limit_reached)``.

    ``world``: ``(passable, cell_cost, uniform, offsets, strides)`` (stacked clearance,
    stacked cell costs unless ``uniform``, each map's first cell and padded row length);
    ``rules``: ``(unit, diagonal, orth_w, diag_w, max_expanded)``; ``ways``: ``(exits,
    entrances, costs, links)``, sorted by exit (stacked cells; ``marks[exit, GOAL]`` is
    stamped); ``scratch``: the record of :class:`gridpath.search.scratch.SearchScratch`."""
    passable, cell_cost, uniform, offsets, strides = world
    unit, diagonal, orth_w, diag_w, max_expanded = rules
    exits, entrances, way_cost, way_link = ways
    nodes, frontier, g_cost, marks, generation = scratch
    closed_mark = np.int32(2 * generation + 1)
    search = (nodes, g_cost, frontier, np.int32(2 * generation), closed_mark)
    size = _relax(search, 0, goal, 0.0, -1, False)
    expanded = 0
    while size > 0:
        if expanded >= max_expanded:
            return expanded, True
        here, size = pop(frontier, nodes, size, TIE_REL)
        nodes[here, STATE] = closed_mark
        expanded += 1
        g = g_cost[here]
        if marks[here, GOAL] == generation:  # the exit of ways: offer their entrances
            k = np.searchsorted(exits, here)
            while k < exits.shape[0] and exits[k] == here:
                parent = LINK_PARENT - way_link[k]
                size = _relax(search, size, entrances[k], g + way_cost[k], parent, False)
                k += 1
        stride = strides[np.searchsorted(offsets, here, side="right") - 1]
        sides = open_sides(passable, unit, marks, generation, here, stride)
        # N, E, S, W, then NE, SE, SW, NW: moves are symmetric, so the step from the
        # neighbour to here costs what the step from here to the neighbour does.
        for k in range(8 if diagonal != DIAGONAL_NEVER else 4):
            ok, cell, _, _ = neighbour(k, here, 0, 0, stride, sides, diagonal)
            length = orth_w
            if k >= 4:
                ok = ok and is_open(passable, unit, marks, generation, cell)
                length = diag_w
            if not ok:
                continue
            step = length if uniform else length * 0.5 * (cell_cost[here] + cell_cost[cell])
            size = _relax(search, size, cell, g + step, here, True)
    return expanded, False


@njit(nogil=True, cache=True)
def extract(nodes, g_cost, generation, offset, stride, cost, step, link):
    """One map's field from the flood: ``cost`` (-1: not reached), ``step`` (direction
    code, -1: none or a link) and ``link`` (index in ``world.links``, -1: a move or none)."""
    closed = np.int32(2 * generation + 1)
    height, width = cost.shape
    for y in range(height):
        for x in range(width):
            cell = offset + (y + 1) * stride + x + 1
            step[y, x] = -1
            link[y, x] = -1
            if nodes[cell, STATE] != closed:
                cost[y, x] = -1.0
                continue
            cost[y, x] = g_cost[cell]
            parent = nodes[cell, CAME_FROM]
            if parent <= LINK_PARENT:
                link[y, x] = LINK_PARENT - parent
                continue
            if parent < 0:
                continue
            delta = parent - cell
            for k in range(8):
                if OFFSETS[k][1] * stride + OFFSETS[k][0] == delta:
                    step[y, x] = k
                    break
