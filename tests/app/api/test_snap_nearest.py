"""``snap`` on /path and /paths, ``algorithm: "theta"`` over HTTP, and
GET /maps/{name}/nearest."""

from __future__ import annotations

import math

import pytest

from tests.app.api.test_api_admin import make_client
from tests.conftest import wait_ready
from tests.reference import reference_line_of_sight_rule


@pytest.fixture(scope="module")
def arena(client):
    return client.app.state.service.registry.get("arena")


def blocked_and_open(grid):
    """A blocked cell with an open cell beside it, away from the border."""
    for y in range(2, grid.height - 2):
        for x in range(2, grid.width - 2):
            if not grid.is_walkable(x, y) and grid.is_walkable(x + 1, y):
                return (x, y), (x + 1, y)
    raise AssertionError("no wall on the map")


def open_far_from(grid, cell):
    best = None
    for y in range(grid.height):
        for x in range(grid.width):
            if grid.is_walkable(x, y) and grid.components().of(grid.index(x, y)) == (
                grid.components().of(grid.index(*cell))
            ):
                d = math.dist((x, y), cell)
                best = max(best or (d, (x, y)), (d, (x, y)))
    return best[1]


def test_snap_moves_a_goal_on_a_wall_and_says_so(client, arena):
    wall, beside = blocked_and_open(arena)
    start = open_far_from(arena, beside)
    request = {"map": "arena", "start": list(start), "goal": list(wall)}
    refused = client.post("/path", json=request)
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "goal_blocked"
    body = client.post("/path", json={**request, "snap": True}).json()
    assert body["found"] and body["path"][-1] == body["snapped_goal"]
    target = tuple(body["snapped_goal"])
    assert math.dist(target, wall) == 1.0 and arena.is_walkable(*target)
    assert "snapped_start" not in body
    reverse = client.post("/path", json={**request, "start": list(wall), "goal": list(start),
                                          "snap": True}).json()  # fmt: skip
    assert reverse["snapped_start"] == body["snapped_goal"] and "snapped_goal" not in reverse


def test_snap_changes_nothing_when_nothing_moves(client, arena):
    _, beside = blocked_and_open(arena)
    request = {"map": "arena", "start": list(beside), "goal": list(open_far_from(arena, beside))}
    plain = client.post("/path", json=request)
    snapped = client.post("/path", json={**request, "snap": True})
    assert plain.content == snapped.content


def test_snap_in_a_batch_with_goals_skips_and_lists(client, arena):
    wall, beside = blocked_and_open(arena)
    start = open_far_from(arena, beside)
    query = {"start": list(start), "goals": [[10**6, 0]], "snap": True}
    goals = [list(wall), list(beside)]
    response = client.post(
        "/paths",
        json={"map": "arena", "queries": [{**query, "goals": goals}, query]},
    )
    first, second = response.json()["results"]
    assert first["found"] and first["goal_index"] in (0, 1)
    assert first["snapped_goals"][0]["index"] == 0
    assert second["error"]["code"] == "out_of_bounds"


def test_theta_over_http_validates_in_waypoints_mode(client, arena):
    _, beside = blocked_and_open(arena)
    far = open_far_from(arena, beside)
    request = {"map": "arena", "start": list(beside), "goal": list(far), "algorithm": "theta"}
    body = client.post("/path", json=request).json()
    assert body["found"] and body["algorithm"] == "theta" and body["optimal"] is False
    walkable = arena.passable[1:-1, 1:-1] >= 1
    for a, b in zip(body["waypoints"], body["waypoints"][1:]):
        assert reference_line_of_sight_rule(walkable, a, b, "no_corner_cut")
    check = client.post(
        "/validate",
        json={"map": "arena", "path": body["waypoints"], "mode": "waypoints"},
    ).json()
    assert check["valid"] and check["cost"] == pytest.approx(body["cost"])
    grid = client.post("/path", json={**request, "algorithm": "astar"}).json()
    assert body["cost"] <= grid["cost"] + 1e-9
    again = client.post("/path", json=request)
    assert again.json() == body


def test_nearest(client, arena):
    wall, beside = blocked_and_open(arena)
    body = client.get(f"/maps/arena/nearest?x={wall[0]}&y={wall[1]}").json()
    assert body["found"] and body["distance"] == 1.0 and arena.is_walkable(*body["cell"])
    assert body["revision"] == arena.revision
    same = client.get(f"/maps/arena/nearest?x={beside[0]}&y={beside[1]}").json()
    assert same["cell"] == list(beside) and same["distance"] == 0.0
    wide = client.get(f"/maps/arena/nearest?x={beside[0]}&y={beside[1]}&clearance=3").json()
    assert wide["found"] and arena.clearance_at(*wide["cell"]) >= 3


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("x=1", 422, "invalid_request"),
        ("x=a&y=1", 422, "invalid_request"),
        ("x=1&y=1&clearance=0", 422, "invalid_request"),
        ("x=-1&y=1", 422, "out_of_bounds"),
        ("x=1&y=99999", 422, "out_of_bounds"),
    ],
)
def test_nearest_bad_input(client, query, status, code):
    response = client.get(f"/maps/arena/nearest?{query}")
    assert response.status_code == status and response.json()["error"]["code"] == code
    missing = client.get("/maps/nosuchmap/nearest?x=1&y=1")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "map_not_found"


def test_nearest_is_declared_and_guarded(client, tmp_path):
    spec = client.get("/openapi.json").json()["paths"]["/maps/{name}/nearest"]["get"]
    assert {"401", "404", "422"} <= set(spec["responses"])
    guarded, _ = make_client(tmp_path, api_token="reader")
    with guarded:
        wait_ready(guarded)
        assert guarded.get("/maps/arena/nearest?x=1&y=1").status_code == 401
        ok = guarded.get("/maps/arena/nearest?x=1&y=1", headers={"Authorization": "Bearer reader"})
        assert ok.status_code == 200
