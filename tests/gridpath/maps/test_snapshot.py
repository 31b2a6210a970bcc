"""The map snapshot protocol: grids and polygon maps answer the same methods, each refuses
the other kind's change, and each encoding loads back to the same map."""

from __future__ import annotations

import pytest

from gridpath.errors import OutOfBounds, UnsupportedMapKind
from gridpath.grid.edits import Edit, GridEdit
from gridpath.grid.loader import load_map_data
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.snapshot import HoleEdit, PolygonEdit, polygon_map
from tests.conftest import ROOT, make_grid

PROTOCOL = ("kind", "name", "revision", "sha256", "source", "nbytes")
METHODS = ("prepare", "edit", "encode", "summary")
SQUARE = b'{"outline": [[0, 0], [10, 0], [10, 10], [0, 10]], "holes": [], "waypoints": []}'
HOLE = [[4, 4], [6, 4], [6, 6], [4, 6]]


def _grid():
    return make_grid("....\n.##.\n....", name="g")


def _polygon():
    return polygon_map("p", SQUARE, source="p.nav.json").prepare()


@pytest.mark.parametrize("make", [_grid, _polygon])
def test_both_kinds_are_map_snapshots(make):
    snapshot: MapSnapshot = make()
    for name in PROTOCOL:
        assert getattr(snapshot, name) is not None
    for name in METHODS:
        assert callable(getattr(snapshot, name))
    assert snapshot.prepare() is snapshot


def test_a_grid_hands_itself_to_the_search_layer_and_a_polygon_map_does_not():
    seen = []
    grid, pmap = _grid(), _polygon()
    assert grid.prepare(seen.append) is grid and pmap.prepare(seen.append) is pmap
    assert seen == [grid]


def test_each_kind_refuses_the_other_kinds_change_and_changes_nothing():
    grid, pmap = _grid(), _polygon()
    with pytest.raises(UnsupportedMapKind, match="map 'g' is a grid: edit it with 'set'"):
        grid.edit(PolygonEdit(holes=[HoleEdit("add", ring=HOLE)]), 2)
    with pytest.raises(UnsupportedMapKind, match="map 'p' is a polygon map: edit it with"):
        pmap.edit(GridEdit([Edit("blocked", cells=[(0, 0)])]), 2)
    assert grid.revision == 1 and grid.is_walkable(0, 0) and pmap.nav.holes == ()


def test_an_edit_makes_the_next_revision():
    grid = _grid().edit(
        GridEdit([Edit("blocked", cells=[(0, 0)]), Edit(3.0, rect=(2, 2, 3, 2))]), 2
    )
    assert grid.revision == 2 and not grid.is_walkable(0, 0)
    assert grid.terrain_costs == {"ground": 1.0, "cost_3": 3.0}
    pmap = _polygon().edit(PolygonEdit(holes=[HoleEdit("add", ring=HOLE)]), 2)
    assert pmap.revision == 2 and len(pmap.nav.holes) == 1
    with pytest.raises(OutOfBounds, match=r"set\[0\] cell \[9, 0\] is outside map 'g' \(4x3\)"):
        _grid().edit(GridEdit([Edit("blocked", cells=[(9, 0)])]), 2)


def test_each_encoding_loads_back_to_the_same_map():
    grid = _grid().edit(GridEdit([Edit(3.0, rect=(0, 0, 1, 0))]), 2)  # a palette sidecar
    suffix, data, sidecar = grid.encode()
    assert suffix == ".png" and sidecar is not None
    again = load_map_data("g", data, movingai=False, max_cells=100, sidecar=sidecar)
    assert again.sha256 == grid.sha256
    pmap = _polygon()
    suffix, data, sidecar = pmap.encode()
    assert (suffix, data, sidecar) == (".nav.json", SQUARE, None)
    assert polygon_map("p", data, source="p.nav.json").sha256 == pmap.sha256


def test_summaries_are_one_line_each():
    assert _grid().summary() == "4x3, 10 walkable, terrain ground 1"
    courtyard = polygon_map(
        "courtyard", (ROOT / "maps" / "courtyard.nav.json").read_bytes(), source="x"
    )
    assert courtyard.summary().startswith("polygon, ") and "triangles" in courtyard.summary()
