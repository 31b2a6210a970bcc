"""Worlds in the Redis store (MAP_STORE=redis://...): two services in one process on one real
Redis (each with its own registries, clients and followers), as tests/app/authority/
test_redis.py does for maps. The processes' version is tests/system/test_worlds_cluster.py."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import redis

from app.authority.redis_keys import MAPS_LAYOUT, WORLDS_LAYOUT
from tests.app.authority.test_redis import ADMIN, services, settings
from tests.conftest import MAPS_DIR, ROOT

TOGGLE = {"set": [{"id": "gate", "enabled": True}]}
KEEP = json.loads((MAPS_DIR / "keep.world.json").read_bytes())


def keep_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "maps"
    folder.mkdir()
    for name in ("keep_1.png", "keep_2.png", "keep.world.json"):
        shutil.copy(MAPS_DIR / name, folder / name)
    return folder


def until(check, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.05)


def test_a_world_changed_through_one_service_is_read_through_the_other(redis_server, tmp_path):
    config = settings(redis_server, maps_dir=keep_folder(tmp_path), revision_wait_ms=5000)
    with services(2, config) as (a, b):
        assert a.get("/worlds/keep").json() == b.get("/worlds/keep").json()
        assert b.get("/worlds/keep").json()["revision"] == 1  # seeded once from the folder
        store = redis.Redis.from_url(redis_server.url)
        assert store.hget(WORLDS_LAYOUT.index, "keep") == b"1"
        assert store.hget(WORLDS_LAYOUT.key("keep"), "suffix") == b".world.json"

        changed = a.patch("/worlds/keep", json=TOGGLE, headers=ADMIN).json()
        assert changed == {"name": "keep", "revision": 2}
        seen = b.get("/worlds/keep", params={"revision": 2}).json()  # read your writes
        assert seen["revision"] == 2 and seen["links"][3]["enabled"] is True

        created = a.put("/worlds/tower", json={"maps": ["keep_1"]}, headers=ADMIN)
        assert created.status_code == 201
        assert b.get("/worlds/tower", params={"revision": 1}).json()["maps"][0]["name"] == "keep_1"
        conflict = b.patch("/worlds/keep", json={**TOGGLE, "if_revision": 1}, headers=ADMIN)
        assert conflict.status_code == 409
        assert conflict.json()["error"]["code"] == "revision_conflict"
        assert a.delete("/worlds/tower", headers=ADMIN).status_code == 200
        until(lambda: b.get("/worlds/tower").status_code == 404)
        again = b.put("/worlds/tower", json={"maps": ["keep_2"]}, headers=ADMIN).json()
        assert again["revision"] == 2  # a name's revisions grow across deletes, in every process
        assert a.get("/worlds/tower", params={"revision": 2}).json()["maps"][0]["name"] == "keep_2"
    with services(1, settings(redis_server, maps_dir=Path("/nonexistent"))) as (c,):
        # a new replica loads the worlds from Redis, without the folder
        assert c.get("/worlds/keep").json()["revision"] == 2
        assert c.get("/worlds/tower").json()["maps"] == [
            {"name": "keep_2", "revision": 1, "links": []}
        ]


def test_concurrent_patches_with_one_if_revision_exactly_one_wins(redis_server, tmp_path):
    with services(2, settings(redis_server, maps_dir=keep_folder(tmp_path))) as (a, b):
        for round_ in range(4):
            base = a.get("/worlds/keep").json()["revision"]
            barrier = threading.Barrier(2)
            answers = []

            def change(client, enabled, barrier=barrier, answers=answers, base=base):
                body = {"set": [{"id": "gate", "enabled": enabled}], "if_revision": base}
                barrier.wait()
                answers.append(client.patch("/worlds/keep", json=body, headers=ADMIN))

            threads = [
                threading.Thread(target=change, args=(client, bool(i)))
                for i, client in enumerate((a, b))
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert sorted(r.status_code for r in answers) == [200, 409], round_
            winner = next(r for r in answers if r.status_code == 200).json()
            assert winner["revision"] == base + 1
            for client in (a, b):
                assert client.get("/worlds/keep", params={"revision": base + 1}).status_code == 200


def test_concurrent_patches_without_if_revision_are_both_kept(redis_server, tmp_path):
    with services(2, settings(redis_server, maps_dir=keep_folder(tmp_path))) as (a, b):
        barrier = threading.Barrier(2)
        answers = []

        def change(client, link_id):
            body = {"set": [{"id": link_id, "cost": 7.5}]}
            barrier.wait()
            answers.append(client.patch("/worlds/keep", json=body, headers=ADMIN))

        threads = [
            threading.Thread(target=change, args=(c, i))
            for c, i in ((a, "stairs_west"), (b, "trapdoor"))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(r.json()["revision"] for r in answers) == [2, 3]
        for client in (a, b):
            links = client.get("/worlds/keep", params={"revision": 3}).json()["links"]
            costs = {link["id"]: link["cost"] for link in links}
            assert costs["stairs_west"] == costs["trapdoor"] == 7.5


def test_worlds_lost_by_redis_are_written_back_by_the_processes(redis_server, tmp_path):
    config = settings(redis_server, maps_dir=keep_folder(tmp_path))
    with services(2, config) as (a, b):
        assert a.patch("/worlds/keep", json=TOGGLE, headers=ADMIN).json()["revision"] == 2
        b.get("/worlds/keep", params={"revision": 2})
        redis.Redis.from_url(redis_server.url).flushall()  # Redis lost everything
        store = redis.Redis.from_url(redis_server.url)
        until(lambda: store.hget(WORLDS_LAYOUT.index, "keep") == b"2")
        until(lambda: store.hget("gridpath:maps", "keep_1") == b"1")

        def changed() -> bool:
            answer = b.patch("/worlds/keep", json=TOGGLE | {"if_revision": 2}, headers=ADMIN)
            assert answer.status_code in (200, 503), answer.text
            return answer.status_code == 200

        until(changed)
        assert a.get("/worlds/keep", params={"revision": 3}).json()["revision"] == 3


def test_a_tiled_maps_links_travel_through_redis(redis_server, tmp_path):
    """A Tiled map is stored in Redis as a PNG and its sidecar, whose ``links`` are the
    map's link objects: a replica without the folder lists them in the world that names
    the map (tests/fixtures/ledges.tmx declares ladder, drop and gate)."""
    folder = tmp_path / "maps"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "fixtures" / "ledges.tmx", folder / "ledges.tmx")
    (folder / "cliff.world.json").write_text('{"maps": ["ledges"]}')
    with services(2, settings(redis_server, maps_dir=folder)) as (a, b):
        listed = a.get("/worlds/cliff").json()
        assert [link["id"] for link in listed["links"]] == ["ladder", "drop", "gate"]
        assert b.get("/worlds/cliff").json() == listed
        sidecar = redis.Redis.from_url(redis_server.url).hget(MAPS_LAYOUT.key("ledges"), "sidecar")
        assert [link["id"] for link in json.loads(sidecar)["links"]] == ["ladder", "drop", "gate"]
    with services(1, settings(redis_server, maps_dir=Path("/nonexistent"))) as (c,):
        assert c.get("/worlds/cliff").json() == listed
