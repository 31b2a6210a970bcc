"""The overlay's heuristic: a lower bound of the cost from any place to the goal through
the links, computed once per query.

``H(p) = min(lb(p, goal) if p is on the goal's map, min over link ways w with their entrance
on p's map of lb(p, entrance_w) + cost_w + H(exit_w))``, a backward Dijkstra from the goal.
To stay sub-quadratic in the number of links, the entrances of each map are clustered into
at most :data:`BOXES_PER_MAP` boxes (a median split along the longer side, deterministic),
and a place is bounded by its distance to a box rather than to each entrance in it. The
distance to a box is the distance to its nearest point, which is 1-Lipschitz under every
bound metric (each is a norm of ``(|dx|, |dy|)`` that grows with both), so the bound stays
admissible (never more than the per-entrance one) and consistent: for two places of one
map ``H(p) <= lb(p, q) + H(q)``, and at an entrance ``H(entrance) <= cost + H(exit)``
because the entrance lies in its own box. The Dijkstra runs over the boxes: O(boxes x ways).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.world.overlay import CHEBYSHEV, MANHATTAN, OCTILE

BOXES_PER_MAP = 32


@njit(nogil=True, cache=True)
def _distance(kind, orth, diag, dx, dy):
    ax, ay = abs(dx), abs(dy)
    if kind == MANHATTAN:
        return (ax + ay) * orth
    if kind == OCTILE:
        low = min(ax, ay)
        return (ax + ay - 2.0 * low) * orth + low * diag
    if kind == CHEBYSHEV:
        return max(ax, ay) * orth
    return np.sqrt(ax * ax + ay * ay) * orth


@njit(nogil=True, cache=True)
def _to_box(kind, orth, diag, x, y, lo, hi):
    """The bound metric from (x, y) to the nearest point of the box [lo, hi]."""
    dx = max(lo[0] - x, 0.0, x - hi[0])
    dy = max(lo[1] - y, 0.0, y - hi[1])
    return _distance(kind, orth, diag, dx, dy)


@njit(nogil=True, cache=True)
def box_values(metric, scale, goal, ways, box_map, box_lo, box_hi, box_of):
    """Each box's bound: the least ``cost + H(exit)`` over the ways entering in it.

    ``metric``: (kind, orth, diag); ``scale[m]`` map m's factor; ``goal``: (map, x, y);
    ``ways``: float64 rows (exit map, exit x, exit y, cost); ``box_of[w]``: w's box."""
    kind, orth, diag = int(metric[0]), metric[1], metric[2]
    n_ways, n_boxes = ways.shape[0], box_map.shape[0]
    cand = np.full(n_ways, np.inf)
    value = np.full(n_boxes, np.inf)
    done = np.zeros(n_boxes, dtype=np.bool_)
    gm = int(goal[0])
    for w in range(n_ways):
        m = int(ways[w, 0])
        if m == gm:
            d = _distance(kind, orth, diag, ways[w, 1] - goal[1], ways[w, 2] - goal[2])
            cand[w] = ways[w, 3] + d * scale[m]
            value[box_of[w]] = min(value[box_of[w]], cand[w])
    for _ in range(n_boxes):
        best, b = np.inf, -1
        for k in range(n_boxes):
            if not done[k] and value[k] < best:
                best, b = value[k], k
        if b < 0:
            break
        done[b] = True
        m = box_map[b]
        for w in range(n_ways):
            if int(ways[w, 0]) != m:
                continue
            d = _to_box(kind, orth, diag, ways[w, 1], ways[w, 2], box_lo[b], box_hi[b])
            c = ways[w, 3] + d * scale[m] + best
            if c < cand[w]:
                cand[w] = c
                k = box_of[w]
                if not done[k] and c < value[k]:
                    value[k] = c
    return value


@njit(nogil=True, cache=True)
def place_bounds(metric, scale, goal, places, box_map, box_lo, box_hi, value):
    """``H`` of each place (int64 rows: map, x, y)."""
    kind, orth, diag = int(metric[0]), metric[1], metric[2]
    out = np.full(places.shape[0], np.inf)
    for i in range(places.shape[0]):
        m = places[i, 0]
        h = np.inf
        if m == goal[0]:
            h = _distance(kind, orth, diag, places[i, 1] - goal[1], places[i, 2] - goal[2])
            h *= scale[m]
        for b in range(box_map.shape[0]):
            if box_map[b] == m and value[b] < np.inf:
                d = _to_box(kind, orth, diag, places[i, 1], places[i, 2], box_lo[b], box_hi[b])
                h = min(h, d * scale[m] + value[b])
        out[i] = h
    return out


def _split(order: np.ndarray, xy: np.ndarray, parts: int) -> list[np.ndarray]:
    """``order`` (indices into ``xy``) in at most ``parts`` groups: halves at the median of
    the longer side of their bounding box, recursively (stable sorts: deterministic)."""
    if parts <= 1 or order.size <= 1:
        return [order]
    pts = xy[order]
    side = int(np.argmax(pts.max(axis=0) - pts.min(axis=0)))
    ranked = order[np.argsort(pts[:, side], kind="stable")]
    half = ranked.size // 2
    return _split(ranked[:half], xy, parts // 2) + _split(ranked[half:], xy, parts - parts // 2)


def boxes(entrance_map: np.ndarray, entrance_xy: np.ndarray, n_maps: int):
    """Cluster the entrances: ``(box_map, box_lo, box_hi, box_of)`` (float64 corners)."""
    groups: list[np.ndarray] = []
    for m in range(n_maps):
        on_map = np.flatnonzero(entrance_map == m)
        if on_map.size:
            groups.extend(_split(on_map, entrance_xy, BOXES_PER_MAP))
    box_of = np.empty(entrance_map.size, dtype=np.int64)
    box_map = np.empty(len(groups), dtype=np.int64)
    box_lo = np.empty((len(groups), 2))
    box_hi = np.empty((len(groups), 2))
    for b, group in enumerate(groups):
        box_of[group] = b
        box_map[b] = entrance_map[group[0]]
        box_lo[b] = entrance_xy[group].min(axis=0)
        box_hi[b] = entrance_xy[group].max(axis=0)
    return box_map, box_lo, box_hi, box_of
