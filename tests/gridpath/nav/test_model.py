"""Polygon map files: what loads, and what is refused with a reason naming ring and vertex."""

from __future__ import annotations

import orjson
import pytest

from gridpath.errors import MapLoadError
from gridpath.nav.model import is_nav_file, load_nav_bytes, load_nav_file, nav_map_name, parse_nav

SQUARE = [[0, 0], [10, 0], [10, 10], [0, 10]]


def refused(doc, **kw) -> str:
    with pytest.raises(MapLoadError) as info:
        parse_nav("m", doc, **kw)
    return info.value.reason


def test_valid_map_and_its_summary():
    nav = parse_nav(
        "m",
        {"outline": SQUARE, "holes": [[[4, 4], [6, 4], [6, 6], [4, 6]]], "waypoints": [[1, 1]]},
    )
    assert nav.bounds == (0.0, 0.0, 10.0, 10.0)
    assert nav.vertex_count == 8
    assert nav.waypoints == ((1.0, 1.0),)
    assert nav.area.area == 96.0
    assert nav.to_json()["holes"] == [[[4.0, 4.0], [6.0, 4.0], [6.0, 6.0], [4.0, 6.0]]]


def test_closed_rings_either_orientation_and_optional_fields():
    nav = parse_nav("m", {"outline": [[0, 0], [0, 5], [5, 5], [5, 0], [0, 0]]})
    assert nav.outline == ((0, 0), (0, 5), (5, 5), (5, 0))
    assert nav.holes == () and nav.waypoints == ()


def test_holes_touching_each_other_and_the_outline_are_accepted():
    parse_nav(
        "m",
        {
            "outline": SQUARE,
            "holes": [
                [[2, 2], [4, 2], [4, 4], [2, 4]],
                [[4, 4], [6, 4], [6, 6], [4, 6]],  # touches the first at a vertex
                [[6, 2], [8, 2], [8, 4], [6, 4]],  # touches the second at a vertex
                [[0, 8], [2, 8], [2, 10], [0, 10]],  # shares two edges with the outline
                [[2, 8], [4, 8], [4, 9], [2, 9]],  # shares an edge with the previous hole
            ],
        },
    )


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ([], "JSON object"),
        ({}, "missing field 'outline'"),
        ({"outline": SQUARE, "walls": []}, "unknown field 'walls'"),
        ({"outline": [[0, 0], [1, 0]]}, "outline needs at least 3 distinct vertices"),
        ({"outline": [[0, 0], [1, 0], [1, "x"]]}, "outline vertex 2 must be an [x, y] pair"),
        ({"outline": [[0, 0], [1, 0], [True, 1]]}, "outline vertex 2 must be an [x, y] pair"),
        ({"outline": [[0, 0], [1, 0], [1, 1, 1]]}, "outline vertex 2 must be an [x, y] pair"),
        ({"outline": [[0, 0], [1e309, 0], [1, 1]]}, "outline vertex 1 is not a finite point"),
        ({"outline": [[0, 0], [1, 0], [1, 0], [1, 1]]}, "outline vertex 2 repeats vertex 1"),
        ({"outline": [[0, 0], [1, 1], [2, 2]]}, "outline encloses no area"),
        ({"outline": SQUARE, "holes": {}}, "'holes' must be a list"),
        ({"outline": SQUARE, "waypoints": 3}, "'waypoints' must be a list"),
        ({"outline": SQUARE, "waypoints": [[1, 1], [11, 1]]}, "waypoints[1] (11, 1) is not in"),
        (
            {"outline": SQUARE, "holes": [[[4, 4], [6, 4], [6, 6], [4, 6]]], "waypoints": [[5, 5]]},
            "waypoints[0] (5, 5) is not in the walkable area",
        ),
        (
            {"outline": SQUARE, "holes": [[[8, 8], [12, 8], [12, 9], [8, 9]]]},
            "holes[0] is not inside the outline: vertex 1 (12, 8)",
        ),
        (
            {
                "outline": SQUARE,
                "holes": [[[1, 1], [3, 1], [3, 3], [1, 3]], [[2, 2], [5, 2], [5, 5], [2, 5]]],
            },
            "holes[0] overlaps holes[1]",
        ),
        (
            {
                "outline": SQUARE,
                "holes": [[[1, 1], [5, 1], [5, 5], [1, 5]], [[2, 2], [3, 2], [3, 3]]],
            },
            "holes[0] overlaps holes[1]",
        ),
    ],
)
def test_refused_with_a_reason(doc, needle):
    assert needle in refused(doc)


def test_self_intersection_names_the_ring_and_a_vertex():
    bowtie = [[0, 0], [10, 10], [10, 0], [0, 10]]
    reason = refused({"outline": bowtie})
    assert reason.startswith(
        "outline is not a simple ring: it crosses itself at (5, 5), near vertex"
    )
    reason = refused({"outline": SQUARE, "holes": [[[1, 1], [2, 1], [2, 2], [1, 2]], bowtie]})
    assert reason.startswith("holes[1] is not a simple ring")


def test_limits():
    assert "5 vertices, over the limit of 4" in refused(
        {"outline": [[0, 0], [1, 0], [2, 1], [1, 2], [0, 1]]}, max_vertices=4
    )
    assert "2 waypoints, over the limit of 1" in refused(
        {"outline": SQUARE, "waypoints": [[1, 1], [2, 2]]}, max_waypoints=1
    )


def test_bytes_and_files(tmp_path):
    with pytest.raises(MapLoadError, match="empty"):
        load_nav_bytes("m", b"")
    with pytest.raises(MapLoadError, match="not valid JSON"):
        load_nav_bytes("m", b"{outline")
    path = tmp_path / "hall.nav.json"
    path.write_bytes(orjson.dumps({"outline": SQUARE}))
    assert is_nav_file(path) and nav_map_name(path) == "hall"
    assert load_nav_file(path, max_bytes=1000).name == "hall"
    with pytest.raises(MapLoadError, match="over the limit of 10 bytes"):
        load_nav_file(path, max_bytes=10)
    with pytest.raises(MapLoadError, match="cannot read file"):
        load_nav_file(tmp_path / "missing.nav.json", max_bytes=1000)
