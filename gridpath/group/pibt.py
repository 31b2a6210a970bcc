"""PIBT (priority inheritance with backtracking, Okumura et al., AIJ 2022) as LaCAM's
configuration generator: from the configuration ``q_from`` and a set of *constraints*
(some units' next cells fixed by LaCAM's low-level search), the next configuration in
which every other unit moves one step towards its goal where it can, in priority order.

A unit that wants a cell held by a unit that has not moved yet makes that unit move first
(priority inheritance); if that unit finds no cell the first tries its next candidate
(backtracking). Written as an explicit stack (no recursion: hundreds of units may
inherit in a chain). Candidates are ordered by distance to the unit's goal, then free cells
before held ones, then a seeded random key: deterministic.

``scratch`` is the tuple ``(occ_now, occ_next, cand, ncand, cpos, stack, rng)`` built by
:func:`make_scratch`; ``occ_now``/``occ_next`` are -1 everywhere between calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.group.distances import distance

NONE = -1


def make_scratch(vertex_count: int, units: int, moves: int, seed: int) -> tuple:
    occ_now = np.full(vertex_count, NONE, dtype=np.int32)
    occ_next = np.full(vertex_count, NONE, dtype=np.int32)
    cand = np.empty((units, moves + 1), dtype=np.int32)
    ncand = np.zeros(units, dtype=np.int32)
    cpos = np.zeros(units, dtype=np.int32)
    stack = np.empty(units, dtype=np.int32)
    rng = np.array([seed * 2654435761 + 88172645463325252], dtype=np.uint64)
    return occ_now, occ_next, cand, ncand, cpos, stack, rng


@njit(cache=True, nogil=True, inline="always")
def next_random(rng):
    """xorshift64: the solver's only source of randomness, seeded per request."""
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return x


@njit(cache=True, nogil=True)
def crosses(u, v, q_to, occ_now, neighbours, cross):
    """True if the move ``u -> v`` crosses, diagonally in the same 2x2 square, the move
    of a unit that has already chosen its next cell."""
    for d in range(4, neighbours.shape[1]):
        if neighbours[u, d] != v:
            continue
        a = cross[u, d, 0]
        b = cross[u, d, 1]
        if a >= 0 and b >= 0:
            j = occ_now[a]
            if j >= 0 and q_to[j] == b:
                return True
            j = occ_now[b]
            if j >= 0 and q_to[j] == a:
                return True
    return False


@njit(cache=True, nogil=True)
def order_candidates(i, u, neighbours, tables, scratch):
    """Unit ``i``'s candidate cells from ``u`` (stay and every move), best first."""
    occ_now, occ_next, cand, ncand, cpos, stack, rng = scratch
    keys = np.empty(neighbours.shape[1] + 1, dtype=np.int64)
    n = 0
    for d in range(-1, neighbours.shape[1]):
        c = u if d < 0 else neighbours[u, d]
        if c < 0:
            continue
        held = 1 if occ_now[c] >= 0 and c != u else 0
        tie = np.int64(next_random(rng) >> np.uint64(48))  # 16 random bits
        key = ((np.int64(distance(tables, neighbours, i, c)) * 2 + held) << 16) | tie
        k = n  # insertion sort: at most nine candidates
        while k > 0 and keys[k - 1] > key:
            keys[k] = keys[k - 1]
            cand[i, k] = cand[i, k - 1]
            k -= 1
        keys[k] = key
        cand[i, k] = c
        n += 1
    ncand[i] = n
    cpos[i] = 0


@njit(cache=True, nogil=True)
def _try_next(i, q_from, q_to, neighbours, cross, scratch):
    """Unit ``i`` takes its next acceptable candidate. Returns the unit it must push (-2:
    none, it has its cell; -3: no candidate left)."""
    occ_now, occ_next, cand, ncand, cpos, stack, rng = scratch
    u = q_from[i]
    while cpos[i] < ncand[i]:
        v = cand[i, cpos[i]]
        cpos[i] += 1
        if occ_next[v] != NONE:
            continue
        j = occ_now[v]
        if j >= 0 and j != i and q_to[j] == u:  # a swap with j
            continue
        if v != u and neighbours.shape[1] > 4 and crosses(u, v, q_to, occ_now, neighbours, cross):
            continue
        q_to[i] = v
        occ_next[v] = i
        if j >= 0 and j != i and q_to[j] == NONE:
            return j
        return -2
    return -3


@njit(cache=True, nogil=True)
def pibt(i0, q_from, q_to, neighbours, cross, tables, scratch):
    """Move unit ``i0`` and, by inheritance, the units in its way. Returns False if some
    unit was left with no cell (the configuration is then invalid)."""
    occ_now, occ_next, cand, ncand, cpos, stack, rng = scratch
    stack[0] = i0
    top = 1
    order_candidates(i0, q_from[i0], neighbours, tables, scratch)
    valid = True
    while top > 0:
        i = stack[top - 1]
        pushed = _try_next(i, q_from, q_to, neighbours, cross, scratch)
        if pushed >= 0:
            order_candidates(pushed, q_from[pushed], neighbours, tables, scratch)
            stack[top] = pushed
            top += 1
            continue
        if pushed == -3:  # no cell: stay, and the unit that pushed tries its next one
            u = q_from[i]
            # Above the bottom, the cell is the pusher's reservation, taken back here;
            # at the bottom a holder can only be a constrained unit: no valid move.
            if top == 1 and occ_next[u] != NONE and occ_next[u] != i:
                valid = False
            q_to[i] = u
            occ_next[u] = i
            top -= 1
            continue
        top -= 1  # success: every unit below on the stack has its cell too
        while top > 0:
            top -= 1
    return valid
