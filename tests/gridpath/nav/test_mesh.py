"""The navigation mesh: edge-to-edge triangles covering exactly the walkable area."""

from __future__ import annotations

from collections import Counter

import pytest
import shapely

from gridpath.nav.geometry import orient
from gridpath.nav.mesh import build_mesh
from gridpath.nav.model import parse_nav
from tests.gridpath.nav.random_maps import random_map


def mesh_of(doc):
    nav = parse_nav("m", doc)
    return nav, build_mesh(nav.area)


def check_mesh(nav, mesh):
    tris = [[mesh.vertices[v] for v in t] for t in mesh.polygons]
    assert all(orient(*t) > 0 for t in tris)  # counter-clockwise, no zero-area triangle
    union = shapely.union_all(shapely.polygons(tris))
    assert union.symmetric_difference(nav.area).area == pytest.approx(0.0, abs=1e-9)
    assert sum(shapely.area(shapely.polygons(tris))) == pytest.approx(nav.area.area)
    # Edge-to-edge: every edge has at most one twin, and a wall has no vertex inside it.
    edges = Counter(frozenset((t[k], t[(k + 1) % 3])) for t in mesh.polygons for k in range(3))
    assert max(edges.values()) <= 2
    for t, tri in enumerate(mesh.polygons):
        for k in range(3):
            if mesh.neighbours[t][k] >= 0:
                n = mesh.polygons[mesh.neighbours[t][k]]
                assert {tri[k], tri[(k + 1) % 3]} <= set(n)


def test_collinear_edges_of_different_rings_are_split():
    # Two holes whose bottom edges lie on one line: earcut can span both with one edge.
    doc = {
        "outline": [[0, 0], [40, 0], [40, 40], [0, 40]],
        "holes": [
            [[10, 27], [16, 27], [16, 32], [10, 32]],
            [[37, 27], [38, 27], [38, 28], [37, 28]],
        ],
    }
    check_mesh(*mesh_of(doc))


def test_pinch_points_are_found():
    doc = {
        "outline": [[0, 0], [10, 0], [10, 10], [0, 10]],
        "holes": [[[2, 2], [5, 2], [5, 5], [2, 5]], [[5, 5], [8, 5], [8, 8], [5, 8]]],
    }
    nav, mesh = mesh_of(doc)
    check_mesh(nav, mesh)
    assert [mesh.vertices[v] for v in mesh.fans] == [(5.0, 5.0)]
    assert len(next(iter(mesh.fans.values()))) == 2


@pytest.mark.parametrize("seed", range(12))
def test_random_maps(seed):
    check_mesh(*mesh_of(random_map(seed, axis=seed % 2 == 0, holes=12)))
