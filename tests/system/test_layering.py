"""The kernels and map model stay pure: no HTTP or pydantic below the API layer."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_grid_and_search_import_no_web_stack():
    code = (
        "import sys, app.grid, app.grid.tiled, app.grid.upload, app.search, app.search.warmup\n"
        "bad = [m for m in ('fastapi', 'pydantic', 'starlette', 'uvicorn') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"imported by app.grid/app.search: {out}"
