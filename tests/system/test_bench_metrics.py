"""bench/metrics_overhead.py keeps working: one short round, three servers, its table."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT
from tests.packages import require


def test_metrics_overhead_bench_runs():
    require("wrk")
    out = subprocess.run(
        [sys.executable, "-m", "bench.metrics_overhead", "--rounds", "1", "--seconds", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ")]
    assert [row.split(" | ")[0] for row in rows[1:]] == ["| off", "| metrics", "| metrics+log"]
