"""What the browser page needs from the service: ``GET /`` and its assets (open, like
``/health``), the API docs without a CDN, ``GET /maps/{name}/cells`` and ``CORS_ORIGINS``.
The page itself runs in real Chromium in ``tests/system/test_page.py``."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from app.config import Settings
from app.main import create_app
from tests.app.api.test_api_admin import ADMIN, TOKEN, make_client
from tests.conftest import MAPS_DIR, wait_ready


def decode_cells(body: dict) -> np.ndarray:
    cells = body["cells"]
    array = np.frombuffer(base64.b64decode(cells["data"]), dtype=np.dtype(cells["dtype"]))
    return array.reshape(cells["shape"])


def test_cells_are_the_map_file(client):
    response = client.get("/maps/arena/cells")
    assert response.status_code == 200
    body = response.json()
    assert (body["map"], body["width"], body["height"]) == ("arena", 64, 64)
    assert body["revision"] == client.get("/maps/arena").json()["revision"]
    assert body["terrain"] == [{"name": "ground", "cost": 1.0}]
    assert body["cells"]["dtype"] == "|u1" and body["cells"]["shape"] == [64, 64]
    walkable = np.asarray(Image.open(MAPS_DIR / "arena.png").convert("L")) >= 128
    np.testing.assert_array_equal(decode_cells(body), walkable.astype(np.uint8))


@pytest.mark.parametrize(
    "url,status,code",
    [("/maps/nowhere/cells", 404, "map_not_found"), ("/maps/bad.name/cells", 422, None)],
)
def test_cells_errors(client, url, status, code):
    response = client.get(url)
    assert response.status_code == status
    if code:
        assert response.json()["error"]["code"] == code


def test_cells_carry_terrain_classes_after_edits(tmp_path):
    client, _ = make_client(tmp_path, admin_token=TOKEN)
    with client:
        wait_ready(client)
        edits = {
            "set": [
                {"rect": [10, 10, 12, 11], "value": 3},
                {"cells": [[11, 10]], "value": "blocked"},
            ]
        }
        assert client.patch("/maps/arena", json=edits, headers=ADMIN).status_code == 200
        body = client.get("/maps/arena/cells").json()
        names = [tc["name"] for tc in body["terrain"]]
        assert names == ["ground", "cost_3"]
        cells = decode_cells(body)
        assert cells[10, 10] == cells[11, 12] == 2  # class 1 (cost_3) + 1
        assert cells[10, 11] == 0
        assert cells[1, 1] == 1


def test_page_assets_and_docs_are_open_and_local(tmp_path):
    client, _ = make_client(tmp_path, api_token="api-secret")
    with client:
        wait_ready(client)
        assert client.get("/maps").status_code == 401  # the API is guarded...
        assert client.get("/maps/arena/cells").status_code == 401
        page = client.get("/")  # ...the page and its files are not
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        for asset in re.findall(r'(?:src|href)="([^"]+)"', page.text):
            assert not asset.startswith(("http:", "https:", "//")), asset
            assert client.get("/" + asset).status_code == 200, asset
        for url in ("/docs", "/redoc"):
            html = client.get(url)
            assert html.status_code == 200
            assets = re.findall(r'(?:src|href)="([^"]+)"', html.text)
            assert assets, url
            for asset in assets:
                assert asset.startswith("/static/docs/"), (url, asset)
                assert client.get(asset).status_code == 200, asset
            assert "cdn" not in html.text.lower()
            assert "default-src 'self'" in html.headers["content-security-policy"]
        assert client.get("/static/nothing.js").json()["error"]["code"] == "not_found"
        assert "/maps/{name}/cells" in client.get("/openapi.json").json()["paths"]


def test_cors_only_for_configured_origins():
    preflight = {
        "Origin": "https://tools.studio.test",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type",
    }
    # CORS is answered by middleware, before any route: no need to start the service
    allowed = TestClient(
        create_app(Settings(maps_dir=MAPS_DIR, cors_origins="https://tools.studio.test, x"))
    )
    response = allowed.options("/path", headers=preflight)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "https://tools.studio.test"
    assert "authorization" in response.headers["access-control-allow-headers"].lower()
    other = allowed.options("/path", headers={**preflight, "Origin": "https://elsewhere.test"})
    assert "access-control-allow-origin" not in other.headers
    default = TestClient(create_app(Settings(maps_dir=MAPS_DIR)))
    response = default.options("/path", headers=preflight)
    assert "access-control-allow-origin" not in response.headers
