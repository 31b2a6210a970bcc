"""A world over a Tiled map that declares same-map links (tests/fixtures/ledges.tmx): GET
/worlds lists them after the world's own, a query's view (``world_maps``) reads them, a
world's PATCH cannot change them (they are the map's) and a clash of ids is refused; they
survive the folder's write-back of an edited map and a restart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.api.worlds import world_maps
from app.config import Settings
from app.main import create_app
from tests.conftest import ROOT, wait_ready

ADMIN = {"authorization": "Bearer admin"}
LEDGES = ROOT / "tests" / "fixtures" / "ledges.tmx"
SHORTCUT = {"id": "rope", "from": {"map": "ledges", "cell": [0, 0]},
            "to": {"map": "ledges", "cell": [11, 0]}, "cost": 9.0}  # fmt: skip
# The fixture's link objects, read off by hand, as GET /worlds/{name} writes a link.
LADDER = {"id": "ladder", "from": {"map": "ledges", "cell": [4, 1]},
          "to": {"map": "ledges", "cell": [7, 1]}, "cost": 3.0, "bidirectional": True,
          "enabled": True, "tags": ["ladder", "climb"]}  # fmt: skip
DROP = {"id": "drop", "from": {"map": "ledges", "cell": [8, 4]},
        "to": {"map": "ledges", "cell": [3, 4]}, "cost": 0.0, "bidirectional": False,
        "enabled": True, "tags": []}  # fmt: skip
GATE = {"id": "gate", "from": {"map": "ledges", "cell": [4, 5]},
        "to": {"map": "ledges", "cell": [7, 5]}, "cost": 1.0, "bidirectional": True,
        "enabled": False, "tags": ["door"]}  # fmt: skip
OWN = {**SHORTCUT, "bidirectional": False, "enabled": True, "tags": []}


def _settings(folder: Path) -> Settings:
    return Settings(maps_dir=folder, admin_token="admin", maps_writable=True)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "maps"
    folder.mkdir()
    shutil.copy(LEDGES, folder / "ledges.tmx")
    (folder / "cliff.world.json").write_text(json.dumps({"maps": ["ledges"], "links": [SHORTCUT]}))
    return folder


def error(response) -> tuple[int, str, str]:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    return response.status_code, body["error"]["code"], body["error"]["message"]


def test_a_world_lists_its_maps_links_and_a_query_reads_them(folder):
    with TestClient(create_app(_settings(folder))) as client:
        wait_ready(client)
        body = client.get("/worlds/cliff").json()
        assert body == {
            "name": "cliff",
            "revision": 1,
            "maps": [{"name": "ledges", "revision": 1, "links": ["ladder", "drop", "gate"]}],
            "links": [OWN, LADDER, DROP, GATE],
        }
        (listed,) = client.get("/worlds").json()["worlds"]
        assert listed == {"name": "cliff", "revision": 1, "maps": ["ledges"], "links": 4}
        view = client.portal.call(world_maps, client.app.state.service, "cliff", None)
        assert [link.document() for link in view.world.links] == body["links"]
        assert view.world.index_of("drop") == 2
        # a world of the map and no links of its own gets the map's
        made = client.put("/worlds/bare", json={"maps": ["ledges"]}, headers=ADMIN)
        assert made.status_code == 201 and made.json()["links"] == [LADDER, DROP, GATE]


def test_patch_cannot_change_a_maps_link_and_a_clash_is_refused(folder):
    with TestClient(create_app(_settings(folder))) as client:
        wait_ready(client)
        before = client.get("/worlds/cliff").json()
        for patch, field in (
            ({"set": [{"id": "gate", "enabled": True}]}, "set: link 'gate'"),
            ({"remove": ["drop"]}, "remove: link 'drop'"),
            ({"set": [{"id": "rope", "cost": 1}], "remove": ["ladder"]}, "remove: link 'ladder'"),
        ):
            status, code, message = error(client.patch("/worlds/cliff", json=patch, headers=ADMIN))
            assert (status, code) == (422, "invalid_world") and message.startswith(field)
            assert "declared by map 'ledges'" in message
        add = {"add": [{**SHORTCUT, "id": "ladder"}]}
        status, code, message = error(client.patch("/worlds/cliff", json=add, headers=ADMIN))
        assert (status, code) == (422, "invalid_world") and "'ladder' of map 'ledges'" in message
        clash = {"maps": ["ledges"], "links": [{**SHORTCUT, "id": "drop"}]}
        assert error(client.put("/worlds/cliff", json=clash, headers=ADMIN))[:2] == (
            422,
            "invalid_world",
        )
        assert client.get("/worlds/cliff").json() == before  # nothing changed
        # the world's own link is the world's to change
        patched = client.patch("/worlds/cliff", json={"remove": ["rope"]}, headers=ADMIN)
        assert patched.json() == {"name": "cliff", "revision": 2}
        assert client.get("/worlds/cliff").json()["links"] == [LADDER, DROP, GATE]


def test_the_links_survive_the_write_back_of_an_edit_and_a_restart(folder):
    with TestClient(create_app(_settings(folder))) as client:
        wait_ready(client)
        edit = {"set": [{"cells": [[4, 1]], "value": "blocked"}]}
        assert client.patch("/maps/ledges", json=edit, headers=ADMIN).status_code == 200
        before = client.get("/worlds/cliff").json()
        assert before["maps"][0]["revision"] == 2
    # written back as a PNG and its sidecar, which holds the links
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("ledges")) == [
        "ledges.json",
        "ledges.png",
    ]
    sidecar = json.loads((folder / "ledges.json").read_bytes())
    assert [link["id"] for link in sidecar["links"]] == ["ladder", "drop", "gate"]
    with TestClient(create_app(_settings(folder))) as again:
        wait_ready(again)
        assert again.get("/worlds/cliff").json() == before
        view = again.portal.call(world_maps, again.app.state.service, "cliff", None)
        assert not view.grids["ledges"].is_walkable(4, 1)  # the ladder's end is blocked
        assert view.world.link("ladder").document() == LADDER
