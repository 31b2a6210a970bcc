"""The order in which prioritized planning takes the units (:mod:`gridpath.group.lns`).

A unit planned early rests on its goal for good once there: for every unit planned after
it, that cell is a wall from then on. If the wall cuts the map, a later unit may find its
start and goal on two sides, and prioritized planning fails (measured on den312d with 500
units: most failures were this). So the order follows a preference (the longest ways first)
but passes over a unit whose resting goal would cut a unit still to plan from its goal; it
comes later, when the units it would cut off are planned. When every remaining unit would
cut someone off, the preference's first goes next (a unit so cut off counts no more).

Whether a wall cuts anyone is checked cheaply first: if the free neighbours of the cell
stay connected without it, nobody is cut off. Only a real cut (a doorway, a corridor) pays
a labelling of the whole map, and then each unit still to plan is checked.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _label(neighbours, wall, comp, queue):
    """Connected components of the cells that are not walls (-1 on walls); returns the
    cells visited."""
    comp[:] = -1
    label = 0
    for s in range(wall.shape[0]):
        if wall[s] or comp[s] >= 0:
            continue
        comp[s], head, tail = label, 0, 1
        queue[0] = s
        while head < tail:
            v = queue[head]
            head += 1
            for d in range(neighbours.shape[1]):
                w = neighbours[v, d]
                if w >= 0 and not wall[w] and comp[w] < 0:
                    comp[w] = label
                    queue[tail] = w
                    tail += 1
        label += 1
    return wall.shape[0]


@njit(cache=True, nogil=True)
def _stays_connected(neighbours, wall, c, seen, queue, stamp, waiting):
    """Do the free neighbours of ``c`` stay connected to each other when ``c`` is a wall
    too, with no unit still to plan waiting on a walled neighbour (it might have no other
    way out)? A breadth-first search from one of them until it has met all the others (on
    a cut, it exhausts the smaller side). Returns ``(connected, cells visited)``."""
    first, wanted = -1, 0
    for d in range(neighbours.shape[1]):
        w = neighbours[c, d]
        if w >= 0 and wall[w] and waiting[w]:
            return False, 0
        if w >= 0 and not wall[w]:
            wanted += 1
            if first < 0:
                first = w
    if wanted <= 1:  # a dead end cuts nobody off; an island is left to the full check
        return wanted == 1, 0
    seen[c] = stamp
    seen[first] = stamp
    queue[0], head, tail, met = first, 0, 1, 1
    while head < tail and met < wanted:
        v = queue[head]
        head += 1
        for d in range(neighbours.shape[1]):
            w = neighbours[v, d]
            if w >= 0 and not wall[w] and seen[w] != stamp:
                seen[w] = stamp
                queue[tail] = w
                tail += 1
                for e in range(neighbours.shape[1]):
                    met += neighbours[c, e] == w
    return met == wanted, tail


@njit(cache=True, nogil=True)
def _reaches(neighbours, comp, wall, v, target):
    """Can a unit standing on ``v`` reach component ``target``? (``v`` itself may be a
    wall: the unit leaves before its owner rests there.)"""
    if not wall[v]:
        return comp[v] == target
    for d in range(neighbours.shape[1]):
        w = neighbours[v, d]
        if w >= 0 and not wall[w] and comp[w] == target:
            return True
    return False


@njit(cache=True, nogil=True)
def _cuts_anyone(neighbours, wall, comps, queue, starts, goals, planned, a):
    """Would resting on ``goals[a]`` cut a unit still to plan (other than ``a``) from its
    goal that reaches it now? (A unit already cut off, after a forced choice, does not
    count.) Returns ``(cut, cells visited)``."""
    c = goals[a]
    before, after = comps[0], comps[1]
    visited = _label(neighbours, wall, before, queue)
    wall[c] = True
    visited += _label(neighbours, wall, after, queue)
    cut = False
    for b in range(starts.shape[0]):
        if planned[b] or b == a or cut:
            continue
        wall[c] = False
        now = _reaches(neighbours, before, wall, starts[b], before[goals[b]])
        wall[c] = True
        cut = now and not _reaches(neighbours, after, wall, starts[b], after[goals[b]])
    wall[c] = False
    return cut, visited


@njit(cache=True, nogil=True)
def planning_order(neighbours, starts, goals, preference, max_work):
    """The units in the order to plan them: ``preference``, except that a unit whose resting
    goal would cut a unit still to plan from its goal (one that reaches it now) waits until
    that unit is planned.
    Returns ``(order, cells visited)``; past ``max_work`` cells the rest keep the
    preference."""
    n, vertex_count = starts.shape[0], neighbours.shape[0]
    wall = np.zeros(vertex_count, dtype=np.bool_)
    comps = np.empty((2, vertex_count), dtype=np.int32)
    queue = np.empty(vertex_count, dtype=np.int32)
    seen = np.zeros(vertex_count, dtype=np.int32)
    planned = np.zeros(n, dtype=np.bool_)
    waiting = np.zeros(vertex_count, dtype=np.bool_)  # the starts of units still to plan
    waiting[starts] = True
    order = np.empty(n, dtype=np.int32)
    done, work, stamp = 0, 0, 0
    while done < n:
        chosen = -1
        for k in range(n):
            a = preference[k]
            if planned[a]:
                continue
            if chosen < 0:
                chosen = a  # nobody fits, or out of work: the preference's first
            if work >= max_work:
                break
            stamp += 1
            fits, spent = _stays_connected(neighbours, wall, goals[a], seen, queue, stamp, waiting)
            work += spent
            if not fits:
                cut, spent = _cuts_anyone(neighbours, wall, comps, queue, starts, goals, planned, a)
                work += spent
                fits = not cut
            if fits:
                chosen = a
                break
        wall[goals[chosen]] = True
        planned[chosen] = True
        waiting[starts[chosen]] = False
        order[done] = chosen
        done += 1
    return order, work
