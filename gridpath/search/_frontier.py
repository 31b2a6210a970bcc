"""The frontier and the search tree every kernel shares: the scratch layout, the heap
and its order, the outcome codes, and the parent-chain rebuild.

Nothing in the kernel modules (``gridpath/search/_*.py``) knows about HTTP, pydantic or map
names. Every kernel is compiled by numba with ``nogil=True`` (concurrent requests run on
separate cores) and ``cache=True`` (compiled code is kept on disk, so a restart does not
pay the JIT). What a kernel receives is bundled in a few records (plain tuples: numba
types them in C at call time, where named tuples take a slow path; see
:mod:`gridpath.search._records`).

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

import numpy as np
from numba import njit

# Search outcomes (kernel status codes).
FOUND = 0
UNREACHABLE = 1
LIMIT_REACHED = 2

NO_PARENT = -1


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
def before(f_a, g_a, n_a, f_b, g_b, n_b, tie):
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
def sift_up(frontier, nodes, i, tie):
    f = frontier[i, F]
    g = frontier[i, G]
    cell = frontier[i, CELL]
    while i > 0:
        p = (i - 1) >> 1
        pf = frontier[p, F]
        pg = frontier[p, G]
        pc = frontier[p, CELL]
        if not before(f, g, cell, pf, pg, pc, tie):
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
def sift_down(frontier, nodes, i, size, tie):
    f = frontier[i, F]
    g = frontier[i, G]
    cell = frontier[i, CELL]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        r = c + 1
        if r < size and before(
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
        if not before(cf, cg, cc, f, g, cell, tie):
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
def pop(frontier, nodes, size, tie):
    """Take the first node off the frontier; returns ``(node, new size)``."""
    current = int(frontier[0, CELL])
    size -= 1
    if size > 0:
        frontier[0, F] = frontier[size, F]
        frontier[0, G] = frontier[size, G]
        frontier[0, CELL] = frontier[size, CELL]
        sift_down(frontier, nodes, 0, size, tie)
    return current, size


@njit(nogil=True, cache=True)
def reconstruct_path(nodes, goal, stride, dirs):
    """Follow ``came_from`` from the ``goal`` node back to the start; returns ``(n, 2)``
    int32 ``[x, y]``. A node is a cell, or ``cell * dirs + heading`` when ``dirs`` > 1."""
    n = 1
    node = goal
    while nodes[node, CAME_FROM] != NO_PARENT:
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
