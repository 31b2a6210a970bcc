"""Polygon maps: the same query on the same map gives the same bytes in another process
(fresh hash seeds, fresh interpreter), in both modes."""

from __future__ import annotations

import os
import subprocess
import sys

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR, ROOT

SCRIPT = """
import orjson, random
from gridpath.nav.model import parse_nav
from gridpath.nav.query import NavEngine
from tests.gridpath.nav.random_maps import random_map, random_walkable_point
out = []
for seed in range(6):
    doc = random_map(seed, axis=seed % 2 == 0, holes=10)
    probe = parse_nav("r", doc)
    rng = random.Random(seed)
    doc["waypoints"] = [list(random_walkable_point(rng, probe.area)) for _ in range(12)]
    e = NavEngine(parse_nav("r", doc))
    for _ in range(5):
        s, g = random_walkable_point(rng, e.nav.area), random_walkable_point(rng, e.nav.area)
        for mode in ("exact", "waypoints"):
            r = e.path(s, g, mode=mode)
            out.append([r.found, r.cost, r.points, r.expanded])
print(orjson.dumps(out).hex())
"""


def run(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_same_bytes_in_other_processes():
    first = run("1")
    assert first == run("2") == run("12345")


QUERIES = [
    {"map": "courtyard", "start": [1, 29], "goal": [39, 1]},
    {"map": "courtyard", "start": [0.5, 0.25], "goal": [45.75, 14.5], "mode": "waypoints"},
    {"map": "courtyard", "start": [20, 15], "goal": [-3, 15], "snap": True},
]


def test_same_http_bytes_from_two_server_processes(tmp_path):
    """Over HTTP: two server processes (other hash seeds) answer the bundled polygon map's
    queries with the same bytes, both modes and snapped ends included."""
    bodies = []
    for seed in ("1", "777"):
        env = {"MAPS_DIR": str(MAPS_DIR), "PYTHONHASHSEED": seed, "MAPS_RELOAD": "off"}
        env["MAP_STATE_DIR"] = str(tmp_path / seed)
        with running_server(ServerSpec(env, launcher="app", ready_path="/health/ready")) as server:
            answers = [server.request("POST", "/path", query) for query in QUERIES]
        assert all(status == 200 for status, *_ in answers)
        bodies.append([body for _, _, body, _ in answers])
    assert bodies[0] == bodies[1]
