"""Polygon maps over HTTP (issue 14), through the real app: the bundled
``maps/courtyard.nav.json`` and maps made here, loaded by the folder store; listing, /path in
both modes, refused and snapped clicks, /validate, /paths, the grid-only routes refused,
edits with ``if_revision`` and tokens, hot reload, determinism.

The Redis store's polygon tests are in tests/app/authority/test_redis.py."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from gridpath.nav.model import parse_nav
from gridpath.nav.waypoints import visibility_shortest_path
from tests.app.authority.test_folder import eventually, revision, write
from tests.conftest import MAPS_DIR, wait_ready

ADMIN = {"authorization": "Bearer admin"}
COURTYARD = json.loads((MAPS_DIR / "courtyard.nav.json").read_bytes())
# A square room with one square pillar in the middle.
ROOM = {
    "outline": [[0, 0], [10, 0], [10, 10], [0, 10]],
    "holes": [[[4, 4], [6, 4], [6, 6], [4, 6]]],
    "waypoints": [[1, 1], [9, 1], [9, 9], [1, 9]],
}


def path(client: TestClient, **body) -> dict:
    response = client.post("/path", json={"map": "courtyard", **body})
    assert response.status_code == 200, response.text
    return response.json()


def error(response) -> tuple[int, str, str]:
    body = response.json()["error"]
    return response.status_code, body["code"], body["message"]


@pytest.fixture
def maps(tmp_path: Path) -> Path:
    folder = tmp_path / "maps"
    folder.mkdir()
    for name in ("arena.png", "courtyard.nav.json"):
        shutil.copy(MAPS_DIR / name, folder / name)
    return folder


@contextmanager
def serving(folder: Path, tmp_path: Path, **extra) -> Iterator[TestClient]:
    extra.setdefault("maps_reload", "off")
    settings = Settings(
        maps_dir=folder, admin_token="admin", map_state_dir=tmp_path / "state", **extra
    )
    with TestClient(create_app(settings)) as client:
        wait_ready(client)
        yield client


# --- loading and listing ----------------------------------------------------------------


def test_the_bundled_polygon_map_is_listed_with_its_kind(client):
    maps = {m["name"]: m for m in client.get("/maps").json()["maps"]}
    courtyard = maps["courtyard"]
    assert courtyard["kind"] == "polygon"
    assert courtyard["bounds"] == [0.0, 0.0, 46.0, 30.0]
    vertices = len(COURTYARD["outline"]) + sum(len(h) for h in COURTYARD["holes"])
    assert (courtyard["vertices"], courtyard["holes"], courtyard["waypoints"]) == (
        vertices,
        len(COURTYARD["holes"]),
        len(COURTYARD["waypoints"]),
    )
    assert courtyard["revision"] >= 1 and courtyard["triangles"] > 0
    assert courtyard["source"] == "courtyard.nav.json" and courtyard["memory_bytes"] > 0
    assert maps["arena"]["kind"] == "grid" and "width" in maps["arena"]
    assert client.get("/maps/courtyard").json() == courtyard
    assert "courtyard" in client.get("/health").json()["maps"]


def test_an_invalid_polygon_file_is_left_out_and_listed_in_health(maps, tmp_path):
    bad = {**ROOM, "holes": [[[4, 4], [6, 6], [6, 4], [4, 6]]]}  # a bow tie
    (maps / "bad.nav.json").write_text(json.dumps(bad))
    (maps / "broken.nav.json").write_text("{not json")
    with serving(maps, tmp_path) as client:
        health = client.get("/health").json()
        assert health["status"] == "ok" and "courtyard" in health["maps"]
        errors = {e["file"]: e["reason"] for e in health["errors"]}
        assert "holes[0] is not a simple ring: it crosses itself" in errors["bad.nav.json"]
        assert "not valid JSON" in errors["broken.nav.json"]
        assert client.get("/maps/bad").status_code == 404


# --- /path ------------------------------------------------------------------------------


def test_exact_and_waypoint_paths(client):
    exact = path(client, start=[1, 1], goal=[45, 15])
    assert list(exact) == [
        "map",
        "revision",
        "found",
        "reason",
        "cost",
        "points",
        "mode",
        "expanded",
        "optimal",
    ]
    assert (exact["found"], exact["mode"], exact["optimal"], exact["reason"]) == (
        True,
        "exact",
        True,
        None,
    )
    # around the corner (34, 12) of the pillar by the east door
    assert exact["points"] == [[1.0, 1.0], [34.0, 12.0], [45.0, 15.0]]
    assert exact["cost"] == pytest.approx(
        math.dist((1, 1), (34, 12)) + math.dist((34, 12), (45, 15))
    )
    # the brute-force visibility graph over every corner agrees
    nav = parse_nav("courtyard", COURTYARD)
    corners = [tuple(p) for ring in (nav.outline, *nav.holes) for p in ring]
    _, brute = visibility_shortest_path(nav.area, corners, (1.0, 1.0), (45.0, 15.0))
    assert exact["cost"] == pytest.approx(brute, abs=1e-9)

    waypoints = path(client, start=[1, 1], goal=[45, 15], mode="waypoints")
    assert (waypoints["found"], waypoints["mode"], waypoints["optimal"]) == (
        True,
        "waypoints",
        False,
    )
    assert waypoints["points"][0] == [1.0, 1.0] and waypoints["points"][-1] == [45.0, 15.0]
    assert exact["cost"] <= waypoints["cost"]
    length = sum(math.dist(p, q) for p, q in zip(waypoints["points"], waypoints["points"][1:]))
    assert waypoints["cost"] == pytest.approx(length)


def test_a_path_through_the_point_where_two_holes_touch(client):
    answer = path(client, start=[1, 29], goal=[39, 1])
    assert [34.0, 9.0] in answer["points"]  # the pinch point between two planters


def test_visible_ends_and_float_coordinates(client):
    answer = path(client, start=[1.25, 2.5], goal=[3.75, 2.5])
    assert answer["points"] == [[1.25, 2.5], [3.75, 2.5]] and answer["cost"] == 2.5
    assert answer["optimal"] and answer["expanded"] >= 0


def test_a_click_outside_is_refused_or_snapped(client):
    in_fountain, outside = [20, 15], [-3, 15]
    for where, point in (("start", in_fountain), ("goal", outside)):
        ends = {"start": [1, 1], "goal": [45, 15], where: point}
        response = client.post("/path", json={"map": "courtyard", **ends})
        status, code, message = error(response)
        assert (status, code) == (422, "target_not_walkable")
        assert message.startswith(f"{where} [{point[0]:g}, {point[1]:g}] is outside")

    snapped = path(client, start=in_fountain, goal=outside, snap=True)
    assert snapped["found"] and snapped["snapped_start"] == [24.0, 15.0]  # the fountain's edge
    assert snapped["snapped_goal"] == [0.0, 15.0]
    assert snapped["points"][0] == snapped["snapped_start"]
    assert snapped["points"][-1] == snapped["snapped_goal"]
    plain = path(client, start=[1, 1], goal=[45, 15], snap=True)
    assert "snapped_start" not in plain and "snapped_goal" not in plain  # nothing moved


def test_on_the_boundary_is_walkable(client):
    answer = path(client, start=[0, 0], goal=[16, 15])  # a corner of the outline; a hole's edge
    assert answer["found"] and "snapped_start" not in answer


def test_grids_keep_integer_cells_and_fields_of_the_other_kind_are_refused(client):
    half = client.post("/path", json={"map": "arena", "start": [1.5, 2], "goal": [5, 5]})
    status, code, message = error(half)
    assert (status, code) == (422, "invalid_request") and message.startswith("start[0]")
    grid_mode = client.post(
        "/path", json={"map": "arena", "start": [1, 1], "goal": [5, 5], "mode": "exact"}
    )
    assert error(grid_mode) == (
        422,
        "unsupported_map_kind",
        "'mode' is for polygon maps; map 'arena' is a grid map",
    )
    polygon_rules = client.post(
        "/path", json={"map": "courtyard", "start": [1, 1], "goal": [5, 5], "connectivity": 4}
    )
    status, code, message = error(polygon_rules)
    assert (status, code) == (422, "unsupported_map_kind") and "'connectivity'" in message
    bad_mode = client.post(
        "/path", json={"map": "courtyard", "start": [1, 1], "goal": [5, 5], "mode": "fast"}
    )
    assert error(bad_mode)[:2] == (422, "invalid_request")
    not_finite = client.post(
        "/path", content=b'{"map": "courtyard", "start": [1e999, 1], "goal": [5, 5]}'
    )
    assert error(not_finite)[:2] == (422, "invalid_request")
    # coordinates are bounded (lengths stay finite); far but within the bound: snapped
    beyond = client.post("/path", json={"map": "courtyard", "start": [1e16, 0], "goal": [5, 5]})
    assert error(beyond)[:2] == (422, "invalid_request")
    far = path(client, start=[1e15, -1e15], goal=[-1e15, 1e15], snap=True)
    assert (far["snapped_start"], far["snapped_goal"]) == ([40.0, 0.0], [0.0, 30.0])


def test_the_expansion_cap_ends_a_search(client):
    capped = path(client, start=[1, 29], goal=[39, 1], max_expanded=1)
    assert (capped["found"], capped["reason"], capped["cost"], capped["points"]) == (
        False,
        "limit_reached",
        None,
        [],
    )


def test_unreachable_parts(maps, tmp_path):
    """Two rooms joined only by a wall's width: a hole splits the outline in two."""
    split = {
        "outline": [[0, 0], [10, 0], [10, 4], [0, 4]],
        "holes": [[[4, 0], [6, 0], [6, 4], [4, 4]]],
    }
    (maps / "split.nav.json").write_text(json.dumps(split))
    with serving(maps, tmp_path) as client:
        for mode in ("exact", "waypoints"):
            body = {"map": "split", "start": [1, 1], "goal": [9, 1], "mode": mode}
            answer = client.post("/path", json=body).json()
            assert (answer["found"], answer["reason"], answer["points"]) == (
                False,
                "unreachable",
                [],
            )


def test_same_request_same_bytes(client):
    body = {"map": "courtyard", "start": [1, 29], "goal": [45.5, 14.25], "mode": "exact"}
    first = client.post("/path", json=body).content
    assert all(client.post("/path", json=body).content == first for _ in range(3))
    body["mode"] = "waypoints"
    first = client.post("/path", json=body).content
    assert client.post("/path", json=body).content == first


def test_a_batch_of_polygon_queries(client):
    response = client.post(
        "/paths",
        json={
            "map": "courtyard",
            "queries": [
                {"start": [1, 1], "goal": [45, 15]},
                {"start": [1, 1], "goal": [45, 15], "mode": "waypoints"},
                {"start": [20, 15], "goal": [1, 1]},
                {"start": [1, 1], "goal": [2, 2], "connectivity": 4},
                {"start": [1, 1]},
            ],
        },
    )
    assert response.status_code == 200
    results = response.json()["results"]
    assert results[0] == path(client, start=[1, 1], goal=[45, 15])
    assert results[1] == path(client, start=[1, 1], goal=[45, 15], mode="waypoints")
    assert [r["error"]["code"] for r in results[2:]] == [
        "target_not_walkable",
        "unsupported_map_kind",
        "invalid_request",
    ]


@pytest.mark.parametrize(
    "method,url,body",
    [
        ("GET", "/maps/courtyard/image", None),
        ("GET", "/maps/courtyard/cells", None),
        ("GET", "/maps/courtyard/nearest?x=1&y=1", None),
        ("POST", "/flowfield", {"map": "courtyard", "goal": [1, 1]}),
        ("POST", "/table", {"map": "courtyard", "sources": [[1, 1]], "targets": [[2, 2]]}),
        ("POST", "/validate", {"map": "courtyard", "path": [[1, 1], [2, 2]]}),
        ("POST", "/validate", {"map": "arena", "points": [[1, 1], [2, 2]]}),
    ],
)
def test_routes_of_the_other_kind_are_refused(client, method, url, body):
    status, code, message = error(client.request(method, url, json=body))
    assert (status, code) == (422, "unsupported_map_kind"), message


# --- /validate --------------------------------------------------------------------------


def test_validate_a_polyline(client):
    exact = path(client, start=[1, 29], goal=[39, 1])
    verdict = client.post("/validate", json={"map": "courtyard", "points": exact["points"]})
    body = verdict.json()
    assert verdict.status_code == 200
    assert (body["valid"], body["violations"], body["checked"]) == (True, [], len(exact["points"]))
    assert body["cost"] == pytest.approx(exact["cost"])
    assert body["revision"] == exact["revision"]

    # the second segment crosses the fountain
    through = client.post(
        "/validate", json={"map": "courtyard", "points": [[13, 3], [14, 15], [26, 15], [30, 15]]}
    ).json()
    assert not through["valid"]
    assert [(v["index"], v["code"]) for v in through["violations"]] == [(1, "outside_area")]
    assert "segment 1 from [14.0, 15.0] to [26.0, 15.0]" in through["violations"][0]["message"]

    long = client.post(
        "/validate",
        json={"map": "courtyard", "points": exact["points"], "max_cost": exact["cost"] - 0.5},
    ).json()
    assert [(v["index"], v["code"]) for v in long["violations"]] == [
        (len(exact["points"]) - 1, "over_budget")
    ]
    exactly = client.post(
        "/validate", json={"map": "courtyard", "points": exact["points"], "max_cost": exact["cost"]}
    ).json()
    assert exactly["valid"]

    ends = client.post(
        "/validate",
        json={"map": "courtyard", "points": [[1, 1], [2, 2]], "start": [1, 1], "goal": [3, 3]},
    ).json()
    assert [(v["index"], v["code"]) for v in ends["violations"]] == [(1, "wrong_goal")]
    outside = client.post("/validate", json={"map": "courtyard", "points": [[20, 15]]}).json()
    assert [(v["index"], v["code"]) for v in outside["violations"]] == [(0, "outside_area")]
    stale = client.post(
        "/validate", json={"map": "courtyard", "points": [[1, 1]], "revision": 10**6}
    ).status_code
    assert stale == 409  # this process never reaches that revision: as on grids
    empty = client.post("/validate", json={"map": "courtyard", "points": []})
    assert error(empty)[:2] == (422, "invalid_request")


# --- edits --------------------------------------------------------------------------------

CRATE = [[2, 12], [4, 12], [4, 14], [2, 14]]
SMALL_FOUNTAIN = [[18, 14], [22, 14], [22, 16], [18, 16]]


def test_edits_make_revisions_and_a_refused_edit_changes_nothing(maps, tmp_path):
    with serving(maps, tmp_path) as client:
        before = client.get("/maps/courtyard").json()
        r0 = before["revision"]
        assert (
            client.patch(
                "/maps/courtyard", json={"holes": [{"op": "add", "ring": CRATE}]}
            ).status_code
            == 401
        )
        # a crate in the way of a straight line
        straight = {"map": "courtyard", "start": [1, 13], "goal": [5, 13]}
        assert client.post("/path", json=straight).json()["cost"] == 4.0

        added = client.patch(
            "/maps/courtyard",
            json={"holes": [{"op": "add", "ring": CRATE}], "if_revision": r0},
            headers=ADMIN,
        )
        assert added.status_code == 200, added.text
        info = added.json()
        assert (info["kind"], info["revision"], info["holes"]) == ("polygon", r0 + 1, 7)
        assert info["sha256"] != before["sha256"]
        around = client.post("/path", json=straight).json()
        assert around["revision"] == r0 + 1 and around["cost"] > 4.0
        assert error(client.post("/path", json=straight | {"start": [3, 13]}))[1] == (
            "target_not_walkable"
        )

        refused = [
            (
                {"holes": [{"op": "remove", "index": 0}], "if_revision": r0},
                409,
                "revision_conflict",
            ),
            ({"holes": [{"op": "remove", "index": 7}]}, 422, "invalid_holes"),
            ({"holes": [{"op": "replace"}]}, 422, "invalid_holes"),
            # a hole overlapping the fountain: named by ring and vertex
            (
                {"holes": [{"op": "replace", "index": 6, "ring": [[15, 14], [17, 14], [17, 16]]}]},
                422,
                "invalid_map_data",
            ),
            ({"holes": [{"op": "add", "ring": [[1, 1], [2, 2]]}]}, 422, "invalid_map_data"),
            ({"waypoints": [[20, 15]]}, 422, "invalid_map_data"),
            ({"set": [{"cells": [[1, 1]], "value": "blocked"}]}, 422, "unsupported_map_kind"),
            ({}, 422, "invalid_request"),
        ]
        for patch, status, code in refused:
            response = client.patch("/maps/courtyard", json=patch, headers=ADMIN)
            assert error(response)[:2] == (status, code), (patch, response.text)
            assert client.get("/maps/courtyard").json() == info  # nothing changed
        message = error(
            client.patch(
                "/maps/courtyard",
                json={
                    "holes": [{"op": "replace", "index": 6, "ring": [[15, 14], [17, 14], [17, 16]]}]
                },
                headers=ADMIN,
            )
        )[2]
        assert "holes[0] overlaps holes[6]" in message and "vertex" in message

        grid_holes = client.patch(
            "/maps/arena", json={"holes": [{"op": "remove", "index": 0}]}, headers=ADMIN
        )
        assert error(grid_holes)[:2] == (422, "unsupported_map_kind")

        replaced = client.patch(
            "/maps/courtyard",
            json={
                "holes": [
                    {"op": "remove", "index": 6},
                    {"op": "replace", "index": 0, "ring": SMALL_FOUNTAIN},
                ],
                "waypoints": [[1, 1], [38, 15], [45, 15]],
            },
            headers=ADMIN,
        ).json()
        assert (replaced["revision"], replaced["holes"], replaced["waypoints"]) == (r0 + 2, 6, 3)
        assert client.post("/path", json=straight).json()["cost"] == 4.0  # the crate is gone
        waypoints = client.post(
            "/path",
            json={"map": "courtyard", "start": [1, 2], "goal": [45, 14], "mode": "waypoints"},
        ).json()
        assert waypoints["found"] and waypoints["revision"] == r0 + 2


def test_put_creates_and_replaces_a_polygon_map_and_delete_removes_it(maps, tmp_path):
    with serving(maps, tmp_path) as client:
        body = json.dumps(ROOM).encode()
        assert client.put("/maps/room", content=body).status_code == 401
        created = client.put("/maps/room", content=body, headers=ADMIN)
        assert created.status_code == 201, created.text
        info = created.json()
        assert (info["kind"], info["revision"], info["holes"], info["source"]) == (
            "polygon",
            1,
            1,
            "room.nav.json",
        )
        ends = {"map": "room", "start": [3, 5.5], "goal": [7, 5.5]}
        around = client.post("/path", json=ends).json()
        assert around["points"] == [[3.0, 5.5], [4.0, 6.0], [6.0, 6.0], [7.0, 5.5]]

        bad = {**ROOM, "holes": [[[4, 4], [12, 4], [12, 6], [4, 6]]]}
        refused = client.put("/maps/room", content=json.dumps(bad).encode(), headers=ADMIN)
        status, code, message = error(refused)
        assert (status, code) == (422, "invalid_map_data")
        assert "holes[0] is not inside the outline: vertex 1 (12, 4)" in message
        assert client.get("/maps/room").json() == info  # nothing changed

        # as a form: the map part named *.nav.json; no sidecar for a polygon map
        form = client.put("/maps/hall", files={"map": ("hall.nav.json", body)}, headers=ADMIN)
        assert form.status_code == 201 and form.json()["kind"] == "polygon", form.text
        sidecar = client.put(
            "/maps/hall",
            files={"map": ("hall.nav.json", body), "sidecar": ("s.json", b"{}")},
            headers=ADMIN,
        )
        assert error(sidecar)[:2] == (422, "invalid_map_data")
        assert "no sidecar" in error(sidecar)[2]

        conflict = client.put("/maps/room?if_revision=5", content=body, headers=ADMIN)
        assert error(conflict)[:2] == (409, "revision_conflict")

        # a grid replaced by a polygon map, and the routes follow its kind
        replaced = client.put("/maps/arena", content=body, headers=ADMIN)
        assert replaced.status_code == 200 and replaced.json()["kind"] == "polygon"
        assert client.post("/path", json={"map": "arena", "start": [1, 1], "goal": [9, 9]}).json()[
            "found"
        ]
        assert error(client.get("/maps/arena/cells"))[1] == "unsupported_map_kind"

        deleted = client.delete("/maps/room", headers=ADMIN).json()
        assert deleted == {"name": "room", "deleted": True, "revision": 1}
        assert (
            client.post("/path", json={"map": "room", "start": [1, 1], "goal": [2, 2]}).status_code
            == 404
        )


def test_maps_writable_stores_the_nav_json_and_a_restart_serves_it(maps, tmp_path):
    body = json.dumps(ROOM, indent=2).encode()
    with serving(maps, tmp_path, maps_writable=True) as client:
        assert client.put("/maps/room", content=body, headers=ADMIN).status_code == 201
        assert (maps / "room.nav.json").read_bytes() == body  # stored as sent
        edit = {"holes": [{"op": "add", "ring": [[1, 1], [2, 1], [2, 2]]}]}
        edited = client.patch("/maps/room", json=edit, headers=ADMIN).json()
        assert edited["revision"] == 2
        client.patch("/maps/courtyard", json=edit, headers=ADMIN)
        assert json.loads((maps / "courtyard.nav.json").read_bytes())["holes"][-1] == [
            [1.0, 1.0],
            [2.0, 1.0],
            [2.0, 2.0],
        ]
    with serving(maps, tmp_path, maps_writable=True) as client:
        room = client.get("/maps/room").json()
        assert (room["revision"], room["holes"], room["sha256"]) == (2, 2, edited["sha256"])
        assert client.delete("/maps/room", headers=ADMIN).status_code == 200
        assert not (maps / "room.nav.json").exists()


def test_read_your_writes_waits_for_the_revision(maps, tmp_path):
    with serving(maps, tmp_path, revision_wait_ms=200) as client:
        current = client.get("/maps/courtyard").json()["revision"]
        ahead = {"map": "courtyard", "start": [1, 1], "goal": [2, 2], "revision": current + 1}
        assert error(client.post("/path", json=ahead))[:2] == (409, "stale_revision")
        edit = {"holes": [{"op": "add", "ring": CRATE}]}
        assert client.patch("/maps/courtyard", json=edit, headers=ADMIN).status_code == 200
        assert client.post("/path", json=ahead).json()["revision"] == current + 1
        behind = ahead | {"revision": current}
        assert error(client.post("/path", json=behind))[:2] == (409, "stale_revision")


def test_hot_reload_of_a_changed_nav_json(maps, tmp_path):
    target = maps / "room.nav.json"
    write(target, json.dumps(ROOM).encode())
    with serving(maps, tmp_path, maps_reload="poll", maps_poll_interval=0.1) as client:
        assert revision(client, "room") == 1
        write(target, json.dumps(ROOM, indent=4).encode())  # the same map, reformatted
        write(target, json.dumps({**ROOM, "holes": []}).encode())
        eventually(lambda: revision(client, "room") == 2)
        straight = client.post("/path", json={"map": "room", "start": [3, 5], "goal": [7, 5]})
        assert straight.json()["cost"] == 4.0

        write(target, b'{"outline": [[0, 0], [1, 1]]}')  # broken: the revision before serves
        eventually(
            lambda: any(
                e["file"] == "room.nav.json" for e in client.get("/health").json()["errors"]
            )
        )
        assert revision(client, "room") == 2
        target.unlink()
        eventually(lambda: revision(client, "room") is None)


def test_reload_on_demand_and_a_reformatted_file_is_the_same_revision(maps, tmp_path):
    target = maps / "room.nav.json"
    write(target, json.dumps(ROOM).encode())
    with serving(maps, tmp_path) as client:
        write(target, json.dumps(ROOM, indent=4).encode())
        reloaded = client.post("/maps/reload", headers=ADMIN).json()
        assert reloaded["changed"] == [] and revision(client, "room") == 1
        write(target, json.dumps({**ROOM, "waypoints": []}).encode())
        reloaded = client.post("/maps/reload", headers=ADMIN).json()
        assert reloaded["changed"] == [{"name": "room", "revision": 2, "deleted": False}]
        assert client.get("/maps/room").json()["waypoints"] == 0
