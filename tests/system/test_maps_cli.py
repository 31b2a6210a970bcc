"""The map tools as a user runs them: `python -m gridpath.cli` and the `gridpath-maps` script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import MAPS_DIR, ROOT
from tests.gridpath.grid.test_tiled import TMX


def run(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gridpath.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def test_check_exit_status_for_ci(tmp_path):
    ok = run("check", str(MAPS_DIR))
    assert ok.returncode == 0, ok.stderr
    bundled = len([p for p in MAPS_DIR.iterdir() if p.suffix in (".png", ".map", ".tmx")])
    bundled += len(list(MAPS_DIR.glob("*.nav.json")))  # polygon maps
    assert f"{bundled} ok, 0 failed" in ok.stderr and "village.tmx: 24x16" in ok.stdout
    assert "courtyard.nav.json: polygon, 34 vertices, 6 holes, 11 waypoints" in ok.stdout
    (tmp_path / "level.tmx").write_text(TMX.replace('infinite="0"', 'infinite="1"'))
    hall = {"outline": [[0, 0], [4, 0], [4, 4], [0, 4]], "waypoints": [[9, 9]]}
    (tmp_path / "hall.nav.json").write_text(json.dumps(hall))
    failed = run(
        "check", str(MAPS_DIR), str(tmp_path / "level.tmx"), str(tmp_path / "hall.nav.json")
    )
    assert failed.returncode == 1
    assert "waypoints[0] (9, 9) is not in the walkable area" in failed.stdout
    assert f"FAIL {tmp_path / 'level.tmx'}: infinite maps are not supported" in failed.stdout


def test_check_applies_the_servers_limits_from_the_environment():
    small = run("check", str(MAPS_DIR / "arena.png"), env={"MAX_MAP_CELLS": "100"})
    assert small.returncode == 1
    assert "image is 64x64 = 4096 cells, over the limit of 100" in small.stdout


def test_console_script_convert_and_render(tmp_path):
    script = Path(sys.executable).parent / "gridpath-maps"
    if not script.exists():
        pytest.fail(f"{script} missing: reinstall the project (make .venv/.installed-dev)")
    (tmp_path / "level.tmx").write_text(TMX)
    subprocess.run(
        [str(script), "convert", str(tmp_path / "level.tmx"), str(tmp_path / "level.png")],
        check=True,
        timeout=120,
    )
    assert (tmp_path / "level.json").exists()  # the palette sidecar: road and swamp kept
    out = tmp_path / "path.png"
    drawn = run("render", str(tmp_path / "level.png"), str(out), "--path", "0,0", "3,0")
    assert drawn.returncode == 0, drawn.stderr
    assert "path: 4 cells" in drawn.stdout
    assert Image.open(out).format == "PNG"


def test_push_is_the_services_tool():
    """Sending maps to the shared store is the service's (``app.authority.push``): the
    library's map tools do not offer it."""
    result = subprocess.run(
        [sys.executable, "-m", "app.authority", "push", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "--store" in result.stdout
    assert run("push", "--help").returncode != 0
