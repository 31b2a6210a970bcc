"""Issue 20 over HTTP: waypoints_cost on /path and /paths, /validate pricing the server's
own waypoints at exactly that, theta on a terrain map, and terrain costs out of range
refused with 422 invalid_terrain_costs (requests, edits, uploads)."""

from __future__ import annotations

import json

import pytest

from tests.app.api import test_api_admin
from tests.app.api.test_api_admin import ADMIN
from tests.app.api.test_api_upload import palette_form
from tests.gridpath.grid.test_upload import PALETTE

admin = test_api_admin.admin  # the fixture: an app with ADMIN_TOKEN on a copy of maps/

VILLAGE = {"map": "village", "start": [0, 0], "goal": [23, 15], "include": ["waypoints"]}


def test_village_waypoints_cost_no_more_than_cost_and_validate_at_it(client):
    for smooth in (True, False):
        body = client.post("/path", json={**VILLAGE, "algorithm": "astar", "smooth": smooth})
        assert body.status_code == 200, body.text
        answer = body.json()
        assert answer["waypoints_cost"] <= answer["cost"]
        if not smooth:
            assert answer["waypoints_cost"] == pytest.approx(answer["cost"], rel=1e-9)
        check = client.post(
            "/validate",
            json={"map": "village", "path": answer["waypoints"], "mode": "waypoints"},
        ).json()
        assert check["valid"] and check["cost"] == answer["waypoints_cost"]
    # The waypoints the issue quotes (before the change) are priced through the mud.
    quoted = [[0, 0], [1, 6], [22, 10], [23, 15]]
    check = client.post(
        "/validate", json={"map": "village", "path": quoted, "mode": "waypoints", "max_cost": 41.81}
    ).json()
    assert check["cost"] == pytest.approx(48.84, abs=0.005)
    assert [v["code"] for v in check["violations"]] == ["over_budget"]


def test_batch_answers_and_not_found_carry_waypoints_cost(client):
    queries = [
        {k: v for k, v in VILLAGE.items() if k != "map"},
        {"start": [0, 0], "goal": [23, 15], "include": ["waypoints"], "max_expanded": 1},
        {"start": [0, 0], "goal": [23, 15]},  # waypoints are included by default
        {"start": [0, 0], "goal": [23, 15], "include": ["path"]},
    ]
    results = client.post("/paths", json={"map": "village", "queries": queries}).json()["results"]
    assert results[0]["waypoints_cost"] <= results[0]["cost"]
    assert results[1]["found"] is False and results[1]["waypoints_cost"] is None
    assert results[2]["waypoints_cost"] == results[0]["waypoints_cost"]
    assert "waypoints_cost" not in results[3]  # only beside the waypoints


def test_theta_on_a_terrain_map(client):
    answer = client.post("/path", json={**VILLAGE, "algorithm": "theta"}).json()
    assert answer["found"] and answer["algorithm"] == "theta" and not answer["optimal"]
    assert answer["waypoints_cost"] == answer["cost"]
    check = client.post(
        "/validate", json={"map": "village", "path": answer["waypoints"], "mode": "waypoints"}
    ).json()
    assert check["valid"] and check["cost"] == answer["cost"]


@pytest.mark.parametrize("cost", [5e-324, 0.0005, 2e6])
@pytest.mark.parametrize("route", ["/path", "/validate", "/flowfield", "/table"])
def test_terrain_costs_out_of_range_are_422(client, route, cost):
    body = {
        "/path": {"map": "village", "start": [0, 0], "goal": [5, 5]},
        "/validate": {"map": "village", "path": [[0, 0], [1, 1]], "compare_optimal": True},
        "/flowfield": {"map": "village", "goal": [5, 5]},
        "/table": {"map": "village", "sources": [[0, 0]], "targets": [[5, 5]]},
    }[route]
    response = client.post(route, json={**body, "terrain_costs": {"road": cost}})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_terrain_costs"


@pytest.mark.parametrize("cost", [5e-324, -3, 1e308])
def test_edits_and_uploads_with_costs_out_of_range_are_422(admin, cost):
    before = admin.get("/maps/arena").json()
    edit = {"set": [{"cells": [[3, 3]], "value": "blocked"}, {"cells": [[2, 2]], "value": cost}]}
    response = admin.patch("/maps/arena", headers=ADMIN, json=edit)
    assert (
        response.status_code == 422 and response.json()["error"]["code"] == "invalid_terrain_costs"
    )
    assert admin.get("/maps/arena").json() == before
    form = palette_form()
    sidecar = json.loads(json.dumps(PALETTE))
    sidecar["palette"][1]["cost"] = cost
    name, _, kind = form["files"]["sidecar"]
    form["files"]["sidecar"] = (name, json.dumps(sidecar), kind)
    response = admin.put("/maps/sand", headers=ADMIN, **form)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_terrain_costs"
    assert admin.get("/maps/sand").status_code == 404


def test_openapi_declares_waypoints_cost_and_the_terrain_cost_error(client):
    document = client.get("/openapi.json").json()
    assert "waypoints_cost" in document["components"]["schemas"]["PathResponse"]["properties"]
    for path, method in (("/path", "post"), ("/maps/{name}", "patch"), ("/maps/{name}", "put")):
        described = document["paths"][path][method]["responses"]["422"]["description"]
        assert "`invalid_terrain_costs`" in described
