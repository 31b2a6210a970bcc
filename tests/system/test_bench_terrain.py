"""bench.terrain's two commands (waypoints, theta) run and print their tables (issue 20;
the figures themselves are for bench/README.md)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import MOVINGAI_DIR, ROOT


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_terrain_waypoints_prints_the_village_example_and_no_dearer_waypoints():
    out = run("bench.terrain", "waypoints", "--maps", "3", "--queries", "5")
    assert "village [0, 0] -> [23, 15], astar, smooth: cost 41.81" in out
    rows = [line for line in out.splitlines() if line.startswith("| village") or "random" in line]
    assert len(rows) == 2
    for row in rows:  # after issue 20: no answer's waypoints cost more than its cost
        assert "| 0 (0.0 %) | 0 (0.0 %) | 0 (0.0 %) |" in row


@pytest.mark.parametrize("maps", [(), ("arena",)], ids=["village", "movingai"])
def test_terrain_theta_checks_every_answer(maps):
    if maps and not (MOVINGAI_DIR / "arena.map").is_file():
        pytest.skip("shared Moving AI maps not present")
    data = str(MOVINGAI_DIR)
    out = run("bench.terrain", "theta", "--limit", "3", "--data", data, "--maps", *maps)
    assert out.count("\n| ") >= 2 + (2 if maps else 0)  # header, rule, village (+ 2 terrains)
    assert "| village | road 1, grass 1.5, mud 4 |" in out
