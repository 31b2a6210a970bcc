"""PUT /maps/{name} with terrain: the multipart form with a sidecar, Tiled bodies, JPEG refused."""

from __future__ import annotations

import json

import pytest

from tests.app.api import test_api_admin
from tests.app.api.test_api_admin import ADMIN, TOKEN, make_client
from tests.conftest import wait_ready
from tests.gridpath.grid.test_tiled import TMJ, TMX
from tests.gridpath.grid.test_upload import COLOURS, PALETTE, image_bytes

admin = test_api_admin.admin  # the fixture: an app with ADMIN_TOKEN on a copy of maps/


def palette_form() -> dict:
    return {
        "files": {
            "map": ("colours.png", image_bytes(COLOURS), "image/png"),
            "sidecar": ("sidecar.json", json.dumps(PALETTE), "application/json"),
        }
    }


def test_form_with_palette_and_costs(admin):
    response = admin.put("/maps/sand", headers=ADMIN, **palette_form())
    assert response.status_code == 201, response.text
    assert response.json()["terrain"] == [
        {"name": "road", "cost": 1.0},
        {"name": "sand", "cost": 2.5},
    ]
    path = admin.post("/path", json={"map": "sand", "start": [0, 0], "goal": [1, 0]}).json()
    assert path["cost"] == pytest.approx(1.0 * 0.5 + 2.5 * 0.5)


@pytest.mark.parametrize("body,content_type", [(TMJ, "application/json"), (TMX, "application/xml")])
def test_raw_tiled_upload(admin, body, content_type):
    response = admin.put(
        "/maps/level", headers={**ADMIN, "Content-Type": content_type}, content=body
    )
    assert response.status_code == 201, response.text
    info = response.json()
    assert (info["width"], info["height"], info["walkable"]) == (4, 3, 9)
    assert {"name": "swamp", "cost": 3.0} in info["terrain"]


def test_jpeg_refused_and_nothing_changed(admin):
    before = admin.get("/maps").json()
    jpeg = image_bytes([[255, 255], [255, 255]], format="JPEG")
    for kwargs in ({"content": jpeg}, {"files": {"map": ("j.png", jpeg, "image/png")}}):
        response = admin.put("/maps/arena", headers=ADMIN, **kwargs)
        assert response.status_code == 422
        error = response.json()["error"]
        assert error["code"] == "invalid_map_data" and "JPEG is a lossy" in error["message"]
    assert admin.get("/maps").json() == before


def test_tiled_upload_with_external_tileset_refused(admin):
    document = json.loads(TMJ)
    document["tilesets"] = [{"firstgid": 1, "source": "terrain.tsj"}]
    response = admin.put("/maps/ext", headers=ADMIN, content=json.dumps(document))
    assert response.status_code == 422
    assert "embed it" in response.json()["error"]["message"]
    assert admin.get("/maps/ext").status_code == 404


def test_replacing_keeps_the_palette_across_a_restart(tmp_path):
    client, maps = make_client(tmp_path, admin_token=TOKEN, maps_writable=True)
    with client:
        wait_ready(client)
        client.put("/maps/sand", headers=ADMIN, **palette_form())
        replaced = client.put("/maps/sand", headers=ADMIN, **palette_form())
        assert replaced.status_code == 200
        uploaded = replaced.json()
    assert (maps / "sand.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    restarted, _ = make_client(tmp_path, admin_token=TOKEN, maps_writable=True)
    with restarted:
        wait_ready(restarted)
        info = restarted.get("/maps/sand").json()
        assert (info["sha256"], info["terrain"]) == (uploaded["sha256"], uploaded["terrain"])


def test_openapi_declares_the_upload_forms(admin):
    body = admin.get("/openapi.json").json()["paths"]["/maps/{name}"]["put"]["requestBody"]
    content = body["content"]
    assert {"image/png", "text/plain", "application/json", "multipart/form-data"} <= set(content)
    assert content["multipart/form-data"]["schema"]["required"] == ["map"]
