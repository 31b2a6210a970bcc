"""Exact predicates: decided on the exact values of the floats, never by an epsilon."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from gridpath.nav.geometry import on_segment, orient, segments_cross_properly

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
point = st.tuples(finite, finite)


def exact_sign(a, b, c) -> int:
    fa = [Fraction(v) for v in (*a, *b, *c)]
    det = (fa[2] - fa[0]) * (fa[5] - fa[1]) - (fa[3] - fa[1]) * (fa[4] - fa[0])
    return (det > 0) - (det < 0)


@given(point, point, point)
def test_orient_is_the_exact_sign(a, b, c):
    assert orient(a, b, c) == exact_sign(a, b, c)


def test_near_collinear_points_where_floats_get_it_wrong():
    # Shewchuk's example family: points a few ulps off the line y = x.
    ulp = 2.0**-53
    a, b = (12.0, 12.0), (24.0, 24.0)
    wrong = 0
    for i in range(64):
        for j in range(64):
            c = (0.5 + i * ulp, 0.5 + j * ulp)
            naive = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
            wrong += ((naive > 0) - (naive < 0)) != exact_sign(a, b, c)
            assert orient(a, b, c) == exact_sign(a, b, c)
    assert wrong > 0  # the naive determinant does fail on this family


def test_points_on_edges_and_segments_through_vertices():
    assert on_segment((0.1 * 3, 0.0), (0.0, 0.0), (1.0, 0.0))
    assert on_segment((1.0, 0.0), (0.0, 0.0), (1.0, 0.0))  # an end point
    assert not on_segment((0.1 + 0.2, 0.1 + 0.2 + 1e-16), (0.0, 0.0), (1.0, 1.0))
    # A segment through a vertex of another does not cross it properly.
    assert not segments_cross_properly((0, 0), (2, 2), (1, 1), (2, 0))
    assert segments_cross_properly((0, 0), (2, 2), (0, 2), (2, 0))
    # Collinear overlapping segments do not cross properly.
    assert not segments_cross_properly((0, 0), (2, 0), (1, 0), (3, 0))
