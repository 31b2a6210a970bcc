"""/worlds over HTTP: listing, create, replace, patch and delete with the admin token, every
refusal as the error envelope with nothing changed, revisions and read-your-writes
(``world_maps``), the folder's write-back and a restart, a bad world file at start-up."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from app.api.worlds import world_maps
from app.authority.documents import map_lookup
from app.config import Settings
from app.main import create_app
from gridpath.errors import ServiceError
from gridpath.world.model import WorldPatch
from tests.conftest import MAPS_DIR, wait_ready

ADMIN = {"authorization": "Bearer admin"}
KEEP = json.loads((MAPS_DIR / "keep.world.json").read_bytes())
STAIRS = KEEP["links"][0]
TOGGLE = {"set": [{"id": "gate", "enabled": True}]}
UPLOAD_LIMIT = 16 * 1024


def _settings(folder: Path) -> Settings:
    return Settings(
        maps_dir=folder,
        admin_token="admin",
        maps_writable=True,
        maps_reload="poll",
        maps_poll_interval=0.2,
        max_upload_bytes=UPLOAD_LIMIT,
        revision_wait_ms=300,
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("worlds") / "maps"
    folder.mkdir()
    for name in ("keep_1.png", "keep_2.png", "keep.world.json", "courtyard.nav.json"):
        shutil.copy(MAPS_DIR / name, folder / name)
    (folder / "broken.world.json").write_text('{"maps": ["keep_1", "cellar"]}')
    return folder


@pytest.fixture(scope="module")
def client(folder: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(folder))) as client:
        wait_ready(client)
        yield client


def error(response) -> str:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    return body["error"]["code"]


def world(client: TestClient, name: str = "keep") -> dict:
    return client.get(f"/worlds/{name}").json()


def test_the_bundled_world_is_listed_and_a_bad_file_is_an_error_entry(client):
    health = client.get("/health").json()
    assert health["status"] == "ok" and "keep" in health["worlds"]
    assert "broken" not in health["worlds"]
    (entry,) = [e for e in health["errors"] if e["file"] == "broken.world.json"]
    assert "invalid_world" in entry["reason"] and "'cellar'" in entry["reason"]
    listed = {w["name"]: w for w in client.get("/worlds").json()["worlds"]}
    assert listed["keep"]["maps"] == ["keep_1", "keep_2"]
    assert listed["keep"]["links"] == len(KEEP["links"])
    body = world(client)
    assert body["maps"] == [{"name": "keep_1", "revision": 1}, {"name": "keep_2", "revision": 1}]
    assert [link["id"] for link in body["links"]] == [link["id"] for link in KEEP["links"]]
    assert body["links"][2]["from"] == {"map": "keep_2", "cell": [30, 12]}
    assert body["map_links"] == []


def test_changes_need_the_admin_token(client):
    for send in (
        lambda h: client.put("/worlds/w", json=KEEP, headers=h),
        lambda h: client.patch("/worlds/keep", json=TOGGLE, headers=h),
        lambda h: client.delete("/worlds/keep", headers=h),
    ):
        assert error(send({})) == "unauthorized"
        assert error(send({"authorization": "Bearer wrong"})) == "unauthorized"
    # the token is checked before the body: 401, not 413 or 422
    big = b"x" * (UPLOAD_LIMIT + 1)
    assert error(client.put("/worlds/w", content=big)) == "unauthorized"
    assert client.get("/worlds/w").status_code == 404  # nothing was created


def test_put_creates_then_replaces_and_guards_with_if_revision(client, folder):
    created = client.put("/worlds/tower", json={"maps": ["keep_1"]}, headers=ADMIN)
    assert created.status_code == 201
    assert created.json()["revision"] == 1 and created.json()["links"] == []
    assert json.loads((folder / "tower.world.json").read_bytes()) == {
        "maps": ["keep_1"],
        "links": [],
    }
    replaced = client.put("/worlds/tower", json=KEEP, headers=ADMIN)
    assert replaced.status_code == 200 and replaced.json()["revision"] == 2
    stale = client.put("/worlds/tower", params={"if_revision": 1}, json=KEEP, headers=ADMIN)
    assert stale.status_code == 409 and error(stale) == "revision_conflict"
    guarded = client.put("/worlds/tower", params={"if_revision": 2}, json=KEEP, headers=ADMIN)
    assert guarded.json()["revision"] == 3
    on_disk = json.loads((folder / "tower.world.json").read_bytes())
    assert on_disk["links"][0] == {**STAIRS, "enabled": True}


BAD_WORLDS = [
    ({"maps": ["cellar"]}, "invalid_world"),
    ({"maps": ["keep_1"], "links": [{**STAIRS}]}, "invalid_world"),  # keep_2 not a map of it
    ({"maps": ["keep_1", "keep_2"], "links": [STAIRS, STAIRS]}, "invalid_world"),
    ({"maps": ["keep_1", "keep_2"], "links": [{**STAIRS, "cost": -1}]}, "invalid_world"),
    (
        {
            "maps": ["keep_1", "keep_2"],
            "links": [{**STAIRS, "to": {"map": "keep_2", "cell": [48, 0]}}],
        },
        "invalid_world",
    ),
    ({"maps": ["keep_1", "courtyard"]}, "unsupported_map_kind"),
    ({"maps": ["keep_1"], "doors": []}, "invalid_world"),
    ([1, 2], "invalid_request"),
]


@pytest.mark.parametrize(("body", "code"), BAD_WORLDS)
def test_a_bad_world_is_refused_and_changes_nothing(client, folder, body, code):
    before = world(client)
    file_before = (folder / "keep.world.json").read_bytes()
    refused = client.put("/worlds/keep", json=body, headers=ADMIN)
    assert refused.status_code == 422 and error(refused) == code
    assert world(client) == before and (folder / "keep.world.json").read_bytes() == file_before


def test_bodies_over_the_upload_limit_and_bad_names(client):
    links = [{**STAIRS, "id": f"s{i}"} for i in range(UPLOAD_LIMIT // 100)]
    big = client.put(
        "/worlds/big", json={"maps": ["keep_1", "keep_2"], "links": links}, headers=ADMIN
    )
    assert big.status_code == 413 and error(big) == "payload_too_large"
    assert client.get("/worlds/big").status_code == 404
    assert error(client.get("/worlds/a.b")) == "invalid_request"
    assert error(client.put("/worlds/a.b", json=KEEP, headers=ADMIN)) == "invalid_request"
    assert error(client.get("/worlds/nowhere")) == "world_not_found"


def test_patch_toggles_all_or_nothing_and_answers_the_revision(client, folder):
    start = world(client)["revision"]
    opened = client.patch("/worlds/keep", json=TOGGLE, headers=ADMIN)
    assert opened.status_code == 200 and opened.json() == {"name": "keep", "revision": start + 1}
    gate = next(link for link in world(client)["links"] if link["id"] == "gate")
    assert gate["enabled"] is True
    on_disk = json.loads((folder / "keep.world.json").read_bytes())
    assert next(link for link in on_disk["links"] if link["id"] == "gate")["enabled"] is True
    before = world(client)
    ladder = {**STAIRS, "id": "ladder"}
    for patch, status, code in [
        ({"add": [ladder], "set": [{"id": "nope", "enabled": False}]}, 404, "link_not_found"),
        ({"add": [ladder], "remove": ["nope"]}, 404, "link_not_found"),
        ({"add": [ladder, {**ladder, "cost": -2}]}, 422, "invalid_world"),
        ({"add": [{**ladder, "from": {"map": "keep_1", "cell": [99, 1]}}]}, 422, "invalid_world"),
        ({"add": [ladder], "if_revision": start}, 409, "revision_conflict"),
        ({"add": [ladder], "if_revision": 0}, 422, "invalid_world"),
        ({"add": [ladder], "if_revision": True}, 422, "invalid_world"),
        ({}, 422, "invalid_world"),
        ({"set": "gate"}, 422, "invalid_world"),
    ]:
        refused = client.patch("/worlds/keep", json=patch, headers=ADMIN)
        assert (refused.status_code, error(refused)) == (status, code), patch
        assert world(client) == before
    missing = client.patch("/worlds/nowhere", json=TOGGLE, headers=ADMIN)
    assert (missing.status_code, error(missing)) == (404, "world_not_found")
    closed = client.patch(
        "/worlds/keep",
        json={"set": [{"id": "gate", "enabled": False}], "if_revision": start + 1},
        headers=ADMIN,
    )
    assert closed.json()["revision"] == start + 2


def test_world_maps_is_one_view_with_read_your_writes(client):
    state = client.app.state.service
    current = world(client)["revision"]
    view = client.portal.call(world_maps, state, "keep", None)
    assert view.world.revision == current and view.revisions() == {"keep_1": 1, "keep_2": 1}
    assert view.grids["keep_1"] is state.registry.get("keep_1")
    assert client.portal.call(world_maps, state, "keep", current).world is view.world

    async def wait_then_patch() -> int:
        waiting = asyncio.ensure_future(world_maps(state, "keep", current + 1, 5.0))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # it waits for the revision named
        await state.world_authority.update("keep", _toggle(state), None)
        return (await waiting).world.revision

    assert client.portal.call(wait_then_patch) == current + 1
    for revision in (current, current + 5):  # past, and never reached within the wait
        with pytest.raises(ServiceError) as stale:
            client.portal.call(world_maps, state, "keep", revision, 0.05)
        assert stale.value.code == "stale_revision"
    with pytest.raises(ServiceError) as missing:
        client.portal.call(world_maps, state, "nowhere", None)
    assert missing.value.code == "world_not_found"
    # GET /worlds/{name}?revision= waits as well
    assert client.get("/worlds/keep", params={"revision": current + 1}).status_code == 200
    late = client.get("/worlds/keep", params={"revision": current + 9})
    assert (late.status_code, error(late)) == (409, "stale_revision")


def _toggle(state):
    gate = state.worlds.get("keep").link("gate")
    patch = {"set": [{"id": "gate", "enabled": not gate.enabled}]}
    return WorldPatch(patch, map_lookup(state.registry))


def test_a_world_outlives_its_maps_shrinking_and_going(client):
    state = client.app.state.service
    client.put("/worlds/upper", json={"maps": ["keep_2"], "links": []}, headers=ADMIN)
    tiny = _png(8, 8)
    assert client.put("/maps/keep_2", content=tiny, headers=ADMIN).status_code == 200
    assert world(client)["maps"][1]["name"] == "keep_2"  # the keep still names it
    assert [link["id"] for link in world(client)["links"]][0] == "stairs_west"
    assert client.delete("/maps/keep_2", headers=ADMIN).status_code == 200
    assert world(client, "upper")["maps"] == [{"name": "keep_2", "revision": None}]
    with pytest.raises(ServiceError) as gone:
        client.portal.call(world_maps, state, "upper", None)
    assert gone.value.code == "map_not_found"
    put_back = client.put(
        "/maps/keep_2", content=(MAPS_DIR / "keep_2.png").read_bytes(), headers=ADMIN
    )
    assert put_back.status_code == 201
    assert client.portal.call(world_maps, state, "upper", None).revisions()["keep_2"] > 1


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("L", (width, height), 255).save(out, "PNG")
    return out.getvalue()


def test_delete_removes_the_world_and_its_file(client, folder):
    client.put("/worlds/gone", json={"maps": ["keep_1"]}, headers=ADMIN)
    deleted = client.delete("/worlds/gone", headers=ADMIN)
    assert deleted.status_code == 200 and deleted.json() == {
        "name": "gone",
        "deleted": True,
        "revision": 1,
    }
    assert not (folder / "gone.world.json").exists()
    assert error(client.get("/worlds/gone")) == "world_not_found"
    assert error(client.delete("/worlds/gone", headers=ADMIN)) == "world_not_found"
    again = client.put("/worlds/gone", json={"maps": ["keep_1"]}, headers=ADMIN)
    assert again.status_code == 201 and again.json()["revision"] == 2  # revisions only grow


def test_a_world_file_dropped_in_is_served_and_a_fixed_one_too(client, folder):
    (folder / "cellar.world.json").write_text(json.dumps({"maps": ["keep_1"]}))
    (folder / "broken.world.json").write_text(json.dumps({"maps": ["keep_1", "keep_2"]}))
    deadline = time.monotonic() + 10
    while {"cellar", "broken"} - set(client.get("/health").json()["worlds"]):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert not [
        e for e in client.get("/health").json()["errors"] if e["file"].endswith(".world.json")
    ]


def test_the_worlds_operations_are_declared(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths["/worlds"]) == {"get"}
    assert set(paths["/worlds/{name}"]) == {"get", "put", "patch", "delete"}
    for method in ("put", "patch", "delete"):
        op = paths["/worlds/{name}"][method]
        assert {"401", "403", "404", "409", "422", "503"} <= set(op["responses"])
        assert op["security"] == [{"adminToken": []}]
    assert "link_not_found" in paths["/worlds/{name}"]["patch"]["responses"]["404"]["description"]
    put = paths["/worlds/{name}"]["put"]
    assert (
        "413" in put["responses"]
        and "unsupported_map_kind" in put["responses"]["422"]["description"]
    )
    assert paths["/worlds/{name}"]["get"]["operationId"] == "getWorld"


def test_revisions_and_worlds_survive_a_restart(tmp_path):
    folder = tmp_path / "maps"
    folder.mkdir()
    for name in ("keep_1.png", "keep_2.png", "keep.world.json"):
        shutil.copy(MAPS_DIR / name, folder / name)
    with TestClient(create_app(_settings(folder))) as first:
        wait_ready(first)
        first.patch("/worlds/keep", json=TOGGLE, headers=ADMIN)
        first.put("/worlds/tower", json={"maps": ["keep_1"]}, headers=ADMIN)
        first.delete("/worlds/tower", headers=ADMIN)
        before = world(first)
    assert before["revision"] == 2
    with TestClient(create_app(_settings(folder))) as again:  # a restart on the same folder
        wait_ready(again)
        assert world(again) == before
        assert again.get("/worlds/tower").status_code == 404
        assert again.patch("/worlds/keep", json=TOGGLE, headers=ADMIN).json()["revision"] == 3
        assert again.put("/worlds/tower", json=KEEP, headers=ADMIN).json()["revision"] == 2
