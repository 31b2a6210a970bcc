"""The search scheduler's bounds with a real server process (issue 22): cheap searches in
their own lane, a queue-wait limit, pictures bounded like searches. Every loop is bounded
in count and in time."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR

BIG = 2000
LONG = {"map": "big", "start": [0, 0], "goal": [BIG - 1, BIG - 1], "algorithm": "dijkstra"}
# Short: a small worst case (SHORT_SEARCH_EXPANSIONS is 65,536 by default).
SHORT = [
    {"map": "big", "start": [5, 5], "goal": [30, 20], "max_expanded": 2000},
    {"map": "arena", "start": [2, 2], "goal": [24, 9]},
]


def _spec(env: dict[str, str]) -> ServerSpec:
    """``python -m app`` with ``env``, ready once ``/health/ready`` answers."""
    return ServerSpec({"ACCESS_LOG": "false", **env}, launcher="app", ready_path="/health/ready")


@pytest.fixture(scope="module")
def maps_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("maps")
    Image.fromarray(np.full((BIG, BIG), 255, dtype=np.uint8), mode="L").save(folder / "big.png")
    for name in ("arena.png", "field.png"):
        (folder / name).write_bytes((MAPS_DIR / name).read_bytes())
    return folder


def _percentile(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(len(values) * q))]


def test_short_paths_answer_fast_while_long_searches_flood_one_thread(maps_dir):
    env = {"MAPS_DIR": str(maps_dir), "SEARCH_THREADS": "1", "SEARCH_QUEUE_WAIT_MS": "1500"}
    with running_server(_spec(env)) as server:
        for body in [LONG, *SHORT]:  # every scratch at full size: the memory baseline
            assert server.request("POST", "/path", body, 120)[0] == 200
        baseline_rss = server.rss_bytes()
        stop = time.monotonic() + 8.0
        long: list[tuple[int, str | None, float]] = []
        short: list[tuple[int, float]] = []
        rss: list[int] = []
        failures: list[str] = []

        def flood() -> None:
            for _ in range(100):
                if time.monotonic() > stop:
                    return
                status, headers, body, took = server.request("POST", "/path", LONG, 60)
                code = json.loads(body)["error"]["code"] if status != 200 else None
                long.append((status, code, took))
                if status == 503:
                    if headers.get("retry-after") != "1":
                        failures.append(f"503 without Retry-After: {headers}")
                    time.sleep(0.1)

        def cheap() -> None:
            for i in range(1000):
                if time.monotonic() > stop:
                    return
                status, _, _, took = server.request("POST", "/path", SHORT[i % 2], 10)
                short.append((status, took))
                rss.append(server.rss_bytes())
                time.sleep(0.02)

        threads = [threading.Thread(target=flood) for _ in range(16)]
        threads.append(threading.Thread(target=cheap))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not any(t.is_alive() for t in threads), "a client hung"
        assert not failures, failures[:5]
        # The long ones: 200, or 503 overloaded (queue full, or waited past the limit).
        assert long and {code for status, code, _ in long if status != 200} <= {"overloaded"}
        assert {status for status, _, _ in long} <= {200, 503}
        assert max(took for status, _, took in long if status == 503) < 1.5 + 2.0
        # The short ones: all 200 (a 503 counts as late), 99th percentile within 100 ms.
        assert len(short) >= 50
        late = [took for status, took in short if status != 200] + [
            took for status, took in short if status == 200 and took > 0.1
        ]
        p99 = _percentile([took if status == 200 else 9.9 for status, took in short], 0.99)
        assert p99 < 0.1, (p99, len(late), len(short))
        assert max(rss) - baseline_rss < 128 * 1024 * 1024, (baseline_rss, max(rss))
        print(
            f"lanes: {len(short)} short, p99 {p99 * 1000:.1f} ms; long "
            f"{sum(1 for s, _, _ in long if s == 200)} served, "
            f"{sum(1 for s, _, _ in long if s == 503)} refused; RSS +"
            f"{(max(rss) - baseline_rss) / 1e6:.1f} MB"
        )


def test_pictures_are_bounded_like_searches(maps_dir):
    url = "/maps/field/image?scale=16&start=1,1&goal=250,250"
    with running_server(_spec({"MAPS_DIR": str(maps_dir), "SEARCH_THREADS": "2"})) as server:
        status, headers, png, _ = server.request("GET", url, timeout=60)
        assert status == 200 and png.startswith(b"\x89PNG")
        baseline_rss = server.rss_bytes()
        answers: list[int] = []
        probes: list[float] = []
        rss: list[int] = []
        done = threading.Event()

        def picture() -> None:
            status, _, body, _ = server.request("GET", url, timeout=120)
            answers.append(status)
            if status == 200:
                assert body == png  # the same picture, whatever the load
            else:
                assert json.loads(body)["error"]["code"] == "overloaded"

        def probe() -> None:
            while not done.is_set():
                probes.append(server.request("GET", "/health", timeout=10)[3])
                rss.append(server.rss_bytes())
                time.sleep(0.05)

        prober = threading.Thread(target=probe)
        prober.start()
        clients = [threading.Thread(target=picture) for _ in range(40)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join(timeout=180)
        done.set()
        prober.join(timeout=30)
        assert not any(t.is_alive() for t in clients), "a picture request hung"
        assert len(answers) == 40 and set(answers) <= {200, 503} and 200 in answers
        assert max(rss) - baseline_rss < 1024**3, (baseline_rss, max(rss))
        assert _percentile(probes, 0.9) < 0.2, (_percentile(probes, 0.9), max(probes))
        print(
            f"pictures: {answers.count(200)} drawn, {answers.count(503)} refused; /health p90 "
            f"{_percentile(probes, 0.9) * 1000:.0f} ms, max {max(probes) * 1000:.0f} ms; "
            f"RSS +{(max(rss) - baseline_rss) / 1e6:.0f} MB"
        )
