"""The contraction hierarchy over the subgoal graph (:mod:`gridpath.search._subgoal`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._subgoal.graph import _EPS, COST, MID, SQRT2, TO
from gridpath.search._subgoal.heap import _pop, _push

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
def _witness(g, skip, source, bound, limit):
    """Dijkstra from ``source`` over uncontracted nodes other than ``skip``, up to distance
    ``bound`` or ``limit`` settled nodes, in the contraction's arrays ``g`` (see
    :func:`contract`); ``dist`` holds the distances where ``stamp == gen[0]``. Returns the
    edges scanned (the build's unit of work)."""
    head, nxt, to, wt, _, _, done, dist, stamp, gens, heap, _, _, _, _ = g
    gen = gens[0]
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
        gen[1] += _witness(g, v, u, bound, limit)
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
    head, nxt, to, wt, mid, st = _half_edges(count, eu, ev, ew, es)
    used = np.array([2 * eu.size], dtype=np.int64)
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
    start, up_to, up_st, up_mid = _upward_csr(count, head, nxt, to, st, mid, rank)
    return rank, start, up_to, up_st, up_mid, 0, gen[1]


@njit(nogil=True, cache=True)
def _half_edges(count, eu, ev, ew, es):
    """The subgoal graph's edges as half-edge slots (slot s and s ^ 1: the two halves),
    linked per node from ``head`` through ``nxt``, with room for shortcuts."""
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
    return head, nxt, to, wt, mid, st


@njit(nogil=True, cache=True)
def _upward_csr(count, head, nxt, to, st, mid, rank):
    """The upward edges (to a node of higher rank) in CSR form, each node's edges in
    slot order: ``(start, to, steps, mid)``."""
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
    return start, up_to, up_st, up_mid


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
