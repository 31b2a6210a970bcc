"""Overload and shutdown with a real uvicorn process on loopback.

The flood: many expensive searches at once (Dijkstra across a 1024 x 1024 open map, about a
million expansions each) plus a trickle of cheap queries and /health probes. Every loop is
bounded in count and in time.
"""

from __future__ import annotations

import json
import signal
import statistics
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR

BIG = 1024
EXPENSIVE = {"map": "open", "start": [0, 0], "goal": [BIG - 1, BIG - 1], "algorithm": "dijkstra"}
CHEAP = {"map": "arena", "start": [1, 1], "goal": [62, 62]}


def app_process(env: dict[str, str], *args: str) -> ServerSpec:
    """``python -m app`` (exit 0 after SIGTERM), ready once ``/health/ready`` answers 200."""
    return ServerSpec(env, launcher="app", args=args, ready_path="/health/ready")


@pytest.fixture(scope="module")
def maps_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("maps")
    Image.fromarray(np.full((BIG, BIG), 255, dtype=np.uint8), mode="L").save(folder / "open.png")
    (folder / "arena.png").write_bytes((MAPS_DIR / "arena.png").read_bytes())
    return folder


def test_flood_fails_fast_and_keeps_serving(maps_dir):
    env = {"MAPS_DIR": str(maps_dir), "SEARCH_THREADS": "2", "SEARCH_QUEUE": "4"}
    with running_server(app_process(env | {"SEARCH_NICE": "10"})) as server:
        # Both search threads' scratch at full size first: the baseline of the memory check.
        warm = [threading.Thread(target=server.request, args=("POST", "/path", EXPENSIVE))]
        warm.append(threading.Thread(target=server.request, args=("POST", "/path", EXPENSIVE)))
        for thread in warm:
            thread.start()
        for thread in warm:
            thread.join(timeout=60)
        baseline_rss = server.rss_bytes()
        stop = time.monotonic() + 6.0  # the flood lasts at most this long
        expensive: list[tuple[int, float, str | None]] = []
        cheap: list[tuple[int, float]] = []
        probes: list[float] = []
        rss: list[int] = []
        failures: list[str] = []

        def flood_client() -> None:
            for _ in range(60):  # at most 60 requests per client
                if time.monotonic() > stop:
                    return
                try:
                    status, headers, body, took = server.request("POST", "/path", EXPENSIVE, 60)
                except OSError as exc:
                    failures.append(f"expensive: {exc!r}")
                    return
                error = json.loads(body)["error"] if status != 200 else {}
                waited = "SEARCH_QUEUE_WAIT_MS" in error.get("message", "")
                expensive.append((status, took, error.get("code"), waited))
                if status == 503:
                    if headers.get("retry-after") != "1":
                        failures.append(f"503 without Retry-After: {headers}")
                    time.sleep(0.1)  # an impatient client: a tenth of what Retry-After asks

        def trickle() -> None:
            while time.monotonic() < stop:
                try:
                    status, _, _, took = server.request("POST", "/path", CHEAP, 60)
                    cheap.append((status, took))
                except OSError as exc:
                    failures.append(f"cheap: {exc!r}")
                time.sleep(0.05)

        def probe() -> None:
            while time.monotonic() < stop:
                try:
                    status, _, _, took = server.request("GET", "/health", timeout=10)
                    if status != 200:
                        failures.append(f"health: {status}")
                    probes.append(took)
                    rss.append(server.rss_bytes())
                except OSError as exc:
                    failures.append(f"health: {exc!r}")
                time.sleep(0.1)

        threads = [threading.Thread(target=flood_client) for _ in range(12)]
        threads += [threading.Thread(target=trickle), threading.Thread(target=probe)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=90)
        assert not any(t.is_alive() for t in threads), "a client hung"
        assert not failures, failures[:5]

        served = [took for status, took, _, _ in expensive if status == 200]
        refused = [took for status, took, _, waited in expensive if status == 503 and not waited]
        gave_up = [took for status, took, _, waited in expensive if status == 503 and waited]
        assert {code for status, _, code, _ in expensive if status != 200} == {"overloaded"}
        assert served and len(refused) > len(served), (len(served), len(refused))
        # Refusals of a full queue are immediate: no waiting for a search thread.
        assert statistics.median(refused) < 0.05, statistics.median(refused)
        assert max(refused) < 1.0, max(refused)
        # A search that waited past SEARCH_QUEUE_WAIT_MS (2 s) left the queue then.
        assert all(1.9 < took < 6.0 for took in gave_up), gave_up
        # Cheap queries keep being served: the short lane runs them.
        assert len(cheap) >= 20 and all(status == 200 for status, _ in cheap), cheap
        assert max(took for _, took in cheap) < 5.0
        # /health answers within 50 ms (the loaded shared machine allowed a few stragglers).
        assert len(probes) >= 20
        within = sorted(probes)[int(len(probes) * 0.9)]
        assert within < 0.05, (within, max(probes))
        # Memory stays bounded: the refused searches hold nothing.
        assert max(rss) - baseline_rss < 64 * 1024 * 1024, (baseline_rss, max(rss))
        # Nothing stuck: the queue drains and the server answers normally.
        deadline = time.monotonic() + 30
        while server.metric("gridpath_search_queue_depth") or server.metric(
            "gridpath_searches_running"
        ):
            assert time.monotonic() < deadline, "the queue did not drain"
            time.sleep(0.1)
        assert server.request("POST", "/path", CHEAP)[0] == 200
        assert server.metric("gridpath_rejected_requests_total") >= len(refused)
        print(
            f"flood: {len(served)} expensive served, {len(refused)} refused "
            f"(median {statistics.median(refused) * 1000:.1f} ms), {len(gave_up)} after the "
            f"queue wait, {len(cheap)} cheap "
            f"(max {max(t for _, t in cheap) * 1000:.0f} ms), /health p90 "
            f"{within * 1000:.1f} ms max {max(probes) * 1000:.1f} ms, RSS +"
            f"{(max(rss) - baseline_rss) / 1e6:.1f} MB"
        )


def test_sigterm_finishes_in_flight_requests_then_exits_0(maps_dir):
    env = {"MAPS_DIR": str(maps_dir), "SEARCH_THREADS": "1"}
    with running_server(app_process(env, "--timeout-graceful-shutdown", "30")) as server:
        batch = {"map": "open", "queries": [{k: v for k, v in EXPENSIVE.items() if k != "map"}] * 3}
        answer: list = []
        client = threading.Thread(
            target=lambda: answer.append(server.request("POST", "/paths", batch, 120))
        )
        client.start()
        deadline = time.monotonic() + 30
        while server.metric("gridpath_searches_running") < 1:
            assert time.monotonic() < deadline, "the batch never started"
            time.sleep(0.02)
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        with pytest.raises(OSError):  # no longer accepting
            server.request("GET", "/health/live", timeout=5)
        client.join(timeout=120)
        assert answer, "the in-flight request got no answer"
        status, _, body, _ = answer[0]
        assert status == 200
        assert [r["found"] for r in json.loads(body)["results"]] == [True, True, True]
        assert server.process.wait(timeout=60) == 0
