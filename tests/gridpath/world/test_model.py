"""The world model (gridpath.world.model): parsing a world's file form, every refusal, and
patches applied all or nothing. The maps a world names are described by a lookup of
``(kind, width, height)``, written out here by hand."""

from __future__ import annotations

import copy
import math

import orjson
import pytest

from gridpath.errors import MapLoadError, UnsupportedMapKind
from gridpath.world import (
    InvalidWorld,
    Link,
    LinkNotFound,
    Place,
    World,
    apply_patch,
    parse_world,
)
from gridpath.world.files import load_world, parse_world_bytes
from gridpath.world.model import WorldPatch, with_map_links

MAPS = {"keep_1": ("grid", 48, 16), "keep_2": ("grid", 48, 16), "yard": ("polygon", 0, 0)}
lookup = MAPS.get

STAIRS = {
    "id": "stairs",
    "from": {"map": "keep_1", "cell": [3, 3]},
    "to": {"map": "keep_2", "cell": [3, 3]},
    "cost": 2.0,
    "bidirectional": True,
}
TRAPDOOR = {
    "id": "trapdoor",
    "from": {"map": "keep_2", "cell": [30, 12]},
    "to": {"map": "keep_1", "cell": [30, 12]},
    "cost": 0,
}
GATE = {
    "id": "gate",
    "from": {"map": "keep_1", "cell": [23, 7]},
    "to": {"map": "keep_1", "cell": [25, 7]},
    "cost": 5,
    "bidirectional": True,
    "enabled": False,
    "tags": ["door"],
}
KEEP = {"maps": ["keep_1", "keep_2"], "links": [STAIRS, TRAPDOOR, GATE]}


def keep() -> World:
    return parse_world("keep", copy.deepcopy(KEEP), lookup)


def with_link(**changes) -> dict:
    link = {**copy.deepcopy(STAIRS), **changes}
    return {"maps": ["keep_1", "keep_2"], "links": [link]}


def test_a_world_reads_its_file_form_with_the_defaults():
    world = keep()
    assert world.maps == ("keep_1", "keep_2") and world.revision == 1
    assert [link.id for link in world.links] == ["stairs", "trapdoor", "gate"]
    trapdoor = world.link("trapdoor")
    assert trapdoor == Link(
        "trapdoor", Place("keep_2", (30, 12)), Place("keep_1", (30, 12)), 0.0, False, True, ()
    )
    assert world.index_of("gate") == 2 and world.link("gate").tags == ("door",)
    bare = {"id": "x", "from": STAIRS["from"], "to": STAIRS["to"]}
    link = parse_world("w", {"maps": ["keep_1", "keep_2"], "links": [bare]}, lookup).links[0]
    assert (link.cost, link.bidirectional, link.enabled, link.tags) == (1.0, False, True, ())
    assert parse_world("w", {"maps": ["keep_1"]}, lookup).links == ()


def test_the_file_form_is_canonical_and_round_trips():
    world = keep()
    again = parse_world("keep", orjson.loads(world.encode()), lookup)
    assert again == world and again.sha256 == world.sha256
    assert world.document()["links"][1] == {
        "id": "trapdoor",
        "from": {"map": "keep_2", "cell": [30, 12]},
        "to": {"map": "keep_1", "cell": [30, 12]},
        "cost": 0.0,
        "bidirectional": False,
        "enabled": True,
        "tags": [],
    }
    reordered = copy.deepcopy(KEEP)
    reordered["links"].reverse()
    assert parse_world("keep", reordered, lookup).sha256 != world.sha256  # order is content


def test_ways_follow_the_direction():
    world = keep()
    stairs, trapdoor = world.link("stairs"), world.link("trapdoor")
    assert stairs.ways() == ((stairs.source, stairs.target), (stairs.target, stairs.source))
    assert trapdoor.ways() == ((trapdoor.source, trapdoor.target),)


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ([], "is an object"),
        ({"maps": ["keep_1"], "extra": 1}, "is an object"),
        ({"links": []}, "non-empty list"),
        ({"maps": []}, "non-empty list"),
        ({"maps": "keep_1"}, "non-empty list"),
        ({"maps": ["keep_1", "keep_1"]}, "names a map twice"),
        ({"maps": ["cellar"]}, "'cellar', which is not loaded"),
        ({"maps": ["bad name"]}, "must be a name"),
        ({"maps": ["keep_1"], "links": {}}, "must be a list of links"),
        ({"maps": ["keep_1"], "links": ["x"]}, "links[0] must be an object"),
        (with_link(cost=-1), "links[0].cost must be a finite number"),
        (with_link(cost=math.inf), "links[0].cost must be a finite number"),
        (with_link(cost=math.nan), "links[0].cost must be a finite number"),
        (with_link(cost="2"), "links[0].cost must be a number"),
        (with_link(cost=True), "links[0].cost must be a number"),
        (with_link(id="a b"), "links[0].id must be a name"),
        (with_link(id=""), "links[0].id must be a name"),
        (with_link(bidirectional="yes"), "links[0].bidirectional must be true or false"),
        (with_link(enabled=1), "links[0].enabled must be true or false"),
        (with_link(tags="door"), "links[0].tags must be a list"),
        (with_link(tags=["a b"]), "links[0].tags[] must be a name"),
        (with_link(tags=[str(i) for i in range(33)]), "at most 32"),
        (with_link(speed=3), "unknown fields ['speed']"),
        (with_link(**{"from": {"map": "cellar", "cell": [1, 1]}}), "not one of the world's"),
        (with_link(**{"from": {"map": "keep_1", "cell": [48, 1]}}), "outside map 'keep_1'"),
        (with_link(**{"from": {"map": "keep_1", "cell": [1, -1]}}), "outside map 'keep_1'"),
        (with_link(**{"to": {"map": "keep_2", "cell": [1, 16]}}), "outside map 'keep_2'"),
        (with_link(**{"to": {"map": "keep_2", "cell": [1.0, 2]}}), "two integers"),
        (with_link(**{"to": {"map": "keep_2", "cell": [1, True]}}), "two integers"),
        (with_link(**{"to": {"map": "keep_2", "cell": [1, 2, 3]}}), "two integers"),
        (with_link(**{"to": {"map": "keep_2", "cell": [1, 2], "x": 0}}), "must be an object"),
        (with_link(**{"to": STAIRS["from"]}), "joins a cell to itself"),
        ({"maps": ["keep_1", "keep_2"], "links": [STAIRS, STAIRS]}, "'stairs' is used twice"),
    ],
)
def test_every_bad_world_is_refused_whole(document, says):
    with pytest.raises(InvalidWorld) as refused:
        parse_world("keep", document, lookup)
    assert says in refused.value.message
    assert (refused.value.code, refused.value.status) == ("invalid_world", 422)


def test_a_link_without_an_end_is_refused():
    for key in ("id", "from", "to"):
        link = {k: v for k, v in STAIRS.items() if k != key}
        with pytest.raises(InvalidWorld, match=f"needs '{key}'"):
            parse_world("keep", {"maps": ["keep_1", "keep_2"], "links": [link]}, lookup)


def test_a_polygon_map_is_an_unsupported_kind():
    with pytest.raises(UnsupportedMapKind) as refused:
        parse_world("keep", {"maps": ["keep_1", "yard"]}, lookup)
    assert refused.value.code == "unsupported_map_kind" and refused.value.status == 422


def test_a_bad_world_name_is_refused():
    with pytest.raises(InvalidWorld):
        parse_world("no/slash", {"maps": ["keep_1"]}, lookup)


# --- patches ------------------------------------------------------------------------------


def test_a_patch_removes_then_adds_then_sets_as_one_revision():
    world = keep()
    teleporter = {
        "id": "teleporter",
        "from": {"map": "keep_1", "cell": [6, 12]},
        "to": {"map": "keep_1", "cell": [41, 4]},
        "cost": 0,
    }
    patch = {
        "remove": ["trapdoor"],
        "add": [teleporter],
        "set": [{"id": "gate", "enabled": True, "cost": 1.5}, {"id": "teleporter", "tags": ["m"]}],
    }
    new = apply_patch(world, patch, lookup, 2)
    assert new.revision == 2 and [link.id for link in new.links] == ["stairs", "gate", "teleporter"]
    assert (new.link("gate").enabled, new.link("gate").cost) == (True, 1.5)
    assert new.link("teleporter").tags == ("m",) and new.link("teleporter").cost == 0.0
    assert world.revision == 1 and len(world.links) == 3  # the old revision is unchanged
    # a link removed and added again in one patch takes its new place and fields
    moved = apply_patch(world, {"remove": ["stairs"], "add": [{**STAIRS, "cost": 9}]}, lookup, 3)
    assert [link.id for link in moved.links] == ["trapdoor", "gate", "stairs"]
    assert moved.link("stairs").cost == 9.0


def test_world_edit_is_apply_patch_with_a_last_check():
    world = keep()
    toggle = {"set": [{"id": "gate", "enabled": True}]}
    assert world.edit(WorldPatch(toggle, lookup), 5) == apply_patch(world, toggle, lookup, 5)
    seen = []
    world.edit(WorldPatch(toggle, lookup, seen.append), 5)
    assert seen[0].link("gate").enabled

    def refuse(new: World) -> None:
        raise InvalidWorld("no")

    with pytest.raises(InvalidWorld):
        world.edit(WorldPatch(toggle, lookup, refuse), 5)


@pytest.mark.parametrize(
    ("patch", "error", "says"),
    [
        ({"remove": ["nope"]}, LinkNotFound, "no link 'nope'"),
        ({"set": [{"id": "nope", "enabled": True}]}, LinkNotFound, "no link 'nope'"),
        ({"remove": ["gate"], "set": [{"id": "gate", "cost": 1}]}, LinkNotFound, "'gate'"),
        ({"add": [STAIRS]}, InvalidWorld, "already a link"),
        ({"add": [{**STAIRS, "id": "s2", "cost": -1}]}, InvalidWorld, "add[0].cost"),
        ({"add": [{**STAIRS, "id": "s2"}, {**STAIRS, "id": "s2"}]}, InvalidWorld, "already"),
        ({"set": [{"id": "gate", "enabled": "yes"}]}, InvalidWorld, "set[0].enabled"),
        ({"set": [{"id": "gate", "cost": math.inf}]}, InvalidWorld, "set[0].cost"),
        ({"set": [{"id": "gate", "from": GATE["to"]}]}, InvalidWorld, "unknown fields"),
        ({"set": ["gate"]}, InvalidWorld, "set[0] must be an object"),
        ({"set": [{"enabled": True}]}, InvalidWorld, "set[0].id"),
        ({"remove": "gate"}, InvalidWorld, "'remove' must be a list"),
        ({"add": {"id": "x"}}, InvalidWorld, "'add' must be a list"),
        ({"rename": []}, InvalidWorld, "unknown fields ['rename']"),
        ({}, InvalidWorld, "changes nothing"),
        ({"if_revision": 1}, InvalidWorld, "changes nothing"),
        ([], InvalidWorld, "is an object"),
    ],
)
def test_a_bad_patch_changes_nothing(patch, error, says):
    world = keep()
    before = world.encode()
    # a good part first: it must not survive the bad one
    if isinstance(patch, dict) and ("add" in patch or "remove" in patch) and "set" not in patch:
        patch = {**patch, "set": [{"id": "stairs", "cost": 7}]}
    with pytest.raises(error) as refused:
        apply_patch(world, patch, lookup, 2)
    assert says in refused.value.message
    assert world.encode() == before and world.link("stairs").cost == 2.0


def test_map_links_join_after_the_worlds_own_and_never_take_an_id():
    world = keep()

    class TiledMap:  # what with_map_links reads of a grid: its declared links
        def __init__(self, *links: Link) -> None:
            self.links = links

    ladder = Link("ladder", Place("keep_1", (1, 1)), Place("keep_1", (1, 5)))
    hatch = Link("hatch", Place("keep_2", (2, 2)), Place("keep_2", (9, 9)), 0.0)
    assert with_map_links(world, {"keep_1": object()}) is world
    joined = with_map_links(world, {"keep_2": TiledMap(hatch), "keep_1": TiledMap(ladder)})
    assert [link.id for link in joined.links] == ["stairs", "trapdoor", "gate", "ladder", "hatch"]
    assert joined.index_of("hatch") == 4 and joined.revision == world.revision
    clash = Link("gate", Place("keep_1", (1, 1)), Place("keep_1", (1, 5)))
    with pytest.raises(InvalidWorld, match="'gate' of map 'keep_1'"):
        with_map_links(world, {"keep_1": TiledMap(clash, ladder)})
    listed = with_map_links(world, {"keep_1": TiledMap(clash, ladder)}, strict=False)
    assert [link.id for link in listed.links][3:] == ["ladder"]


# --- files --------------------------------------------------------------------------------


def test_a_world_file_loads_as_the_api_body_and_a_bad_one_says_why(tmp_path):
    path = tmp_path / "keep.world.json"
    path.write_bytes(orjson.dumps(KEEP))
    world = load_world(path, lookup)
    assert world.document() == keep().document() and world.name == "keep"
    assert world.source == "keep.world.json"
    path.write_bytes(b"{not json")
    with pytest.raises(MapLoadError, match="not JSON"):
        load_world(path, lookup)
    with pytest.raises(MapLoadError, match="invalid_world: link id 'stairs' is used twice"):
        parse_world_bytes("keep", orjson.dumps(with_link() | {"links": [STAIRS, STAIRS]}), lookup)
    with pytest.raises(MapLoadError, match="unsupported_map_kind"):
        parse_world_bytes("keep", orjson.dumps({"maps": ["yard"]}), lookup)
    with pytest.raises(MapLoadError, match="larger than 5 bytes"):
        load_world(tmp_path / "keep.world.json", lookup, max_bytes=5)
    with pytest.raises(MapLoadError, match="cannot read"):
        load_world(tmp_path / "gone.world.json", lookup)
