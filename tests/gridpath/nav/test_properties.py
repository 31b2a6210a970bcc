"""Property tests on random polygons with holes (touching at vertices and along edges).

The exact mode's length equals a brute-force visibility-graph Dijkstra over every mesh
vertex (and extremitypathfinder's, on maps it accepts); it is never longer than the
waypoint route or a path over a rasterisation of the same map; every segment stays in
the walkable area.
"""

from __future__ import annotations

import heapq
import math
import random

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridpath.nav.geometry import orient
from gridpath.nav.model import parse_nav
from gridpath.nav.query import NavEngine, check_polyline
from gridpath.nav.waypoints import visibility_shortest_path
from tests.gridpath.nav.random_maps import random_map, random_walkable_point

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(seed: int, axis: bool, holes: int = 8) -> NavEngine:
    return NavEngine(parse_nav("r", random_map(seed, axis=axis, holes=holes)))


def queries(e: NavEngine, seed: int, n: int):
    rng = random.Random(seed)
    corners = e.mesh.vertices
    for _ in range(n):
        s = random_walkable_point(rng, e.nav.area)
        g = random_walkable_point(rng, e.nav.area)
        if rng.random() < 0.25:
            s = corners[rng.randrange(len(corners))]
        if rng.random() < 0.25:
            g = corners[rng.randrange(len(corners))]
        yield s, g


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


@SETTINGS
@given(st.integers(0, 10**6), st.booleans())
def test_exact_equals_visibility_graph_and_stays_inside(seed, axis):
    e = build(seed, axis)
    for s, g in queries(e, seed, 6):
        r = e.path(s, g)
        ref = visibility_shortest_path(e.nav.area, e.mesh.vertices, s, g)
        assert r.found == (ref is not None), (s, g)
        if ref is None:
            continue
        assert close(r.cost, ref[1]), (s, g, r.points, ref[0])
        assert r.points[0] == s and r.points[-1] == g
        check = check_polyline(e.nav.area, r.points)
        assert check.valid, (s, g, r.points, check)
        assert close(check.length, r.cost)


@SETTINGS
@given(st.integers(0, 10**6), st.booleans())
def test_exact_never_longer_than_waypoint_route(seed, axis):
    doc = random_map(seed, axis=axis, holes=6)
    probe = parse_nav("r", doc)
    rng = random.Random(seed)
    doc["waypoints"] = [list(random_walkable_point(rng, probe.area)) for _ in range(25)]
    e = NavEngine(parse_nav("r", doc))
    for s, g in queries(e, seed + 1, 5):
        w = e.path(s, g, mode="waypoints")
        x = e.path(s, g)
        if w.found:
            assert x.found and x.cost <= w.cost + 1e-9 * w.cost
            assert check_polyline(e.nav.area, w.points).valid


def raster_path_length(area, s, g) -> float | None:
    """Start -> its cell's centre -> 8-connected cell centres -> goal, on unit cells that
    lie wholly in the walkable area (a move only where its segment stays inside)."""
    minx, miny, maxx, maxy = (int(math.floor(v)) for v in area.bounds)
    cells = [(x, y) for x in range(minx, maxx + 1) for y in range(miny, maxy + 1)]
    boxes = shapely.box(
        [c[0] for c in cells],
        [c[1] for c in cells],
        [c[0] + 1 for c in cells],
        [c[1] + 1 for c in cells],
    )
    free = {c for c, ok in zip(cells, shapely.covers(area, boxes)) if ok}

    def centre(c):
        return (c[0] + 0.5, c[1] + 0.5)

    def seg_ok(p, q):
        return bool(area.covers(shapely.linestrings([p, q])))

    starts = [c for c in free if seg_ok(s, centre(c)) and math.dist(s, centre(c)) <= 1]
    goals = {
        c: math.dist(centre(c), g)
        for c in free
        if seg_ok(centre(c), g) and math.dist(g, centre(c)) <= 1
    }
    if not starts or not goals:
        return None
    best = {c: math.dist(s, centre(c)) for c in starts}
    heap = [(d, c) for c, d in sorted(best.items())]
    heapq.heapify(heap)
    result = math.inf
    while heap:
        d, c = heapq.heappop(heap)
        if d > best[c] or d >= result:
            continue
        if c in goals:
            result = min(result, d + goals[c])
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                n = (c[0] + dx, c[1] + dy)
                if n == c or n not in free:
                    continue
                if dx and dy and not ((c[0] + dx, c[1]) in free and (c[0], c[1] + dy) in free):
                    continue
                nd = d + math.hypot(dx, dy)
                if nd < best.get(n, math.inf):
                    best[n] = nd
                    heapq.heappush(heap, (nd, n))
    return None if result == math.inf else result


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.booleans())
def test_exact_never_longer_than_a_raster_path(seed, axis):
    e = build(seed, axis, holes=5)
    for s, g in queries(e, seed + 2, 4):
        grid = raster_path_length(e.nav.area, s, g)
        if grid is not None:
            r = e.path(s, g)
            assert r.found and r.cost <= grid + 1e-9


def _epf_rings(area):
    from shapely.geometry.polygon import orient

    poly = orient(area, sign=1.0)  # outline counter-clockwise, holes clockwise
    return list(poly.exterior.coords)[:-1], [list(r.coords)[:-1] for r in poly.interiors]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
@pytest.mark.filterwarnings("ignore:called .prepare")
def test_exact_equals_extremitypathfinder(seed):
    # Optional peer (the 'polygon-peer' extra needs numpy < 2); the brute-force
    # visibility-graph reference above checks every run.
    epf = pytest.importorskip("extremitypathfinder")

    e = build(seed, axis=False, holes=6)
    area = e.nav.area
    rings = [area.exterior, *area.interiors] if area.geom_type == "Polygon" else []
    # extremitypathfinder needs one polygon whose rings do not touch.
    touching = any(
        rings[i].intersects(rings[j]) for i in range(len(rings)) for j in range(i + 1, len(rings))
    )
    if area.geom_type != "Polygon" or touching:
        return
    # extremitypathfinder does not run a path along collinear boundary vertices (a straight
    # wall split in two edges), where touching is allowed here: there it only bounds ours.
    collinear = any(
        orient(ring[i - 1], ring[i], ring[(i + 1) % len(ring)]) == 0
        for ring in (list(r.coords)[:-1] for r in rings)
        for i in range(len(ring))
    )
    env = epf.PolygonEnvironment()
    outline, holes = _epf_rings(area)
    env.store(outline, holes, validate=False)
    env.prepare()
    for s, g in queries(e, seed, 6):
        if area.boundary.distance(shapely.points([s, g])).min() == 0.0:
            continue  # extremitypathfinder misjudges points on the boundary
        r = e.path(s, g)
        path, length = env.find_shortest_path(s, g, verify=False)
        assert r.found == (length is not None)
        if length is not None:
            assert r.cost <= length + 1e-6, (s, g, r.points, path)
            if not collinear:
                assert abs(r.cost - length) <= 1e-6, (s, g, r.points, path)


def test_random_maps_are_varied():
    # The generator does produce touching holes (pinch points) and collinear edges.
    pinches = sum(len(build(seed, axis=True, holes=12).mesh.fans) for seed in range(20))
    assert pinches > 0
    assert np.isfinite(pinches)
