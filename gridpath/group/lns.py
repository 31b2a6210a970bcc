"""Improving a group plan: prioritized planning and large neighbourhood search (MAPF-LNS,
Li et al., IJCAI 2021; the refinement of LaCAM3, Okumura, AAMAS 2024).

PIBT's first plans are legal but long: units wander aside to let others by, and come to
rest on their goals only after the last unit passing through them. Two ways to shorten
them, both planning one unit at a time with SIPP around everyone else
(:mod:`gridpath.group.sipp`):

* *prioritized planning* builds a whole plan afresh, the units with the longest way first;
  it fails when a unit finds no path around those before it, and then the first plan stays;
* *LNS* takes a few units out of a plan, plans them again in a random order and keeps
  the result only if their sum of costs fell. Its neighbourhoods (adaptive: each is
  chosen as often as it recently paid off): the latest unit with the units that still
  pass over its goal when it could be there, or a few units at random.

The arguments travel in three tuples: ``task`` ``(starts, goals, lower)`` (``lower[i]``:
unit ``i``'s distance alone), ``plan`` ``(paths, occ, busy, arrivals)``, ``moves``
``(neighbours, cross, distances, sipp)`` with SIPP's arrays. Everything is deterministic: a
seeded generator picks neighbourhoods and orders, and the budget counts work (SIPP
expansions and the ticks written), never time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.group.distances import distance
from gridpath.group.pibt import next_random
from gridpath.group.sipp import NOT_A_GOAL, NOT_A_START, occupy, plan_unit

NEIGHBOURHOOD = 8  # units re-planned per step (MAPF-LNS's default)
LEAVING = 4  # ticks in which a unit still to plan may be on its start


@njit(cache=True, nogil=True)
def prioritized(order, task, plan, moves, max_work):
    """Plan the units in ``order``, each around those before it (the plan's ``occ`` and
    ``busy`` start empty). Returns ``(planned, work)``: fewer than all when a unit found
    no path or the work ran out, and the plan is then incomplete."""
    starts, goals, lower = task
    paths, occ, busy, arrivals = plan
    neighbours, cross, distances, sipp = moves
    _mark(sipp, order, 0, order.shape[0], task, True)
    work = 0
    for k in range(order.shape[0]):
        i = order[k]
        _mark(sipp, order, k, k + 1, task, False)
        got, expanded = plan_unit(
            i,
            starts[i],
            goals[i],
            occ.shape[1],
            occ,
            busy,
            paths,
            neighbours,
            cross,
            distances,
            sipp,
        )
        work += expanded + occ.shape[1]
        if got < 0 or work >= max_work:
            _mark(sipp, order, k + 1, order.shape[0], task, False)
            return k, work
        occupy(occ, busy, paths, i, i)
        arrivals[i] = got
    return order.shape[0], work


@njit(cache=True, nogil=True)
def _mark(sipp, units, first, end, task, still):
    """Mark for SIPP the cells of ``units[first:end]``, still to plan (``still``) or no
    longer: from which tick stepping on a unit's goal may delay it (``late``: from its lone
    distance), and until which tick its start may still hold it (``early``)."""
    starts, goals, lower = task
    late, early = sipp[5], sipp[7]
    for k in range(first, end):
        i = units[k]
        late[goals[i]] = lower[i] if still else NOT_A_GOAL
        early[starts[i]] = LEAVING if still else NOT_A_START


@njit(cache=True, nogil=True)
def _take_out(units, k, plan, arrivals_out):
    paths, occ, busy, arrivals = plan
    old = np.empty((paths.shape[0], k), dtype=np.int32)
    for a in range(k):
        old[:, a] = paths[:, units[a]]
        arrivals_out[a] = arrivals[units[a]]
        occupy(occ, busy, paths, units[a], -1)
    return old


@njit(cache=True, nogil=True)
def replan(units, k, task, plan, moves, rng, first):
    """Take ``units[:k]`` out and plan them again, ``units[:first]`` first and the rest in
    a random order; keep the new paths if their sum of costs is lower, else put the old
    ones back. Returns ``(gain, work)``."""
    starts, goals, lower = task
    paths, occ, busy, arrivals = plan
    neighbours, cross, distances, sipp = moves
    taken = units[:k].copy()
    was = np.empty(k, dtype=np.int64)
    old = _take_out(taken, k, plan, was)
    before, floor = was.sum(), 0
    for a in range(k):
        floor += lower[taken[a]]
    for a in range(k - 1, first, -1):  # seeded Fisher-Yates: the planning order
        r = first + np.int64(next_random(rng) % np.uint64(a + 1 - first))
        units[a], units[r] = units[r], units[a]
    _mark(sipp, units, 0, k, task, True)
    work, after, done = k * paths.shape[0], 0, 0
    while done < k:
        i = units[done]
        _mark(sipp, units, done, done + 1, task, False)
        floor -= lower[i]  # what the units still to plan need at least
        got, expanded = plan_unit(
            i, starts[i], goals[i], before - after - floor, occ, busy, paths, neighbours, cross,
            distances, sipp,
        )  # fmt: skip
        work += expanded
        if got < 0:
            _mark(sipp, units, done + 1, k, task, False)
            break
        occupy(occ, busy, paths, i, i)
        arrivals[i] = got
        after += got
        done += 1
    if done == k:  # each arrival was bounded so that the sum fell
        return before - after, work
    for a in range(done):
        occupy(occ, busy, paths, units[a], -1)
    for a in range(k):
        paths[:, taken[a]] = old[:, a]
        arrivals[taken[a]] = was[a]
        occupy(occ, busy, paths, taken[a], taken[a])
    return 0, work


@njit(cache=True, nogil=True)
def _random_units(units, k, marks, rng):
    """Up to ``k`` distinct units at random, into ``units``; returns their count."""
    n, m = marks.shape[0], 0
    for _ in range(4 * k):
        if m == min(k, n):
            break
        i = np.int64(next_random(rng) % np.uint64(n))
        if not marks[i]:
            marks[i] = True
            units[m] = i
            m += 1
    for a in range(m):
        marks[units[a]] = False
    return m


@njit(cache=True, nogil=True)
def _latest(arrivals, lower, tabu):
    """The unit furthest behind its lone shortest path and not tabu; when every late unit
    is, the tabu list starts again."""
    for _ in range(2):
        best, late = -1, 0
        for i in range(arrivals.shape[0]):
            if not tabu[i] and arrivals[i] - lower[i] > late:
                best, late = i, arrivals[i] - lower[i]
        if best >= 0:
            tabu[best] = True
            return best
        tabu[:] = False
    return -1


@njit(cache=True, nogil=True)
def _add(units, m, k, j, marks):
    if j >= 0 and m < k and not marks[j]:
        marks[j] = True
        units[m] = j
        m += 1
    return m


@njit(cache=True, nogil=True)
def _late_and_in_its_way(a, units, k, task, plan, moves, marks, rng):
    """Unit ``a``, the units on its goal from when it could arrive until it does, then
    those on its lone shortest path within its delay: up to ``k``."""
    starts, goals, lower = task
    paths, occ, busy, arrivals = plan
    neighbours, cross, distances, sipp = moves
    m = _add(units, 0, k, a, marks)
    for t in range(lower[a], arrivals[a]):
        m = _add(units, m, k, occ[goals[a], t], marks)
    v, slack = starts[a], arrivals[a] - lower[a]
    for t in range(lower[a]):
        for s in range(t, min(t + slack + 1, occ.shape[1])):
            m = _add(units, m, k, occ[v, s], marks)
        nxt, ties = -1, 0
        for d in range(neighbours.shape[1]):  # a step closer, ties broken at random
            w = neighbours[v, d]
            if w >= 0 and distance(distances, a, w) < distance(distances, a, v):
                ties += 1
                if next_random(rng) % np.uint64(ties) == 0:
                    nxt = w
        v = nxt
    for b in range(m):
        marks[units[b]] = False
    return m


@njit(cache=True, nogil=True)
def improve(task, plan, moves, rng, max_work, patience):
    """Replan neighbourhoods until the plan reaches the lower bound, ``max_work`` is spent
    or the last ``patience`` work gained nothing. Returns the work spent."""
    lower, arrivals = task[2], plan[3]
    n = lower.shape[0]
    units = np.empty(NEIGHBOURHOOD, dtype=np.int32)
    marks = np.zeros(n, dtype=np.bool_)
    tabu = np.zeros(n, dtype=np.bool_)
    weights = np.ones(2)
    excess = arrivals.sum() - lower.sum()
    work, stale = 0, 0
    while work < max_work and stale < patience and excess > 0:
        pick = (next_random(rng) >> np.uint64(11)) / float(1 << 53) * weights.sum()
        strategy, m = (0, 0) if pick < weights[0] else (1, 0)
        if strategy == 0:  # the late unit first: the others then keep off its goal
            a = _latest(arrivals, lower, tabu)
            m = _late_and_in_its_way(a, units, NEIGHBOURHOOD, task, plan, moves, marks, rng)
        if m < 2:
            strategy, m = 1, _random_units(units, NEIGHBOURHOOD, marks, rng)
        gain, spent = replan(units, m, task, plan, moves, rng, 1 if strategy == 0 else 0)
        work += spent
        excess -= gain
        stale = 0 if gain > 0 else stale + spent
        weights[strategy] = max(0.01, 0.9 * weights[strategy] + 0.1 * gain / m)
    return work
