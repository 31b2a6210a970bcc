"""The subgoal graph: subgoals, their bit planes and the exploration that finds the edges
(:mod:`gridpath.search._subgoal`)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

SQRT2 = math.sqrt(2.0)
_EPS = 1e-9


# ---------------------------------------------------------------------------------------
# Subgoals and the exploration (the padded grid has a blocked border: no bounds tests).


# The exploration reads bit planes, ``bits`` (uint64 rows of three words: the OPEN cells of
# 64 cells, open meaning walkable and not a subgoal, their WALKABLE cells, and (rows
# only) the subgoals before them in cell order, side by side so a walk's stop is
# classified, and a subgoal's id counted, from the cache line that found it): a header, then every
# padded row's words (``row_words`` per row), then every padded column's (the grid
# transposed, ``column_words`` per column), so that a straight walk in any of the four
# directions scans 64 cells a word at a time and a vertical one reads one word per 64
# cells instead of a cache line per cell. A subgoal is walkable and not open; its id while
# the graph is built is its place among the subgoal cells in cell order (its word's count
# plus the subgoals before it in the word); the query maps that to the hierarchy's id.
OPEN_BITS, WALK_BITS, BEFORE = 0, 1, 2  # the columns of ``bits``
HEADER_ROWS = 2  # (stride, row_words), (first column row, column_words)
# An upward edge is a 16-byte record, what a search reads of an edge in one place, in
# float64 rows ``(cost, -)`` whose int32 view (``edges.view(np.int32)``) holds in columns
# TO and MID the node it leads to and the node a shortcut bypasses (-1: an edge of the
# subgoal graph). The cost is ``orth + diag * sqrt 2`` from the edge's exact step counts.
COST = 0  # float64 column
TO, MID = 2, 3  # int32 columns of the view
_ONE = np.uint64(1)
_UNBOUNDED = 1 << 62  # a walk's limit that never binds


@njit(nogil=True, cache=True)
def mark_subgoals(passable, stride):
    """The exploration's bit planes (above) and the subgoals' cells, in cell order (a
    subgoal's id is its position there)."""
    n = passable.size
    height = n // stride
    row_words = (stride + 63) // 64
    column_words = (height + 63) // 64
    column_base = HEADER_ROWS + height * row_words
    bits = np.zeros((column_base + stride * column_words, 3), dtype=np.uint64)
    bits[0, 0], bits[0, 1] = stride, row_words
    bits[1, 0], bits[1, 1] = column_base, column_words
    count = 0
    for c in range(stride + 1, n - stride - 1):
        if passable[c] == 0:
            continue
        subgoal = False
        for dy in (-stride, stride):
            for dx in (-1, 1):
                if passable[c + dx + dy] == 0 and passable[c + dx] != 0 and passable[c + dy] != 0:
                    subgoal = True
        x, y = c % stride, c // stride
        r = HEADER_ROWS + y * row_words + (x >> 6)
        t = column_base + x * column_words + (y >> 6)
        bits[r, WALK_BITS] |= _ONE << np.uint64(x & 63)
        bits[t, WALK_BITS] |= _ONE << np.uint64(y & 63)
        if subgoal:
            count += 1
        else:
            bits[r, OPEN_BITS] |= _ONE << np.uint64(x & 63)
            bits[t, OPEN_BITS] |= _ONE << np.uint64(y & 63)
    cells = np.empty(count, dtype=np.int32)
    count = 0
    for r in range(HEADER_ROWS, column_base):
        bits[r, BEFORE] = count
        count += _popcount(bits[r, WALK_BITS] & ~bits[r, OPEN_BITS])
    count = 0
    for c in range(n):
        if _is_subgoal(bits, c):
            cells[count] = c
            count += 1
    return bits, cells


@njit(nogil=True, cache=True, inline="always")
def _popcount(w):
    w = w - ((w >> np.uint64(1)) & np.uint64(0x5555555555555555))
    w = (w & np.uint64(0x3333333333333333)) + ((w >> np.uint64(2)) & np.uint64(0x3333333333333333))
    w = (w + (w >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((w * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(nogil=True, cache=True, inline="always")
def _bit(bits, plane, x, y):
    """Bit ``plane`` (OPEN_BITS, WALK_BITS) of padded cell (x, y), from the row words."""
    r = HEADER_ROWS + y * np.int64(bits[0, 1]) + (x >> 6)
    return (bits[r, plane] >> np.uint64(x & 63)) & _ONE


@njit(nogil=True, cache=True, inline="always")
def _is_subgoal(bits, cell):
    stride = np.int64(bits[0, 0])
    x, y = cell % stride, cell // stride
    return _bit(bits, WALK_BITS, x, y) != 0 and _bit(bits, OPEN_BITS, x, y) == 0


@njit(nogil=True, cache=True, inline="always")
def subgoal_id(bits, cell):
    """The place of subgoal ``cell`` among the subgoals in cell order."""
    stride = np.int64(bits[0, 0])
    x, y = cell % stride, cell // stride
    r = HEADER_ROWS + y * np.int64(bits[0, 1]) + (x >> 6)
    below = (_ONE << np.uint64(x & 63)) - _ONE
    return np.int64(bits[r, BEFORE]) + _popcount(bits[r, WALK_BITS] & ~bits[r, OPEN_BITS] & below)


@njit(nogil=True, cache=True, inline="always")
def _next_closed(bits, base, p):
    """The first position after ``p`` on the line whose words start at row ``base`` that
    is not open (the blocked border ends every line)."""
    q = p + 1
    i = base + (q >> 6)
    w = ~bits[i, OPEN_BITS] >> np.uint64(q & 63)
    if w != 0:
        return q + np.int64(trailing_zeros(w))
    q = (q | 63) + 1
    while True:
        i += 1
        w = ~bits[i, OPEN_BITS]
        if w != 0:
            return q + np.int64(trailing_zeros(w))
        q += 64


@njit(nogil=True, cache=True, inline="always")
def _previous_closed(bits, base, p):
    """The last position before ``p`` on the line that is not open."""
    q = p - 1
    i = base + (q >> 6)
    w = ~bits[i, OPEN_BITS] << np.uint64(63 - (q & 63))
    if w != 0:
        return q - np.int64(leading_zeros(w))
    q = (q & ~63) - 1
    while True:
        i -= 1
        w = ~bits[i, OPEN_BITS]
        if w != 0:
            return q - np.int64(leading_zeros(w))
        q -= 64


@njit(nogil=True, cache=True, inline="always")
def _straight(bits, target, tx, ty, x, y, dx, dy, limit):
    """Open cells passed going straight from (x, y) by (dx, dy) before a wall or a stop (a
    subgoal or ``target``, at (tx, ty)), and the stop reached (-1: a wall); a walk that
    would pass more than ``limit`` open cells ends there (``limit + 1``, -1): the
    exploration has no use for what lies beyond."""
    stride = np.int64(bits[0, 0])
    if dy == 0:  # along row y
        base = HEADER_ROWS + y * np.int64(bits[0, 1])
        p, line, across = x, y, 1
    else:  # along column x
        base = np.int64(bits[1, 0]) + x * np.int64(bits[1, 1])
        p, line, across = y, x, 0
    forward = dx + dy > 0
    q = _next_closed(bits, base, p) if forward else _previous_closed(bits, base, p)
    if target >= 0:
        t, t_line = (tx, ty) if across == 1 else (ty, tx)
        if t_line == line and ((p < t < q) if forward else (q < t < p)):
            k = abs(t - p) - 1
            if k > limit:
                return limit + 1, -1
            return k, target
    k = abs(q - p) - 1
    if k > limit:
        return limit + 1, -1
    if (bits[base + (q >> 6), WALK_BITS] >> np.uint64(q & 63)) & _ONE == 0:
        return k, -1
    return k, (y * stride + q if across == 1 else q * stride + x)


@njit(nogil=True, cache=True, inline="always")
def _diagonal(bits, target, x, y, sx, sy):
    """:func:`_straight` along the diagonal (sx, sy): a step that would cut a corner stops
    it like a wall."""
    stride = np.int64(bits[0, 0])
    k = 0
    while True:
        if _bit(bits, WALK_BITS, x + sx, y) == 0 or _bit(bits, WALK_BITS, x, y + sy) == 0:
            return k, -1
        x += sx
        y += sy
        nxt = y * stride + x
        if _bit(bits, OPEN_BITS, x, y) == 0 or nxt == target:
            if _bit(bits, WALK_BITS, x, y) == 0:
                return k, -1
            return k, nxt
        k += 1


@njit(nogil=True, cache=True, inline="always")
def _ray(bits, aim, x, y, dx, dy, reach, diagonal_steps, out, n):
    """One straight ray of the exploration from (x, y) (``diagonal_steps`` diagonal steps
    from the source), at most ``reach + 1`` cells long: a stop within it is found (and the
    rays after this one end before its column or row). Returns the new count and the
    reach of the next ray along the diagonal. ``aim``: ``(target, tx, ty)``; ``out``: the
    exploration's ``(found, orth, diag)``."""
    target, tx, ty = aim
    found, orth, diag = out
    j, stop = _straight(bits, target, tx, ty, x, y, dx, dy, reach)
    if stop >= 0 and j <= reach:
        found[n], orth[n], diag[n] = stop, j + 1, diagonal_steps
        n += 1
        j -= 1
    return n, min(j, reach)


@njit(nogil=True, cache=True, inline="always")
def _first_ray(bits, aim, x, y, dx, dy, out, n):
    """A straight ray from the source itself, unbounded: returns the new count and its
    length, the reach of the rays along the diagonals on its side (as :func:`_ray`)."""
    target, tx, ty = aim
    found, orth, diag = out
    j, stop = _straight(bits, target, tx, ty, x, y, dx, dy, _UNBOUNDED)
    if stop >= 0:
        found[n], orth[n], diag[n] = stop, j + 1, 0
        n += 1
    return n, j


@njit(nogil=True, cache=True)
def explore(bits, source, target, found, orth, diag):
    """The subgoals (or ``target``) directly h-reachable from padded cell ``source``: their
    cells go to ``found`` with the octile move's straight and diagonal step counts;
    returns how many. ``found`` needs room for every subgoal plus one."""
    stride = np.int64(bits[0, 0])
    x, y = source % stride, source // stride
    aim = (target, target % stride, target // stride)
    out = (found, orth, diag)
    n, reach_n = _first_ray(bits, aim, x, y, 0, -1, out, 0)
    n, reach_e = _first_ray(bits, aim, x, y, 1, 0, out, n)
    n, reach_s = _first_ray(bits, aim, x, y, 0, 1, out, n)
    n, reach_w = _first_ray(bits, aim, x, y, -1, 0, out, n)
    for sy in (-1, 1):
        for sx in (1, -1):
            reach_x = reach_e if sx > 0 else reach_w
            reach_y = reach_n if sy < 0 else reach_s
            steps, stop = _diagonal(bits, target, x, y, sx, sy)
            if stop >= 0:
                found[n], orth[n], diag[n] = stop, 0, steps + 1
                n += 1
            for i in range(1, steps + 1):
                if reach_x < 0 and reach_y < 0:
                    break  # both rays are cut off for the rest of this diagonal
                cx, cy = x + i * sx, y + i * sy
                if reach_x >= 0:
                    n, reach_x = _ray(bits, aim, cx, cy, sx, 0, reach_x, i, out, n)
                if reach_y >= 0:
                    n, reach_y = _ray(bits, aim, cx, cy, 0, sy, reach_y, i, out, n)
    return n


@njit(nogil=True, cache=True)
def subgoal_edges(bits, cells):
    """The subgoal graph's edges ``(u, v)`` with ``u < v`` (each once), their costs and
    their straight and diagonal step counts packed as ``orth << 32 | diag``."""
    count = cells.size
    found = np.empty(count + 1, dtype=np.int64)
    orth = np.empty(count + 1, dtype=np.int64)
    diag = np.empty(count + 1, dtype=np.int64)
    cap = 16 * count + 16
    keys = np.empty(cap, dtype=np.int64)
    steps = np.empty(cap, dtype=np.int64)
    m = 0
    for u in range(count):
        k = explore(bits, cells[u], -1, found, orth, diag)
        for i in range(k):
            v = subgoal_id(bits, found[i])
            a, b = (u, v) if u < v else (v, u)
            if m == cap:
                cap *= 2
                keys2 = np.empty(cap, dtype=np.int64)
                steps2 = np.empty(cap, dtype=np.int64)
                keys2[:m] = keys[:m]
                steps2[:m] = steps[:m]
                keys, steps = keys2, steps2
            keys[m] = a * count + b
            steps[m] = orth[i] * (1 << 32) + diag[i]
            m += 1
    order = np.argsort(keys[:m], kind="mergesort")
    eu = np.empty(m, dtype=np.int32)
    ev = np.empty(m, dtype=np.int32)
    ew = np.empty(m, dtype=np.float64)
    es = np.empty(m, dtype=np.int64)
    e = 0
    last = -1
    for i in order:
        if keys[i] == last:
            continue
        last = keys[i]
        eu[e] = keys[i] // count
        ev[e] = keys[i] % count
        ew[e] = (steps[i] >> 32) + (steps[i] & 0xFFFFFFFF) * SQRT2
        es[e] = steps[i]
        e += 1
    return eu[:e].copy(), ev[:e].copy(), ew[:e].copy(), es[:e].copy()
