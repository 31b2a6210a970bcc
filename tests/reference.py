"""Independent references for the tests: nothing here calls app.search.

* :func:`reference_costs`: shortest-path costs by ``scipy.sparse.csgraph.dijkstra`` on an
  explicit graph built from the movement rule (8-connected, no corner cutting).
* :func:`touched_cells`: the closed unit squares a segment between two cell centres meets,
  by exact rational clipping (Liang-Barsky) rather than a grid walk.
* :func:`step_is_legal`, :func:`path_cost`: the movement rule, one step at a time.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

SQRT2 = math.sqrt(2.0)


def grid_from_ascii(text: str) -> np.ndarray:
    """``.`` walkable, ``#`` blocked; rows top to bottom. Returns bool (height, width)."""
    rows = [line.strip() for line in text.strip().splitlines()]
    return np.array([[c == "." for c in row] for row in rows], dtype=bool)


def step_is_legal(walkable: np.ndarray, a, b) -> bool:
    """One 8-connected step between walkable cells, diagonal only with both sides open."""
    h, w = walkable.shape
    (ax, ay), (bx, by) = a, b
    if not (0 <= ax < w and 0 <= ay < h and 0 <= bx < w and 0 <= by < h):
        return False
    if not (walkable[ay, ax] and walkable[by, bx]):
        return False
    dx, dy = bx - ax, by - ay
    if max(abs(dx), abs(dy)) != 1:
        return False
    if dx and dy:
        return bool(walkable[ay, bx] and walkable[by, ax])
    return True


def path_cost(path) -> float:
    straight = sum(1 for a, b in zip(path, path[1:]) if (a[0] == b[0]) != (a[1] == b[1]))
    diagonal = len(path) - 1 - straight
    return straight + diagonal * SQRT2


def reference_costs(walkable: np.ndarray, start) -> np.ndarray:
    """Cost from ``start`` to every cell (inf where unreachable), shape (height, width)."""
    h, w = walkable.shape
    rows, cols, weights = [], [], []
    for y in range(h):
        for x in range(w):
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if (dx or dy) and step_is_legal(walkable, (x, y), (x + dx, y + dy)):
                        rows.append(y * w + x)
                        cols.append((y + dy) * w + x + dx)
                        weights.append(SQRT2 if dx and dy else 1.0)
    graph = coo_matrix((weights, (rows, cols)), shape=(h * w, h * w)).tocsr()
    dist = dijkstra(graph, directed=True, indices=start[1] * w + start[0])
    return dist.reshape(h, w)


def touched_cells(a, b) -> set[tuple[int, int]]:
    """Cells whose closed square meets the segment between the centres of ``a`` and ``b``."""
    (x0, y0), (x1, y1) = a, b
    p0 = (Fraction(2 * x0 + 1, 2), Fraction(2 * y0 + 1, 2))
    d = (Fraction(x1 - x0), Fraction(y1 - y0))
    cells = set()
    for cx in range(min(x0, x1) - 1, max(x0, x1) + 2):
        for cy in range(min(y0, y1) - 1, max(y0, y1) + 2):
            lo, hi = Fraction(0), Fraction(1)
            ok = True
            for p, dp, box_lo in ((p0[0], d[0], cx), (p0[1], d[1], cy)):
                box_hi = box_lo + 1
                if dp == 0:
                    if not (box_lo <= p <= box_hi):
                        ok = False
                        break
                    continue
                t1, t2 = (box_lo - p) / dp, (box_hi - p) / dp
                if t1 > t2:
                    t1, t2 = t2, t1
                lo, hi = max(lo, t1), min(hi, t2)
                if lo > hi:
                    ok = False
                    break
            if ok:
                cells.add((cx, cy))
    return cells


def reference_line_of_sight(walkable: np.ndarray, a, b) -> bool:
    h, w = walkable.shape
    return all(0 <= x < w and 0 <= y < h and walkable[y, x] for x, y in touched_cells(a, b))
