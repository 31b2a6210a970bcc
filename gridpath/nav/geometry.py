"""Exact geometric predicates on float coordinates.

Every float is a dyadic rational, so the sign of an orientation determinant is computed
exactly: first in floating point with Shewchuk's error bound (``ccwerrboundA``); only when
the result is inside the bound is it recomputed exactly with integers (each float scaled
to the common power-of-two denominator). The
answer is the sign of the exact determinant, never an epsilon guess, so a point on an
edge, collinear edges and a segment through a vertex are decided exactly.

Constructed points (where a ray crosses an edge, in :mod:`gridpath.nav.polyanya`) are rounded
to the nearest float; they are only used as interval ends, and the predicates on them are
again exact on the rounded values.
"""

from __future__ import annotations

import math

Point = tuple[float, float]

# Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric
# Predicates" (1997): |error| of the float determinant <= CCW_ERRBOUND * (|l| + |r|).
_EPS = 2.0**-53
CCW_ERRBOUND = (3.0 + 16.0 * _EPS) * _EPS


def orient(a: Point, b: Point, c: Point) -> int:
    """Sign of the turn a -> b -> c: +1 counter-clockwise (c left of ab), -1 clockwise, 0 on ab."""
    left = (b[0] - a[0]) * (c[1] - a[1])
    right = (b[1] - a[1]) * (c[0] - a[0])
    det = left - right
    bound = CCW_ERRBOUND * (abs(left) + abs(right))
    if det > bound:
        return 1
    if det < -bound:
        return -1
    return _orient_exact(a, b, c)


def _orient_exact(a: Point, b: Point, c: Point) -> int:
    # Every float is n / 2**k: scale all six to the largest denominator and use integers.
    na, qa = a[0].as_integer_ratio()
    nb, qb = a[1].as_integer_ratio()
    nc, qc = b[0].as_integer_ratio()
    nd, qd = b[1].as_integer_ratio()
    ne, qe = c[0].as_integer_ratio()
    nf, qf = c[1].as_integer_ratio()
    d = max(qa, qb, qc, qd, qe, qf)
    if d != 1:
        na, nb, nc, nd, ne, nf = (
            na * (d // qa),
            nb * (d // qb),
            nc * (d // qc),
            nd * (d // qd),
            ne * (d // qe),
            nf * (d // qf),
        )
    det = (nc - na) * (nf - nb) - (nd - nb) * (ne - na)
    return (det > 0) - (det < 0)


def cross(o: Point, a: Point, b: Point) -> float:
    """The float determinant of (a - o, b - o); use :func:`orient` for its sign."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def dist(a: Point, b: Point) -> float:
    return math.hypot(b[0] - a[0], b[1] - a[1])


def on_segment(p: Point, a: Point, b: Point) -> bool:
    """True when p lies on the closed segment ab (exact)."""
    if orient(a, b, p) != 0:
        return False
    return min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])


def segments_cross_properly(a: Point, b: Point, c: Point, d: Point) -> bool:
    """True when the open segments ab and cd cross at one point interior to both (exact)."""
    o1, o2 = orient(a, b, c), orient(a, b, d)
    o3, o4 = orient(c, d, a), orient(c, d, b)
    return o1 * o2 < 0 and o3 * o4 < 0


def line_intersection(p: Point, q: Point, a: Point, b: Point) -> Point:
    """Where line pq meets segment ab (the lines must not be parallel), clamped onto ab."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    ex, ey = b[0] - a[0], b[1] - a[1]
    denom = dx * ey - dy * ex
    t = (dx * (p[1] - a[1]) - dy * (p[0] - a[0])) / denom
    if t <= 0.0:
        return a
    if t >= 1.0:
        return b
    return (a[0] + t * ex, a[1] + t * ey)


def reflect(p: Point, a: Point, b: Point) -> Point:
    """p mirrored in the line through a and b."""
    ex, ey = b[0] - a[0], b[1] - a[1]
    t = ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey)
    fx, fy = a[0] + t * ex, a[1] + t * ey
    return (2.0 * fx - p[0], 2.0 * fy - p[1])


def polyline_length(points: list[Point]) -> float:
    return math.fsum(dist(a, b) for a, b in zip(points, points[1:]))
