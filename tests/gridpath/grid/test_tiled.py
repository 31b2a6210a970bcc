"""Tiled maps (.tmj, .tmx) written by hand: the rules, the encodings, and every refusal."""

from __future__ import annotations

import base64
import gzip
import json
import struct
import zlib

import numpy as np
import pytest

from gridpath.errors import MapLoadError
from gridpath.grid import load_map
from gridpath.grid.tiled import _DIRECT_LOOKUP, GID_MASK, dump_tmj, load_tiled
from tests.conftest import make_grid

LIMITS = {"max_cells": 10_000, "max_bytes": 1_000_000}

# A 4 x 3 map. Tileset "terrain": tile 0 (gid 1) a wall, tile 1 (gid 2) plain ground (no
# property: walkable, cost 1), tile 2 (gid 3) swamp at cost 3, tile 3 (gid 4) road, cost 1.
# Layer "Collision" is the map (by name); "decor" is below it and must be ignored.
TMX = """<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down"
     width="4" height="3" tilewidth="16" tileheight="16" infinite="0" nextlayerid="3">
 <tileset firstgid="1" name="terrain" tilewidth="16" tileheight="16" tilecount="4" columns="4">
  <image source="terrain.png" width="64" height="16"/>
  <tile id="0"><properties><property name="walkable" type="bool" value="false"/></properties></tile>
  <tile id="2">
   <properties>
    <property name="terrain" value="swamp"/>
    <property name="cost" type="float" value="3"/>
   </properties>
  </tile>
  <tile id="3"><properties><property name="terrain" value="road"/></properties></tile>
 </tileset>
 <layer id="1" name="decor" width="4" height="3">
  <data encoding="csv">1,1,1,1,1,1,1,1,1,1,1,1</data>
 </layer>
 <layer id="2" name="Collision" width="4" height="3">
  <data encoding="csv">
2,2,4,2,
2,1,3,2147483651,
0,2,4,1
</data>
 </layer>
</map>
"""

TMJ = """{
 "type": "map", "version": "1.10", "tiledversion": "1.10.2",
 "orientation": "orthogonal", "renderorder": "right-down", "infinite": false,
 "width": 4, "height": 3, "tilewidth": 16, "tileheight": 16,
 "tilesets": [
  {"firstgid": 1, "name": "terrain", "tilewidth": 16, "tileheight": 16, "tilecount": 4,
   "columns": 4, "image": "terrain.png", "imagewidth": 64, "imageheight": 16,
   "tiles": [
    {"id": 0, "properties": [{"name": "walkable", "type": "bool", "value": false}]},
    {"id": 2, "properties": [{"name": "terrain", "type": "string", "value": "swamp"},
                             {"name": "cost", "type": "float", "value": 3}]},
    {"id": 3, "properties": [{"name": "terrain", "type": "string", "value": "road"}]}
   ]}
 ],
 "layers": [
  {"id": 1, "name": "decor", "type": "tilelayer", "width": 4, "height": 3, "x": 0, "y": 0,
   "data": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]},
  {"id": 2, "name": "Collision", "type": "tilelayer", "width": 4, "height": 3, "x": 0, "y": 0,
   "data": [2, 2, 4, 2, 2, 1, 3, 2147483651, 0, 2, 4, 1]}
 ]
}
"""

# What both hand-written maps mean: gid 2147483651 is gid 3 flipped horizontally.
WALKABLE = [[1, 1, 1, 1], [1, 0, 1, 1], [0, 1, 1, 0]]
CLASSES = [("ground", 1.0), ("swamp", 3.0), ("road", 1.0)]
TERRAIN = [[0, 0, 2, 0], [0, 0, 1, 1], [0, 0, 2, 0]]
GIDS = [2, 2, 4, 2, 2, 1, 3, 2147483651, 0, 2, 4, 1]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text) if isinstance(text, str) else path.write_bytes(text)
    return path


def assert_example(grid):
    assert (grid.width, grid.height) == (4, 3)
    assert grid.walkable.tolist() == WALKABLE
    assert [(tc.name, tc.cost) for tc in grid.terrain_classes] == CLASSES
    terrain = np.asarray(grid.terrain[1:-1, 1:-1])
    assert np.where(grid.walkable, terrain, 0).tolist() == TERRAIN


@pytest.mark.parametrize("name,text", [("example.tmx", TMX), ("example.tmj", TMJ)])
def test_hand_written_maps_load(tmp_path, name, text):
    grid = load_map(write(tmp_path, name, text), **LIMITS)
    assert grid.name == "example" and grid.source == name
    assert_example(grid)


def test_both_formats_are_the_same_map(tmp_path):
    tmx = load_map(write(tmp_path, "a.tmx", TMX), **LIMITS)
    tmj = load_map(write(tmp_path, "a.tmj", TMJ), **LIMITS)
    assert tmx.sha256 == tmj.sha256


def tmj_with(layer_data: dict | None = None, **changes) -> str:
    """The example .tmj with its Collision layer's data replaced and top-level changes."""
    document = json.loads(TMJ)
    if layer_data is not None:
        layer = document["layers"][1]
        for key in ("data", "encoding", "compression"):
            layer.pop(key, None)
        layer.update(layer_data)
    document.update(changes)
    return json.dumps(document)


def tmx_with(data_element: str) -> str:
    start = TMX.index('<data encoding="csv">\n2,2')
    end = TMX.index("</data>", start) + len("</data>")
    return TMX[:start] + data_element + TMX[end:]


RAW = struct.pack("<12I", *GIDS)
ENCODINGS = {
    "base64": ("", base64.b64encode(RAW).decode()),
    "zlib": ("zlib", base64.b64encode(zlib.compress(RAW)).decode()),
    "gzip": ("gzip", base64.b64encode(gzip.compress(RAW)).decode()),
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_base64_encodings(tmp_path, encoding):
    compression, text = ENCODINGS[encoding]
    data = {"encoding": "base64", "compression": compression, "data": text}
    assert_example(load_map(write(tmp_path, "m.tmj", tmj_with(data)), **LIMITS))
    attrs = f' compression="{compression}"' if compression else ""
    xml = tmx_with(f'<data encoding="base64"{attrs}>\n   {text}\n  </data>')
    assert_example(load_map(write(tmp_path, "m.tmx", xml), **LIMITS))


def test_tmx_tile_elements(tmp_path):
    tiles = "".join(f'<tile gid="{g}"/>' if g else "<tile/>" for g in GIDS)
    assert_example(load_map(write(tmp_path, "m.tmx", tmx_with(f"<data>{tiles}</data>")), **LIMITS))


def test_layer_choice_property_then_name_then_first(tmp_path):
    document = json.loads(TMJ)
    decor, collision = document["layers"]
    # the gridpath property wins over the name
    decor["properties"] = [{"name": "gridpath", "type": "bool", "value": True}]
    grid = load_map(write(tmp_path, "m.tmj", json.dumps(document)), **LIMITS)
    assert grid.walkable_count == 0  # decor is all walls
    # no property, no known name: the first tile layer, also inside a group
    del decor["properties"]
    collision["name"] = "ground"
    document["layers"] = [
        {"type": "objectgroup", "name": "spawns", "objects": []},
        {"type": "group", "name": "g", "layers": [collision, decor]},
    ]
    assert_example(load_map(write(tmp_path, "m.tmj", json.dumps(document)), **LIMITS))


def test_empty_cells_walkable_by_layer_property(tmp_path):
    document = json.loads(TMJ)
    document["layers"][1]["properties"] = [
        {"name": "empty_walkable", "type": "bool", "value": True}
    ]
    grid = load_map(write(tmp_path, "m.tmj", json.dumps(document)), **LIMITS)
    assert grid.is_walkable(0, 2)  # gid 0
    assert grid.walkable_count == sum(map(sum, WALKABLE)) + 1


def test_sidecar_tiles_and_costs(tmp_path):
    # a map whose tileset has no properties at all: the sidecar is the rule
    document = json.loads(TMJ)
    del document["tilesets"][0]["tiles"]
    write(tmp_path, "m.tmj", json.dumps(document))
    with pytest.raises(MapLoadError, match="no walkability rule"):
        load_map(tmp_path / "m.tmj", **LIMITS)
    sidecar = {
        "tiles": {
            "1": {"walkable": False},
            "3": {"terrain": "swamp", "cost": 3},
            "4": {"terrain": "road"},
        },
        "costs": {"swamp": 7},
    }
    write(tmp_path, "m.json", json.dumps(sidecar))
    grid = load_map(tmp_path / "m.tmj", **LIMITS)
    assert grid.walkable.tolist() == WALKABLE
    assert [(tc.name, tc.cost) for tc in grid.terrain_classes] == [
        ("ground", 1.0),
        ("swamp", 7.0),
        ("road", 1.0),
    ]


def test_sidecar_overrides_tile_properties(tmp_path):
    write(tmp_path, "m.tmx", TMX)
    write(tmp_path, "m.json", json.dumps({"tiles": {"1": {"walkable": True}}}))
    assert load_map(tmp_path / "m.tmx", **LIMITS).walkable.all() == 0  # gid 0 still blocked
    assert load_map(tmp_path / "m.tmx", **LIMITS).is_walkable(1, 1)  # the gid 1 wall opened


@pytest.mark.parametrize("suffix", [".tsx", ".tsj"])
def test_external_tileset_beside_the_map(tmp_path, suffix):
    if suffix == ".tsx":
        start = TMX.index("<tileset")
        end = TMX.index("</tileset>") + len("</tileset>")
        tileset = TMX[start:end].replace('firstgid="1" ', "")
        write(tmp_path, "terrain.tsx", '<?xml version="1.0"?>\n' + tileset)
        text = TMX[:start] + '<tileset firstgid="1" source="terrain.tsx"/>' + TMX[end:]
        name = "m.tmx"
    else:
        document = json.loads(TMJ)
        tileset = document["tilesets"][0]
        del tileset["firstgid"]
        write(tmp_path, "terrain.tsj", json.dumps({"type": "tileset", **tileset}))
        document["tilesets"] = [{"firstgid": 1, "source": "terrain.tsj"}]
        text, name = json.dumps(document), "m.tmj"
    assert_example(load_map(write(tmp_path, name, text), **LIMITS))
    # an upload has no folder: the same map is refused, naming the way out
    with pytest.raises(MapLoadError, match="cannot be read in an upload: embed it"):
        load_tiled("m", text.encode(), tmx=suffix == ".tsx", **LIMITS)


def test_round_trip_through_dump_tmj(tmp_path):
    grid = make_grid("..@.\n.@..\n....")
    again = load_tiled("test", dump_tmj(grid), tmx=False, **LIMITS)
    assert again.sha256 == grid.sha256
    example = load_map(write(tmp_path, "e.tmx", TMX), **LIMITS)
    again = load_tiled("e", dump_tmj(example), tmx=False, **LIMITS)
    assert_example(again)


def _tmj_tileset(tiles):
    document = json.loads(TMJ)
    document["tilesets"][0]["tiles"] = tiles
    return json.dumps(document)


def _prop(name, kind, value):
    return {"name": name, "type": kind, "value": value}


REFUSED_TMJ = [
    (tmj_with(infinite=True), "infinite maps are not supported"),
    (tmj_with(orientation="isometric"), "orientation 'isometric' is not supported"),
    (tmj_with({"encoding": "base64", "compression": "zstd", "data": "AAAA"}), "'zstd'"),
    (tmj_with({"encoding": "base64", "data": "not base64!"}), "bad base64"),
    (tmj_with({"encoding": "base64", "compression": "zlib", "data": "AAAA"}), "corrupt zlib"),
    (
        tmj_with(
            {
                "encoding": "base64",
                "compression": "zlib",
                "data": base64.b64encode(zlib.compress(bytes(4 * 10_000))).decode(),
            }
        ),
        "inflates to more tiles than the map has",
    ),
    (
        tmj_with({"encoding": "base64", "compression": "gzip", "data": ENCODINGS["gzip"][1][:24]}),
        "gzip",
    ),
    (tmj_with({"encoding": "xml", "data": []}), "encoding 'xml' is not supported"),
    (tmj_with({"data": [1, 2, 3]}), "has 3 tiles, expected 4x3 = 12"),
    (tmj_with({"data": [1.5] * 12}), "integer gids"),
    (tmj_with({"data": [-1] * 12}), "integer gids"),
    (tmj_with({"data": [9] * 12}), "tile gid 9 at x=0, y=0 belongs to no tileset"),
    (tmj_with({"chunks": [], "data": []}), "chunks (infinite maps) are not supported"),
    (tmj_with(layers=[]), "no tile layer"),
    (tmj_with(type="tileset"), 'a Tiled map has "type": "map"'),
    (tmj_with(width=0), "width must be an integer of at least 1"),
    (tmj_with(width=200, height=200), "over the limit of 10000"),
    (tmj_with(tilesets=[{"firstgid": 1, "source": "../t.tsx"}]), "cannot be read in an upload"),
    (tmj_with(tilesets=True), "'tilesets' must be a list"),
    (tmj_with(layers={}), "'layers' must be a list"),
    ("[1, 2]", "a Tiled map is a JSON object"),
    ("{", "not valid JSON"),
    (_tmj_tileset({"0": {}}), "'tiles' must be a list"),
    (_tmj_tileset([{"id": 1, "properties": [_prop("cost", "int", 0)]}]), "'cost' must be"),
    (_tmj_tileset([{"id": 1, "properties": [_prop("cost", "string", "3")]}]), "'cost' must be"),
    (
        _tmj_tileset([{"id": 1, "properties": [_prop("walkable", "string", "no")]}]),
        "property 'walkable' must be a bool",
    ),
    (
        _tmj_tileset([{"id": 1, "properties": [_prop("terrain", "int", 4)]}]),
        "'terrain' must be a non-empty string",
    ),
    (
        _tmj_tileset(
            [
                {
                    "id": 2,
                    "properties": [_prop("terrain", "string", "mud"), _prop("cost", "int", 2)],
                },
                {
                    "id": 3,
                    "properties": [_prop("terrain", "string", "mud"), _prop("cost", "int", 4)],
                },
            ]
        ),
        "terrain class 'mud' has cost 2 and 4",
    ),
]


@pytest.mark.parametrize("text,reason", REFUSED_TMJ)
def test_refused_tmj(tmp_path, text, reason):
    with pytest.raises(MapLoadError) as info:
        load_tiled("m", text.encode(), tmx=False, **LIMITS)
    assert reason in info.value.reason


def test_refused_old_json_format_and_several_marked_layers():
    document = json.loads(TMJ)
    document["tilesets"][0]["tileproperties"] = {"0": {"walkable": False}}
    with pytest.raises(MapLoadError, match="pre-1.2 JSON format"):
        load_tiled("m", json.dumps(document).encode(), tmx=False, **LIMITS)
    document = json.loads(TMJ)
    for layer in document["layers"]:
        layer["properties"] = [_prop("gridpath", "bool", True)]
    with pytest.raises(MapLoadError, match="several tile layers have gridpath=true"):
        load_tiled("m", json.dumps(document).encode(), tmx=False, **LIMITS)


BOMB = """<?xml version="1.0"?>
<!DOCTYPE map [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<map width="1" height="1"><layer name="x"><data encoding="csv">&b;</data></layer></map>"""

REFUSED_TMX = [
    (TMX.replace('infinite="0"', 'infinite="1"'), "infinite maps are not supported"),
    (TMX.replace('orientation="orthogonal"', 'orientation="hexagonal"'), "'hexagonal'"),
    (tmx_with('<data encoding="base64" compression="zstd">AAAA</data>'), "'zstd'"),
    (tmx_with('<data encoding="csv" compression="zlib">1</data>'), "cannot be compressed"),
    (tmx_with('<data encoding="csv">1,x,3</data>'), "non-integer"),
    (tmx_with('<data><chunk x="0" y="0" width="4" height="3"/></data>'), "chunks"),
    (tmx_with('<data><tile gid="a"/></data>'), "not an integer"),
    (TMX.replace('width="4" height="3" tilewidth', 'width="four" height="3" tilewidth'), "width"),
    (
        TMX.replace('<tileset firstgid="1" name', '<tileset firstgid="1" source="t.tsx" name'),
        "embed",
    ),
    (
        TMX.replace('type="bool" value="false"', 'type="bool" value="nope"'),
        "property 'walkable' is not a bool",
    ),
    (BOMB, "XML with a DTD or entities is refused"),
    ("<map", "not valid XML"),
    (TMX.replace('encoding="UTF-8"', 'encoding="zstd"', 1), "not valid XML"),
    ("<tileset/>", "root element"),
]


@pytest.mark.parametrize("text,reason", REFUSED_TMX)
def test_refused_tmx(text, reason):
    with pytest.raises(MapLoadError) as info:
        load_tiled("m", text.encode(), tmx=True, **LIMITS)
    assert reason in info.value.reason


@pytest.mark.parametrize("source", ["sub/t.tsx", "../t.tsx", ".hidden.tsx", "t.png", "/etc/t.tsx"])
def test_external_tileset_must_be_a_file_beside_the_map(tmp_path, source):
    text = tmj_with(tilesets=[{"firstgid": 1, "source": source}])
    with pytest.raises(MapLoadError, match="only a .tsx, .tsj or .json file beside the map"):
        load_map(write(tmp_path, "m.tmj", text), **LIMITS)


def test_missing_external_tileset_and_sidecar_mistakes(tmp_path):
    write(tmp_path, "m.tmj", tmj_with(tilesets=[{"firstgid": 1, "source": "gone.tsj"}]))
    with pytest.raises(MapLoadError, match="external tileset 'gone.tsj': cannot read it"):
        load_map(tmp_path / "m.tmj", **LIMITS)
    write(tmp_path, "m.tmj", TMJ)
    for sidecar, reason in [
        ({"palette": [{"name": "a", "color": "#ffffff"}]}, "'palette' applies to bitmaps only"),
        ({"tiles": {"x": {"walkable": False}}}, "is not a tile gid"),
        ({"tiles": {"1": {"blocked": True}}}, "must be an object with 'walkable'"),
        ({"tiles": []}, "'tiles' must be an object"),
        ({"costs": {"lava": 3}}, "unknown terrain class 'lava'"),
    ]:
        write(tmp_path, "m.json", json.dumps(sidecar))
        with pytest.raises(MapLoadError, match=reason):
            load_map(tmp_path / "m.tmj", **LIMITS)


def test_tiles_sidecar_refused_for_other_formats(tmp_path):
    write(tmp_path, "m.map", "type octile\nheight 1\nwidth 2\nmap\n..\n")
    write(tmp_path, "m.json", json.dumps({"tiles": {"1": {"walkable": False}}}))
    with pytest.raises(MapLoadError, match="'tiles' applies to Tiled maps only"):
        load_map(tmp_path / "m.map", **LIMITS)


def test_large_gids_read_the_same():
    """A tileset far up the gid range (past the direct lookup tables)."""
    offset = 2_000_000
    document = json.loads(TMJ)
    document["tilesets"][0]["firstgid"] = 1 + offset
    data = [g if g == 0 else ((g & GID_MASK) + offset) | (g & ~GID_MASK) for g in GIDS]
    document["layers"][1]["data"] = data
    document["layers"][0]["data"] = [1 + offset] * 12
    assert max(g & GID_MASK for g in data) > _DIRECT_LOOKUP
    assert_example(load_tiled("m", json.dumps(document).encode(), tmx=False, **LIMITS))
