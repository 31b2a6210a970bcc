"""Subgoal graphs with a contraction hierarchy (Uras and Koenig's SUB-CH), for uniform cost,
8-connected movement without corner cutting.

Subgoals
    A walkable cell is a subgoal when it lies diagonally next to a convex corner of an
    obstacle: for some diagonal (dx, dy) the cell ``(x + dx, y + dy)`` is blocked while
    ``(x + dx, y)`` and ``(x, y + dy)`` are open. Every shortest path can be taut around
    such corners, so it can be cut into pieces between subgoals (and the two endpoints)
    whose length is the octile distance ("h-reachable" pieces).

Edges
    Between subgoals that are directly h-reachable (an octile-length path joins them and no
    other subgoal lies on such a path), found by the clearance-based exploration of
    Uras, Koenig and Hernandez (ICAPS 2013): the straight rays, then along each diagonal
    the two straight rays from every diagonal cell, each bounded by the rays of the
    previous diagonal cell and cut short at a subgoal. Every cell the exploration reaches
    is reached diagonally first, then straight, so that move is a legal path of octile
    length: the canonical refinement of an edge is "diagonal first, then straight" from
    the end that found it, tried from the path's first end first (see
    :func:`_append_segment`).

Hierarchy
    Subgoals are contracted one at a time in order of a lazily updated priority (edge
    difference plus contracted neighbours plus level), adding a shortcut between two
    neighbours when a bounded witness search finds no path as short without the node. A
    settle limit on a witness search can only add shortcuts, never lose a distance. The
    result is kept as upward edges (to a later-contracted node) in CSR form, the nodes
    renumbered from the top of the hierarchy down (the nodes every search reaches share
    cache lines); a shortcut remembers the node it bypasses, so a path unpacks recursively.

Query
    A start (goal) that is not a subgoal is joined to the subgoals the same exploration
    reaches from it; when the start's exploration reaches the goal itself the answer is
    the octile move. Otherwise a bidirectional Dijkstra over the upward edges from both
    sets, stopping when neither frontier can improve the best meeting; the meeting's
    two parent chains unpack to subgoals and refine to cells.

Costs are float sums of ``orth + diag * sqrt 2`` on the graph (distinct path costs on
these maps differ by far more than the rounding of such sums: a witness counts when it is
no longer than the route through the node, within ``_EPS``); the reported cost comes from
the refined path's exact step counts, as for the other exact kernels. Everything is
deterministic: the build visits nodes in index order and breaks heap ties by node index.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from gridpath.search._frontier import FOUND, LIMIT_REACHED, UNREACHABLE
from gridpath.search._prefetch import prefetch

SQRT2 = math.sqrt(2.0)
_EPS = 1e-9
_INF = np.inf


# ---------------------------------------------------------------------------------------
# Binary heaps of (key, item), ordered by key then item (deterministic ties), held in a
# pair of columns of a float64 array: one row per heap level.


@njit(nogil=True, cache=True, inline="always")
def _before(key, item, other_key, other_item):
    return key < other_key or (key == other_key and item < other_item)


@njit(nogil=True, cache=True, inline="always")
def _push(h, c, size, key, item):
    """Push on the heap held in columns ``c`` (key) and ``c + 1`` (item, a whole number
    as a float) of ``h``; returns the new size."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if _before(key, item, h[parent, c], h[parent, c + 1]):
            h[i, c], h[i, c + 1] = h[parent, c], h[parent, c + 1]
            i = parent
        else:
            break
    h[i, c], h[i, c + 1] = key, item
    return size + 1


@njit(nogil=True, cache=True, inline="always")
def _pop(h, c, size):
    """Remove the top (read it first from row 0); returns the new size."""
    size -= 1
    key, item = h[size, c], h[size, c + 1]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        ck, ci = h[child, c], h[child, c + 1]
        if child + 1 < size:
            rk, ri = h[child + 1, c], h[child + 1, c + 1]
            if _before(rk, ri, ck, ci):
                child, ck, ci = child + 1, rk, ri
        if _before(ck, ci, key, item):
            h[i, c], h[i, c + 1] = ck, ci
            i = child
        else:
            break
    h[i, c], h[i, c + 1] = key, item
    return size


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
def _ray(bits, target, tx, ty, x, y, dx, dy, reach, diagonal_steps, found, orth, diag, n):
    """One straight ray of the exploration from (x, y) (``diagonal_steps`` diagonal steps
    from the source), at most ``reach + 1`` cells long: a stop within it is found (and the
    rays after this one end before its column or row). Returns the new count and the
    reach of the next ray along the diagonal."""
    j, stop = _straight(bits, target, tx, ty, x, y, dx, dy, reach)
    if stop >= 0 and j <= reach:
        found[n], orth[n], diag[n] = stop, j + 1, diagonal_steps
        n += 1
        j -= 1
    return n, min(j, reach)


@njit(nogil=True, cache=True, inline="always")
def _first_ray(bits, target, tx, ty, x, y, dx, dy, found, orth, diag, n):
    """A straight ray from the source itself, unbounded: returns the new count and its
    length, the reach of the rays along the diagonals on its side."""
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
    tx, ty = target % stride, target // stride
    n, reach_n = _first_ray(bits, target, tx, ty, x, y, 0, -1, found, orth, diag, 0)
    n, reach_e = _first_ray(bits, target, tx, ty, x, y, 1, 0, found, orth, diag, n)
    n, reach_s = _first_ray(bits, target, tx, ty, x, y, 0, 1, found, orth, diag, n)
    n, reach_w = _first_ray(bits, target, tx, ty, x, y, -1, 0, found, orth, diag, n)
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
                    n, reach_x = _ray(
                        bits, target, tx, ty, cx, cy, sx, 0, reach_x, i, found, orth, diag, n
                    )
                if reach_y >= 0:
                    n, reach_y = _ray(
                        bits, target, tx, ty, cx, cy, 0, sy, reach_y, i, found, orth, diag, n
                    )
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


# ---------------------------------------------------------------------------------------
# Contraction. Half-edges live in slots; slot s and s ^ 1 are the two halves of an edge.


@njit(nogil=True, cache=True)
def _grow(nxt, to, wt, mid, st, need):
    cap = nxt.size
    if need <= cap:
        return nxt, to, wt, mid, st
    cap = max(need, 2 * cap)
    nxt2 = np.empty(cap, dtype=np.int64)
    to2 = np.empty(cap, dtype=np.int32)
    wt2 = np.empty(cap, dtype=np.float64)
    mid2 = np.empty(cap, dtype=np.int32)
    st2 = np.empty(cap, dtype=np.int64)
    used = nxt.size
    nxt2[:used] = nxt
    to2[:used] = to
    wt2[:used] = wt
    mid2[:used] = mid
    st2[:used] = st
    return nxt2, to2, wt2, mid2, st2


@njit(nogil=True, cache=True)
def _neighbours(head, nxt, to, wt, done, v, out_node, out_w, out_slot):
    """The uncontracted neighbours of ``v``; unlinks the contracted ones from its list (a
    node's list then holds its edges to later nodes, which is all the hierarchy keeps)."""
    n = 0
    prev = -1
    s = head[v]
    while s >= 0:
        u = to[s]
        following = nxt[s]
        if done[u]:
            if prev < 0:
                head[v] = following
            else:
                nxt[prev] = following
        else:
            out_node[n] = u
            out_w[n] = wt[s]
            out_slot[n] = s
            n += 1
            prev = s
        s = following
    return n


@njit(nogil=True, cache=True)
def _witness(head, nxt, to, wt, done, skip, source, bound, limit, dist, stamp, gen, heap):
    """Dijkstra from ``source`` over uncontracted nodes other than ``skip``, up to distance
    ``bound`` or ``limit`` settled nodes; ``dist`` holds the distances where
    ``stamp == gen``. Returns the edges scanned (the build's unit of work)."""
    stamp[source] = gen
    dist[source] = 0.0
    size = _push(heap, 0, 0, 0.0, float(source))
    settled = 0
    scanned = 0
    while size > 0:
        d, u = heap[0, 0], np.int64(heap[0, 1])
        size = _pop(heap, 0, size)
        if d > dist[u]:
            continue
        if d > bound:
            break
        settled += 1
        if settled > limit:
            break
        s = head[u]
        while s >= 0:
            scanned += 1
            v = to[s]
            if not done[v] and v != skip:
                nd = d + wt[s]
                if nd <= bound + _EPS and (stamp[v] != gen or nd < dist[v]):
                    stamp[v] = gen
                    dist[v] = nd
                    if size == heap.shape[0]:
                        break  # the heap is full: stop short (only adds shortcuts)
                    size = _push(heap, 0, size, nd, float(v))
            s = nxt[s]
    return scanned


@njit(nogil=True, cache=True)
def _shortcuts(g, v, limit, apply):
    """The shortcuts contracting ``v`` needs (added when ``apply``); returns how many and
    how many neighbours ``v`` has. ``gen[1]`` counts the work done."""
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used = g
    k = _neighbours(head, nxt, to, wt, done, v, nb, nbw, nbs)
    added = 0
    for i in range(k):
        u = nb[i]
        bound = 0.0
        for j in range(i + 1, k):
            bound = max(bound, nbw[i] + nbw[j])
        if i + 1 >= k:
            continue
        gen[0] += 1
        gen[1] += _witness(head, nxt, to, wt, done, v, u, bound, limit, dist, stamp, gen[0], heap)
        for j in range(i + 1, k):
            w = nb[j]
            via = nbw[i] + nbw[j]
            if stamp[w] == gen[0] and dist[w] <= via + _EPS:
                continue  # a witness: as short without v
            added += 1
            if apply:
                _add_shortcut(g, u, w, via, st[nbs[i]] + st[nbs[j]], v)
    return added, k


@njit(nogil=True, cache=True)
def _add_shortcut(g, u, w, weight, steps, via):
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used = g
    s = head[u]
    while s >= 0:
        if to[s] == w:
            if weight < wt[s] - _EPS:
                wt[s] = weight
                wt[s ^ 1] = weight
                mid[s] = via
                mid[s ^ 1] = via
                st[s] = steps
                st[s ^ 1] = steps
            return
        s = nxt[s]
    m = used[0]
    to[m], wt[m], mid[m], st[m], nxt[m] = w, weight, via, steps, head[u]
    head[u] = m
    to[m + 1], wt[m + 1], mid[m + 1], st[m + 1], nxt[m + 1] = u, weight, via, steps, head[w]
    head[w] = m + 1
    used[0] = m + 2


@njit(nogil=True, cache=True, inline="always")
def _priority(added, neighbours, deleted, level):
    """Contract first what adds few shortcuts for the edges it removes, spreading the
    contractions (deleted neighbours) and keeping the hierarchy shallow (level). Updated
    for a node's neighbours when it is contracted, and checked again when popped (pushed
    back if no longer the smallest)."""
    return float(added - neighbours + deleted + 2 * level)


@njit(nogil=True, cache=True)
def _compact(queue, size, current, done):
    """A heap with twice the room holding only the live entries of ``queue``."""
    bigger = np.empty((2 * queue.shape[0], 2), dtype=np.float64)
    n = 0
    for i in range(size):
        v = np.int64(queue[i, 1])
        if not done[v] and queue[i, 0] == current[v]:
            n = _push(bigger, 0, n, queue[i, 0], queue[i, 1])
    return bigger, n


@njit(nogil=True, cache=True)
def contract(count, eu, ev, ew, es, limit, estimate_limit, budget):
    """Contract the graph, spending at most about ``budget`` edges scanned by witness
    searches (``limit`` per search when contracting, ``estimate_limit`` when estimating a
    priority); returns the rank per node, the upward CSR ``(start, to, steps, mid)``
    (``steps`` packed as in :func:`subgoal_edges`, a shortcut's the sum of its two
    edges'; ``mid`` -1: an edge of the subgoal graph, else the bypassed node), how many nodes
    were left uncontracted when the budget ran out (then the CSR is empty) and the work
    spent."""
    m = eu.size
    cap = max(64, 6 * m)
    nxt = np.empty(cap, dtype=np.int64)
    to = np.empty(cap, dtype=np.int32)
    wt = np.empty(cap, dtype=np.float64)
    mid = np.empty(cap, dtype=np.int32)
    st = np.empty(cap, dtype=np.int64)
    head = np.full(count, -1, dtype=np.int64)
    for e in range(m):
        s = 2 * e
        u, v = eu[e], ev[e]
        to[s], wt[s], mid[s], st[s], nxt[s] = v, ew[e], -1, es[e], head[u]
        head[u] = s
        to[s + 1], wt[s + 1], mid[s + 1], st[s + 1], nxt[s + 1] = u, ew[e], -1, es[e], head[v]
        head[v] = s + 1
    used = np.array([2 * m], dtype=np.int64)
    done = np.zeros(count, dtype=np.bool_)
    dist = np.empty(count, dtype=np.float64)
    stamp = np.zeros(count, dtype=np.int64)
    gen = np.zeros(2, dtype=np.int64)  # the witness searches' stamp, the work done
    heap = np.empty((64 * limit + 1024, 2), dtype=np.float64)  # full: a witness stops short
    degree_cap = count + 1
    nb = np.empty(degree_cap, dtype=np.int32)
    nbw = np.empty(degree_cap, dtype=np.float64)
    nbs = np.empty(degree_cap, dtype=np.int64)
    deleted = np.zeros(count, dtype=np.int64)
    level = np.zeros(count, dtype=np.int64)
    rank = np.empty(count, dtype=np.int32)

    g = (head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used)
    queue = np.empty((4 * count + 4, 2), dtype=np.float64)  # (priority, node)
    current = np.empty(count, dtype=np.float64)  # a heap entry is stale unless it matches
    size = 0
    for v in range(count):
        if gen[1] > budget:
            break  # over the budget already: no hierarchy (the main loop will not run)
        added, k = _shortcuts(g, v, estimate_limit, False)
        current[v] = _priority(added, k, 0, 0)
        size = _push(queue, 0, size, current[v], float(v))
    order = 0
    while size > 0 and gen[1] <= budget:
        p, v = queue[0, 0], np.int64(queue[0, 1])
        size = _pop(queue, 0, size)
        if done[v] or p != current[v]:
            continue
        added, k = _shortcuts(g, v, estimate_limit, False)
        priority = _priority(added, k, deleted[v], level[v])
        if size > 0 and priority > queue[0, 0]:
            current[v] = priority
            size = _push(queue, 0, size, priority, float(v))
            continue
        # room for every shortcut this contraction may add, then add them (k neighbours
        # need at most k * (k - 1) / 2, two slots each)
        need = used[0] + k * (k - 1) + 2
        if need > nxt.size:
            nxt, to, wt, mid, st = _grow(nxt, to, wt, mid, st, need)
            g = (head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used)
        _shortcuts(g, v, limit, True)
        done[v] = True
        rank[v] = order
        order += 1
        k = _neighbours(head, nxt, to, wt, done, v, nb, nbw, nbs)
        touched = nb[:k].copy()
        for i in range(k):
            u = touched[i]
            deleted[u] += 1
            level[u] = max(level[u], level[v] + 1)
        for i in range(k):  # the neighbours' priorities, now
            u = touched[i]
            added, ku = _shortcuts(g, u, estimate_limit, False)
            priority = _priority(added, ku, deleted[u], level[u])
            if priority != current[u]:
                current[u] = priority
                if size == queue.shape[0]:
                    queue, size = _compact(queue, size, current, done)
                size = _push(queue, 0, size, priority, float(u))
    left = count - order
    if left > 0:  # over the budget: no hierarchy
        return rank, np.zeros(1, dtype=np.int64), to[:0], st[:0], mid[:0], left, gen[1]
    # upward CSR, each node's edges in slot order
    start = np.zeros(count + 1, dtype=np.int64)
    for v in range(count):
        s = head[v]
        while s >= 0:
            if rank[to[s]] > rank[v]:
                start[v + 1] += 1
            s = nxt[s]
    for v in range(count):
        start[v + 1] += start[v]
    up_to = np.empty(start[count], dtype=np.int32)
    up_st = np.empty(start[count], dtype=np.int64)
    up_mid = np.empty(start[count], dtype=np.int32)
    for v in range(count):
        e = start[v]
        s = head[v]
        while s >= 0:
            if rank[to[s]] > rank[v]:
                up_to[e], up_st[e], up_mid[e] = to[s], st[s], mid[s]
                e += 1
            s = nxt[s]
    return rank, start, up_to, up_st, up_mid, 0, gen[1]


@njit(nogil=True, cache=True)
def by_rank(rank, cells, up_start, up_to, up_st, up_mid):
    """The hierarchy renumbered from the top (id 0: the last node contracted), so the
    nodes every upward search reaches sit together in memory: the cell of each new id,
    the new id of each subgoal in cell order, and the upward edges in new ids as
    ``first`` (int32, a node's edges are ``first[n]:first[n + 1]``) and ``edges`` (the
    float64 records above, a node's edges adjacent)."""
    count = rank.size
    new = (count - 1 - rank).astype(np.int32)
    old = np.empty(count, dtype=np.int64)
    for v in range(count):
        old[new[v]] = v
    first = np.zeros(count + 1, dtype=np.int32)
    for n in range(count):
        first[n + 1] = first[n] + up_start[old[n] + 1] - up_start[old[n]]
    edges = np.empty((up_to.size, 2), dtype=np.float64)
    ints = edges.view(np.int32)
    for n in range(count):
        e2 = first[n]
        for e in range(up_start[old[n]], up_start[old[n] + 1]):
            edges[e2, COST] = (up_st[e] >> 32) + (up_st[e] & 0xFFFFFFFF) * SQRT2
            ints[e2, TO] = new[up_to[e]]
            ints[e2, MID] = new[up_mid[e]] if up_mid[e] >= 0 else -1
            e2 += 1
    return cells[old], new, first, edges


# ---------------------------------------------------------------------------------------
# Query.


# Query scratch, stamped by generation: ``nodes`` float64, one 64-byte row per subgoal
# (distance, stamp and parent per side: what a search reads of a node in one cache line);
# ``heap`` float64, a row per heap slot with each side's heap as a (key, item) pair of
# columns; ``found`` int64, an exploration's result (cell, straight and diagonal steps).
DIST_F, DIST_B, STAMP_F, STAMP_B, PARENT_F, PARENT_B = range(6)
NODE_COLUMNS = 8
HEAP_F, HEAP_B, HEAP_COLUMNS = 0, 2, 4


def scratch_rows(subgoals: int, up_edges: int) -> int:
    """Heap rows the query scratch needs for a hierarchy of this size (every subgoal
    seeded once plus every upward edge relaxed once, per heap)."""
    return subgoals + up_edges + 2


@njit(nogil=True, cache=True)
def _seed(bits, sorted_ids, cell, target, nodes, heap, found, side, gen):
    """Put the subgoals ``cell`` joins (itself if it is one) into one side's frontier
    (``side`` 0: forward, 1: backward); returns the frontier size, or -1 when the
    exploration reached ``target``."""
    if _is_subgoal(bits, cell):
        k = 1
        found[0, 0], found[0, 1], found[0, 2] = cell, 0, 0
    else:
        k = explore(bits, cell, target, found[:, 0], found[:, 1], found[:, 2])
    column = HEAP_F + 2 * side
    size = 0
    for i in range(k):
        if found[i, 0] == target:
            return -1
        v = sorted_ids[subgoal_id(bits, found[i, 0])]
        d = found[i, 1] + found[i, 2] * SQRT2
        if nodes[v, STAMP_F + side] != gen or d < nodes[v, DIST_F + side]:
            nodes[v, STAMP_F + side] = gen
            nodes[v, DIST_F + side] = d
            nodes[v, PARENT_F + side] = -1
            size = _push(heap, column, size, d, float(v))
    return size


@njit(nogil=True, cache=True)
def subgoal_search(
    bits, sorted_ids, first, edges, links, nodes, heap, found, gen,
    start, goal, max_settled,
):  # fmt: skip
    """Shortest path from padded cell ``start`` to ``goal`` over the hierarchy ``first``,
    ``edges`` (``links``: its int32 view) (scratch ``nodes``, ``heap``, ``found``, stamped
    ``gen``): returns ``(status, settled, meet)``; ``meet`` is the subgoal where the two
    searches met, -1 when the goal is directly h-reachable from the start (``status``
    FOUND) or unreachable. Settling ``max_settled`` subgoals without an answer stops it
    (LIMIT_REACHED)."""
    if start == goal:
        return FOUND, 0, -1
    target = -1 if _is_subgoal(bits, goal) else goal
    # Prefetch (cold caches: after other work evicted the hierarchy): all of ``first``
    # now, read while the explorations run (int32: 16 nodes per cache line); a node's
    # first edge record when it is offered, read when it is settled.
    for v in range(0, first.size, 16):
        prefetch(first, v)
    g = float(gen)
    size_f = _seed(bits, sorted_ids, start, target, nodes, heap, found, 0, g)
    if size_f < 0:
        return FOUND, 0, -1
    size_b = _seed(bits, sorted_ids, goal, -1, nodes, heap, found, 1, g)
    best = _INF
    meet = -1
    settled = 0
    while size_f > 0 or size_b > 0:
        top_f = heap[0, HEAP_F] if size_f > 0 else _INF
        top_b = heap[0, HEAP_B] if size_b > 0 else _INF
        if min(top_f, top_b) >= best:
            break
        side = 0 if top_f <= top_b else 1
        column = HEAP_F + 2 * side
        d, u = heap[0, column], np.int64(heap[0, column + 1])
        if side == 0:
            size_f = _pop(heap, column, size_f)
        else:
            size_b = _pop(heap, column, size_b)
        if d > nodes[u, DIST_F + side]:
            continue  # a stale heap entry
        if settled == max_settled:
            return LIMIT_REACHED, settled, -1
        if nodes[u, STAMP_B - side] == g and d + nodes[u, DIST_B - side] < best:
            best = d + nodes[u, DIST_B - side]
            meet = u
        settled += 1
        # stall on demand: an upward edge proving u is reached shorter from above
        lo, hi = first[u], first[u + 1]
        stalled = False
        for e in range(lo, hi):
            v = links[e, TO]
            reached = nodes[v, STAMP_F + side] == g
            if reached and nodes[v, DIST_F + side] + edges[e, COST] < d - _EPS:
                stalled = True
                break
        if stalled:
            continue
        size = size_f if side == 0 else size_b
        for e in range(lo, hi):
            v = links[e, TO]
            nd = d + edges[e, COST]
            if nodes[v, STAMP_F + side] != g or nd < nodes[v, DIST_F + side]:
                nodes[v, STAMP_F + side] = g
                nodes[v, DIST_F + side] = nd
                nodes[v, PARENT_F + side] = u
                prefetch(edges, first[v])
                size = _push(heap, column, size, nd, float(v))
        if side == 0:
            size_f = size
        else:
            size_b = size
    if meet < 0:
        return UNREACHABLE, settled, -1
    return FOUND, settled, meet


# ---------------------------------------------------------------------------------------
# Path: unpack the shortcuts, refine each h-reachable piece to cells.


@njit(nogil=True, cache=True, inline="always")
def _sign(v):
    return (v > 0) - (v < 0)


@njit(nogil=True, cache=True)
def _diagonal_first_open(passable, stride, a, b):
    """Whether the move from ``a`` to ``b`` diagonally first, then straight, is legal."""
    ax, ay, bx, by = a % stride, a // stride, b % stride, b // stride
    sx, sy = _sign(bx - ax), _sign(by - ay)
    n_diag = min(abs(bx - ax), abs(by - ay))
    cell = a
    for _ in range(n_diag):
        if passable[cell + sx] == 0 or passable[cell + sy * stride] == 0:
            return False
        cell += sx + sy * stride
        if passable[cell] == 0:
            return False
    step = sx if abs(bx - ax) > abs(by - ay) else sy * stride
    while cell != b:
        cell += step
        if passable[cell] == 0:
            return False
    return True


@njit(nogil=True, cache=True)
def _append_segment(passable, stride, a, b, out, n):
    """Append the cells after ``a`` up to ``b`` of the canonical octile move: diagonally
    first then straight if that is legal, else straight first then diagonally (the
    exploration proved one of them legal). Returns the new length."""
    if _diagonal_first_open(passable, stride, a, b):
        ax, ay, bx, by = a % stride, a // stride, b % stride, b // stride
        sx, sy = _sign(bx - ax), _sign(by - ay)
        cell = a
        for _ in range(min(abs(bx - ax), abs(by - ay))):
            cell += sx + sy * stride
            out[n] = cell
            n += 1
        step = sx if abs(bx - ax) > abs(by - ay) else sy * stride
        while cell != b:
            cell += step
            out[n] = cell
            n += 1
        return n
    # diagonal first from b, written from a: the straight part first
    bx, by, ax, ay = b % stride, b // stride, a % stride, a // stride
    sx, sy = _sign(ax - bx), _sign(ay - by)
    n_diag = min(abs(ax - bx), abs(ay - by))
    n_straight = max(abs(ax - bx), abs(ay - by)) - n_diag
    step = sx if abs(ax - bx) > abs(ay - by) else sy * stride
    cell = a
    for _ in range(n_straight):
        cell -= step
        out[n] = cell
        n += 1
    for _ in range(n_diag):
        cell -= sx + sy * stride
        out[n] = cell
        n += 1
    return n


@njit(nogil=True, cache=True)
def _edge_mid(first, links, a, b):
    for e in range(first[a], first[a + 1]):
        if links[e, TO] == b:
            return links[e, MID]
    for e in range(first[b], first[b + 1]):
        if links[e, TO] == a:
            return links[e, MID]
    return -2  # not an edge (cannot happen on a chain the search built)


@njit(nogil=True, cache=True)
def _unpack(first, links, a, b, nodes, n, stack):
    """Append the subgoals after ``a`` up to ``b`` of the (possibly shortcut) edge."""
    top = 0
    stack[top, 0], stack[top, 1] = a, b
    top += 1
    while top > 0:
        top -= 1
        x, y = stack[top, 0], stack[top, 1]
        via = _edge_mid(first, links, x, y)
        if via < 0:
            nodes[n] = y
            n += 1
        else:  # x..via first: pushed last
            stack[top, 0], stack[top, 1] = via, y
            stack[top + 1, 0], stack[top + 1, 1] = x, via
            top += 2
    return n


@njit(nogil=True, cache=True)
def subgoal_path(passable, stride, cells, first, links, nodes, start, goal, meet):
    """The cell path ``(n, 2)`` int32 (unpadded x, y) of the search that met at ``meet``
    (-1: the direct move), with its straight and diagonal step counts."""
    par_f, par_b = nodes[:, PARENT_F], nodes[:, PARENT_B]
    count = cells.size
    chain = np.empty(0, dtype=np.int32)
    if meet >= 0:
        # subgoal chain: forward parents reversed, then backward parents
        length = 0
        u = meet
        while u >= 0:
            length += 1
            u = np.int64(par_f[u])
        u = np.int64(par_b[meet])
        while u >= 0:
            length += 1
            u = np.int64(par_b[u])
        top = np.empty(length, dtype=np.int32)
        i = 0
        u = meet
        while u >= 0:
            top[i] = u
            i += 1
            u = np.int64(par_f[u])
        top[:i] = top[:i][::-1]
        u = np.int64(par_b[meet])
        while u >= 0:
            top[i] = u
            i += 1
            u = np.int64(par_b[u])
        # unpack shortcuts
        nodes = np.empty(count + 1, dtype=np.int32)
        stack = np.empty((count + 2, 2), dtype=np.int32)
        nodes[0] = top[0]
        n = 1
        for i in range(length - 1):
            n = _unpack(first, links, top[i], top[i + 1], nodes, n, stack)
        chain = nodes[:n]
    # corners: start, the subgoals, goal (without repeats)
    corners = np.empty(chain.size + 2, dtype=np.int64)
    k = 0
    corners[k] = start
    k += 1
    for i in range(chain.size):
        c = cells[chain[i]]
        if c != corners[k - 1]:
            corners[k] = c
            k += 1
    if goal != corners[k - 1]:
        corners[k] = goal
        k += 1
    total = 1
    for i in range(k - 1):
        a, b = corners[i], corners[i + 1]
        total += max(abs(a % stride - b % stride), abs(a // stride - b // stride))
    flat = np.empty(total, dtype=np.int64)
    flat[0] = start
    n = 1
    for i in range(k - 1):
        n = _append_segment(passable, stride, corners[i], corners[i + 1], flat, n)
    path = np.empty((n, 2), dtype=np.int32)
    n_orth = 0
    n_diag = 0
    for i in range(n):
        path[i, 0] = flat[i] % stride - 1
        path[i, 1] = flat[i] // stride - 1
        if i > 0:
            step = abs(flat[i] - flat[i - 1])
            if step == 1 or step == stride:
                n_orth += 1
            else:
                n_diag += 1
    return path, n_orth, n_diag
