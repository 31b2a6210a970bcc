"""Containment, snapping to the nearest walkable point, and polyline validation."""

from __future__ import annotations

import math
import random

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.nav.model import parse_nav
from gridpath.nav.query import NavEngine
from tests.gridpath.nav.random_maps import random_map

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]
HOLE = [[4, 4], [6, 4], [6, 6], [4, 6]]


@pytest.fixture(scope="module")
def e() -> NavEngine:
    return NavEngine(parse_nav("m", {"outline": SQUARE, "holes": [HOLE]}))


def test_contains_counts_the_boundary(e):
    assert e.contains((1, 1)) and e.contains((0, 0)) and e.contains((0, 5))
    assert e.contains((4, 5)) and e.contains((4, 4))  # the hole's edge and corner
    assert not e.contains((5, 5)) and not e.contains((-0.001, 5)) and not e.contains((11, 11))
    assert not e.contains((4.000000000000001, 5))  # one ulp inside the hole


def test_snap(e):
    assert e.snap((1, 2)) == (1, 2)
    assert e.snap((12, 5)) == (10.0, 5.0)
    assert e.snap((-3, -4)) == (0.0, 0.0)
    assert e.snap((5, 4.5)) == (5.0, 4.0)  # out of the hole by its nearest side
    assert e.snap((4.2, 5)) == (4.0, 5.0)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_snapped_points_are_walkable_and_nearest(seed):
    e = NavEngine(parse_nav("r", random_map(seed, axis=seed % 2 == 0, holes=5)))
    rng = random.Random(seed)
    for _ in range(10):
        p = (rng.uniform(-10, 50), rng.uniform(-10, 50))
        q = e.snap(p)
        assert e.contains(q)
        assert shapely.covers(e.nav.area, shapely.points(q))
        nearest = e.nav.area.distance(shapely.points(p))
        assert math.dist(p, q) <= nearest + 1e-9


def test_polyline_validation(e):
    ok = e.validate([(1, 1), (4, 4), (6, 4), (9, 5)])
    assert ok.valid and ok.length == pytest.approx(math.sqrt(18) + 2 + math.sqrt(10))
    # Along the hole's side: touching is allowed.
    assert e.validate([(4, 1), (4, 9)]).valid
    # Through the hole: the first segment that leaves the area is named.
    bad = e.validate([(1, 1), (2, 2), (8, 8), (9, 9)])
    assert (bad.valid, bad.reason, bad.index) == (False, "outside", 1)
    # Through a corner only: the segment touches the hole at (4, 4) and is valid.
    assert e.validate([(2, 6), (6, 2)]).valid
    too_long = e.validate([(1, 1), (9, 1)], max_cost=7.5)
    assert (too_long.valid, too_long.reason, too_long.length) == (False, "too_long", 8.0)
    assert e.validate([(1, 1), (9, 1)], max_cost=8.0).valid
    assert e.validate([(1, 1)]).valid
    assert e.validate([(5, 5)]).reason == "outside"
    assert e.validate([]).reason == "empty"
    assert e.validate([(1, 1), (11, 1)]).index == 0


def test_polyline_through_a_pinch_point():
    e = NavEngine(
        parse_nav(
            "m",
            {
                "outline": SQUARE,
                "holes": [[[2, 2], [5, 2], [5, 5], [2, 5]], [[5, 5], [8, 5], [8, 8], [5, 8]]],
            },
        )
    )
    assert e.validate([(2, 8), (8, 2)]).valid
    assert not e.validate([(2, 2.5), (8, 7.5)]).valid
