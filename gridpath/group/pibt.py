"""PIBT (priority inheritance with backtracking, Okumura et al., AIJ 2022) as LaCAM's
configuration generator: from the configuration ``q_from`` and a set of *constraints*
(some units' next cells fixed by LaCAM's low-level search), the next configuration in
which every other unit moves one step towards its goal where it can, in priority order.

A unit that wants a cell held by a unit that has not moved yet makes that unit move first
(priority inheritance); if that unit finds no cell the first tries its next candidate
(backtracking). Written as an explicit stack (no recursion: hundreds of units may
inherit in a chain). Candidates are ordered by distance to the unit's goal, then free cells
before held ones, then a seeded random key: deterministic. With LaCAM2's *swap*
(Okumura, IJCAI 2023): a unit that must pass another in a corridor steps back first and
pulls the other through, which plain PIBT cannot do.

``scratch`` is the tuple ``(occ_now, occ_next, cand, ncand, cpos, stack, rng, keys,
partner)`` built by :func:`make_scratch`; ``occ_now``/``occ_next`` are -1 everywhere between calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.group.distances import _extend

NONE = -1


def make_scratch(vertex_count: int, units: int, moves: int, seed: int) -> tuple:
    occ_now = np.full(vertex_count, NONE, dtype=np.int32)
    occ_next = np.full(vertex_count, NONE, dtype=np.int32)
    cand = np.empty((units, moves + 1), dtype=np.int32)
    ncand = np.zeros(units, dtype=np.int32)
    cpos = np.zeros(units, dtype=np.int32)
    stack = np.empty(units, dtype=np.int32)
    rng = np.array([seed * 2654435761 + 88172645463325252], dtype=np.uint64)
    keys = np.empty(moves + 1, dtype=np.int64)
    partner = np.full(units, NONE, dtype=np.int32)
    return occ_now, occ_next, cand, ncand, cpos, stack, rng, keys, partner


@njit(cache=True, nogil=True)
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
def order_candidates(i, u, neighbours, dist, distances, occ_now, cand, keys, rng):
    """Unit ``i``'s candidate cells from ``u`` (stay and every move), best first; returns
    their count. Arrays come one by one (not in tuples): this runs for every unit at every
    tick, and a tuple of arrays passed to a call costs a reference count per array."""
    n = 0
    for d in range(-1, neighbours.shape[1]):
        c = u if d < 0 else neighbours[u, d]
        if c < 0:
            continue
        known = dist[i, c]  # labelled: distance + 1; else the unit's search goes on
        far = np.int64(known) - 1 if known > 0 else _extend(distances, i, c)
        held = 1 if occ_now[c] >= 0 and c != u else 0
        tie = np.int64(next_random(rng) >> np.uint64(48))  # 16 random bits
        key = ((far * 2 + held) << 16) | tie
        k = n  # insertion sort: at most nine candidates
        while k > 0 and keys[k - 1] > key:
            keys[k] = keys[k - 1]
            cand[i, k] = cand[i, k - 1]
            k -= 1
        keys[k] = key
        cand[i, k] = c
        n += 1
    return n


@njit(cache=True, nogil=True)
def _d(dist, distances, i, v):
    known = dist[i, v]
    return np.int64(known) - 1 if known > 0 else _extend(distances, i, v)


@njit(cache=True, nogil=True)
def _step_along(v_pusher, v_puller, neighbours, degree, occ_now, goals):
    """The corridor walk of the swap test: how many ways on from ``v_puller`` there are
    besides ``v_pusher`` and dead ends where a unit rests at its goal, and the last one."""
    ways = 0
    beyond = -1
    for d in range(neighbours.shape[1]):
        u = neighbours[v_puller, d]
        if u < 0:
            continue
        a = occ_now[u]
        if u == v_pusher or (degree[u] == 1 and a >= 0 and goals[a] == u):
            continue
        ways += 1
        beyond = u
    return ways, beyond


@njit(cache=True, nogil=True)
def _swap_required(
    pusher, puller, v_pusher, v_puller, neighbours, degree, occ_now, goals, dist, distances
):
    """Would ``pusher`` and ``puller`` have to pass each other in a corridor (a chain of
    cells with one way on) for the pusher to progress? (LaCAM2's swap test.)"""
    while _d(dist, distances, pusher, v_puller) < _d(dist, distances, pusher, v_pusher):
        ways, beyond = _step_along(v_pusher, v_puller, neighbours, degree, occ_now, goals)
        if ways >= 2:
            return False  # room to pass at v_puller
        if ways <= 0:
            break
        v_pusher = v_puller
        v_puller = beyond
    return _d(dist, distances, puller, v_pusher) < _d(dist, distances, puller, v_puller) and (
        _d(dist, distances, pusher, v_pusher) == 0
        or _d(dist, distances, pusher, v_puller) < _d(dist, distances, pusher, v_pusher)
    )


@njit(cache=True, nogil=True)
def _swap_possible(v_pusher_origin, v_puller, neighbours, degree, occ_now, goals):
    """Does the corridor from ``v_puller`` (away from ``v_pusher_origin``) open up on a
    cell where two units can pass?"""
    v_pusher = v_pusher_origin
    while v_puller != v_pusher_origin:
        ways, beyond = _step_along(v_pusher, v_puller, neighbours, degree, occ_now, goals)
        if ways >= 2:
            return True
        if ways <= 0:
            return False
        v_pusher = v_puller
        v_puller = beyond
    return False


@njit(cache=True, nogil=True)
def swap_partner(i, q_from, q_to, neighbours, degree, occ_now, goals, cand, dist, distances):
    """The unit ``i`` must swap places with (pulling it into its cell), or -1."""
    best = cand[i, 0]
    u = q_from[i]
    j = occ_now[best]
    if j >= 0 and j != i and q_to[j] == NONE:
        if _swap_required(i, j, u, q_from[j], neighbours, degree, occ_now, goals, dist, distances):
            if _swap_possible(q_from[j], u, neighbours, degree, occ_now, goals):
                return j
    if best != u:  # clearing: a unit behind i that will need to pass it
        for d in range(neighbours.shape[1]):
            w = neighbours[u, d]
            k = occ_now[w] if w >= 0 else -1
            if k < 0 or best == q_from[k]:
                continue
            if _swap_required(k, i, u, best, neighbours, degree, occ_now, goals, dist, distances):
                if _swap_possible(best, u, neighbours, degree, occ_now, goals):
                    return k
    return NONE


@njit(cache=True, nogil=True)
def has_move(neighbours, v, w):
    """Is there a move ``v -> w``? (Grid moves are symmetric; a link may be one-way.)"""
    for d in range(neighbours.shape[1]):
        if neighbours[v, d] == w:
            return True
    return False


@njit(cache=True, nogil=True)
def _pull(i, q_from, q_to, occ_now, occ_next, partner, cpos, neighbours, cross):
    """After ``i`` took its first choice, pull its swap partner into the cell it left."""
    j = partner[i]
    u = q_from[i]
    if j < 0 or cpos[i] != 1 or q_to[j] != NONE or occ_next[u] != NONE or q_to[i] == q_from[j]:
        return
    if not has_move(neighbours, q_from[j], u):  # a one-way link leads only the other way
        return
    if neighbours.shape[1] > 4 and crosses(q_from[j], u, q_to, occ_now, neighbours, cross):
        return
    occ_next[u] = j
    q_to[j] = u


@njit(cache=True, nogil=True)
def _enter(i, q_from, q_to, neighbours, degree, goals, dist, distances, scratch):
    """Order unit ``i``'s candidates; if it must swap with a neighbour, reverse them (it
    steps aside first and pulls the partner after it)."""
    occ_now, occ_next, cand, ncand, cpos, stack, rng, keys, partner = scratch
    m = order_candidates(i, q_from[i], neighbours, dist, distances, occ_now, cand, keys, rng)
    ncand[i] = m
    cpos[i] = 0
    j = swap_partner(i, q_from, q_to, neighbours, degree, occ_now, goals, cand, dist, distances)
    partner[i] = j
    if j >= 0:
        for k in range(m // 2):
            cand[i, k], cand[i, m - 1 - k] = cand[i, m - 1 - k], cand[i, k]


@njit(cache=True, nogil=True)
def pibt(i0, q_from, q_to, neighbours, cross, degree, goals, distances, scratch):
    """Move unit ``i0`` and, by inheritance, the units in its way. Returns False if some
    unit was left with no cell (the configuration is then invalid)."""
    occ_now, occ_next, cand, ncand, cpos, stack, rng, keys, partner = scratch
    dist = distances[0]
    diagonal = neighbours.shape[1] > 4
    stack[0] = i0
    top = 1
    _enter(i0, q_from, q_to, neighbours, degree, goals, dist, distances, scratch)
    while top > 0:
        i = stack[top - 1]
        u = q_from[i]
        pushed = -3  # -3: no cell left; -2: a cell, nobody to push; else the unit pushed
        while cpos[i] < ncand[i]:
            v = cand[i, cpos[i]]
            cpos[i] += 1
            if occ_next[v] != NONE:
                continue
            j = occ_now[v]
            if j >= 0 and j != i and q_to[j] == u:  # a swap with j
                continue
            if diagonal and v != u and crosses(u, v, q_to, occ_now, neighbours, cross):
                continue
            q_to[i] = v
            occ_next[v] = i
            pushed = j if j >= 0 and j != i and q_to[j] == NONE else -2
            break
        if pushed >= 0:  # inheritance: the unit in the way moves first
            _enter(pushed, q_from, q_to, neighbours, degree, goals, dist, distances, scratch)
            stack[top] = pushed
            top += 1
        elif pushed == -3:  # no cell: stay, and the unit that pushed tries its next one
            # Above the bottom, the cell is the pusher's reservation, taken back here; at
            # the bottom a holder can only be a constrained unit: no valid configuration.
            if top == 1 and occ_next[u] != NONE and occ_next[u] != i:
                return False
            q_to[i] = u
            occ_next[u] = i
            top -= 1
        else:  # every unit below on the stack has its cell too; innermost pulls first
            while top > 0:
                top -= 1
                _pull(stack[top], q_from, q_to, occ_now, occ_next, partner, cpos, neighbours, cross)
            return True
    return True
