"""POST /group and group POST /validate with "world" through the real app: plans in
``[x, y, m]`` checked by the independent checker, link traversals one tick, the link codes
of the validator, the error envelope, determinism, the OpenAPI declaration.

The world ``keep`` is read from MAPS_DIR at start-up, as every world is."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import wait_ready
from tests.gridpath.group.checker import check_world_plans

FLOOR = ["....", "...."]
KEEP = {
    "maps": ["f1", "f2"],
    "links": [
        {"id": "stairs", "from": {"map": "f1", "cell": [3, 1]}, "to": {"map": "f2", "cell": [0, 0]},
         "bidirectional": True},
        {"id": "trapdoor", "from": {"map": "f2", "cell": [3, 1]},
         "to": {"map": "f1", "cell": [0, 1]}},
        {"id": "gate", "from": {"map": "f1", "cell": [0, 0]}, "to": {"map": "f2", "cell": [3, 0]},
         "bidirectional": True, "enabled": False, "tags": ["door"]},
    ],
}  # fmt: skip


def write_map(path, rows):
    body = "\n".join(r.replace("#", "@") for r in rows)
    path.write_text(f"type octile\nheight {len(rows)}\nwidth {len(rows[0])}\nmap\n{body}\n")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    maps = tmp_path_factory.mktemp("group_world")
    write_map(maps / "f1.map", FLOOR)
    write_map(maps / "f2.map", FLOOR)
    (maps / "keep.world.json").write_text(json.dumps(KEEP))
    app = create_app(Settings(maps_dir=maps, max_group_units=8))
    with TestClient(app) as c:
        wait_ready(c)
        yield c


def _frees():
    return [np.array([[c == "." for c in r] for r in FLOOR], dtype=bool)] * 2


def _checker_links(excluded=()):
    index = {"f1": 0, "f2": 1}
    return [
        {"from": (*link["from"]["cell"], index[link["from"]["map"]]),
         "to": (*link["to"]["cell"], index[link["to"]["map"]]),
         "bidirectional": link.get("bidirectional", False), "enabled": link.get("enabled", True),
         "excluded": link["id"] in excluded}
        for link in KEEP["links"]
    ]  # fmt: skip


def place(m, x, y):
    return {"map": m, "cell": [x, y]}


UNITS = [
    {"start": place("f1", 0, 0), "goal": place("f2", 3, 0)},
    {"start": place("f1", 1, 1), "goal": place("f2", 1, 1)},
    {"start": place("f2", 2, 1), "goal": place("f1", 2, 0)},
]


def test_group_through_a_world_plans_x_y_m_and_validates(client):
    r = client.post("/group", json={"world": "keep", "units": UNITS})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["world"] == "keep" and body["world_revision"] == 1
    assert body["maps"] == [{"name": "f1", "revision": 1}, {"name": "f2", "revision": 1}]
    assert body["found"] and "map" not in body
    starts = [(u["start"]["cell"][0], u["start"]["cell"][1], int(u["start"]["map"][1]) - 1)
              for u in UNITS]  # fmt: skip
    goals = [(u["goal"]["cell"][0], u["goal"]["cell"][1], int(u["goal"]["map"][1]) - 1)
             for u in UNITS]  # fmt: skip
    plans = body["plans"]
    assert check_world_plans(_frees(), _checker_links(), plans, starts, goals) == []
    v = client.post("/validate", json={"world": "keep", "plans": plans})
    assert v.status_code == 200 and v.json()["valid"] is True, v.text
    assert v.json()["maps"] == body["maps"]
    again = client.post("/group", json={"world": "keep", "units": UNITS})
    assert again.content == r.content  # byte-identical


def test_excluded_and_disabled_links_are_no_way(client):
    units = [{"start": place("f1", 0, 0), "goal": place("f2", 0, 1)}]
    ok = client.post("/group", json={"world": "keep", "units": units}).json()
    assert ok["found"]
    body = {"world": "keep", "units": units, "links": {"exclude_ids": ["stairs"]}}
    out = client.post("/group", json=body).json()
    assert out["reason"] == "unreachable" and out["unreachable_units"] == [0]
    up = [{"start": place("f2", 3, 1), "goal": place("f1", 1, 0)}]  # trapdoor: only down
    assert client.post("/group", json={"world": "keep", "units": up}).json()["found"]
    stuck = {"world": "keep", "units": up, "blocked": [place("f1", 3, 1)]}  # stairs' end
    assert client.post("/group", json=stuck).json()["found"]  # the trapdoor still leads down


@pytest.mark.parametrize(
    ("plan", "code", "tick"),
    [
        ([[0, 0, 1], [1, 1, 0]], "link_missing", 1),
        ([[0, 0, 0], [2, 0, 0]], "link_missing", 1),
        ([[0, 0, 0], [3, 0, 1]], "link_disabled", 1),
        ([[0, 1, 0], [3, 1, 1]], "link_one_way", 1),
        ([[0, 0, 0], [0, 0, 9]], "illegal_step", 1),
    ],
)
def test_validate_names_the_link_step(client, plan, code, tick):
    r = client.post("/validate", json={"world": "keep", "plans": [plan]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert not body["valid"]
    assert [(v["code"], v["tick"], v["unit"]) for v in body["violations"]] == [(code, tick, 0)]


def test_validate_refuses_two_units_taking_the_stairs_both_ways_at_once(client):
    plans = [[[3, 1, 0], [0, 0, 1]], [[0, 0, 1], [3, 1, 0]]]
    body = client.post("/validate", json={"world": "keep", "plans": plans}).json()
    assert [v["code"] for v in body["violations"]] == ["edge_conflict"]


def test_world_errors_are_envelopes(client):
    cases = [
        ({"world": "nowhere", "units": UNITS}, 404, "world_not_found"),
        ({"world": "keep", "units": [{"start": place("f9", 0, 0), "goal": place("f1", 0, 0)}]},
         404, "map_not_found"),
        ({"world": "keep", "units": [{"start": place("f1", 9, 0), "goal": place("f1", 0, 0)}]},
         422, "out_of_bounds"),
        ({"world": "keep", "units": [{"start": place("f1", 0, 0), "goal": place("f1", 1, 0)}],
          "blocked": [place("f1", 1, 0)]}, 422, "goal_blocked"),
        ({"world": "keep", "units": [{"start": [0, 0], "goal": [1, 0]}]}, 422, None),
        ({"world": "keep", "units": UNITS, "world_revision": 9}, 409, "stale_revision"),
        ({"world": "keep", "units": UNITS, "links": {"exclude_ids": ["bad id"]}}, 422, None),
    ]  # fmt: skip
    for body, status, code in cases:
        r = client.post("/group", json=body)
        assert r.status_code == status, (body, r.text)
        assert set(r.json()) == {"error"}
        if code:
            assert r.json()["error"]["code"] == code
    r = client.post("/validate", json={"world": "keep", "plans": [[[0, 0]]]})
    assert r.status_code == 422 and set(r.json()) == {"error"}


def test_stale_world_revision_is_a_violation_in_validate(client):
    plans = [[[0, 0, 0], [1, 0, 0]]]
    body = client.post("/validate", json={"world": "keep", "plans": plans, "world_revision": 2})
    assert [v["code"] for v in body.json()["violations"]] == ["stale_revision"]


def test_openapi_declares_the_world_group_bodies(client):
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    assert {"WorldGroupRequest", "WorldGroupResponse", "WorldGroupValidateRequest"} <= set(schemas)
    codes = schemas["GroupViolationOut"]["properties"]["code"]["enum"]
    assert {"link_missing", "link_disabled", "link_one_way"} <= set(codes)


def test_validate_world_places_of_any_size_are_off_the_world_not_a_500(client):
    """Integers past int64 in a place (schemathesis found the 500): clamped, so every such
    place is off the world and reported, as on a map."""
    huge = [[[0, 0, 0], [2**70, -(2**65), 0]], [[1, 0, 0], [0, 1, -(2**80)]]]
    r = client.post("/validate", json={"world": "keep", "plans": huge})
    assert r.status_code == 200, r.text
    assert r.json()["valid"] is False and "illegal_step" in {
        v["code"] for v in r.json()["violations"]
    }
