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
    mid2 = np.empty(cap, dtype=np.int64)
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
    head, nxt, to, wt, _, _, done, dist, stamp, gens, heap, _, _, _, _, _ = g
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
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, cell_of = g
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
                _add_shortcut(g, u, w, via, st[nbs[i]] + st[nbs[j]], cell_of[v])
    return added, k


@njit(nogil=True, cache=True)
def _add_shortcut(g, u, w, weight, steps, via):
    """A shortcut ``u``-``w`` bypassing the node of cell ``via`` (or a shorter one)."""
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, _ = g
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
    contractions (deleted neighbours) and keeping the hierarchy shallow (level). Checked
    again when a node is popped (pushed back if no longer the smallest)."""
    return float(added - neighbours + deleted + 2 * level)


@njit(nogil=True, cache=True)
def contract_part(count, eu, ev, es, em, keep, cell_of, limit, estimate_limit, budget):
    """Contract the nodes of one part of the graph that ``keep`` does not keep, in order
    of :func:`_priority`, spending at most about ``budget`` edges scanned by witness
    searches (``limit`` per search when contracting, ``estimate_limit`` when estimating
    a priority). Edges ``(eu, ev)`` in local ids, ``es`` their steps packed as in
    :func:`subgoal_edges`, ``em`` the cell a shortcut bypasses (-1: an edge of the
    subgoal graph); ``cell_of`` each local node's cell. Witness searches stay inside
    the part, so what it returns depends on the part alone (a search confined to a part
    can only add shortcuts). Returns the local nodes in contraction order, the edges
    each had to nodes left when it was contracted (its upward edges, grouped in that
    order: ``(u, v, steps, mid)``), the edges left between kept nodes (the same
    columns) and the work spent; past the budget the order is short."""
    head, nxt, to, wt, mid, st = _half_edges(count, eu, ev, es, em)
    used = np.array([2 * eu.size], dtype=np.int64)
    done = np.zeros(count, dtype=np.bool_)
    dist = np.empty(count, dtype=np.float64)
    stamp = np.zeros(count, dtype=np.int64)
    gen = np.zeros(2, dtype=np.int64)  # the witness searches' stamp, the work done
    heap = np.empty((64 * limit + 1024, 2), dtype=np.float64)  # full: a witness stops short
    nb = np.empty(count + 1, dtype=np.int32)
    nbw = np.empty(count + 1, dtype=np.float64)
    nbs = np.empty(count + 1, dtype=np.int64)
    g = (head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, cell_of)
    order = np.empty(count, dtype=np.int64)
    up = np.empty((max(16, 4 * eu.size), 4), dtype=np.int64)  # (u, v, steps, mid) rows
    contracted, ups = 0, 0
    queue, size, current = _first_priorities(g, count, keep, estimate_limit)
    deleted = np.zeros(count, dtype=np.int64)
    level = np.zeros(count, dtype=np.int64)
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
        g = _room(g, k)
        _shortcuts(g, v, limit, True)
        done[v] = True
        order[contracted] = v
        contracted += 1
        up, ups = _record_up(g, v, up, ups)
        _count_contraction(g, v, deleted, level)
    return order[:contracted], up[:ups], _kept_edges(g, keep), gen[1]


@njit(nogil=True, cache=True)
def _first_priorities(g, count, keep, estimate_limit):
    # (priority, node): a node is pushed again only after it was popped, so it stays
    # within one entry per node; an entry is stale unless it matches ``current``
    queue = np.empty((count + 1, 2), dtype=np.float64)
    current = np.full(count, np.nan, dtype=np.float64)  # NaN: a kept node, never queued
    size = 0
    for v in range(count):
        if keep[v]:
            continue
        added, k = _shortcuts(g, v, estimate_limit, False)
        current[v] = _priority(added, k, 0, 0)
        size = _push(queue, 0, size, current[v], float(v))
    return queue, size, current


@njit(nogil=True, cache=True)
def _room(g, k):
    """``g`` with room for every shortcut contracting a node of ``k`` neighbours may add
    (at most k * (k - 1) / 2, two slots each)."""
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, cell_of = g
    need = used[0] + k * (k - 1) + 2
    if need > nxt.size:
        nxt, to, wt, mid, st = _grow(nxt, to, wt, mid, st, need)
    return (head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, cell_of)


@njit(nogil=True, cache=True)
def _record_up(g, v, up, ups):
    """Append the just contracted ``v``'s edges to the nodes left (its upward edges)."""
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, _ = g
    k = _neighbours(head, nxt, to, wt, done, v, nb, nbw, nbs)
    if ups + k > up.shape[0]:
        bigger = np.empty((2 * (ups + k), 4), dtype=np.int64)
        bigger[:ups] = up[:ups]
        up = bigger
    for i in range(k):
        s = nbs[i]
        up[ups, 0], up[ups, 1], up[ups, 2], up[ups, 3] = v, nb[i], st[s], mid[s]
        ups += 1
    return up, ups


@njit(nogil=True, cache=True)
def _count_contraction(g, v, deleted, level):
    """After contracting ``v``: its neighbours' counts of contracted neighbours and their
    levels. Their priorities are updated lazily, when popped (re-simulating them now
    doubles the build's work for no faster query)."""
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, _ = g
    k = _neighbours(head, nxt, to, wt, done, v, nb, nbw, nbs)
    for i in range(k):
        u = nb[i]
        deleted[u] += 1
        level[u] = max(level[u], level[v] + 1)


@njit(nogil=True, cache=True)
def _kept_edges(g, keep):
    """The edges left between kept nodes, each once (``u < v``), in node then list order:
    ``(u, v, steps, mid)`` rows."""
    head, nxt, to, wt, mid, st, done, dist, stamp, gen, heap, nb, nbw, nbs, used, _ = g
    n = 0
    for u in range(head.size):
        if keep[u]:
            s = head[u]
            while s >= 0:
                n += 1 if (keep[to[s]] and u < to[s]) else 0
                s = nxt[s]
    out = np.empty((n, 4), dtype=np.int64)
    n = 0
    for u in range(head.size):
        if keep[u]:
            s = head[u]
            while s >= 0:
                if keep[to[s]] and u < to[s]:
                    out[n, 0], out[n, 1], out[n, 2], out[n, 3] = u, to[s], st[s], mid[s]
                    n += 1
                s = nxt[s]
    return out


@njit(nogil=True, cache=True)
def _half_edges(count, eu, ev, es, em):
    """The part's edges as half-edge slots (slot s and s ^ 1: the two halves), linked per
    node from ``head`` through ``nxt``, with room for shortcuts; a weight is the cost
    of its steps (``orth + diag * sqrt 2``, as the query's)."""
    m = eu.size
    cap = max(64, 6 * m)
    nxt = np.empty(cap, dtype=np.int64)
    to = np.empty(cap, dtype=np.int32)
    wt = np.empty(cap, dtype=np.float64)
    mid = np.empty(cap, dtype=np.int64)
    st = np.empty(cap, dtype=np.int64)
    head = np.full(count, -1, dtype=np.int64)
    for e in range(m):
        s = 2 * e
        u, v, w = eu[e], ev[e], (es[e] >> 32) + (es[e] & 0xFFFFFFFF) * SQRT2
        to[s], wt[s], mid[s], st[s], nxt[s] = v, w, em[e], es[e], head[u]
        head[u] = s
        to[s + 1], wt[s + 1], mid[s + 1], st[s + 1], nxt[s + 1] = u, w, em[e], es[e], head[v]
        head[v] = s + 1
    return head, nxt, to, wt, mid, st


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
