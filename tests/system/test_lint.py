"""Style is checked like everything else: ruff lint and format, over the whole project."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

CHECKED = ["gridpath", "app", "tests", "bench", "maps"]


def run_ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *CHECKED], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_lint():
    result = run_ruff("check", "--output-format", "concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format():
    result = run_ruff("format", "--check")
    assert result.returncode == 0, result.stdout + result.stderr
