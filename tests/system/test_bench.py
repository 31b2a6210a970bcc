"""`make bench` keeps working: the benchmarks run end to end on a small input, exit 0 and
print their tables (the figures themselves are for bench/README.md, not for tests)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import MOVINGAI_DIR, ROOT

pytestmark = pytest.mark.skipif(
    not MOVINGAI_DIR.is_dir(), reason="shared Moving AI maps not present"
)

RUNS = {
    "movingai": (
        ["--maps", "arena", "--limit", "5"],
        "| **total** | **1 map** | **5** | **100** |",
    ),
    "algorithms": (["--maps", "arena", "--limit", "2"], "| auto (default) | jps | optimal | 2 |"),
    "memory": (["--size", "64", "--maps", "arena", "--limit", "3"], "| arena | 49x49 | 3 |"),
}


@pytest.mark.parametrize("bench", sorted(RUNS))
def test_bench_runs_and_prints_its_tables(bench):
    args, expected = RUNS[bench]
    out = subprocess.run(
        [sys.executable, "-m", f"bench.{bench}", "--data", str(MOVINGAI_DIR), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert expected in out.stdout, out.stdout[-2000:]
    assert "commit" in out.stdout.splitlines()[-1]  # the machine line closes the output
