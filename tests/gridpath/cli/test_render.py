"""`python -m gridpath.cli render` draws the path (and explored cells) where `/path` says."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from gridpath.cli.__main__ import main
from tests.conftest import MAPS_DIR


@pytest.mark.parametrize("algorithm", ["astar", "bfs", "jps"])
def test_render_draws_the_path_of_path(client, tmp_path, algorithm):
    query = {"map": "arena", "start": [1, 1], "goal": [60, 60], "algorithm": algorithm}
    include = ["path"] if algorithm == "jps" else ["path", "explored"]  # JPS has no explored
    body = client.post("/path", json={**query, "include": include}).json()
    assert body["found"]
    out = tmp_path / "arena.png"
    argv = ["render", str(MAPS_DIR / "arena.png"), str(out), "--path", "1,1", "60,60"]
    assert main([*argv, "--algorithm", algorithm, "--scale", "1"]) == 0
    rgb = np.asarray(Image.open(out).convert("RGB")).astype(int)
    coloured = {(int(x), int(y)) for y, x in np.argwhere(rgb[..., 0] != rgb[..., 2])}
    assert coloured == {tuple(c) for c in body["path"]}  # path red, waypoints blue: all on it

    if algorithm == "jps":
        return
    assert main([*argv, "--algorithm", algorithm, "--scale", "3", "--explored"]) == 0
    rgb = np.asarray(Image.open(out).convert("RGB")).astype(int)[::3, ::3]
    heat = {(int(x), int(y)) for y, x in np.argwhere((rgb[..., 0] > 200) & (rgb[..., 2] < 160))}
    path = {tuple(c) for c in body["path"]}
    assert heat - path == {tuple(c) for c in body["explored"]} - path
