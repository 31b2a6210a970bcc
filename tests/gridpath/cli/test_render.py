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


def test_pictures_are_bounded_and_scheduled_like_searches():
    import threading

    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app
    from tests.conftest import wait_ready

    settings = Settings(
        maps_dir=MAPS_DIR,
        max_image_pixels=256 * 256 * 4,
        search_threads=1,
        short_search_threads=0,
        search_queue_wait_ms=150,
    )
    with TestClient(create_app(settings)) as client:
        wait_ready(client)
        assert client.get("/maps/field/image?scale=2").status_code == 200
        too_large = client.get("/maps/field/image?scale=3")
        assert too_large.status_code == 422
        assert too_large.json()["error"]["code"] == "invalid_scale"
        started, release = threading.Event(), threading.Event()

        def hold() -> None:
            started.set()
            release.wait(30)

        holder = client.app.state.service.scheduler.submit(hold, cost=10**9)
        assert started.wait(30)
        try:  # the one search thread is busy: the picture waits, then gives up
            busy = client.get("/maps/field/image?scale=1&start=1,1&goal=250,250")
            assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
            assert busy.json()["error"]["code"] == "overloaded"
        finally:
            release.set()
            holder.result(10)
        assert client.get("/maps/field/image?scale=1&start=1,1&goal=250,250").status_code == 200
