"""bench.worlds runs and prints its table (the figures themselves are for bench/README.md)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import MOVINGAI_DIR, ROOT
from tests.packages import require


def test_bench_worlds_prints_its_figures_and_every_answer_is_optimal():
    if not (MOVINGAI_DIR / "Boston_0_512.map").is_file():
        pytest.skip("shared Moving AI maps not present")
    done = subprocess.run(
        [sys.executable, "-m", "bench.worlds", "--data", str(MOVINGAI_DIR), "--queries", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr  # 1: an answer not optimal
    for figure in ("astar / dijkstra expanded", "1,000 links / 10 links time",
                   "auto world / sum of its legs' auto"):  # fmt: skip
        assert f"| {figure} |" in done.stdout


def test_bench_worlds_toggle_times_patches_and_rebuilds_nothing():
    """``--toggle``: a link toggled through real servers (folder store, then a real Redis), on
    two 1M-cell maps with the subgoal tier; exit 1 if a map's revision or tier changed."""
    if not (MOVINGAI_DIR / "32room_000.map").is_file():
        pytest.skip("shared Moving AI maps not present")
    require("redis-server")
    done = subprocess.run(
        [sys.executable, "-m", "bench.worlds", "--toggle", "--data", str(MOVINGAI_DIR),
         "--toggles", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "two 1024x1024 maps (32room_000 tiled 2x2), subgoal tiers a " in done.stdout
    for store in ("folder", "Redis"):
        row = next(line for line in done.stdout.splitlines() if line.startswith(f"| {store} |"))
        assert row.startswith(f"| {store} | 4 |") and "| no |" in row, row
