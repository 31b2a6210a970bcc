"""Worlds across real processes (issue 27): two uvicorn servers on one real redis-server, each
with its own copy of the folder (they share nothing but Redis), agree on every world revision
and read their writes through ``revision`` (``world_revision`` on searches)."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import httpx
import pytest

from bench.server import Server, ServerSpec, start_all
from tests.conftest import MAPS_DIR
from tests.packages import require
from tests.redis_server import RedisServer

ADMIN_TOKEN = "worlds-cluster-admin-token"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
TIMEOUT = 10.0


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    require("redis-server")
    base = tmp_path_factory.mktemp("worlds-cluster")
    redis = RedisServer(base / "redis").start()
    started = []
    try:
        for i in range(2):
            maps = base / f"maps-{i}"
            maps.mkdir()
            for name in ("keep_1.png", "keep_2.png", "keep.world.json"):
                shutil.copy(MAPS_DIR / name, maps / name)
            env = {
                "MAP_STORE": redis.url,
                "MAPS_DIR": str(maps),
                "ADMIN_TOKEN": ADMIN_TOKEN,
                "REVISION_WAIT_MS": "5000",
                "LOG_LEVEL": "info",
            }
            started.append(Server(ServerSpec(env), log_path=base / f"server-{i}.log"))
        start_all(started)
        yield started
    finally:
        for server in started:
            server.stop()
        redis.stop()


def get(server: Server, path: str, **params) -> httpx.Response:
    return httpx.get(f"{server.url}{path}", params=params, timeout=TIMEOUT)


def test_two_processes_agree_on_worlds_and_read_their_writes(servers):
    a, b = servers
    assert get(a, "/worlds").json() == get(b, "/worlds").json()
    keep = get(b, "/worlds/keep").json()
    assert keep["revision"] == 1 and len(keep["links"]) == 5  # one upload, both serve it
    for round_ in range(10):  # each change through one process, read at once through the other
        writer, reader = (a, b) if round_ % 2 == 0 else (b, a)
        body = {"set": [{"id": "gate", "enabled": round_ % 2 == 0}]}
        ack = httpx.patch(f"{writer.url}/worlds/keep", json=body, headers=ADMIN, timeout=TIMEOUT)
        assert ack.status_code == 200, ack.text
        revision = ack.json()["revision"]
        assert revision == 2 + round_
        seen = get(reader, "/worlds/keep", revision=revision)
        assert seen.status_code == 200 and seen.json()["revision"] == revision
        gate = next(link for link in seen.json()["links"] if link["id"] == "gate")
        assert gate["enabled"] is (round_ % 2 == 0)
    tower = {"maps": ["keep_1", "keep_2"], "links": keep["links"][:2]}
    created = httpx.put(f"{a.url}/worlds/tower", json=tower, headers=ADMIN, timeout=TIMEOUT)
    assert created.status_code == 201
    assert get(b, "/worlds/tower", revision=1).json()["links"] == created.json()["links"]
    assert httpx.delete(f"{b.url}/worlds/tower", headers=ADMIN, timeout=TIMEOUT).is_success
    deadline = time.monotonic() + TIMEOUT
    while get(a, "/worlds/tower").status_code != 404:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_one_if_revision_through_two_processes_has_one_winner(servers):
    a, b = servers
    for _ in range(5):
        base = get(a, "/worlds/keep").json()["revision"]
        get(b, "/worlds/keep", revision=base)
        barrier = threading.Barrier(2)
        answers: list[httpx.Response] = []

        def change(server: Server, cost: float, barrier=barrier, answers=answers, base=base):
            body = {"set": [{"id": "trapdoor", "cost": cost}], "if_revision": base}
            barrier.wait()
            answers.append(
                httpx.patch(f"{server.url}/worlds/keep", json=body, headers=ADMIN, timeout=TIMEOUT)
            )

        threads = [threading.Thread(target=change, args=(s, c)) for s, c in ((a, 1.0), (b, 2.0))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(r.status_code for r in answers) == [200, 409]
        winner = next(r for r in answers if r.status_code == 200).json()
        for server in servers:
            seen = get(server, "/worlds/keep", revision=winner["revision"]).json()
            assert seen["revision"] == base + 1


def test_a_world_file_in_a_new_process_folder_does_not_override_the_store(servers, tmp_path):
    """The folder seeds an empty store only: a process started later with another world file
    serves the shared revision."""
    a, _ = servers
    shared = get(a, "/worlds/keep").json()
    maps = tmp_path / "maps"
    maps.mkdir()
    for name in ("keep_1.png", "keep_2.png"):
        shutil.copy(MAPS_DIR / name, maps / name)
    (maps / "keep.world.json").write_text(json.dumps({"maps": ["keep_1"]}))
    redis_url = a.spec.env["MAP_STORE"]
    env = {"MAP_STORE": redis_url, "MAPS_DIR": str(maps), "ADMIN_TOKEN": ADMIN_TOKEN}
    late = Server(ServerSpec(env), log_path=Path(tmp_path / "late.log"))
    start_all([late])
    try:
        assert get(late, "/worlds/keep").json() == shared
    finally:
        late.stop()
