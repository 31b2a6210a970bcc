"""LaCAM's search state as flat arrays, so the compiled loop can stop when a pool is full,
let Python grow the arrays, and resume where it stopped (numba cannot grow arrays held by
the caller).

* high-level nodes (one per configuration reached): ``config`` (the units' vertices),
  ``parent``, ``g`` (cost from the start), ``h`` (sum of distances to the goals),
  ``prio``/``order`` (PIBT priorities and the unit order they give), ``lq_head``/``lq_tail``
  (the node's queue of low-level nodes), ``first_edge``, ``hash``;
* low-level nodes (constraints, a tree per high-level node): ``who``, ``where``,
  ``parent``, ``depth``, ``next`` (the queue link);
* edges between configurations, for LaCAM*'s cost updates: ``to``, ``next``, ``cost``;
* ``slots`` an open-addressing hash table of configurations (node id + 1; 0 empty);
* ``open`` the depth-first stack; ``state`` the loop's counters (:data:`STATE_FIELDS`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

STATE_FIELDS = ("hnodes", "lnodes", "edges", "top", "goal", "calls", "status", "hash_used")
HNODES, LNODES, EDGES, TOP, GOAL, CALLS, STATUS, HASH_USED = range(len(STATE_FIELDS))
RUNNING, GROW, EXHAUSTED, LIMIT, FOUND = range(5)


def make_pools(units: int, moves: int, capacity: int = 64) -> dict:
    h = capacity
    return {
        "config": np.empty((h, units), dtype=np.int32),
        "hparent": np.empty(h, dtype=np.int32),
        "g": np.empty(h, dtype=np.int64),
        "h": np.empty(h, dtype=np.int64),
        "prio": np.empty((h, units), dtype=np.float64),
        "order": np.empty((h, units), dtype=np.int32),
        "lq_head": np.empty(h, dtype=np.int32),
        "lq_tail": np.empty(h, dtype=np.int32),
        "first_edge": np.empty(h, dtype=np.int32),
        "hash": np.empty(h, dtype=np.uint64),
        "rqueue": np.empty(h, dtype=np.int32),
        "rqueued": np.zeros(h, dtype=np.bool_),
        "who": np.empty(h * (moves + 2), dtype=np.int32),
        "where": np.empty(h * (moves + 2), dtype=np.int32),
        "lparent": np.empty(h * (moves + 2), dtype=np.int32),
        "depth": np.empty(h * (moves + 2), dtype=np.int32),
        "lnext": np.empty(h * (moves + 2), dtype=np.int32),
        "to": np.empty(h, dtype=np.int32),
        "enext": np.empty(h, dtype=np.int32),
        "ecost": np.empty(h, dtype=np.int64),
        "slots": np.zeros(4 * h, dtype=np.int32),
        "open": np.empty(4 * h, dtype=np.int32),
        "state": np.zeros(len(STATE_FIELDS), dtype=np.int64),
    }


_HNODE = (
    "config",
    "hparent",
    "g",
    "h",
    "prio",
    "order",
    "lq_head",
    "lq_tail",
    "first_edge",
    "hash",
    "rqueue",
    "rqueued",
)
_LNODE = ("who", "where", "lparent", "depth", "lnext")
_EDGE = ("to", "enext", "ecost")


def _doubled(array: np.ndarray) -> np.ndarray:
    # zeroed, so flags read False until set (the rest is written before it is read)
    grown = np.zeros((array.shape[0] * 2,) + array.shape[1:], dtype=array.dtype)
    grown[: array.shape[0]] = array
    return grown


def grow(pools: dict, moves: int) -> None:
    """Double every pool that is near full (the loop asks for room before each step)."""
    state = pools["state"]
    if state[HNODES] + 2 >= pools["g"].shape[0]:
        for name in _HNODE:
            pools[name] = _doubled(pools[name])
    if state[LNODES] + moves + 3 >= pools["who"].shape[0]:
        for name in _LNODE:
            pools[name] = _doubled(pools[name])
    if state[EDGES] + 2 >= pools["to"].shape[0]:
        for name in _EDGE:
            pools[name] = _doubled(pools[name])
    if state[TOP] + state[HNODES] + 2 >= pools["open"].shape[0]:
        pools["open"] = _doubled(pools["open"])
    if 2 * (state[HASH_USED] + 2) >= pools["slots"].shape[0]:
        pools["slots"] = _rehashed(pools["slots"], pools["hash"], int(state[HNODES]))


@njit(cache=True, nogil=True)
def _rehashed(slots: np.ndarray, hashes: np.ndarray, count: int) -> np.ndarray:
    grown = np.zeros(slots.shape[0] * 2, dtype=np.int32)
    mask = grown.shape[0] - 1
    for node in range(count):
        slot = np.int64(hashes[node] & np.uint64(mask))
        while grown[slot] != 0:
            slot = (slot + 1) & mask
        grown[slot] = node + 1
    return grown


def high(pools: dict) -> tuple:
    return tuple(pools[name] for name in _HNODE)


def low(pools: dict) -> tuple:
    return tuple(pools[name] for name in _LNODE)


def edges(pools: dict) -> tuple:
    return tuple(pools[name] for name in _EDGE)
