"""The plan of a group as timed occupancy, and SIPP over it: one unit's cheapest path
around all the others (safe-interval path planning, Phillips and Likhachev, ICRA 2011).

A plan lives in three arrays over ticks ``0..T``: ``paths[t, i]``, unit ``i``'s vertex at
tick ``t`` (its goal from its arrival on); ``occ[v, t]``, the unit on vertex ``v`` at tick
``t`` (-1: none; a row per vertex); and ``busy[v]``, the same as a bitset, 64 ticks a word,
from which the ends of a *safe interval* (a run of ticks in which no unit is on ``v``) are
found a word at a time. A unit's cost is its arrival: the tick after which it never leaves
its goal. Every unit rests on its goal at tick ``T`` and after, so a path may end on its
goal only in the goal's last safe interval (the one running to ``T``).

SIPP's states are (vertex, safe interval), reached at the earliest tick: waiting is folded
into the interval, so a crowded plan of hundreds of ticks costs a few states per vertex,
not one per tick. Moves are the group's rules (:func:`may_move`): no unit on the cell
entered, no swap, no diagonal crossing.

Among paths that arrive about as early, SIPP prefers one that keeps out of the way of the
units still to plan, by three soft rules that count in the search's order (never in the
arrival; with nothing marked, the default, the search is exact):

* off their goals once they could be there (``late[v]``: from which tick the unit whose
  goal is ``v`` could rest on it), the more so the later: a unit passing over another's
  goal later pushes that unit's arrival back, and in prioritized planning that was most of
  the delay;
* off their starts in the first ticks (``early[v]``): a unit still on its start with every
  way out taken cannot be planned at all;
* along the lanes of :func:`gridpath.group.graph.lane_costs` (``lanes[v, d]``), so that
  streams meeting in a passage pass side by side.

A step against one of them counts a few ticks more (:func:`_in_the_way`, the lane's cost).
What they buy is measured end to end by ``make bench-group`` (bench/README.md): the median
sum of costs on den312d with 500 units.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.group.distances import _extend, distance

MAX_NODES = 1 << 20  # search nodes per unit planned: beyond, the search fails
# The columns of SIPP's ``node`` array (a row per node).
V, START, END, T, PARENT, NEXT, CROSSED = range(7)
# A step onto the goal of a unit still to plan, once that unit could be there, counts
# CROSSING ticks more in the search's order, and one more per LATE_TICKS it could have been
# there (the later, the more it delays it); a step onto its start in its first ticks,
# CROSSING. A larger flat cost sends units on longer detours that crowd the others.
CROSSING = 1
LATE_TICKS = 16
# ``late`` and ``early`` of a cell that is no goal (no start) of a unit still to plan.
NOT_A_GOAL = np.iinfo(np.int32).max
NOT_A_START = -1


def empty_plan(units: int, vertex_count: int, ticks: int) -> tuple:
    """``paths``, ``occ`` and ``busy`` of ``ticks`` ticks with no unit placed yet."""
    return (
        np.zeros((ticks, units), dtype=np.int32),
        np.full((vertex_count, ticks), -1, dtype=np.int32),
        np.zeros((vertex_count, (ticks + 63) // 64), dtype=np.uint64),
    )


def plan_arrays(configs: np.ndarray, vertex_count: int) -> tuple:
    """``paths``, ``occ`` and ``busy`` for the plan ``configs`` (``(ticks, units)`` vertex
    ids)."""
    paths, occ, busy = empty_plan(configs.shape[1], vertex_count, configs.shape[0])
    paths[:] = configs
    for i in range(paths.shape[1]):
        occupy(occ, busy, paths, i, i)
    return paths, occ, busy


def sipp_arrays(vertex_count: int, ticks: int, lanes: np.ndarray | None = None) -> tuple:
    """SIPP's reusable arrays: ``(best, stamp, node, bucket, gen, late, lanes, early)``.
    ``best[v, s]`` ranks the best arrival found in the safe interval of ``v`` that starts
    at tick ``s`` (:func:`_key`; valid where ``stamp[v, s] == gen[0]``, the current
    search); ``node`` holds each search node's vertex, interval start and end, arrival,
    parent, open-list link and soft costs; ``bucket[f]`` heads the open list of ``f``;
    then the soft rules (module doc): ``late`` (no goal marked), ``lanes[v, d]`` (what
    the move ``d`` out of ``v`` costs; default none) and ``early`` (no start marked)."""
    nodes = min(MAX_NODES, vertex_count * ticks + 1)
    return (
        np.zeros((vertex_count, ticks), dtype=np.int32),
        np.zeros((vertex_count, ticks), dtype=np.int32),
        np.empty((nodes, 7), dtype=np.int32),
        np.empty(3 * ticks + 2, dtype=np.int32),
        np.zeros(2, dtype=np.int64),
        np.full(vertex_count, NOT_A_GOAL, dtype=np.int32),
        np.zeros((vertex_count, 8), dtype=np.int32) if lanes is None else lanes,
        np.full(vertex_count, NOT_A_START, dtype=np.int32),
    )


@njit(cache=True, nogil=True)
def arrival(paths, i, goal):
    """The tick after which unit ``i`` never leaves ``goal``."""
    t = paths.shape[0] - 1
    while t > 0 and paths[t - 1, i] == goal:
        t -= 1
    return t


@njit(cache=True, nogil=True)
def occupy(occ, busy, paths, i, who):
    """Write unit ``i``'s path into ``occ`` and ``busy`` as ``who`` (-1: take it out)."""
    for t in range(paths.shape[0]):
        v = paths[t, i]
        occ[v, t] = who
        bit = np.uint64(1) << np.uint64(t & 63)
        if who >= 0:
            busy[v, t >> 6] |= bit
        else:
            busy[v, t >> 6] &= ~bit


@njit(cache=True, nogil=True)
def may_move(occ, t, v, w, d, cross):
    """May a unit step ``v -> w`` (direction ``d``, ``w == v`` a wait) from tick ``t``
    without meeting a unit on ``w``, swapping with one, or crossing one diagonally?"""
    if occ[w, t + 1] >= 0:
        return False
    if w == v:
        return True
    j = occ[v, t + 1]
    if j >= 0 and occ[w, t] == j:
        return False
    if d >= 4:
        a, b = cross[v, d, 0], cross[v, d, 1]
        if a >= 0 and b >= 0:
            j = occ[a, t]
            if j >= 0 and occ[b, t + 1] == j:
                return False
            j = occ[b, t]
            if j >= 0 and occ[a, t + 1] == j:
                return False
    return True


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _k in range(64):
    _DEBRUIJN_INDEX[((1 << _k) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _k


@njit(cache=True, nogil=True)
def _lowest_bit(m):
    """The index of the lowest set bit of ``m`` (not 0)."""
    return _DEBRUIJN_INDEX[((m & (~m + np.uint64(1))) * _DEBRUIJN) >> np.uint64(58)]


@njit(cache=True, nogil=True)
def _highest_bit(m):
    """The index of the highest set bit of ``m`` (not 0)."""
    k = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if m >> np.uint64(shift):
            m >>= np.uint64(shift)
            k += shift
    return k


@njit(cache=True, nogil=True)
def _next_free(busy, v, t):
    """The first tick from ``t`` on at which ``v`` is free (past the plan's end if none)."""
    w = t >> 6
    m = ~busy[v, w] & ~((np.uint64(1) << np.uint64(t & 63)) - np.uint64(1))
    while m == 0 and w + 1 < busy.shape[1]:
        w += 1
        m = ~busy[v, w]
    return w * 64 + _lowest_bit(m) if m != 0 else busy.shape[1] * 64


@njit(cache=True, nogil=True)
def _interval(busy, v, t, last):
    """The safe interval of ``v`` holding the free tick ``t``: its first and last tick
    (``last`` when no unit comes after)."""
    w, b = t >> 6, np.uint64(t & 63)
    m = busy[v, w] & ((np.uint64(1) << b) - np.uint64(1))  # the ticks before t
    while m == 0 and w > 0:
        w -= 1
        m = busy[v, w]
    s = 0 if m == 0 else w * 64 + _highest_bit(m) + 1
    w = t >> 6
    m = busy[v, w] & ~((np.uint64(2) << b) - np.uint64(1)) if b < 63 else np.uint64(0)
    while m == 0 and w + 1 < busy.shape[1]:
        w += 1
        m = busy[v, w]
    e = last if m == 0 else min(last, w * 64 + _lowest_bit(m) - 1)
    return s, e


@njit(cache=True, nogil=True)
def _key(t, crossed):
    """How a node ranks against another in the same safe interval: earlier first, then
    fewer crossings."""
    return t * 64 + min(crossed, 63)  # t < 2**25: PLAN_MAX_CELLS bounds the ticks


@njit(cache=True, nogil=True)
def _open(best, stamp, node, bucket, gen, v, s, e, t, parent, f, crossed):
    """Open the search node (``v`` in its interval ``[s, e]``, reached at ``t``) unless
    that interval was reached as early before; False when the node pool is full. (Arrays
    one by one, not as a tuple: a tuple of arrays passed to a call costs a reference
    count per array, and this runs for every node.)"""
    key = _key(t, crossed)
    if stamp[v, s] == gen[0] and best[v, s] <= key:
        return True
    made = gen[1]
    if made >= node.shape[0]:
        return False
    stamp[v, s], best[v, s] = gen[0], key
    node[made, V], node[made, START], node[made, END] = v, s, e
    f = min(f, bucket.shape[0] - 1)
    node[made, T], node[made, PARENT], node[made, NEXT] = t, parent, bucket[f]
    node[made, CROSSED] = crossed
    bucket[f] = made
    gen[1] = made + 1
    return True


@njit(cache=True, nogil=True)
def _in_the_way(late, early, t):
    """The soft cost of being on a cell at tick ``t``: on the goal of a unit still to plan
    that could be there since ``late``, :data:`CROSSING` plus one per :data:`LATE_TICKS`
    it could have been resting there; on its start until ``early``, :data:`CROSSING`."""
    if t >= late:
        return CROSSING + (t - late) // LATE_TICKS
    return CROSSING if t <= early else 0


@njit(cache=True, nogil=True)
def _successors(
    n,
    i,
    horizon,
    occ,
    busy,
    neighbours,
    cross,
    distances,
    best,
    stamp,
    node,
    bucket,
    gen,
    late,
    lanes,
    early,
):
    """Open, for each move out of node ``n``, the safe intervals of the cell reached that
    it can enter: at the earliest legal tick, waiting in ``n``'s interval first."""
    dist = distances[0]
    v, e, t, crossed = node[n, V], node[n, END], node[n, T], node[n, CROSSED]
    for d in range(neighbours.shape[1]):
        u = neighbours[v, d]
        if u < 0:
            continue
        h = dist[i, u] - 1 if dist[i, u] > 0 else _extend(distances, i, u)
        tau = t  # the departure tick
        while tau <= e and tau + 1 + h <= horizon:
            if occ[u, tau + 1] >= 0:  # u is taken: skip to its next free tick
                tau = _next_free(busy, u, tau + 1) - 1
                continue
            if not may_move(occ, tau, v, u, d, cross):
                tau += 1
                continue
            s2, e2 = _interval(busy, u, tau + 1, occ.shape[1] - 1)
            c = crossed + lanes[v, d] + _in_the_way(late[u], early[u], tau + 1)
            if not _open(best, stamp, node, bucket, gen, u, s2, e2, tau + 1, n, tau + 1 + h + c, c):
                return False
            tau = e2 + 1  # the next interval of u starts after this one
    return True


@njit(cache=True, nogil=True)
def plan_unit(i, start, goal, limit, occ, busy, paths, neighbours, cross, distances, ast):
    """Unit ``i``'s cheapest path around the units in ``occ`` (SIPP: Phillips and
    Likhachev, ICRA 2011), arriving before ``limit``, written into ``paths[:, i]``;
    returns ``(arrival or -1, expansions)``. Every move costs one tick (plus the crossings
    of marked goals) and the heuristic (the lone distance) is consistent, so the open list
    is one stack per ``f``, scanned upwards (an ``f`` past the last bucket shares it)."""
    best, stamp, node, bucket, gen, late, lanes, early = ast
    gen[0] += 1
    gen[1] = 0
    horizon = min(limit - 1, occ.shape[1] - 1)
    last = occ.shape[1] - 1
    f = distance(distances, i, start)
    if f > horizon:
        return -1, 0
    bucket[:] = -1
    s0, e0 = _interval(busy, start, 0, last)
    _open(best, stamp, node, bucket, gen, start, s0, e0, 0, -1, f, 0)
    expanded = 0
    while f < bucket.shape[0]:
        n = bucket[f]
        if n < 0:
            f += 1
            continue
        bucket[f] = node[n, NEXT]
        v, t = node[n, V], node[n, T]
        if best[v, node[n, START]] < _key(t, node[n, CROSSED]):
            continue  # reached earlier since
        expanded += 1
        if v == goal and node[n, END] == last:
            _write_path(n, node, paths, i)
            return t, expanded
        if not _successors(
            n, i, horizon, occ, busy, neighbours, cross, distances, best, stamp, node, bucket, gen,
            late, lanes, early,
        ):  # fmt: skip
            break
    return -1, expanded


@njit(cache=True, nogil=True)
def _write_path(n, node, paths, i):
    """The unit waits in each interval until it leaves for the next node's cell."""
    until = paths.shape[0]
    while n >= 0:
        for t in range(node[n, T], until):
            paths[t, i] = node[n, V]
        until = node[n, T]
        n = node[n, PARENT]
