"""The Redis map store (MAP_STORE=redis://...), in-process: two services on one real Redis.

Each test starts its own ``redis-server`` (tests/redis_server.py). Two apps in one process
stand for two processes here (each has its own registry, Redis clients and follower); the
multi-process tests are in tests/system.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient

from app.authority.redis_keys import CHANNEL, INDEX, LAST, decode, encode, map_key
from app.config import Settings
from app.main import create_app
from gridpath.grid.edits import Edit, GridEdit
from gridpath.maps import MapRegistry
from tests.conftest import MAPS_DIR, ROOT, wait_ready
from tests.redis_server import RedisServer

ADMIN = {"authorization": "Bearer admin"}
BLOCK = {"set": [{"cells": [[1, 1]], "value": "blocked"}]}


def settings(server: RedisServer, maps_dir: Path = MAPS_DIR, **extra) -> Settings:
    return Settings(maps_dir=maps_dir, map_store=server.url, admin_token="admin", **extra)


@contextmanager
def services(count: int, config: Settings) -> Iterator[list[TestClient]]:
    with ExitStack() as stack:
        clients = [stack.enter_context(TestClient(create_app(config))) for _ in range(count)]
        for client in clients:
            wait_ready(client)
        yield clients


def test_encoding_round_trips_every_kind_of_map():
    """What one process writes to Redis, another loads as the same content (hash, terrain)."""
    folder = MapRegistry.from_dir(MAPS_DIR, max_cells=1 << 24, max_bytes=1 << 28)
    grids = folder.all()
    arena = folder.get("arena")
    edits = [Edit(value=3.5, rect=(0, 0, 4, 2)), Edit(value="blocked", cells=[(6, 6)])]
    grids.append(arena.edit(GridEdit(edits), 2))  # a new terrain class: palette sidecar
    polygons = [g for g in grids if g.kind == "polygon"]
    assert polygons  # maps/courtyard.nav.json
    for grid in grids:
        upload = encode(grid)
        fields = {
            b"revision": str(grid.revision).encode(),
            b"sha256": grid.sha256.encode(),
            b"source": grid.source.encode(),
            b"suffix": upload.suffix.encode(),
            b"data": upload.data,
            b"sidecar": json.dumps(upload.sidecar).encode() if upload.sidecar else b"",
        }
        back = decode(grid.name, fields, max_cells=1 << 24)
        assert (back.sha256, back.revision, back.source) == (
            grid.sha256,
            grid.revision,
            grid.source,
        )
        if grid.kind == "polygon":  # its file's bytes, as loaded
            assert upload.data == grid.data and back.nav.to_json() == grid.nav.to_json()
            continue
        assert back.terrain_classes == grid.terrain_classes
        assert (back.terrain == grid.terrain).all() and (back.passable == grid.passable).all()


def test_a_change_through_one_process_is_read_through_another(redis_server):
    with services(2, settings(redis_server)) as (a, b):
        before = b.get("/maps/arena").json()
        assert before["revision"] == 1 and a.get("/health").json()["store"] == "ok"
        changed = a.patch("/maps/arena", json=BLOCK, headers=ADMIN).json()
        assert changed["revision"] == 2 and changed["sha256"] != before["sha256"]
        # read your writes: B waits for revision 2 if it has not applied it yet
        seen = b.get("/maps/arena", params={"revision": 2}).json()
        assert (seen["revision"], seen["sha256"]) == (2, changed["sha256"])
        query = {"map": "arena", "start": [2, 2], "goal": [1, 1], "revision": 2}
        path = b.post("/path", json=query)
        assert path.status_code == 422 and path.json()["error"]["code"] == "goal_blocked"
        assert b.post("/path", json={**query, "goal": [2, 2]}).json()["revision"] == 2
        # an older revision named is stale at once (the map has moved on)
        stale = b.post("/path", json={**query, "goal": [2, 2], "revision": 1})
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_revision"


def test_a_polygon_map_edited_through_one_process_is_served_by_another(redis_server):
    """The bundled polygon map reaches Redis at the first start (its .nav.json bytes); an
    edit, a PUT and a DELETE through one app are seen by a second sharing the Redis."""
    crate = [[2, 12], [4, 12], [4, 14], [2, 14]]
    straight = {"map": "courtyard", "start": [1, 13], "goal": [5, 13]}
    with services(2, settings(redis_server)) as (a, b):
        before = b.get("/maps/courtyard").json()
        assert (before["kind"], before["revision"]) == ("polygon", 1)
        assert b.post("/path", json=straight).json()["cost"] == 4.0
        edit = {"holes": [{"op": "add", "ring": crate}], "if_revision": 1}
        changed = a.patch("/maps/courtyard", json=edit, headers=ADMIN).json()
        assert (changed["revision"], changed["holes"]) == (2, before["holes"] + 1)
        around = b.post("/path", json={**straight, "revision": 2}).json()  # read your writes
        assert around["revision"] == 2 and around["cost"] > 4.0
        assert b.get("/maps/courtyard").json() == changed
        # the same if_revision again, through the other process: refused, nothing changed
        conflict = b.patch("/maps/courtyard", json=edit, headers=ADMIN)
        assert conflict.status_code == 409
        assert conflict.json()["error"]["code"] == "revision_conflict"
        assert a.get("/maps/courtyard").json()["revision"] == 2

        room = {"outline": [[0, 0], [10, 0], [10, 10], [0, 10]], "waypoints": [[5, 5]]}
        created = a.put("/maps/room", content=json.dumps(room).encode(), headers=ADMIN).json()
        query = {
            "map": "room",
            "start": [1.5, 1],
            "goal": [9, 9.5],
            "revision": created["revision"],
        }
        assert b.post("/path", json=query).json()["cost"] == pytest.approx(math.hypot(7.5, 8.5))
        fields = redis.Redis.from_url(redis_server.url).hgetall(map_key("room"))
        assert (fields[b"suffix"], fields[b"data"]) == (b".nav.json", json.dumps(room).encode())
        assert a.delete("/maps/room", headers=ADMIN).status_code == 200
        deadline = time.monotonic() + 10
        while b.get("/maps/room").status_code != 404:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    with services(1, settings(redis_server, maps_dir=Path("/nonexistent"))) as (c,):
        # a new replica loads the polygon map from Redis, without the folder
        assert c.get("/maps/courtyard").json() == changed


def test_read_your_writes_waits_for_the_announcement(redis_server):
    with services(2, settings(redis_server, revision_wait_ms=5000)) as (a, b):
        answers: list = []
        began = time.perf_counter()
        reader = threading.Thread(
            target=lambda: answers.append(b.get("/maps/arena", params={"revision": 2}))
        )
        reader.start()
        time.sleep(0.3)  # B is now waiting for a revision nobody has made yet
        assert not answers
        a.patch("/maps/arena", json=BLOCK, headers=ADMIN)
        reader.join(10)
        waited = time.perf_counter() - began
        assert answers[0].status_code == 200 and answers[0].json()["revision"] == 2
        assert waited < 4.0  # woken by the change, not by the 5 s limit


def test_a_revision_that_does_not_come_is_stale_after_the_wait(redis_server):
    with services(1, settings(redis_server, revision_wait_ms=300)) as (a,):
        began = time.perf_counter()
        answer = a.post(
            "/path", json={"map": "arena", "start": [0, 0], "goal": [2, 2], "revision": 9}
        )
        assert time.perf_counter() - began >= 0.29
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "stale_revision"
        for route, body in [
            ("/paths", {"map": "arena", "revision": 9, "queries": []}),
            ("/validate", {"map": "arena", "path": [[0, 0]], "revision": 9}),
            ("/flowfield", {"map": "arena", "goal": [2, 2], "revision": 9}),
        ]:
            answer = a.post(route, json=body)
            assert answer.status_code == 409, route
            assert answer.json()["error"]["code"] == "stale_revision", route
        assert a.get("/maps/arena", params={"revision": 9}).status_code == 409
        assert a.post("/flowfield", json={"map": "arena", "goal": [2, 2], "revision": 1}).is_success


def edit(x: int, y: int, if_revision: int | None = None) -> dict:
    return {"set": [{"cells": [[x, y]], "value": "blocked"}], "if_revision": if_revision}


def test_concurrent_changes_with_the_same_if_revision_exactly_one_wins(redis_server):
    with services(2, settings(redis_server)) as (a, b):
        for round_ in range(5):
            base = a.get("/maps/arena").json()["revision"]
            barrier = threading.Barrier(2)
            answers: dict[str, object] = {}

            def change(client: TestClient, key: str, body: dict, barrier=barrier, answers=answers):
                barrier.wait()
                answers[key] = client.patch("/maps/arena", json=body, headers=ADMIN)

            threads = [
                threading.Thread(target=change, args=(client, key, edit(x, 10 + round_, base)))
                for client, key, x in ((a, "a", 3), (b, "b", 5))
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            codes = sorted(r.status_code for r in answers.values())
            assert codes == [200, 409], codes
            loser = next(r for r in answers.values() if r.status_code == 409)
            assert loser.json()["error"]["code"] == "revision_conflict"
            winner = next(r for r in answers.values() if r.status_code == 200).json()
            assert winner["revision"] == base + 1
            for client in (a, b):
                seen = client.get("/maps/arena", params={"revision": base + 1}).json()
                assert (seen["revision"], seen["sha256"]) == (base + 1, winner["sha256"])


def test_concurrent_edits_without_if_revision_are_both_kept(redis_server):
    """An edit computed on a snapshot that moved on is redone on the new one (no lost edit)."""
    with services(2, settings(redis_server)) as (a, b):
        barrier = threading.Barrier(2)
        answers = []

        def change(client: TestClient, x: int) -> None:
            barrier.wait()
            body = {"set": [{"cells": [[x, x]], "value": "blocked"}]}
            answers.append(client.patch("/maps/arena", json=body, headers=ADMIN))

        threads = [threading.Thread(target=change, args=(c, x)) for c, x in ((a, 3), (b, 5))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(r.json()["revision"] for r in answers) == [2, 3]
        for client in (a, b):
            client.get("/maps/arena", params={"revision": 3})
            for x in (3, 5):
                query = {"map": "arena", "start": [2, 2], "goal": [x, x], "revision": 3}
                assert client.post("/path", json=query).json()["error"]["code"] == "goal_blocked"


def test_redis_down_searches_go_on_changes_refused_then_resynchronised(redis_server):
    with services(2, settings(redis_server)) as (a, b):
        query = {"map": "arena", "start": [2, 2], "goal": [8, 8]}
        answer = a.post("/path", json=query).json()
        assert answer["found"]
        redis_server.kill()
        deadline = time.monotonic() + 10
        while a.get("/health").json()["store"] != "degraded":
            assert time.monotonic() < deadline, "never reported degraded"
            time.sleep(0.05)
        health = a.get("/health")
        assert health.status_code == 200 and health.json()["store_reason"]
        assert a.post("/path", json=query).json() == answer  # reads never touch Redis
        refused = a.patch("/maps/arena", json=BLOCK, headers=ADMIN)
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "store_unavailable"
        assert (
            a.put(
                "/maps/new", content=b"type octile\nheight 1\nwidth 2\nmap\n..\n", headers=ADMIN
            ).status_code
            == 503
        )
        assert a.delete("/maps/maze", headers=ADMIN).status_code == 503
        assert a.get("/maps/arena").json()["revision"] == 1  # nothing applied
        assert "new" not in a.get("/health").json()["maps"]
        redis_server.start()  # AOF: everything acknowledged is still there
        for client in (a, b):
            deadline = time.monotonic() + 10
            while client.get("/health").json()["store"] != "ok":
                assert time.monotonic() < deadline, "never resynchronised"
                time.sleep(0.05)
        changed = patch_once_restored(b, "arena", BLOCK)
        assert changed["revision"] == 2
        assert a.get("/maps/arena", params={"revision": 2}).json()["sha256"] == changed["sha256"]


def patch_once_restored(client: TestClient, name: str, body: dict, within: float = 5.0) -> dict:
    """PATCH until it is acknowledged: after Redis restarted, changes answer 503
    store_unavailable (with Retry-After) while the processes write back their maps; they
    succeed again within 5 s of Redis answering (docs/operations.md)."""
    deadline = time.monotonic() + within
    while True:
        answer = client.patch(f"/maps/{name}", json=body, headers=ADMIN)
        if answer.status_code == 200:
            return answer.json()
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["code"] == "store_unavailable"
        assert answer.headers["retry-after"] == "1"
        assert time.monotonic() < deadline, "changes still refused 5 s after Redis came back"
        time.sleep(0.05)


def test_revisions_survive_restarts_and_grow_across_deletes(redis_server):
    config = settings(redis_server)
    with services(1, config) as (a,):
        assert a.patch("/maps/arena", json=BLOCK, headers=ADMIN).json()["revision"] == 2
        assert a.delete("/maps/maze", headers=ADMIN).json()["revision"] == 1
        sha = a.get("/maps/arena").json()["sha256"]
    redis_server.restart()
    with services(1, config) as (a,):
        arena = a.get("/maps/arena").json()
        assert (arena["revision"], arena["sha256"]) == (2, sha)
        assert a.get("/maps/maze").status_code == 404  # deleted stays deleted
        body = b"type octile\nheight 1\nwidth 2\nmap\n..\n"
        again = a.put("/maps/maze", content=body, headers=ADMIN)
        assert again.status_code == 201 and again.json()["revision"] == 2  # after deleted 1


def test_first_start_uploads_the_folder_once(redis_server, caplog):
    client = redis.Redis.from_url(redis_server.url)
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(CHANNEL)
    with caplog.at_level("INFO", logger="app.authority.redis"):
        with services(3, settings(redis_server)) as clients:
            maps = [
                sorted(
                    (m["name"], m["revision"], m["sha256"]) for m in c.get("/maps").json()["maps"]
                )
                for c in clients
            ]
    assert maps[0] == maps[1] == maps[2] and len(maps[0]) >= 3
    assert {revision for _, revision, _ in maps[0]} == {1}
    uploads = [
        r for r in caplog.records if "first start" in (m := r.getMessage()) and " maps " in m
    ]
    assert len(uploads) == 1
    announced = []
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        message = pubsub.get_message(timeout=0.1)
        if message is not None:
            announced.append(json.loads(message["data"])["name"])
    assert sorted(announced) == sorted(name for name, _, _ in maps[0])  # each map once
    assert {k.decode() for k in client.hkeys(INDEX)} == set(announced)
    assert {int(v) for v in client.hvals(LAST)} == {1}
    assert (
        client.hget(map_key("arena"), "sha256").decode()
        == dict((n, s) for n, _, s in maps[0])["arena"]
    )


def test_push_uploads_a_folder_as_new_revisions(redis_server, tmp_path):
    folder = tmp_path / "maps"
    folder.mkdir()
    (folder / "arena.map").write_text("type octile\nheight 2\nwidth 3\nmap\n...\n.@.\n")
    room = {"outline": [[0, 0], [4, 0], [4, 4], [0, 4]], "holes": [[[1, 1], [2, 1], [2, 2]]]}
    (folder / "courtyard.nav.json").write_text(json.dumps(room))  # a polygon map too
    with services(1, settings(redis_server)) as (a,):

        def push() -> subprocess.CompletedProcess:
            return subprocess.run(
                [sys.executable, "-m", "app.authority", "push", str(folder)],
                cwd=ROOT,
                env={"MAP_STORE": redis_server.url, "PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                timeout=120,
            )

        first = push()
        assert first.returncode == 0, first.stderr
        assert "arena: revision 2" in first.stdout
        seen = a.get("/maps/arena", params={"revision": 2}).json()
        assert (seen["revision"], seen["width"], seen["height"]) == (2, 3, 2)
        assert "courtyard: revision 2 (from courtyard.nav.json)" in first.stdout
        polygon = a.get("/maps/courtyard", params={"revision": 2}).json()
        assert (polygon["kind"], polygon["bounds"], polygon["holes"]) == (
            "polygon",
            [0.0, 0.0, 4.0, 4.0],
            1,
        )
        second = push()  # same content: no new revision
        assert second.returncode == 0 and "arena: unchanged at revision 2" in second.stdout
        assert "courtyard: unchanged at revision 2" in second.stdout
        (folder / "broken.png").write_bytes(b"not an image")
        third = push()
        assert third.returncode == 1 and "broken.png" in third.stderr


@pytest.mark.parametrize("route", ["/maps/reload"])
def test_reload_catches_up_from_redis(redis_server, route):
    with services(1, settings(redis_server)) as (a,):
        assert a.post(route).status_code in (401, 403)
        answer = a.post(route, headers=ADMIN)
        assert answer.status_code == 200 and answer.json() == {"changed": [], "errors": []}


def test_a_redis_that_lost_its_data_is_restored_from_the_processes(redis_server, tmp_path):
    """Redis restarted without its data (no AOF): the newest revisions are written back by
    the processes that serve them, and a process started later loads them."""
    with services(2, settings(redis_server)) as (a, b):
        changed = a.patch("/maps/arena", json=BLOCK, headers=ADMIN).json()
        assert b.get("/maps/arena", params={"revision": 2}).json()["revision"] == 2
        redis_server.kill()
        wiped = RedisServer(tmp_path / "wiped", port=redis_server.port).start()
        try:
            client = redis.Redis.from_url(wiped.url)
            deadline = time.monotonic() + 15
            while client.hget(INDEX, "arena") != b"2":
                assert time.monotonic() < deadline, "never restored"
                time.sleep(0.05)
            assert client.hget(map_key("arena"), "sha256").decode() == changed["sha256"]
            with services(1, settings(wiped)) as (c,):
                arena = c.get("/maps/arena").json()
                assert (arena["revision"], arena["sha256"]) == (2, changed["sha256"])
                assert patch_once_restored(c, "arena", BLOCK)["revision"] == 3
                assert a.get("/maps/arena", params={"revision": 3}).json()["revision"] == 3
        finally:
            wiped.kill()


def test_a_process_that_cannot_reach_redis_at_start_is_not_ready_until_it_can(redis_server):
    redis_server.kill()
    with TestClient(create_app(settings(redis_server))) as client:
        deadline = time.monotonic() + 30
        while not client.get("/health").json()["errors"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        health = client.get("/health")
        assert health.status_code == 503 and health.json()["store"] == "degraded"
        assert "redis unreachable" in health.json()["errors"][0]["reason"]
        redis_server.start()
        wait_ready(client)
        health = client.get("/health").json()
        folder = MapRegistry.from_dir(MAPS_DIR, max_cells=1 << 24, max_bytes=1 << 28)
        assert (health["store"], health["errors"], health["maps"]) == ("ok", [], folder.names())


def test_random_edits_through_two_services_agree(redis_server):
    """Bounded (about 4 s): edits with and without if_revision from four threads through two
    services. Every acknowledged revision is unique, each service's revisions never go back,
    and both end on the same (revision, content hash)."""
    import random

    with services(2, settings(redis_server)) as clients:
        acknowledged: list[tuple[int, str]] = []
        problems: list[str] = []
        stop = time.monotonic() + 4.0

        def worker(seed: int) -> None:
            rng = random.Random(seed)
            seen = {0: 0, 1: 0}
            while time.monotonic() < stop:
                index = rng.randrange(2)
                client = clients[index]
                if rng.random() < 0.4:
                    body = edit(rng.randrange(1, 63), rng.randrange(1, 63))
                    if rng.random() < 0.5:
                        body["if_revision"] = client.get("/maps/arena").json()["revision"]
                    answer = client.patch("/maps/arena", json=body, headers=ADMIN)
                    if answer.status_code == 200:
                        acknowledged.append((answer.json()["revision"], answer.json()["sha256"]))
                    elif answer.json()["error"]["code"] != "revision_conflict":
                        problems.append(answer.text)
                else:
                    revision = client.get("/maps/arena").json()["revision"]
                    if revision < seen[index]:
                        problems.append(f"service {index} went back {seen[index]} -> {revision}")
                    seen[index] = revision

        threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not problems, problems[:3]
        revisions = [r for r, _ in acknowledged]
        assert len(revisions) == len(set(revisions)) and len(revisions) >= 5
        last = max(revisions)
        finals = [c.get("/maps/arena", params={"revision": last}).json() for c in clients]
        assert {(f["revision"], f["sha256"]) for f in finals} == {(last, dict(acknowledged)[last])}


def test_closing_never_hangs_on_a_follower_that_lost_its_cancellation(redis_server):
    """A cancellation can be lost inside the Redis client (a read timeout expiring as it
    arrives; the CI saw a shutdown wait forever on the follower): close() sends it again
    and returns within its bound."""
    import asyncio

    from app.authority.redis import RedisAuthority

    async def scenario() -> float:
        authority = RedisAuthority(settings(redis_server), MapRegistry())
        await authority.start()
        authority._follower.cancel()  # the running follower stops as it should
        await asyncio.wait({authority._follower}, timeout=5)

        async def stubborn() -> None:  # loses the first cancellation, as the client did
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                pass
            while True:
                await asyncio.sleep(0.05)

        authority._follower = asyncio.create_task(stubborn())
        await asyncio.sleep(0)
        began = time.perf_counter()
        await asyncio.wait_for(authority.close(), 10)
        assert authority._follower.done()
        return time.perf_counter() - began

    assert asyncio.run(scenario()) < 5
