"""Exact mode (Polyanya) and waypoint mode on hand-made polygons with known answers."""

from __future__ import annotations

import math

import orjson
import pytest

from gridpath.nav.model import parse_nav
from gridpath.nav.query import NavEngine

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def engine(holes=(), waypoints=(), outline=SQUARE) -> NavEngine:
    return NavEngine(
        parse_nav("m", {"outline": outline, "holes": list(holes), "waypoints": list(waypoints)})
    )


def assert_path(result, cost, points=None):
    assert result.found, result
    assert result.cost == pytest.approx(cost, rel=1e-12, abs=1e-12)
    if points is not None:
        assert result.points == [tuple(map(float, p)) for p in points]


def test_around_one_square_hole():
    e = engine([[[4, 4], [6, 4], [6, 6], [4, 6]]])
    assert_path(e.path((1, 5), (9, 5)), 2 * math.sqrt(10) + 2, [(1, 5), (4, 4), (6, 4), (9, 5)])
    assert_path(e.path((9, 5), (1, 5)), 2 * math.sqrt(10) + 2)


def test_through_a_corridor():
    # Two walls from opposite sides (each shares an edge with the outline): an S-bend.
    e = engine([[[3, 0], [4, 0], [4, 8], [3, 8]], [[6, 2], [7, 2], [7, 10], [6, 10]]])
    expected = [(1, 1), (3, 8), (4, 8), (6, 2), (7, 2), (9, 9)]
    cost = 2 * math.sqrt(53) + math.sqrt(40) + 2
    assert_path(e.path((1, 1), (9, 9)), cost, expected)


def test_start_and_goal_visible():
    e = engine([[[4, 4], [6, 4], [6, 6], [4, 6]]])
    r = e.path((1, 1), (9, 2))
    assert_path(r, math.hypot(8, 1), [(1, 1), (9, 2)])
    assert_path(e.path((3, 3), (3, 3)), 0.0, [(3, 3), (3, 3)])


def test_along_collinear_hole_edges():
    # The straight line runs along the hole's bottom edge and through two of its vertices.
    e = engine([[[2, 4], [8, 4], [8, 6], [2, 6]]])
    r = e.path((0, 4), (10, 4))
    assert_path(r, 10.0)
    assert all(p[1] == 4.0 for p in r.points)


def test_segment_through_vertices_touching_both_sides():
    below = [[5, 5], [7, 3], [7, 5]]  # touches the diagonal y = x at (5, 5) from below
    above = [[6, 6], [6, 8], [4, 8]]  # and at (6, 6) from above
    e = engine([below, above])
    r = e.path((0, 0), (10, 10))
    assert_path(r, 10 * math.sqrt(2))
    assert all(p[0] == p[1] for p in r.points)


def test_holes_touching_at_a_vertex_can_be_passed_at_that_point():
    e = engine([[[2, 2], [5, 2], [5, 5], [2, 5]], [[5, 5], [8, 5], [8, 8], [5, 8]]])
    assert [e.mesh.vertices[v] for v in e.mesh.fans] == [(5.0, 5.0)]  # the pinch point
    assert_path(e.path((2, 8), (8, 2)), 6 * math.sqrt(2))
    assert_path(e.path((1, 9), (9, 1)), 8 * math.sqrt(2))
    # Between the holes' other corners: through the pinch, not around either hole.
    assert_path(e.path((3, 6), (6, 3)), 2 * math.sqrt(5), [(3, 6), (5, 5), (6, 3)])


def test_start_or_goal_on_edges_and_vertices():
    e = engine([[[4, 4], [6, 4], [6, 6], [4, 6]]])
    assert_path(e.path((0, 5), (10, 5)), 2 * math.hypot(4, 1) + 2)  # on the outline
    assert_path(e.path((4, 5), (6, 5)), 4.0)  # on the hole's sides: around it
    assert_path(e.path((4, 4), (6, 6)), 4.0)  # hole corners
    assert_path(e.path((0, 0), (6, 6)), math.hypot(6, 4) + 2)  # outline corner


def test_unreachable_and_not_walkable():
    e = engine([[[4, 0], [6, 0], [6, 10], [4, 10]]])  # a wall cuts the map in two
    r = e.path((1, 1), (9, 9))
    assert (r.found, r.reason, r.points, r.cost) == (False, "unreachable", [], None)
    r = e.path((5, 5), (1, 1))
    assert (r.found, r.reason) == (False, "not_walkable")
    r = e.path((1, 1), (11, 1))
    assert (r.found, r.reason) == (False, "not_walkable")


def test_expansion_limit():
    e = engine([[[3, 0], [4, 0], [4, 8], [3, 8]], [[6, 2], [7, 2], [7, 10], [6, 10]]])
    r = e.path((1, 1), (9, 9), max_expanded=1)
    assert (r.found, r.reason) == (False, "limit_reached")


def test_same_query_same_bytes():
    holes = [[[3, 0], [4, 0], [4, 8], [3, 8]], [[6, 2], [7, 2], [7, 10], [6, 10]]]
    first = [engine(holes).path((0.5, 0.25), (9.75, 9.5)) for _ in range(3)]
    dumps = {orjson.dumps([r.points, r.cost, r.expanded]) for r in first}
    assert len(dumps) == 1


def test_waypoint_mode_route_and_skip_ahead():
    # The original design: V -> T -> S -> P -> Q along a winding route of waypoints; from
    # each kept point the next-but-one is visible, so intermediate waypoints are skipped.
    holes = [[[3, 0], [4, 0], [4, 8], [3, 8]], [[6, 2], [7, 2], [7, 10], [6, 10]]]
    waypoints = [[2, 9], [3.5, 9], [5, 9], [5, 1], [6.5, 1], [8, 1]]
    e = engine(holes, waypoints)
    r = e.path((1, 1), (9, 9), mode="waypoints")
    assert r.found
    # From (1, 1): (2, 9) is needed ((3.5, 9) is hidden by the first wall's top corner),
    # then (5, 9) is visible from (2, 9), so (3.5, 9) is skipped; likewise on the way down.
    assert r.points == [(1, 1), (2, 9), (5, 9), (5, 1), (8, 1), (9, 9)]
    exact = e.path((1, 1), (9, 9))
    assert exact.cost <= r.cost
    assert r.cost == pytest.approx(
        math.fsum(math.dist(p, q) for p, q in zip(r.points, r.points[1:]))
    )


def test_waypoint_mode_without_a_route():
    e = engine([[[3, 0], [4, 0], [4, 8], [3, 8]]], waypoints=[[1, 9]])
    r = e.path((1, 1), (9, 1), mode="waypoints")
    assert (r.found, r.reason) == (False, "unreachable")
    assert e.path((1, 1), (1, 8), mode="waypoints").points == [(1, 1), (1, 8)]
    with pytest.raises(ValueError):
        e.path((1, 1), (1, 8), mode="fastest")
