"""One map authority across processes (issue 12), shown with real parts only: a real
``redis-server`` and real uvicorn processes on loopback.

Every check is against the HTTP contract (endpoints, settings, error codes), never the store's
internals, and every map a test changes is checked independently: the test keeps its own model
of each revision (the uploaded file plus the edits it made and saw acknowledged), and checks
paths on it with ``tests/reference.py`` (step legality, costs by scipy's Dijkstra) and map
images against it pixel for pixel.

Bounded: every loop stops by time and by count; every wait has a timeout.
"""

from __future__ import annotations

import http.client
import io
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from bisect import bisect_left
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from bench.server import Server, ServerSpec, start_all
from tests.conftest import MAPS_DIR, ROOT
from tests.packages import require
from tests.redis_server import RedisServer
from tests.reference import path_cost, reference_costs, step_is_legal


@pytest.fixture(autouse=True, scope="module")
def _redis_installed() -> None:
    require("redis-server")


SEED_MAPS = ("arena", "maze")
ARENA_PNG = (MAPS_DIR / "arena.png").read_bytes()
TIMEOUT = 10.0  # one HTTP request
PROPAGATION_TIMEOUT = 10.0  # a change reaching another process, Redis coming back, a reload
STRESS_SECONDS = 20.0
OUTAGE = (8.0, 13.0)  # seconds into the stress run during which Redis is down
MAX_REQUESTS_PER_THREAD = 20_000
OPTIMALITY_SAMPLE = 24  # (revision, start) pairs checked against the reference Dijkstra
ADMIN_TOKEN = "cluster-test-admin-token"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
# Errors of a server's own health check while it is down or restarting.
UNREACHABLE = (OSError, http.client.HTTPException, ValueError)

# One line per request drowns the failure reports of tests that make thousands.
logging.getLogger("httpx").setLevel(logging.WARNING)


# --- helpers ---------------------------------------------------------------------------------


def gridpath_process(directory: Path, env: dict[str, str], workers: int = 1) -> Server:
    """``uvicorn app.main:app`` with ``env``, logging at INFO to ``directory/server.log``."""
    directory.mkdir(parents=True, exist_ok=True)
    spec = ServerSpec({"LOG_LEVEL": "info", **env}, workers=workers)
    return Server(spec, log_path=directory / "server.log")


def walkable_of(data: bytes) -> np.ndarray:
    """The loader's rule for a bitmap, restated: luminance at least 128 is walkable."""
    return np.asarray(Image.open(io.BytesIO(data)).convert("L")) >= 128


def copy_seed_maps(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name in SEED_MAPS:
        shutil.copy(MAPS_DIR / f"{name}.png", directory / f"{name}.png")
    return directory


def error_code(response: httpx.Response) -> str | None:
    try:
        return response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


def upload(server: Server, name: str, data: bytes = ARENA_PNG) -> dict:
    response = httpx.put(f"{server.url}/maps/{name}", content=data, headers=ADMIN, timeout=TIMEOUT)
    assert response.status_code == 201, response.text
    return response.json()


def patch(
    client: httpx.Client | None,
    server: Server,
    name: str,
    edits: list[dict],
    if_revision: int | None = None,
) -> httpx.Response:
    body: dict = {"set": edits}
    if if_revision is not None:
        body["if_revision"] = if_revision
    send = client.patch if client else httpx.patch
    return send(f"{server.url}/maps/{name}", json=body, headers=ADMIN, timeout=TIMEOUT)


def find_path(server: Server, name: str, start, goal, revision=None, client=None):
    body = {"map": name, "start": list(start), "goal": list(goal)}
    if revision is not None:
        body["revision"] = revision
    send = client.post if client else httpx.post
    return send(f"{server.url}/path", json=body, timeout=TIMEOUT)


def map_info(server: Server, name: str, revision: int | None = None) -> httpx.Response:
    params = {} if revision is None else {"revision": revision}
    return httpx.get(f"{server.url}/maps/{name}", params=params, timeout=TIMEOUT)


def served_walkable(server: Server, name: str) -> np.ndarray:
    response = httpx.get(f"{server.url}/maps/{name}/image?scale=1", timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    return walkable_of(response.content)


def every_map(server: Server) -> dict[str, tuple[int, str]]:
    response = httpx.get(f"{server.url}/maps", timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    return {m["name"]: (m["revision"], m["sha256"]) for m in response.json()["maps"]}


def wait_for(predicate, what: str, timeout: float = PROPAGATION_TIMEOUT, every: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def wait_for_store(server: Server, state: str, timeout: float) -> None:
    try:
        wait_for(lambda: store_state(server) == state, f"{server.url} store {state}", timeout)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n/health: {server.health()}\nlog:\n{server.log()}") from None


def store_state(server: Server) -> str | None:
    try:
        status, body = server.health()
    except UNREACHABLE:
        return None
    return body.get("store") if status == 200 else None


def rect_edit(x0: int, y0: int, x1: int, y1: int, value: str = "blocked") -> dict:
    return {"rect": [x0, y0, x1, y1], "value": value}


def apply_edit(walkable: np.ndarray, edit: dict) -> np.ndarray:
    """The edit as the README defines it, on the test's own copy of the grid."""
    out = walkable.copy()
    x0, y0, x1, y1 = edit["rect"]
    out[y0 : y1 + 1, x0 : x1 + 1] = edit["value"] == "walkable"
    return out


def path_violation(walkable: np.ndarray, answer: dict, start, goal) -> str | None:
    """Why ``answer`` is not a legal path from start to goal on ``walkable`` (None if legal)."""
    if not answer["found"]:
        return None if answer["path"] in (None, []) else "a path with found: false"
    path = [tuple(cell) for cell in answer["path"]]
    if path[0] != tuple(start) or path[-1] != tuple(goal):
        return f"path runs {path[0]} -> {path[-1]}, not {start} -> {goal}"
    for a, b in zip(path, path[1:]):
        if not step_is_legal(walkable, a, b):
            return f"illegal step {a} -> {b}"
    if abs(path_cost(path) - answer["cost"]) > 1e-9:
        return f"cost {answer['cost']} is not the path's {path_cost(path)}"
    return None


@dataclass
class History:
    """The test's own record of one map: the base grid, and the edit behind each revision it
    was acknowledged (the test is the only writer, so revision N is N-1 plus that edit)."""

    base_revision: int
    base_sha256: str
    base: np.ndarray
    edits: dict[int, dict] = field(default_factory=dict)
    sha256: dict[int, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.sha256[self.base_revision] = self.base_sha256
        self._grids = {self.base_revision: self.base}

    @property
    def latest(self) -> int:
        with self.lock:
            return max(self.sha256)

    def acknowledged(self, revision: int, sha256: str, edit: dict) -> None:
        with self.lock:
            assert revision not in self.edits, f"revision {revision} acknowledged twice"
            self.edits[revision] = edit
            self.sha256[revision] = sha256

    def grid(self, revision: int) -> np.ndarray:
        if revision not in self._grids:
            self._grids[revision] = apply_edit(self.grid(revision - 1), self.edits[revision])
        return self._grids[revision]


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def redis(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def cluster(redis, tmp_path_factory):
    """Three processes started together against an empty Redis, each with its own copy of the
    seed maps (they share nothing but Redis)."""
    base = tmp_path_factory.mktemp("cluster")
    servers = []
    for i in range(3):
        maps = copy_seed_maps(base / f"maps-{i}")
        env = {"MAP_STORE": redis.url, "MAPS_DIR": str(maps), "ADMIN_TOKEN": ADMIN_TOKEN}
        servers.append(gridpath_process(base / f"server-{i}", env))
    start_all(servers)
    yield servers
    for server in servers:
        server.stop()


# --- Redis store -----------------------------------------------------------------------------


def test_three_processes_starting_on_an_empty_redis_serve_one_upload(cluster):
    views = [every_map(server) for server in cluster]
    assert set(views[0]) == set(SEED_MAPS), views[0]
    assert all(view == views[0] for view in views), views
    assert {revision for revision, _ in views[0].values()} == {1}, views[0]
    for name in SEED_MAPS:
        expected = walkable_of((MAPS_DIR / f"{name}.png").read_bytes())
        for server in cluster:
            assert np.array_equal(served_walkable(server, name), expected), (server.url, name)


def test_change_acknowledged_by_one_process_is_served_by_the_others_at_its_revision(cluster):
    a, *others = cluster
    info = upload(a, "ryw")
    history = History(info["revision"], info["sha256"], walkable_of(ARENA_PNG))
    start, goal = (1, 1), (62, 62)
    answer = find_path(others[0], "ryw", start, goal, revision=info["revision"]).json()
    for _ in range(5):
        # Block a cell the last answer walked through: an answer on an older revision would
        # cross it, so it cannot pass for the new one.
        cell = answer["path"][len(answer["path"]) // 2]
        edit = rect_edit(*cell, *cell)
        ack = patch(None, a, "ryw", [edit], if_revision=history.latest)
        assert ack.status_code == 200, ack.text
        revision = ack.json()["revision"]
        history.acknowledged(revision, ack.json()["sha256"], edit)
        for b in others:  # straight away: no sleep, the revision in the request is the wait
            response = find_path(b, "ryw", start, goal, revision=revision)
            assert response.status_code == 200, (b.url, response.text)
            answer = response.json()
            assert answer["revision"] == revision
            assert path_violation(history.grid(revision), answer, start, goal) is None
            assert list(cell) not in answer["path"]
            info = map_info(b, "ryw", revision=revision).json()
            assert (info["revision"], info["sha256"]) == (revision, history.sha256[revision])


def race_change(cluster, cells, barrier, value, if_revision, i: int) -> httpx.Response:
    x, y = cells[i]
    barrier.wait(TIMEOUT)
    return patch(None, cluster[i], "race", [rect_edit(x, y, x, y, value)], if_revision)


def test_concurrent_changes_with_one_if_revision_through_different_processes_one_wins(cluster):
    current = upload(cluster[0], "race")["revision"]
    walkable = walkable_of(ARENA_PNG)
    cells = [tuple(map(int, c)) for c in np.argwhere(walkable)[::97][:3, ::-1]]
    for round_ in range(5):
        barrier = threading.Barrier(len(cluster))
        value = "walkable" if round_ % 2 else "blocked"
        change = partial(race_change, cluster, cells, barrier, value, current)
        with ThreadPoolExecutor(len(cluster)) as pool:
            responses = list(pool.map(change, range(len(cluster))))
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200, 409, 409], [r.text for r in responses]
        assert {error_code(r) for r in responses if r.status_code == 409} == {"revision_conflict"}
        (winner,) = [i for i, r in enumerate(responses) if r.status_code == 200]
        ack = responses[winner].json()
        assert ack["revision"] == current + 1
        current = ack["revision"]
        # Only the winner's cell changed, on every process.
        x, y = cells[winner]
        walkable[y, x] = bool(round_ % 2)
        for server in cluster:
            info = map_info(server, "race", revision=current)
            assert info.status_code == 200, info.text
            assert (info.json()["revision"], info.json()["sha256"]) == (current, ack["sha256"])
            assert np.array_equal(served_walkable(server, "race"), walkable), server.url


@dataclass
class Answer:
    server: int
    sent: float
    received: float
    kind: str  # "path", "named_path" (names a revision), "map", "change"
    status: int
    body: dict | None
    query: tuple | None = None
    named: int | None = None


def test_stress_random_edits_and_queries_across_three_processes_with_a_redis_outage(cluster, redis):
    history_info = upload(cluster[0], "stress")
    history = History(history_info["revision"], history_info["sha256"], walkable_of(ARENA_PNG))
    rng = random.Random(12)
    open_cells = [tuple(map(int, c[::-1])) for c in np.argwhere(history.base)]
    endpoints = rng.sample(open_cells, 6)
    queries = [(s, g) for s in endpoints[:3] for g in endpoints[3:]]
    protected = set(endpoints)
    height, width = history.base.shape
    answers: list[Answer] = []
    answers_lock = threading.Lock()
    transport_errors: list[str] = []
    stop = threading.Event()
    t0 = time.monotonic()

    def record(answer: Answer) -> None:
        with answers_lock:
            answers.append(answer)

    def call(i, kind, send, **extra) -> Answer | None:
        sent = time.monotonic() - t0
        try:
            response = send()
        except httpx.HTTPError as exc:
            transport_errors.append(f"{kind} on server {i}: {exc!r}")
            return None
        body = (
            response.json() if response.headers.get("content-type") == "application/json" else None
        )
        answer = Answer(i, sent, time.monotonic() - t0, kind, response.status_code, body, **extra)
        record(answer)
        return answer

    def random_edit(rng: random.Random) -> dict:
        while True:
            x0, y0 = rng.randrange(1, width - 3), rng.randrange(1, height - 3)
            x1, y1 = x0 + rng.randrange(3), y0 + rng.randrange(3)
            cells = {(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}
            if not cells & protected:
                return rect_edit(x0, y0, x1, y1, rng.choice(("blocked", "walkable")))

    def run_client(seed: int, step) -> None:
        """One client thread: ``step(rng, clients, server)`` until stopped (or the count)."""
        rng = random.Random(seed)
        clients = [httpx.Client(base_url=s.url, timeout=TIMEOUT) for s in cluster]
        try:
            for _ in range(MAX_REQUESTS_PER_THREAD):
                if stop.is_set():
                    break
                step(rng, clients, rng.randrange(len(cluster)))
        finally:
            for client in clients:
                client.close()

    def change_step(rng: random.Random, clients, i: int) -> None:
        edit = random_edit(rng)
        guard = history.latest if rng.random() < 0.7 else None
        answer = call(
            i,
            "change",
            partial(patch, clients[i], cluster[i], "stress", [edit], guard),
            query=(edit, guard),
        )
        if answer and answer.status == 200:
            history.acknowledged(answer.body["revision"], answer.body["sha256"], edit)
            # Read your writes on another process, straight away.
            j = (i + 1 + rng.randrange(len(cluster) - 1)) % len(cluster)
            start, goal = rng.choice(queries)
            revision = answer.body["revision"]
            call(
                j,
                "named_path",
                partial(find_path, cluster[j], "stress", start, goal, revision, clients[j]),
                query=(start, goal),
                named=revision,
            )
        time.sleep(rng.uniform(0.05, 0.2))

    def query_step(rng: random.Random, clients, i: int) -> None:
        if rng.random() < 0.75:
            start, goal = rng.choice(queries)
            call(
                i,
                "path",
                partial(find_path, cluster[i], "stress", start, goal, None, clients[i]),
                query=(start, goal),
            )
        else:
            call(i, "map", partial(clients[i].get, "/maps/stress"))

    threads = [threading.Thread(target=run_client, args=(s, change_step)) for s in (1, 2)]
    threads += [threading.Thread(target=run_client, args=(s, query_step)) for s in (3, 4, 5)]
    for thread in threads:
        thread.start()
    degraded: dict[int, dict] = {}
    try:
        time.sleep(OUTAGE[0])
        redis.stop()
        stopped_at = time.monotonic() - t0
        for i, server in enumerate(cluster):
            wait_for_store(server, "degraded", 5)
            degraded[i] = server.health()[1]
        time.sleep(max(0.0, OUTAGE[1] - (time.monotonic() - t0)))
        restarted_at = time.monotonic() - t0  # Redis may answer as soon as it is started
        redis.start()
        time.sleep(max(0.0, STRESS_SECONDS - (time.monotonic() - t0)))
    finally:
        stop.set()
        for thread in threads:
            thread.join(TIMEOUT * 2)
        if redis.process is None or redis.process.poll() is not None:
            redis.start()

    # Nothing failed at the transport level, and the only 5xx are refused changes.
    assert not transport_errors, transport_errors[:5]
    server_errors = [a for a in answers if a.status >= 500]
    assert all(a.kind == "change" and a.status == 503 for a in server_errors), server_errors[:3]
    assert {error_code_of(a) for a in server_errors} <= {"store_unavailable"}

    # Redis down: /health stayed 200 and said why; searches went on; changes were refused.
    for body in degraded.values():
        assert body["status"] == "ok" and body["store"] == "degraded", body
        assert body["store_reason"], body
    during = [a for a in answers if stopped_at + 0.5 < a.sent and a.received < restarted_at]
    assert any(a.kind == "path" and a.status == 200 for a in during), "no search while down"
    assert any(a.status == 503 for a in during if a.kind == "change"), "no change tried while down"
    assert not [a for a in during if a.kind == "change" and a.status == 200], "acked while down"

    # Every change answered: 200, a conflict with a stale if_revision, or 503 while down.
    changes = [a for a in answers if a.kind == "change"]
    for a in changes:
        if a.status == 409:
            assert error_code_of(a) == "revision_conflict" and a.query[1] is not None, a
        else:
            assert a.status in (200, 503), a
    acked = sorted(a.body["revision"] for a in changes if a.status == 200)
    assert len(acked) >= 10, f"only {len(acked)} changes acknowledged in {STRESS_SECONDS} s"
    # Nothing applied half-way: the revisions are the acknowledged changes, in sequence. The
    # one exception the README documents ("Map stores"): a change whose connection broke as
    # Redis stopped may be committed although it answered 503. Such a change straddles the
    # stop; if it is the only one, it is taken into the model as the unacknowledged revision.
    for server in cluster:
        wait_for_store(server, "ok", PROPAGATION_TIMEOUT)
    final_revision, final_sha = wait_for(
        lambda: agreed_revision(cluster, "stress"), "every process on one revision of stress"
    )
    missing = sorted(set(range(history.base_revision + 1, final_revision + 1)) - set(acked))
    straddling = [a for a in changes if a.status == 503 and a.sent < stopped_at < a.received]
    refused = [
        (round(a.sent, 3), round(a.received, 3), a.status, error_code_of(a), a.query[1])
        for a in changes
        if a.status != 200
    ]
    assert not missing or (len(missing) == 1 == len(straddling)), (
        f"revisions {missing} were never acknowledged; Redis stopped at {stopped_at:.3f} s and "
        f"was started at {restarted_at:.3f} s; the changes not acknowledged (sent, received, "
        f"status, code, if_revision): {refused}"
    )
    for revision in missing:
        seen = [
            a.body["sha256"]
            for a in answers
            if a.kind == "map" and a.status == 200 and a.body["revision"] == revision
        ]
        sha = final_sha if revision == final_revision else (seen[0] if seen else None)
        history.acknowledged(revision, sha, straddling[0].query[0])
    assert history.latest == final_revision, (history.latest, final_revision)

    # (revision, hash) is one pair everywhere; each process's revisions never go back.
    for a in answers:
        if a.kind == "map" and a.status == 200:
            assert a.body["sha256"] == history.sha256.get(a.body["revision"]), a
    for i in range(len(cluster)):
        mine = [a for a in answers if a.server == i and a.status == 200 and a.kind != "change"]
        assert_never_goes_back(mine)

    # Every path is legal on the revision it names, and deterministic across processes.
    by_query: dict[tuple, set] = defaultdict(set)
    for a in answers:
        if a.kind in ("path", "named_path") and a.status == 200:
            revision = a.body["revision"]
            assert revision in history.sha256, a
            if a.named is not None:
                assert revision == a.named, a
            start, goal = a.query
            violation = path_violation(history.grid(revision), a.body, start, goal)
            assert violation is None, (violation, a)
            by_query[(start, goal, revision)].add((a.body["path_hash"], a.body["cost"]))
        elif a.kind == "named_path":
            assert a.status == 409 and error_code_of(a) == "stale_revision", a
            assert history.latest > a.named, a  # only once the map had moved on
    assert all(len(found) == 1 for found in by_query.values()), {
        k: v for k, v in by_query.items() if len(v) > 1
    }
    assert sum(a.kind == "path" and a.status == 200 for a in answers) >= 100

    # Optimal too, on a sample: the costs scipy's Dijkstra gives on the test's own grid.
    sample = random.Random(7).sample(sorted(by_query), min(OPTIMALITY_SAMPLE, len(by_query)))
    for start, goal, revision in sample:
        ((_, cost),) = by_query[(start, goal, revision)]
        expected = reference_costs(history.grid(revision), start)[goal[1], goal[0]]
        assert (cost is None) == np.isinf(expected), (start, goal, revision, cost, expected)
        assert cost is None or abs(cost - expected) < 1e-9, (start, goal, revision, cost)

    # Redis back (every process resynchronised above): a new change reaches all of them.
    edit = random_edit(rng)
    ack = patch(None, cluster[2], "stress", [edit], if_revision=history.latest)
    assert ack.status_code == 200, ack.text
    history.acknowledged(ack.json()["revision"], ack.json()["sha256"], edit)
    for server in cluster:
        info = map_info(server, "stress", revision=history.latest)
        assert info.status_code == 200, info.text
        assert info.json()["sha256"] == history.sha256[history.latest]
        assert np.array_equal(served_walkable(server, "stress"), history.grid(history.latest))


def agreed_revision(cluster: list[Server], name: str) -> tuple[int, str] | None:
    """(revision, sha256) of ``name`` if every process serves the same, else None."""
    infos = {(i["revision"], i["sha256"]) for i in (map_info(s, name).json() for s in cluster)}
    return infos.pop() if len(infos) == 1 else None


def error_code_of(answer: Answer) -> str | None:
    try:
        return answer.body["error"]["code"]
    except (TypeError, KeyError):
        return None


def assert_never_goes_back(answers: list[Answer]) -> None:
    """A request sent after another's answer came back never names an older revision."""
    done = sorted(answers, key=lambda a: a.received)
    received = [a.received for a in done]
    highest = []  # highest revision among the answers received up to each point
    for a in done:
        highest.append(max(highest[-1] if highest else 0, a.body["revision"]))
    for a in answers:
        before = bisect_left(received, a.sent)
        if before:
            assert a.body["revision"] >= highest[before - 1], (
                f"server {a.server} answered revision {a.body['revision']} at {a.sent:.3f} s "
                f"after it had already answered {highest[before - 1]}"
            )


def test_a_killed_process_restarts_on_the_current_revisions(cluster):
    a, b, c = cluster
    upload(a, "crash")
    c.kill()  # SIGKILL: no shutdown handler runs
    ack = patch(None, a, "crash", [rect_edit(10, 10, 12, 12)])
    assert ack.status_code == 200, ack.text
    revision, sha = ack.json()["revision"], ack.json()["sha256"]
    c.start()
    c.wait_ready()
    # Its own folder still holds revision 1 of the seed maps: it must load Redis, not that.
    assert every_map(c) == every_map(a) == every_map(b)
    assert (map_info(c, "crash").json()["revision"], map_info(c, "crash").json()["sha256"]) == (
        revision,
        sha,
    )
    response = find_path(c, "crash", (1, 1), (62, 62), revision=revision)
    assert response.status_code == 200 and response.json()["revision"] == revision
    again = patch(None, c, "crash", [rect_edit(20, 20, 20, 20)], if_revision=revision)
    assert again.status_code == 200 and again.json()["revision"] == revision + 1, again.text
    seen = map_info(a, "crash", revision=revision + 1)
    assert seen.status_code == 200 and seen.json()["sha256"] == again.json()["sha256"]


def test_push_deploys_a_folder_to_every_process(cluster, redis, tmp_path):
    """`python -m app.authority push DIR`, as an operator runs it: new revisions everywhere."""
    before = every_map(cluster[0])
    folder = tmp_path / "deploy"
    folder.mkdir()
    edited = walkable_of(ARENA_PNG)
    edited[40:44, 8:12] = False
    (folder / "arena.png").write_bytes(png_bytes(edited))
    shutil.copy(MAPS_DIR / "maze.png", folder / "maze.png")  # unchanged: keeps its revision
    env = {**os.environ, "MAP_STORE": redis.url}
    run = subprocess.run(
        [sys.executable, "-m", "app.authority", "push", str(folder)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    revision = before["arena"][0] + 1
    for server in cluster:
        info = map_info(server, "arena", revision=revision)
        assert info.status_code == 200, info.text
        assert info.json()["revision"] == revision
        assert np.array_equal(served_walkable(server, "arena"), edited), server.url
        assert every_map(server)["maze"] == before["maze"]


def test_new_user_sequence_with_two_workers_on_redis(redis, tmp_path):
    """The issue's sequence: `--workers 2`, one PATCH, then twelve GET /maps/arena."""
    env = {
        "MAP_STORE": redis.url,
        "MAPS_DIR": str(copy_seed_maps(tmp_path / "maps")),
        "ADMIN_TOKEN": ADMIN_TOKEN,
    }
    server = gridpath_process(tmp_path / "server", env, workers=2)
    start_all([server])
    try:
        ack = patch(None, server, "arena", [rect_edit(30, 30, 31, 31)])
        assert ack.status_code == 200, ack.text
        revision = ack.json()["revision"]
        # A new connection each: the kernel spreads them over both workers.
        seen = [map_info(server, "arena").json()["revision"] for _ in range(12)]
        assert seen == [revision] * 12, seen
    finally:
        server.stop()


# --- folder store (MAP_STORE unset) ----------------------------------------------------------


def replace_file(path: Path, data: bytes, scratch: Path) -> None:
    """Write beside, then rename over: the watcher never sees a half-written file."""
    temporary = scratch / f".{path.name}.tmp"
    temporary.write_bytes(data)
    os.replace(temporary, path)


def png_bytes(walkable: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.where(walkable, 255, 0).astype(np.uint8), mode="L").save(out, "PNG")
    return out.getvalue()


def test_folder_store_reloads_a_changed_file_and_keeps_serving_a_broken_one(tmp_path):
    maps = copy_seed_maps(tmp_path / "maps")
    scratch = tmp_path
    server = gridpath_process(
        tmp_path / "server", {"MAPS_DIR": str(maps), "ADMIN_TOKEN": ADMIN_TOKEN}
    )
    start_all([server])
    try:
        before = map_info(server, "arena").json()
        edited = walkable_of(ARENA_PNG)
        edited[28:36, 28:36] = False
        replace_file(maps / "arena.png", png_bytes(edited), scratch)
        after = wait_for(
            lambda: (i := map_info(server, "arena").json())["revision"] > before["revision"] and i,
            "the changed arena.png to be served",
        )
        assert after["sha256"] != before["sha256"]
        assert np.array_equal(served_walkable(server, "arena"), edited)

        # A broken file: the previous revision keeps serving, and /health says why.
        replace_file(maps / "arena.png", b"not a png", scratch)
        wait_for(
            lambda: any("arena" in e["file"] for e in server.health()[1]["errors"]),
            "the broken arena.png in /health errors",
        )
        still = map_info(server, "arena").json()
        assert (still["revision"], still["sha256"]) == (after["revision"], after["sha256"])
        response = find_path(server, "arena", (1, 1), (62, 62))
        assert response.status_code == 200 and response.json()["revision"] == after["revision"]
        assert path_violation(edited, response.json(), (1, 1), (62, 62)) is None

        # A new file appears, a removed one goes.
        replace_file(maps / "extra.png", (maps / "maze.png").read_bytes(), scratch)
        wait_for(lambda: map_info(server, "extra").status_code == 200, "extra.png to appear")
        (maps / "extra.png").unlink()
        wait_for(lambda: map_info(server, "extra").status_code == 404, "extra.png to go")

        # A good file again: a new revision, the error gone; POST /maps/reload needs the token.
        replace_file(maps / "arena.png", ARENA_PNG, scratch)
        wait_for(
            lambda: map_info(server, "arena").json()["revision"] > after["revision"],
            "the repaired arena.png",
        )
        assert not server.health()[1]["errors"]
        assert httpx.post(f"{server.url}/maps/reload", timeout=TIMEOUT).status_code == 401
        reload = httpx.post(f"{server.url}/maps/reload", headers=ADMIN, timeout=TIMEOUT)
        assert reload.status_code == 200, reload.text
        assert np.array_equal(served_walkable(server, "arena"), walkable_of(ARENA_PNG))
    finally:
        server.stop()


def test_folder_store_reloads_on_sighup_and_on_post_reload(tmp_path):
    maps = copy_seed_maps(tmp_path / "maps")
    env = {"MAPS_DIR": str(maps), "ADMIN_TOKEN": ADMIN_TOKEN, "MAPS_RELOAD": "off"}
    server = gridpath_process(tmp_path / "server", env)
    start_all([server])
    try:
        first = map_info(server, "arena").json()["revision"]
        edited = walkable_of(ARENA_PNG)
        edited[2:6, 2:6] = False
        replace_file(maps / "arena.png", png_bytes(edited), tmp_path)
        # Longer than the watcher's and the poller's delays: with both off, nothing happens.
        time.sleep(1.5)
        assert map_info(server, "arena").json()["revision"] == first
        os.kill(server.process.pid, signal.SIGHUP)
        wait_for(
            lambda: map_info(server, "arena").json()["revision"] > first, "the reload on SIGHUP"
        )
        assert np.array_equal(served_walkable(server, "arena"), edited)

        second = map_info(server, "arena").json()["revision"]
        replace_file(maps / "arena.png", ARENA_PNG, tmp_path)
        reload = httpx.post(f"{server.url}/maps/reload", headers=ADMIN, timeout=TIMEOUT)
        assert reload.status_code == 200, reload.text
        # Done when it answers: no waiting.
        assert map_info(server, "arena").json()["revision"] > second
        assert np.array_equal(served_walkable(server, "arena"), walkable_of(ARENA_PNG))
    finally:
        server.stop()


def test_folder_store_with_two_workers_refuses_changes(tmp_path):
    maps = copy_seed_maps(tmp_path / "maps")
    env = {"MAPS_DIR": str(maps), "ADMIN_TOKEN": ADMIN_TOKEN}
    server = gridpath_process(tmp_path / "server", env, workers=2)
    start_all([server])
    try:
        before = map_info(server, "arena").json()
        refused = [
            patch(None, server, "arena", [rect_edit(30, 30, 31, 31)]),
            httpx.put(f"{server.url}/maps/new", content=ARENA_PNG, headers=ADMIN, timeout=TIMEOUT),
            httpx.delete(f"{server.url}/maps/maze", headers=ADMIN, timeout=TIMEOUT),
        ]
        for response in refused:
            assert response.status_code == 503, response.text
            assert error_code(response) == "shared_store_required"
            assert "MAP_STORE" in response.json()["error"]["message"]
        seen = {
            (i["revision"], i["sha256"])
            for i in (map_info(server, "arena").json() for _ in range(8))
        }
        assert seen == {(before["revision"], before["sha256"])}
        assert map_info(server, "maze").status_code == 200
        assert map_info(server, "new").status_code == 404
    finally:
        server.stop()
