"""LaCAM* (Okumura, AAAI 2023 and IJCAI 2023): a depth-first search over configurations
(the cells of all units at one tick) whose successors PIBT generates, made complete by a
lazily grown low-level search over *constraints* (which unit goes where next), and turned
anytime by LaCAM*'s cost updates: after the first solution the search goes on, pruning
nodes whose ``g + h`` cannot beat it and rewiring parents when a cheaper way to a known
configuration appears. Edge cost: the units not resting at their goal in both
configurations (sum of costs).

The loop runs over the arrays of :mod:`gridpath.group.pools` and returns with status
``GROW`` when a pool needs room, to be called again; its budget counts work (units moved
by PIBT plus cells settled by the per-goal distances, weighted), never time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.group.distances import distance
from gridpath.group.pibt import NONE, crosses, next_random, pibt
from gridpath.group.pools import (
    CALLS,
    EDGES,
    EXHAUSTED,
    FOUND,
    GOAL,
    GROW,
    HASH_USED,
    HNODES,
    LIMIT,
    LNODES,
    RUNNING,
    STATUS,
    TOP,
)


@njit(cache=True, nogil=True)
def config_hash(q):
    h = np.uint64(1469598103934665603)
    for i in range(q.shape[0]):
        h = (h ^ np.uint64(q[i])) * np.uint64(1099511628211)
    return h ^ (h >> np.uint64(29))


@njit(cache=True, nogil=True)
def find_config(q, hq, slots, config):
    """The node holding configuration ``q`` (hash ``hq``), or -1."""
    mask = slots.shape[0] - 1
    slot = np.int64(hq & np.uint64(mask))
    while slots[slot] != 0:
        node = slots[slot] - 1
        if np.array_equal(config[node], q):
            return node
        slot = (slot + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def _constrain(node, lnode, q_to, hp, lp, neighbours, cross, scratch):
    """Fix the constrained units' next cells; False if the constraints conflict."""
    config = hp[0]
    who, where, lparent, depth, lnext = lp
    occ_now, occ_next = scratch[0], scratch[1]
    c = lnode
    while depth[c] > 0:
        if occ_next[where[c]] != NONE:
            return False
        q_to[who[c]] = where[c]
        occ_next[where[c]] = who[c]
        c = lparent[c]
    c = lnode
    while depth[c] > 0:
        a = who[c]
        u = config[node, a]
        j = occ_now[where[c]]
        if j >= 0 and j != a and q_to[j] == u:
            return False
        if neighbours.shape[1] > 4 and crosses(u, where[c], q_to, occ_now, neighbours, cross):
            return False
        c = lparent[c]
    return True


@njit(cache=True, nogil=True)
def next_config(node, lnode, q_to, hp, lp, neighbours, cross, degree, goals, distances, scratch):
    """The configuration PIBT generates from ``node`` under ``lnode``'s constraints, into
    ``q_to``; False if there is none."""
    config, order = hp[0], hp[5]
    occ_now, occ_next = scratch[0], scratch[1]
    q_from = config[node]
    n = q_from.shape[0]
    for i in range(n):
        occ_now[q_from[i]] = i
        q_to[i] = NONE
    valid = _constrain(node, lnode, q_to, hp, lp, neighbours, cross, scratch)
    k = 0
    while valid and k < n:
        i = order[node, k]
        if q_to[i] == NONE:
            valid = pibt(i, q_from, q_to, neighbours, cross, degree, goals, distances, scratch)
        k += 1
    for i in range(n):  # every reserved cell is some unit's q_to: reset both maps
        occ_now[q_from[i]] = NONE
        if q_to[i] >= 0:
            occ_next[q_to[i]] = NONE
    return valid


@njit(cache=True, nogil=True)
def _new_lnode(lp, state, who_, where_, parent, depth_):
    who, where, lparent, depth, lnext = lp
    c = state[LNODES]
    state[LNODES] += 1
    who[c] = who_
    where[c] = where_
    lparent[c] = parent
    depth[c] = depth_
    lnext[c] = -1
    return c


@njit(cache=True, nogil=True)
def _enqueue_lnode(node, c, hp, lp):
    lq_head, lq_tail = hp[6], hp[7]
    if lq_tail[node] < 0:
        lq_head[node] = c
    else:
        lp[4][lq_tail[node]] = c
    lq_tail[node] = c


@njit(cache=True, nogil=True)
def _expand_low(node, c, hp, lp, neighbours, state, rng):
    """Queue ``c``'s children: the next unit in ``node``'s order, at each of its cells."""
    config, order = hp[0], hp[5]
    d = lp[3][c]
    i = order[node, d]
    v = config[node, i]
    cells = np.empty(neighbours.shape[1] + 1, dtype=np.int32)
    m = 0
    for k in range(-1, neighbours.shape[1]):
        w = v if k < 0 else neighbours[v, k]
        if w >= 0:
            cells[m] = w
            m += 1
    for k in range(m - 1, 0, -1):  # seeded Fisher-Yates
        r = np.int64(next_random(rng) % np.uint64(k + 1))
        cells[k], cells[r] = cells[r], cells[k]
    for k in range(m):
        _enqueue_lnode(node, _new_lnode(lp, state, i, cells[k], c, d + 1), hp, lp)


@njit(cache=True, nogil=True)
def _add_edge(a, b, cost, hp, ep, state):
    to, enext, ecost = ep
    first_edge = hp[8]
    e = state[EDGES]
    state[EDGES] += 1
    to[e] = b
    ecost[e] = cost
    enext[e] = first_edge[a]
    first_edge[a] = e


@njit(cache=True, nogil=True)
def edge_cost(q_from, q_to, goals):
    cost = 0
    for i in range(goals.shape[0]):
        if not (q_from[i] == goals[i] and q_to[i] == goals[i]):
            cost += 1
    return cost


@njit(cache=True, nogil=True)
def new_node(q, parent, g, goals, hp, lp, slots, neighbours, distances, state):
    """Register configuration ``q`` as a new high-level node; returns its id. Priorities
    (LaCAM's): a unit away from its goal gains 1 a step, one at its goal drops to its
    fraction; the start's are the units' distances over the unit count."""
    config, hparent, gs, hs, prio, order, lq_head, lq_tail, first_edge, hashes = hp[:10]
    node = state[HNODES]
    state[HNODES] += 1
    n = q.shape[0]
    config[node] = q
    hparent[node] = parent
    gs[node] = g
    h = 0
    for i in range(n):
        d = distance(distances, i, q[i])
        h += d
        if parent < 0:
            prio[node, i] = d / n
        elif q[i] != goals[i]:
            prio[node, i] = prio[parent, i] + 1.0
        else:
            prio[node, i] = prio[parent, i] - np.floor(prio[parent, i])
    hs[node] = h
    order[node] = np.argsort(-prio[node], kind="mergesort").astype(np.int32)
    lq_head[node] = -1
    lq_tail[node] = -1
    first_edge[node] = -1
    _enqueue_lnode(node, _new_lnode(lp, state, -1, -1, -1, 0), hp, lp)
    hq = config_hash(q)
    hashes[node] = hq
    mask = slots.shape[0] - 1
    slot = np.int64(hq & np.uint64(mask))
    while slots[slot] != 0:
        slot = (slot + 1) & mask
    slots[slot] = node + 1
    state[HASH_USED] += 1
    return node


@njit(cache=True, nogil=True)
def rewire(start, hp, ep, open_, state):
    """LaCAM*'s cost update: from ``start``, lower the cost of every node now reachable
    more cheaply (a label-correcting pass), re-opening those that could beat the
    incumbent solution."""
    gs, hs, hparent, first_edge = hp[2], hp[3], hp[1], hp[8]
    to, enext, ecost = ep
    count = state[HNODES]
    queue, queued = hp[10], hp[11]  # a ring of at most ``count`` nodes; flags all False
    head = 0
    size = 1
    queue[0] = start
    queued[start] = True
    goal = state[GOAL]
    while size > 0:
        a = queue[head]
        head = (head + 1) % count
        size -= 1
        queued[a] = False
        e = first_edge[a]
        while e >= 0:
            b = to[e]
            g = gs[a] + ecost[e]
            if g < gs[b]:
                gs[b] = g
                hparent[b] = a
                if not queued[b]:
                    queue[(head + size) % count] = b
                    size += 1
                    queued[b] = True
                if goal >= 0 and g + hs[b] < gs[goal] and state[TOP] < open_.shape[0]:
                    open_[state[TOP]] = b
                    state[TOP] += 1
            e = enext[e]


@njit(cache=True, nogil=True)
def _full(hp, lp, ep, slots, open_, state, moves):
    return (
        state[HNODES] + 2 >= hp[2].shape[0]
        or state[LNODES] + moves + 3 >= lp[0].shape[0]
        or state[EDGES] + 2 >= ep[0].shape[0]
        or state[TOP] + state[HNODES] + 2 >= open_.shape[0]
        or 2 * (state[HASH_USED] + 2) >= slots.shape[0]
    )


@njit(cache=True, nogil=True)
def _successor(node, q_to, goals, hp, lp, ep, slots, open_, neighbours, distances, state):
    """File the configuration ``q_to`` reached from ``node``: a known one gets an edge and
    the cost update, a new one a node; either goes on top of the stack."""
    config, gs = hp[0], hp[2]
    cost = edge_cost(config[node], q_to, goals)
    known = find_config(q_to, config_hash(q_to), slots, config)
    if known >= 0:
        _add_edge(node, known, cost, hp, ep, state)
        open_[state[TOP]] = known
        state[TOP] += 1
        rewire(node, hp, ep, open_, state)
        return
    made = new_node(q_to, node, gs[node] + cost, goals, hp, lp, slots, neighbours, distances, state)
    _add_edge(node, made, cost, hp, ep, state)
    open_[state[TOP]] = made
    state[TOP] += 1


@njit(cache=True, nogil=True)
def search(
    goals,
    hp,
    lp,
    ep,
    slots,
    open_,
    state,
    neighbours,
    cross,
    degree,
    distances,
    scratch,
    max_work,
    star,
    distance_cells_per_work,
):
    """Run LaCAM* until done, out of work, or a pool needs room (status ``GROW``)."""
    n = goals.shape[0]
    moves = neighbours.shape[1]
    gs, hs, lq_head = hp[2], hp[3], hp[6]
    lnext = lp[4]
    q_to = np.empty(n, dtype=np.int32)
    rng = scratch[6]
    state[STATUS] = RUNNING
    while state[TOP] > 0:
        if _full(hp, lp, ep, slots, open_, state, moves):
            state[STATUS] = GROW
            return
        if state[CALLS] * n + distances[4][0] // distance_cells_per_work >= max_work:
            state[STATUS] = LIMIT
            return
        node = open_[state[TOP] - 1]
        if state[GOAL] < 0 and hs[node] == 0:
            state[GOAL] = node
            if not star:
                state[STATUS] = FOUND
                return
        goal = state[GOAL]
        if (goal >= 0 and gs[goal] <= gs[node] + hs[node]) or lq_head[node] < 0:
            state[TOP] -= 1  # cannot improve on the solution, or no constraint left
            continue
        c = lq_head[node]
        lq_head[node] = lnext[c]
        if lq_head[node] < 0:
            hp[7][node] = -1
        if lp[3][c] < n:
            _expand_low(node, c, hp, lp, neighbours, state, rng)
        state[CALLS] += 1
        if next_config(node, c, q_to, hp, lp, neighbours, cross, degree, goals, distances, scratch):
            _successor(node, q_to, goals, hp, lp, ep, slots, open_, neighbours, distances, state)
    state[STATUS] = EXHAUSTED
