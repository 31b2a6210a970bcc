"""bench.polygon runs end to end on one small map: both engines agree (exit 0) and the table
prints (the figures are for bench/README.md)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import MOVINGAI_DIR, MOVINGAI_MISSING, ROOT

pytestmark = pytest.mark.skipif(not MOVINGAI_DIR.is_dir(), reason=MOVINGAI_MISSING)


def test_polygon_bench_agrees_with_extremitypathfinder():
    pytest.importorskip("extremitypathfinder", reason="the 'polygon-peer' extra (numpy < 2)")
    out = subprocess.run(
        [sys.executable, "-m", "bench.polygon", "--data", str(MOVINGAI_DIR)]
        + ["--maps", "arena", "--limit", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    row = next(line for line in out.stdout.splitlines() if line.startswith("| arena "))
    assert row.endswith("| 0 | 0 |")  # no length mismatch
    assert "commit" in out.stdout.splitlines()[-1]
