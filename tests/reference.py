"""Independent references for the tests: nothing here calls gridpath.search.

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


def step_is_legal(walkable: np.ndarray, a, b, diagonal: str = "no_corner_cut") -> bool:
    """One step between walkable cells under a diagonal rule (``never`` = 4-connected)."""
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
        sides = (bool(walkable[ay, bx]), bool(walkable[by, ax]))
        return {
            "never": False,
            "no_corner_cut": all(sides),
            "one_free": any(sides),
            "always": True,
        }[diagonal]
    return True


def path_cost(path, weights: tuple[float, float] = (1.0, SQRT2)) -> float:
    straight = sum(1 for a, b in zip(path, path[1:]) if (a[0] == b[0]) != (a[1] == b[1]))
    diagonal = len(path) - 1 - straight
    return straight * weights[0] + diagonal * weights[1]


def reference_costs(
    walkable: np.ndarray,
    start,
    diagonal: str = "no_corner_cut",
    weights: tuple[float, float] = (1.0, SQRT2),
    cell_cost: np.ndarray | None = None,
) -> np.ndarray:
    """Cost from ``start`` to every cell (inf where unreachable), shape (height, width).

    ``weights`` are the straight and diagonal step costs; ``diagonal`` the corner rule;
    ``cell_cost`` (optional) scales a step by the mean cost of the two cells it joins.
    """
    h, w = walkable.shape
    rows, cols, costs = [], [], []
    for y in range(h):
        for x in range(w):
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    if (dx or dy) and step_is_legal(walkable, (x, y), (x + dx, y + dy), diagonal):
                        rows.append(y * w + x)
                        cols.append((y + dy) * w + x + dx)
                        length = weights[1] if dx and dy else weights[0]
                        if cell_cost is not None:
                            length *= 0.5 * (cell_cost[y, x] + cell_cost[y + dy, x + dx])
                        costs.append(length)
    graph = coo_matrix((costs, (rows, cols)), shape=(h * w, h * w)).tocsr()
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


def corner_points(a, b) -> list[tuple[Fraction, Fraction]]:
    """Grid corners (integer points) strictly inside the segment between cell centres."""
    (x0, y0), (x1, y1) = a, b
    px, py = Fraction(2 * x0 + 1, 2), Fraction(2 * y0 + 1, 2)
    dx, dy = x1 - x0, y1 - y0
    points = []
    if dx == 0 or dy == 0:
        return points  # a horizontal or vertical segment between centres meets no corner
    for cx in range(min(x0, x1) + 1, max(x0, x1) + 1):
        t = (cx - px) / dx
        y = py + t * dy
        if 0 < t < 1 and y.denominator == 1:
            points.append((Fraction(cx), y))
    return points


def reference_line_of_sight_rule(walkable: np.ndarray, a, b, diagonal: str) -> bool:
    """Line of sight under a corner rule: every cell the segment *enters* is walkable, and at
    each grid corner it passes through, the two side cells obey the diagonal rule."""
    h, w = walkable.shape

    def open_(x, y):
        return 0 <= x < w and 0 <= y < h and bool(walkable[y, x])

    corners = corner_points(a, b)
    corner_only = set()
    sx = 1 if b[0] > a[0] else -1
    sy = 1 if b[1] > a[1] else -1
    sides = []
    for cx, cy in corners:
        cx, cy = int(cx), int(cy)
        # Cells around the corner: the segment goes from the cell before to the cell after.
        before = (cx - (1 if sx > 0 else 0), cy - (1 if sy > 0 else 0))
        side_x = (before[0] + sx, before[1])
        side_y = (before[0], before[1] + sy)
        corner_only.update({side_x, side_y})
        sides.append((open_(*side_x), open_(*side_y)))
    entered = touched_cells(a, b) - corner_only
    if not all(open_(x, y) for x, y in entered):
        return False
    rule = {"never": all, "no_corner_cut": all, "one_free": any, "always": lambda s: True}[diagonal]
    return all(rule(pair) for pair in sides)


def assert_costs_match(got, want) -> None:
    """Two cost matrices agree: ``None`` in the same places, costs to 1e-9."""
    for got_row, want_row in zip(got, want, strict=True):
        for a, b in zip(got_row, want_row, strict=True):
            assert (a is None) == (b is None), (a, b)
            if b is not None:
                assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), (a, b)
