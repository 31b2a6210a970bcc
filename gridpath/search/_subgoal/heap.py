"""The subgoal tier's binary heaps (:mod:`gridpath.search._subgoal`)."""

from __future__ import annotations

from numba import njit

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
