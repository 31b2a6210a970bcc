"""Map administration over HTTP: tokens, edits, uploads, revisions, persistence."""

from __future__ import annotations

import io
import shutil
import threading

import numpy as np
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from app.config import Settings
from app.main import create_app
from tests.conftest import MAPS_DIR, wait_ready
from tests.gridpath.grid.test_loader import UNREADABLE_IMAGES
from tests.reference import step_is_legal

TOKEN = "s3cret-admin"
ADMIN = {"Authorization": f"Bearer {TOKEN}"}


def make_client(tmp_path, **settings):
    maps = tmp_path / "maps"
    if not maps.exists():
        shutil.copytree(MAPS_DIR, maps)
    app = create_app(Settings(maps_dir=maps, **settings))
    return TestClient(app), maps


@pytest.fixture
def admin(tmp_path):
    client, _ = make_client(tmp_path, admin_token=TOKEN)
    with client:
        wait_ready(client)
        yield client


def png_bytes(pixels) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()


@pytest.mark.parametrize(
    "method,url,kwargs",
    [
        ("patch", "/maps/arena", {"json": {"set": [{"cells": [[2, 2]], "value": "blocked"}]}}),
        ("put", "/maps/newmap", {"content": png_bytes([[255, 255]])}),
        ("delete", "/maps/arena", {}),
    ],
)
def test_changes_need_the_admin_token(tmp_path, method, url, kwargs):
    disabled, _ = make_client(tmp_path)
    with disabled:
        wait_ready(disabled)
        before = disabled.get("/maps/arena").json()
        response = getattr(disabled, method)(url, headers=ADMIN, **kwargs)
        assert response.status_code == 403 and response.json()["error"]["code"] == "admin_disabled"
        assert disabled.get("/maps/arena").json() == before
    enabled, _ = make_client(tmp_path, admin_token=TOKEN)
    with enabled:
        wait_ready(enabled)
        before = enabled.get("/maps/arena").json()
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            response = getattr(enabled, method)(url, headers=headers, **kwargs)
            assert response.status_code == 401, response.text
            assert response.json()["error"]["code"] == "unauthorized"
        assert enabled.get("/maps/arena").json() == before
        assert enabled.get("/maps/newmap").status_code == 404


def test_api_token_guards_everything_but_health(tmp_path):
    client, _ = make_client(tmp_path, api_token="reader", admin_token=TOKEN)
    with client:
        wait_ready(client)
        assert client.get("/health").status_code == 200
        assert client.get("/maps").status_code == 401
        body = {"map": "arena", "start": [2, 2], "goal": [3, 3]}
        assert client.post("/path", json=body).json()["error"]["code"] == "unauthorized"
        ok = client.post("/path", json=body, headers={"Authorization": "Bearer reader"})
        assert ok.status_code == 200
        assert client.get("/maps", headers=ADMIN).status_code == 200


def test_patch_creates_a_revision_and_paths_follow_it(admin):
    info = admin.get("/maps/arena").json()
    assert info["revision"] == 1
    request = {"map": "arena", "start": [2, 2], "goal": [40, 50]}
    before = admin.post("/path", json=request).json()
    wall = before["path"][len(before["path"]) // 2]
    response = admin.patch(
        "/maps/arena",
        headers=ADMIN,
        json={"set": [{"cells": [wall], "value": "blocked"}], "if_revision": 1},
    )
    assert response.status_code == 200
    after_info = response.json()
    assert after_info["revision"] == 2 and after_info["sha256"] != info["sha256"]
    assert after_info["walkable"] == info["walkable"] - 1
    after = admin.post("/path", json=request).json()
    assert after["revision"] == 2 and wall not in after["path"]
    stale = admin.post("/path", json={**request, "revision": 1})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_revision"
    assert admin.post("/path", json={**request, "revision": 2}).status_code == 200
    conflict = admin.patch(
        "/maps/arena",
        headers=ADMIN,
        json={"set": [{"cells": [[2, 3]], "value": "blocked"}], "if_revision": 1},
    )
    assert conflict.status_code == 409 and conflict.json()["error"]["code"] == "revision_conflict"
    assert admin.get("/maps/arena").json()["revision"] == 2


@pytest.mark.parametrize(
    "edit,code",
    [
        ({"cells": [[2, 2], [64, 0]], "value": "blocked"}, "out_of_bounds"),
        ({"rect": [0, 0, 99, 3], "value": "walkable"}, "out_of_bounds"),
        ({"rect": [5, 5, 1, 1], "value": "walkable"}, "invalid_set"),
        ({"cells": [[2, 2]], "value": "lava"}, "invalid_request"),
        ({"cells": [[2, 2]], "value": -3}, "invalid_terrain_costs"),
        ({"cells": [[2, 2]], "value": True}, "invalid_request"),  # was taken as cost 1
        ({"cells": [[2, 2]], "value": "3"}, "invalid_request"),  # was taken as cost 3
        ({"cells": [[2, 2]], "value": 1e308}, "invalid_terrain_costs"),  # costs overflowed
        ({"cells": [[2, 2]], "value": 5e-324}, "invalid_terrain_costs"),  # sums lost it
    ],
)
def test_bad_edits_change_nothing(admin, edit, code):
    before = admin.get("/maps/arena").json()
    response = admin.patch(
        "/maps/arena", headers=ADMIN, json={"set": [{"cells": [[3, 3]], "value": "blocked"}, edit]}
    )
    assert response.status_code == 422 and response.json()["error"]["code"] == code
    assert admin.get("/maps/arena").json() == before


def test_rect_and_cost_edits(admin):
    response = admin.patch(
        "/maps/arena",
        headers=ADMIN,
        json={
            "set": [
                {"rect": [2, 2, 5, 4], "value": 3},
                {"cells": [[2, 2]], "value": "blocked"},
            ]
        },
    )
    info = response.json()
    assert {"name": "cost_3", "cost": 3.0} in info["terrain"]
    body = admin.post("/path", json={"map": "arena", "start": [3, 3], "goal": [4, 3]}).json()
    assert body["cost"] == pytest.approx(3.0)


def test_upload_replace_delete(admin):
    pixels = np.full((3, 5), 255)
    pixels[1, 1:4] = 0
    created = admin.put("/maps/tiny", headers=ADMIN, content=png_bytes(pixels))
    assert created.status_code == 201 and created.json()["revision"] == 1
    assert admin.post("/path", json={"map": "tiny", "start": [0, 1], "goal": [4, 1]}).json()[
        "found"
    ]
    text = b"type octile\nheight 1\nwidth 3\nmap\n.@.\n"
    replaced = admin.put("/maps/tiny", headers=ADMIN, content=text)
    assert replaced.status_code == 200 and replaced.json()["revision"] == 2
    assert replaced.json()["width"] == 3
    bad = admin.put("/maps/tiny", headers=ADMIN, content=b"\x89PNG\r\n\x1a\nbroken")
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_map_data"
    assert admin.get("/maps/tiny").json()["revision"] == 2
    conflict = admin.delete("/maps/tiny?if_revision=1", headers=ADMIN)
    assert conflict.status_code == 409
    gone = admin.delete("/maps/tiny", headers=ADMIN)
    assert gone.status_code == 200 and gone.json() == {
        "name": "tiny",
        "deleted": True,
        "revision": 2,
    }
    assert admin.get("/maps/tiny").status_code == 404
    again = admin.put("/maps/tiny", headers=ADMIN, content=text)
    assert again.json()["revision"] == 3  # revisions never go back
    assert admin.put("/maps/bad.name", headers=ADMIN, content=text).status_code in (404, 422)


@pytest.mark.parametrize(
    "content", [c for c, _ in UNREADABLE_IMAGES.values()], ids=UNREADABLE_IMAGES
)
def test_uploads_pillow_cannot_read_are_refused(admin, content):
    before = admin.get("/maps").json()
    response = admin.put("/maps/odd", headers=ADMIN, content=content)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_map_data"
    assert admin.get("/maps").json() == before


def test_upload_size_limit(tmp_path):
    client, _ = make_client(tmp_path, admin_token=TOKEN, max_upload_bytes=1000)
    with client:
        wait_ready(client)
        response = client.put("/maps/big", headers=ADMIN, content=b"x" * 2000)
        assert response.status_code == 413
        text = b"type octile\nheight 40\nwidth 40\nmap\n" + (b"." * 40 + b"\n") * 40
        client2, _ = make_client(tmp_path, admin_token=TOKEN, max_map_cells=100)
    with client2:
        wait_ready(client2)
        response = client2.put("/maps/big", headers=ADMIN, content=text)
        assert (
            response.status_code == 422 and "over the limit" in response.json()["error"]["message"]
        )


def test_persistence_survives_a_restart(tmp_path):
    client, maps = make_client(tmp_path, admin_token=TOKEN, maps_writable=True)
    with client:
        wait_ready(client)
        client.patch(
            "/maps/arena", headers=ADMIN, json={"set": [{"cells": [[2, 2]], "value": "blocked"}]}
        )
        client.put(
            "/maps/fresh", headers=ADMIN, content=b"type octile\nheight 1\nwidth 2\nmap\n..\n"
        )
        edited = client.get("/maps/arena").json()
    restarted, _ = make_client(tmp_path, admin_token=TOKEN, maps_writable=True)
    with restarted:
        wait_ready(restarted)
        assert restarted.get("/maps/arena").json()["sha256"] == edited["sha256"]
        assert restarted.get("/maps/fresh").json()["width"] == 2
        restarted.delete("/maps/fresh", headers=ADMIN)
    assert not list(maps.glob("fresh.*"))


def test_crash_between_write_and_rename_keeps_the_old_file(tmp_path, monkeypatch):
    from gridpath.maps import persist

    client, maps = make_client(tmp_path, admin_token=TOKEN, maps_writable=True)
    original = (maps / "arena.png").read_bytes()

    def crash(src, dst):
        raise OSError("simulated crash before rename")

    with client:
        wait_ready(client)
        monkeypatch.setattr(persist.os, "replace", crash)
        response = client.patch(
            "/maps/arena", headers=ADMIN, json={"set": [{"cells": [[2, 2]], "value": "blocked"}]}
        )
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "storage_error"
        assert client.get("/maps/arena").json()["revision"] == 1  # nothing applied
    assert (maps / "arena.png").read_bytes() == original
    assert not [p for p in maps.iterdir() if p.name.endswith(".tmp")]


def test_searches_during_edits_see_whole_revisions(admin):
    """Threads search while another edits: every path is legal on the revision it names,
    and revisions only grow."""
    request = {"map": "arena", "start": [2, 2], "goal": [40, 50], "include": ["path"]}
    snapshots: dict[int, np.ndarray] = {1: None}
    errors: list[str] = []
    stop = threading.Event()
    from gridpath.grid import load_map

    walkable = np.asarray(
        load_map(MAPS_DIR / "arena.png", max_cells=10**6, max_bytes=10**7).walkable, dtype=bool
    )
    snapshots[1] = walkable.copy()
    walls = [[x, 20] for x in range(1, 63)]
    lock = threading.Lock()

    def editor():
        current = walkable.copy()
        for revision, cell in enumerate(walls[::3], start=2):
            current = current.copy()
            current[cell[1], cell[0]] = False
            with lock:  # recorded before the edit, so no search can see it first
                snapshots[revision] = current
            response = admin.patch(
                "/maps/arena", headers=ADMIN, json={"set": [{"cells": [cell], "value": "blocked"}]}
            )
            if response.json()["revision"] != revision:
                errors.append(f"edit got revision {response.json()['revision']}, not {revision}")
        stop.set()

    def searcher():
        last = 0
        while not stop.is_set():
            body = admin.post("/path", json=request).json()
            if body["revision"] < last:
                errors.append("revision went back")
            last = body["revision"]
            if body["found"]:
                with lock:
                    grid = snapshots[body["revision"]]
                cells = [tuple(c) for c in body["path"]]
                if not all(step_is_legal(grid, a, b) for a, b in zip(cells, cells[1:])):
                    errors.append(f"illegal path on revision {body['revision']}")

    threads = [threading.Thread(target=searcher) for _ in range(3)] + [
        threading.Thread(target=editor)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    assert admin.get("/maps/arena").json()["revision"] == 1 + len(walls[::3])


def test_image_endpoint(admin):
    response = admin.get("/maps/arena/image?start=2,2&goal=40,50")
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.size == (64 * 8, 64 * 8)
    assert admin.get("/maps/arena/image?start=2,2").status_code == 422
    assert (
        admin.get("/maps/arena/image?start=a,b&goal=1,1").json()["error"]["code"] == "invalid_start"
    )
    assert admin.get("/maps/nope/image").status_code == 404
    # Only 'x,y' in ASCII digits: int() alone took " 1 ", "1_0" and Arabic-Indic digits.
    for odd in (" 2,2", "2_0,2", "\u0662,2", "2,2,2", "2.0,2"):
        response = admin.get("/maps/arena/image", params={"start": odd, "goal": "1,1"})
        assert response.json()["error"]["code"] == "invalid_start", odd


def test_validate_over_http(admin):
    request = {"map": "arena", "start": [2, 2], "goal": [40, 50]}
    found = admin.post("/path", json=request).json()
    ok = admin.post(
        "/validate",
        json={
            "map": "arena",
            "path": found["path"],
            "revision": 1,
            "max_cost": found["cost"],
            "start": [2, 2],
            "goal": [40, 50],
            "compare_optimal": True,
        },
    ).json()
    assert ok == {
        "map": "arena",
        "revision": 1,
        "valid": True,
        "cost": found["cost"],
        "checked": len(found["path"]),
        "violations": [],
        "optimal_cost": found["cost"],
    }
    sight = admin.post(
        "/validate",
        json={
            "map": "arena",
            "path": found["waypoints"],
            "mode": "waypoints",
            "max_cost": found["cost"],
        },
    ).json()
    assert sight["valid"] and "optimal_cost" not in sight
    cheat = list(found["path"])
    cheat[3] = [0, 0]
    bad = admin.post("/validate", json={"map": "arena", "path": cheat, "max_cost": 1.0}).json()
    codes = {(v["code"], v["index"]) for v in bad["violations"]}
    assert not bad["valid"] and ("blocked_cell", 3) in codes and ("not_adjacent", 3) in codes
    assert any(v["code"] == "over_budget" for v in bad["violations"])
    admin.patch(
        "/maps/arena", headers=ADMIN, json={"set": [{"cells": [[60, 60]], "value": "blocked"}]}
    )
    stale = admin.post(
        "/validate", json={"map": "arena", "path": found["path"], "revision": 1}
    ).json()
    assert not stale["valid"] and stale["violations"][0]["code"] == "stale_revision"
    assert stale["revision"] == 2
    huge = admin.post(
        "/validate", json={"map": "arena", "path": [[2**40, -(2**40)], [2, 2]]}
    ).json()
    assert huge["violations"][0]["code"] == "out_of_bounds"
    wrong = admin.post("/validate", json={"map": "arena", "path": [[2, 2]], "mode": "teleport"})
    assert wrong.status_code == 422
