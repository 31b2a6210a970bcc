"""bench.worlds runs and prints its table (the figures themselves are for bench/README.md)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import MOVINGAI_DIR, ROOT


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
