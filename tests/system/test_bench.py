"""The benchmarks keep working: they run end to end on a small input, exit 0 and print
their tables (the figures themselves are for bench/README.md, not for tests); the server
runner they share starts, waits for and stops real processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bench.server import ServerSpec, http_probe, running
from tests.conftest import MOVINGAI_DIR, MOVINGAI_MISSING, ROOT
from tests.packages import require

pytestmark = pytest.mark.skipif(not MOVINGAI_DIR.is_dir(), reason=MOVINGAI_MISSING)

RUNS = {
    "movingai": (
        ["--maps", "arena", "--limit", "5"],
        "| **total** | **1 map** | **5** | **100** |",
    ),
    "terrain": (  # the anyangle command (bench.anyangle before issue 21)
        ["anyangle", "--maps", "arena", "--limit", "10"],
        "| arena | 10 | 0.9741 | 0.9661 | 20.0 | 80.0 | 0 |",
    ),
    "tiers": (
        ["--maps", "arena", "--check", "--limit", "20"],
        "subgoal tier: 0 scenario(s) failed",
    ),
    "table": (
        ["--map", "arena", "--sizes", "3", "--repeat", "1", "--no-http"],
        "| one_free | 3×3 | in process |",
    ),
}


@pytest.mark.parametrize("bench", sorted(RUNS))
def test_bench_runs_and_prints_its_tables(bench):
    args, expected = RUNS[bench]
    out = run_bench(f"bench.{bench}", *args)
    assert out.returncode == 0, out.stderr[-2000:]
    assert expected in out.stdout, out.stdout[-2000:]
    assert "commit" in out.stdout.splitlines()[-1]  # the machine line closes the output


def run_bench(
    module: str, *args: str, timeout: float = 300, data: bool = True
) -> subprocess.CompletedProcess:
    where = ["--data", str(MOVINGAI_DIR)] if data else []  # after a subcommand, if any
    return subprocess.run(
        [sys.executable, "-m", module, *args, *where],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_bench_memory_measures_a_map_and_a_scratch():
    out = run_bench("bench.memory", "--size", "64", data=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "\n| RSS growth MB |" in out.stdout and "\n| padded cells |" in out.stdout
    assert "| 4,356 |" in out.stdout  # (64 + 2)² padded cells
    assert "commit" in out.stdout.splitlines()[-1]


def test_server_runner_starts_waits_and_stops_every_process():
    spec = ServerSpec(env={"MAPS_DIR": str(ROOT / "maps")})
    with running([spec, spec], timeout=120) as servers:
        assert len({s.port for s in servers}) == 2
        assert all(http_probe(s.port, "/health", timeout=5)[0] == 200 for s in servers)
        groups = [s.pid for s in servers]
    for group in groups:  # the whole process group is gone, workers included
        with pytest.raises(ProcessLookupError):
            os.killpg(group, 0)


def test_bench_ratios_prints_both_ratios_of_every_endpoint():
    require("wrk")  # the closed loop is wrk's
    out = run_bench("bench.ratios", "--quick", data=False)
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    assert [r.split(" | ")[0] for r in rows[1:]] == [
        "| bare FastAPI /path",
        "| /path",
        "| /paths x100",
    ], out.stdout
    assert all(r.endswith(" | 0 |") for r in rows[1:]), out.stdout  # no errors
    assert "/path over the bare endpoint, answers/s **" in out.stdout, out.stdout
    assert "/paths x100 over /path, queries/s **" in out.stdout, out.stdout
    assert "commit" in out.stdout.splitlines()[-1]


def test_bench_ratios_serves_an_older_checkout_from_its_own_venv(tmp_path):
    """``--before`` wants a checkout with a .venv: refused at once without one."""
    out = run_bench("bench.ratios", "--quick", "--before", str(tmp_path), data=False)
    assert out.returncode == 2 and "has no .venv" in out.stderr, out.stderr


def test_bench_cluster_measures_propagation_and_the_stores():
    from app.config import Settings

    if "map_store" not in Settings.model_fields:
        pytest.skip("the app has no MAP_STORE setting yet (Redis store not merged)")
    require("wrk", "redis-server")  # its load is wrk's, its store a real Redis
    out = run_bench("bench.cluster", "--quick", "--changes", "6", "--processes", "2")
    assert out.returncode == 0, out.stderr[-3000:] + out.stdout[-2000:]
    assert "Skipped" not in out.stdout, out.stdout
    propagation = next(line for line in out.stdout.splitlines() if line.startswith("| 2 |"))
    assert propagation.startswith("| 2 | 6 | 6 |"), propagation  # every change acknowledged
    assert "Redis store / folder store:" in out.stdout
    assert "2 processes / 1 process:" in out.stdout
