"""POST /group and group POST /validate through the real app: plans checked by the
independent checker, the error envelope, determinism, the OpenAPI declaration."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.models.group import GroupValidateRequest
from tests.conftest import wait_ready
from tests.gridpath.group.checker import check_plans

ROWS = ["#.###", ".....", "..@..", "....."]  # an alcove at (1, 0), a wall at (2, 2)


def write_map(path, rows):
    body = "\n".join(r.replace("#", "@") for r in rows)
    path.write_text(f"type octile\nheight {len(rows)}\nwidth {len(rows[0])}\nmap\n{body}\n")


def free_of(rows):
    return np.array([[c == "." for c in r] for r in rows], dtype=bool)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    maps = tmp_path_factory.mktemp("group")
    write_map(maps / "pocket.map", ROWS)
    write_map(maps / "corridor.map", ["....", "@@@@"])
    app = create_app(Settings(maps_dir=maps, max_group_units=8))
    with TestClient(app) as c:
        wait_ready(c)
        yield c


def group(client, units, **extra):
    body = {"map": "pocket", "units": [{"start": s, "goal": g} for s, g in units], **extra}
    return client.post("/group", json=body)


def test_group_plans_pass_the_checker_and_the_service_validator(client):
    units = [([0, 1], [4, 3]), ([4, 3], [0, 1]), ([4, 1], [1, 0]), ([0, 3], [4, 1])]
    r = group(client, units)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["found"] and body["algorithm"] == "lacam*+pibt+lns"
    plans = body["plans"]
    assert all(len(p) == body["makespan"] + 1 for p in plans)
    assert check_plans(free_of(ROWS), plans, [u[0] for u in units], [u[1] for u in units]) == []
    assert body["sum_of_costs"] >= body["lower_bound"] > 0
    v = client.post("/validate", json={"map": "pocket", "plans": plans, "connectivity": 4})
    assert v.status_code == 200 and v.json()["valid"] is True, v.text
    again = group(client, units)
    assert again.content == r.content  # byte-identical


def test_assign_says_which_goal_each_unit_got(client):
    r = group(client, [([0, 1], [4, 1]), ([4, 1], [0, 1])], assign=True)
    body = r.json()
    assert body["goal_index"] == [1, 0] and body["makespan"] == 0 and body["sum_of_costs"] == 0


@pytest.mark.parametrize(
    ("units", "code"),
    [
        ([([0, 1], [4, 1]), ([0, 1], [3, 1])], "duplicate_cells"),
        ([([0, 1], [4, 1]), ([1, 1], [4, 1])], "duplicate_cells"),
        ([([0, 0], [4, 1])], "start_blocked"),
        ([([0, 1], [2, 2])], "goal_blocked"),
        ([([0, 1], [9, 1])], "out_of_bounds"),
        (
            [([i, 1], [i, 3]) for i in range(5)] + [([i, 3], [i, 1]) for i in range(4)],
            "group_too_large",
        ),
    ],
)
def test_bad_orders_are_422_in_the_envelope(client, units, code):
    r = group(client, units)
    assert r.status_code == 422
    assert r.json()["error"]["code"] == code


def test_no_plan_and_unreachable(client):
    r = client.post(
        "/group",
        json={
            "map": "corridor",
            "units": [{"start": [0, 0], "goal": [3, 0]}, {"start": [3, 0], "goal": [0, 0]}],
        },
    )
    assert r.json()["found"] is False and r.json()["reason"] == "no_solution"
    r = group(client, [([0, 1], [4, 1])], blocked=[[1, 1], [1, 2], [1, 3]])
    body = r.json()
    assert body["reason"] == "unreachable" and body["unreachable_units"] == [0]


def test_limit_reached_on_a_tiny_budget(client):
    units = [([0, 1], [4, 3]), ([4, 3], [0, 1]), ([4, 1], [0, 3]), ([0, 3], [4, 1])]
    r = group(client, units, time_budget_ms=1)
    assert r.status_code == 200
    assert r.json()["found"] in (True, False)  # 1 ms of work may or may not suffice
    if not r.json()["found"]:
        assert r.json()["reason"] == "limit_reached"


@pytest.mark.parametrize(
    ("plans", "code", "connectivity"),
    [
        ([[[0, 1], [2, 1]]], "illegal_step", 4),
        ([[[0, 1], [1, 1], [2, 2]]], "blocked_cell", 8),
        ([[[0, 1], [1, 1]], [[2, 1], [1, 1]]], "vertex_conflict", 4),
        ([[[0, 1], [1, 1]], [[1, 1], [0, 1]]], "edge_conflict", 4),
        ([[[0, 1], [1, 2]], [[1, 1], [0, 2]]], "crossing_conflict", 8),
        ([[[0, 1], [1, 2]]], "illegal_step", 4),
    ],
)
def test_validate_finds_each_kind_of_conflict(client, plans, code, connectivity):
    r = client.post(
        "/validate", json={"map": "pocket", "plans": plans, "connectivity": connectivity}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["valid"] is False and code in {v["code"] for v in body["violations"]}


def test_validate_group_cells_of_any_size_are_off_the_map_not_a_500(client):
    huge = [[[2**70, -(2**65)], [9007199254740991, 1]], [[2**63 - 1, 0], [-(2**63), 0], [0, 1]]]
    r = client.post("/validate", json={"map": "pocket", "plans": huge, "connectivity": 8})
    assert r.status_code == 200, r.text
    codes = {v["code"] for v in r.json()["violations"]}
    assert r.json()["valid"] is False and "illegal_step" in codes


def test_validate_group_an_empty_plan_is_422_not_a_500(client):
    r = client.post("/validate", json={"map": "pocket", "plans": [[[0, 1], [1, 1]], []]})
    assert r.status_code == 422 and "error" in r.json(), r.text


def test_validate_group_bad_body_is_422(client):
    r = client.post("/validate", json={"map": "pocket", "plans": [[[0, 1]]], "extra": 1})
    assert r.status_code == 422 and "error" in r.json()


def test_openapi_declares_group(client):
    doc = client.get("/openapi.json").json()
    assert "/group" in doc["paths"]
    assert "422" in doc["paths"]["/group"]["post"]["responses"]


def test_openapi_declares_the_group_body_and_answer_of_validate(client):
    validate = client.get("/openapi.json").json()["paths"]["/validate"]["post"]
    body = validate["requestBody"]["content"]["application/json"]
    on_a_map = body["schema"]["oneOf"][0]["anyOf"]  # beside the path through a world
    assert {"$ref": "#/components/schemas/GroupValidateRequest"} in on_a_map
    assert "plans" in body["examples"]["group"]["value"]
    answer = validate["responses"]["200"]["content"]["application/json"]["schema"]
    assert {"$ref": "#/components/schemas/GroupValidateResponse"} in answer["anyOf"]
    GroupValidateRequest.model_validate(body["examples"]["group"]["value"])
