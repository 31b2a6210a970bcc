"""Same-map links declared in Tiled maps (objects of class ``link``) and in sidecars: the
links read, every refusal with its reason, and the links kept through the content hash,
edits, the canonical encoding (the folder's write-back, Redis) and ``dump_tmj``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gridpath.errors import MapLoadError
from gridpath.grid import Grid, load_map
from gridpath.grid.edits import Edit, GridEdit
from gridpath.grid.loader import load_map_data
from gridpath.grid.tiled import dump_tmj, load_tiled
from gridpath.maps import persist
from gridpath.world.model import Link, Place
from tests.conftest import ROOT

LIMITS = {"max_cells": 10_000, "max_bytes": 1_000_000}
LEDGES = ROOT / "tests" / "fixtures" / "ledges.tmx"
# What the fixture declares, read off its objects by hand (16-pixel tiles).
EXPECTED = [
    Link("ladder", Place("ledges", (4, 1)), Place("ledges", (7, 1)), 3.0, True, True,
         ("ladder", "climb")),
    Link("drop", Place("ledges", (8, 4)), Place("ledges", (3, 4)), 0.0),
    Link("gate", Place("ledges", (4, 5)), Place("ledges", (7, 5)), 1.0, True, False, ("door",)),
]  # fmt: skip
WALKABLE = np.ones((6, 12), dtype=bool)
WALKABLE[:, 5:7] = False


def tmj(objects: list, **layer) -> str:
    """A 12 x 6 map of the fixture's cells, 16-pixel tiles, with one object layer."""
    rows = np.where(WALKABLE, 2, 1).ravel().tolist()
    walkable = [{"name": "walkable", "type": "bool", "value": False}]
    return json.dumps(
        {
            "type": "map",
            "orientation": "orthogonal",
            "infinite": False,
            "width": 12,
            "height": 6,
            "tilewidth": 16,
            "tileheight": 16,
            "tilesets": [
                {"firstgid": 1, "tilecount": 2, "tiles": [{"id": 0, "properties": walkable}]}
            ],
            "layers": [
                {"type": "tilelayer", "name": "collision", "data": rows},
                {
                    "type": "group",
                    "name": "g",
                    "layers": [
                        {"type": "objectgroup", "name": "links", "objects": objects, **layer}
                    ],
                },
            ],
        }  # fmt: skip
    )


def load(text: str, name: str = "ledges", **kwargs) -> Grid:
    return load_tiled(name, text.encode(), tmx=text.startswith("<"), **LIMITS, **kwargs)


def prop(name: str, kind: str, value) -> dict:
    return {"name": name, "type": kind, "value": value}


LADDER = {
    "id": 1, "name": "ladder", "type": "link", "x": 72, "y": 24,
    "polyline": [{"x": 0, "y": 0}, {"x": 48, "y": 0}],
    "properties": [prop("bidirectional", "bool", True), prop("cost", "float", 3),
                   prop("tags", "string", "ladder, climb")],
}  # fmt: skip
DROP = {
    "id": 2, "name": "drop", "class": "Link", "x": 136, "y": 72, "point": True,
    "properties": [prop("cost", "int", 0), prop("to_x", "int", 3), prop("to_y", "int", 4)],
}  # fmt: skip
GATE = {
    "id": 3, "name": "", "type": "link", "x": 72.5, "y": 95.9,
    "polyline": [{"x": 0, "y": 0}, {"x": 48, "y": 0}],
    "properties": [prop("id", "string", "gate"), prop("bidirectional", "bool", True),
                   prop("enabled", "bool", False), prop("tags", "string", "door")],
}  # fmt: skip


def test_the_fixture_declares_its_links():
    grid = load_map(LEDGES, **LIMITS)
    assert list(grid.links) == EXPECTED
    assert grid.summary().endswith("3 links")
    assert np.array_equal(grid.walkable.astype(bool), WALKABLE)


def test_json_objects_read_the_same_and_other_objects_are_not_read():
    """.tmj: Tiled 1.9's ``class``, any case, a point, pixels inside a cell (72.5, 95.9 is
    cell (4, 5)); objects of other classes, even malformed, are the game's."""
    others = [
        {"id": 9, "type": "spawn", "x": "?", "properties": "not a list"},
        "not an object",
        {"id": 10, "x": 1, "y": 1, "polyline": [{"x": 0, "y": 0}]},  # no class
    ]
    assert list(load(tmj([LADDER, *others, DROP, GATE])).links) == EXPECTED
    assert load(tmj([{"type": "spawn", "x": 0, "y": 0}])).links == ()


def _with(base: dict, **changes) -> dict:
    return {key: value for key, value in {**base, **changes}.items() if value is not None}


def _props(base: dict, *extra: dict) -> dict:
    return {**base, "properties": [*base["properties"], *extra]}


REFUSED = [
    (_with(LADDER, polyline=None, width=16, height=16), "link object 1 is a rectangle"),
    (_with(LADDER, polyline=None, ellipse=True), "is a ellipse"),
    (
        _with(LADDER, polyline=[{"x": 0, "y": 0}, {"x": 16, "y": 0}, {"x": 32, "y": 0}]),
        "two points",
    ),  # noqa: E501
    (_with(LADDER, rotation=90), "rotated polyline"),
    (_props(LADDER, prop("to_x", "int", 1)), "no to_x/to_y"),
    (_with(DROP, properties=[prop("to_x", "int", 3)]), "to_y is None"),
    (_with(DROP, properties=[prop("to_x", "float", 3.0), prop("to_y", "int", 4)]), "to_x is 3.0"),
    (_with(DROP, properties=[prop("to_x", "int", 12), prop("to_y", "int", 4)]), "outside map"),
    (_with(LADDER, x=-1), "from.cell [-1, 1] is outside map 'ledges'"),
    (_with(LADDER, polyline=[{"x": 0, "y": 0}, {"x": 0, "y": 0}]), "joins a cell to itself"),
    (_with(LADDER, name="my ladder"), "id must be a name"),
    (_with(LADDER, name=""), "has no name and no 'id' property"),
    (_with(LADDER, name=None), "has no name and no 'id' property"),
    (_props(LADDER, prop("id", "int", 7)), "id must be a name"),
    (_with(LADDER, properties=[prop("cost", "float", -1)]), "cost must be a finite number"),
    (_with(LADDER, properties=[prop("cost", "string", "2")]), "cost must be a number"),
    (_with(LADDER, properties=[prop("enabled", "string", "yes")]), "enabled must be true or"),
    (_with(LADDER, properties=[prop("tags", "int", 3)]), "'tags' must be a string"),
    (_with(LADDER, properties=[prop("tags", "string", "a b")]), "tags[] must be a name"),
    (_with(LADDER, template="ladder.tj"), "template"),
    (_with(LADDER, x="72"), "position must be numbers of pixels"),
    (_with(LADDER, polyline={"x": 0}), "pairs of numbers"),
]


@pytest.mark.parametrize(("entry", "reason"), REFUSED)
def test_a_bad_link_object_is_a_load_error_naming_it(entry, reason):
    with pytest.raises(MapLoadError, match="layer 'links': link object") as refused:
        load(tmj([entry]))
    assert reason in refused.value.reason


def test_refusals_of_the_layer_and_the_map():
    with pytest.raises(MapLoadError, match="declared twice"):
        load(tmj([LADDER, _with(DROP, name="ladder")]))
    with pytest.raises(MapLoadError, match="offset"):
        load(tmj([LADDER], offsetx=8))
    no_tile_size = json.loads(tmj([LADDER]))
    del no_tile_size["tilewidth"]
    with pytest.raises(MapLoadError, match="tilewidth and tileheight"):
        load(json.dumps(no_tile_size))
    # without a link object, neither matters (maps that loaded before still load)
    assert load(tmj([], offsetx=8)).links == ()
    no_tile_size["layers"][1]["layers"][0]["objects"] = []
    assert load(json.dumps(no_tile_size)).links == ()


def test_tmx_refusals():
    text = LEDGES.read_text()
    for old, new, reason in (
        ('<polyline points="0,0 48,0"/>', '<polyline points="0,0 48"/>', "pairs of numbers"),
        ('<polyline points="0,0 48,0"/>', '<polyline points="0,0"/>', "two points"),
        ('<point/>', "<ellipse/>", "is a ellipse"),
        ('name="to_x" type="int" value="3"', 'name="to_x" type="int" value="x"', "not a int"),
        ('<objectgroup id="2" name="links">', '<objectgroup id="2" name="links" offsety="4">',
         "offset"),
    ):  # fmt: skip
        with pytest.raises(MapLoadError) as refused:
            load(text.replace(old, new, 1))
        assert reason in refused.value.reason


def test_links_are_content_kept_by_edits_and_the_encoding(tmp_path):
    grid = load_map(LEDGES, **LIMITS)
    bare = Grid.from_walkable("ledges", WALKABLE)
    assert load(tmj([])).sha256 == bare.sha256  # no links: the hash a map always had
    assert grid.sha256 != bare.sha256
    assert load(tmj([LADDER, DROP, GATE])).sha256 == grid.sha256
    fewer = load(tmj([LADDER, DROP]))
    closed = load(tmj([LADDER, _props(DROP, prop("enabled", "bool", False)), GATE]))
    assert len({grid.sha256, fewer.sha256, closed.sha256}) == 3
    assert load(tmj([LADDER, DROP, GATE]), name="other").sha256 == grid.sha256  # no name in it
    edited = grid.edit(GridEdit([Edit("blocked", cells=[(4, 1)])]), 2)
    assert edited.links == grid.links and not edited.is_walkable(4, 1)
    # the canonical encoding (folder write-back, Redis) carries them in the sidecar
    suffix, data, sidecar = grid.encode()
    again = load_map_data("ledges", data, movingai=suffix == ".map", sidecar=sidecar, **_cells())
    assert again.links == grid.links and again.sha256 == grid.sha256
    persist.save(tmp_path, grid)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledges.json", "ledges.png"]
    reloaded = load_map(tmp_path / "ledges.png", **LIMITS)
    assert reloaded.links == grid.links and reloaded.sha256 == grid.sha256
    # and Tiled JSON written by dump_tmj reads back to the same links
    assert load(dump_tmj(grid).decode()).links == grid.links


def _cells() -> dict:
    return {"max_cells": LIMITS["max_cells"]}


def test_sidecar_links_on_any_map_and_their_refusals():
    data = b"type octile\nheight 2\nwidth 3\nmap\n...\n...\n"
    sidecar = {"links": [{"id": "hop", "from": [0, 0], "to": [2, 1], "cost": 0}]}
    grid = load_map_data("hops", data, movingai=True, sidecar=sidecar, **_cells())
    assert grid.links == (Link("hop", Place("hops", (0, 0)), Place("hops", (2, 1)), 0.0),)
    for links, reason in (
        ({"id": "hop", "from": [0, 0], "to": [3, 0]}, "sidecar: links[0].to.cell [3, 0] is out"),
        ({"id": "hop", "from": [0, 0]}, "needs 'to'"),
        ({"id": "hop", "from": [0, 0], "to": [1, 0], "map": "x"}, "unknown fields ['map']"),
        ("hop", "links[0] must be an object"),
    ):
        with pytest.raises(MapLoadError) as refused:
            load_map_data("hops", data, movingai=True, sidecar={"links": [links]}, **_cells())
        assert reason in refused.value.reason
    twice = [sidecar["links"][0]] * 2
    with pytest.raises(MapLoadError, match="declared twice"):
        load_map_data("hops", data, movingai=True, sidecar={"links": twice}, **_cells())
