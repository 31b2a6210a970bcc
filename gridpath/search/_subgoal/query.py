"""The query over the hierarchy: a bidirectional Dijkstra over the upward edges
(:mod:`gridpath.search._subgoal`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._frontier import FOUND, LIMIT_REACHED, UNREACHABLE
from gridpath.search._prefetch import prefetch
from gridpath.search._subgoal.graph import _EPS, COST, SQRT2, TO, _is_subgoal, explore, subgoal_id
from gridpath.search._subgoal.heap import _pop, _push

_INF = np.inf


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
def subgoal_search(hierarchy, scratch, start, goal, max_settled):
    """Shortest path from padded cell ``start`` to ``goal`` over the hierarchy ``(bits,
    sorted_ids, first, edges, links)`` (``links``: the edges' int32 view), with the query
    scratch ``(nodes, heap, found, gen)`` (stamped ``gen``): returns ``(status, settled,
    meet)``; ``meet`` is the subgoal where the two searches met, -1 when the goal is
    directly h-reachable from the start (``status`` FOUND) or unreachable. Settling
    ``max_settled`` subgoals without an answer stops it (LIMIT_REACHED)."""
    bits, sorted_ids, first, edges, links = hierarchy
    nodes, heap, found, gen = scratch
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
