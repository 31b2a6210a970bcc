"""/metrics with several uvicorn workers (PROMETHEUS_MULTIPROC_DIR): a scrape sums every
worker, and a dead worker's gauges go while its counts stay."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR

CHEAP = {"map": "arena", "start": [1, 1], "goal": [62, 62]}


def path_requests(text: str) -> float:
    total = 0.0
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "gridpath_http_requests_total" and s.labels.get("route") == "/path":
                total += s.value if s.labels.get("status") == "200" else 0
    return total


def worker_pids(master: int) -> set[int]:
    """uvicorn's worker processes (not multiprocessing's resource tracker)."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    workers = set()
    for pid in children:
        try:
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                workers.add(int(pid))
        except OSError:  # gone meanwhile
            pass
    return workers


def files_of(folder: Path, pid: int) -> list[str]:
    return [p.name for p in folder.iterdir() if p.stem.endswith(f"_{pid}")]


def test_metrics_sum_the_workers_and_drop_dead_ones(tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / "arena.png").write_bytes((MAPS_DIR / "arena.png").read_bytes())
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_999999.db").write_bytes(b"left over by an earlier run")
    env = {"MAPS_DIR": str(maps), "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}
    spec = ServerSpec(env, workers=2, launcher="app", ready_path="/health/ready")
    with running_server(spec) as server:
        assert not (metrics_dir / "counter_999999.db").exists()  # emptied at start
        served, deadline = 0, time.monotonic() + 60
        while served < 40 or len(worker_pids(server.process.pid)) < 2:
            assert time.monotonic() < deadline, "workers did not both serve"
            served += server.request("POST", "/path", CHEAP)[0] == 200
        pids = worker_pids(server.process.pid)
        deadline = time.monotonic() + 60
        while not all(files_of(metrics_dir, pid) for pid in pids):  # both have served
            assert time.monotonic() < deadline, "a worker never served"
            served += server.request("POST", "/path", CHEAP)[0] == 200
        for _ in range(4):  # whichever worker answers the scrape, the sum is the same
            assert path_requests(server.request("GET", "/metrics")[2].decode()) == served
        victim = min(pids)
        assert any(name.startswith("gauge_live") for name in files_of(metrics_dir, victim))
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while True:  # uvicorn starts a new worker; scrapes remove the dead one's live gauges
            assert time.monotonic() < deadline, "the dead worker's live gauges stayed"
            status, _, body, _ = server.request("GET", "/metrics")
            if status == 200 and not any(
                name.startswith("gauge_live") for name in files_of(metrics_dir, victim)
            ):
                break
            time.sleep(0.2)
        assert path_requests(body.decode()) == served  # its counts were kept
