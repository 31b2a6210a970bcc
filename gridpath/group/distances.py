"""Per-goal distances, computed lazily and shared within a request.

Each unit's distances are a breadth-first search from its goal over the moves taken backwards
(``MoveGraph.reverse``: a one-way link leads only from its entrance; one tick a step, so a
move in any direction counts 1), *resumable*: a query for the distance of a cell
the search has not reached yet continues that unit's search just far enough. The distances
are ``(units, V)`` arrays allocated zeroed (the OS maps the pages lazily, in huge pages
where it can, so regions never reached take no memory) and hold distance + 1 (0: not
reached yet).

``distances`` is the tuple ``(dist, queue, head, tail, work, reverse)``: ``head[i]``/``tail[i]``
the read and write ends of unit ``i``'s queue; ``work[0]`` counts the cells settled, the work
the budget charges for the distances; ``reverse`` the moves into each vertex.
"""

from __future__ import annotations

import mmap

import numpy as np
from numba import njit

UNREACHABLE = 1 << 30  # the distance reported for a cell in another component
HUGE_PAGE = 2 << 20


def _zeroed(shape: tuple[int, int]) -> np.ndarray:
    """A zeroed int32 array whose pages the OS maps when first touched, in huge pages
    where the kernel offers them (``madvise``): thousands of units' searches touch hundreds
    of megabytes, and a page fault per 4 KB costs more than the searches themselves."""
    size = shape[0] * shape[1] * 4
    if size < HUGE_PAGE or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(shape, dtype=np.int32)
    area = mmap.mmap(-1, size)  # anonymous: zero-filled, freed with the array
    area.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(area, dtype=np.int32).reshape(shape)


def make_distances(reverse: np.ndarray, goals: np.ndarray) -> tuple:
    """Fresh distances for units whose goals are the vertices ``goals``, over the moves
    into each vertex ``reverse`` (``MoveGraph.reverse``)."""
    n, vertex_count = goals.shape[0], reverse.shape[0]
    dist = _zeroed((n, vertex_count))
    queue = _zeroed((n, vertex_count))
    for i in range(n):  # every search starts with its goal queued at distance 0
        dist[i, goals[i]] = 1
        queue[i, 0] = goals[i]
    head = np.zeros(n, dtype=np.int64)
    tail = np.ones(n, dtype=np.int64)
    return dist, queue, head, tail, np.zeros(1, dtype=np.int64), reverse


@njit(cache=True, nogil=True)
def distance(distances, i, v):
    """Unit ``i``'s distance from vertex ``v`` to its goal (:data:`UNREACHABLE` if none).
    Inlined where it is called: a labelled cell costs one load; an unlabelled one
    continues the unit's search (:func:`_extend`)."""
    known = distances[0][i, v]
    if known > 0:
        return known - 1
    return _extend(distances, i, v)


@njit(cache=True, nogil=True)
def _extend(distances, i, v):
    """Continue unit ``i``'s breadth-first search until ``v`` is labelled or the search is
    done. Labels are final when set: every step costs 1, so the first label is the
    shortest."""
    dist, queue, head, tail, work, reverse = distances
    k = reverse.shape[1]
    h = head[i]
    t = tail[i]
    while h < t and dist[i, v] == 0:
        u = queue[i, h]
        h += 1
        du = dist[i, u] + 1
        for d in range(k):
            w = reverse[u, d]
            if w >= 0 and dist[i, w] == 0:
                dist[i, w] = du
                queue[i, t] = w
                t += 1
    work[0] += h - head[i]
    head[i] = h
    tail[i] = t
    if dist[i, v] > 0:
        return dist[i, v] - 1
    return UNREACHABLE


@njit(cache=True, nogil=True)
def label_components(neighbours):
    """Connected-component labels of the move graph, numbered in vertex order: moves must
    be symmetric (with one-way moves, pass each vertex's moves in and out together)."""
    n = neighbours.shape[0]
    label = np.full(n, -1, dtype=np.int32)
    stack = np.empty(n, dtype=np.int32)
    count = 0
    for s in range(n):
        if label[s] >= 0:
            continue
        label[s] = count
        top = 0
        stack[0] = s
        top = 1
        while top > 0:
            top -= 1
            u = stack[top]
            for d in range(neighbours.shape[1]):
                w = neighbours[u, d]
                if w >= 0 and label[w] < 0:
                    label[w] = count
                    stack[top] = w
                    top += 1
        count += 1
    return label


@njit(cache=True, nogil=True)
def distances_from(neighbours, source):
    """Every vertex's step distance from ``source`` (-1: unreachable) along ``neighbours``
    (``MoveGraph.reverse``: every vertex's distance *to* ``source``): one full search, for
    the goal assignment's cost matrix."""
    n = neighbours.shape[0]
    dist = np.full(n, -1, dtype=np.int32)
    queue = np.empty(n, dtype=np.int32)
    dist[source] = 0
    queue[0] = source
    h = 0
    t = 1
    while h < t:
        u = queue[h]
        h += 1
        for d in range(neighbours.shape[1]):
            w = neighbours[u, d]
            if w >= 0 and dist[w] < 0:
                dist[w] = dist[u] + 1
                queue[t] = w
                t += 1
    return dist
