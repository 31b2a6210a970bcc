"""The HTTP API through the real app (lifespan, routers, error handlers)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from gridpath.search._blocks import block_bytes
from tests.conftest import MAPS_DIR, wait_ready
from tests.reference import path_cost, reference_line_of_sight, step_is_legal


def walkable_of(name):
    from gridpath.grid import load_map
    from tests.conftest import MAPS_DIR

    return np.asarray(load_map(MAPS_DIR / f"{name}.png", max_cells=10**8, max_bytes=10**9).walkable)


def test_health_lists_maps(client):
    response = client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert {"arena", "maze", "field"} <= set(body["maps"])
    assert body["errors"] == []


def test_maps_listing(client):
    listed = client.get("/maps").json()["maps"]
    maps = {m["name"]: m for m in listed if m["kind"] == "grid"}  # polygon maps: their tests
    assert {"arena", "maze", "field"} <= set(maps)
    assert max(m["width"] * m["height"] for m in maps.values()) >= 128 * 128
    for m in maps.values():
        assert 0 < m["walkable"] < m["width"] * m["height"]
        assert m["revision"] == 1 and len(m["sha256"]) == 64
        padded = (m["width"] + 2) * (m["height"] + 2)
        table = 16 * padded if m["jump_table"] else 0
        terrain = padded if len(m["terrain"]) > 1 else 0
        base = 2 * padded + table + terrain + m["tiers"].get("subgoal", 0)
        # labels for other movement rules, once asked for, add a byte per cell each; block
        # JPS's bitsets where the map's runs are long, with their per-line run sums
        lines = (m["width"] + 2) + (m["height"] + 2)
        blocks = block_bytes(m["width"], m["height"]) + 16 * lines
        extra = {k * padded + b for k in range(4) for b in (0, blocks)}
        assert m["memory_bytes"] - base in extra
        assert m["tiers"].get("jps", 0) - table in (0, blocks)
    # block JPS needs no JPS+ table; the maze's 1-wide corridors scan the bytes
    assert not maps["arena"]["jump_table"] and not maps["maze"]["jump_table"]
    assert maps["arena"]["memory_bytes"] > 2 * (51 * 51)  # the arena's bitsets
    # the subgoal tier, by default, on every grid map of one terrain cost
    assert all("subgoal" in m["tiers"] for m in maps.values() if len(m["terrain"]) == 1)
    assert "subgoal" in maps["maze"]["tiers"]


@pytest.mark.parametrize("name", ["arena", "maze", "field"])
def test_path_on_each_demo_map(client, name):
    info = {m["name"]: m for m in client.get("/maps").json()["maps"]}[name]
    walkable = walkable_of(name)
    cells = np.argwhere(walkable)
    start = [int(cells[0][1]), int(cells[0][0])]
    goal = [int(cells[-1][1]), int(cells[-1][0])]
    response = client.post("/path", json={"map": name, "start": start, "goal": goal})
    assert response.status_code == 200
    body = response.json()
    assert list(body) == [
        "map",
        "revision",
        "found",
        "reason",
        "partial",
        "goal_index",
        "cost",
        "path",
        "waypoints",
        "waypoints_cost",
        "path_hash",
        "turns",
        "expanded",
        "algorithm",
        "optimal",
        "bounded_suboptimal",
        "options",
    ]
    assert body["map"] == name and body["found"] is True and body["reason"] is None
    assert body["revision"] == info["revision"]
    path = [tuple(c) for c in body["path"]]
    assert path[0] == tuple(start) and path[-1] == tuple(goal)
    assert all(step_is_legal(walkable, a, b) for a, b in zip(path, path[1:]))
    assert math.isclose(body["cost"], path_cost(path), abs_tol=1e-9)
    waypoints = [tuple(c) for c in body["waypoints"]]
    assert waypoints[0] == tuple(start) and waypoints[-1] == tuple(goal)
    assert set(waypoints) <= set(path)
    assert all(reference_line_of_sight(walkable, a, b) for a, b in zip(waypoints, waypoints[1:]))
    # auto: the subgoal tier on maps of 16,384 cells or more that have it, else JPS
    tier = "subgoal" in info["tiers"] and info["width"] * info["height"] >= 16_384
    assert body["expanded"] >= 1 and body["algorithm"] == ("subgoal" if tier else "jps")


def test_same_request_same_bytes(client):
    request = {"map": "field", "start": [1, 1], "goal": [200, 180]}
    first = client.post("/path", json=request).content
    assert all(client.post("/path", json=request).content == first for _ in range(3))


def test_smooth_false_gives_turning_points(client):
    request = {"map": "arena", "start": [1, 1], "goal": [62, 62]}
    smoothed = client.post("/path", json=request).json()
    raw = client.post("/path", json={**request, "smooth": False}).json()
    assert raw["path"] == smoothed["path"]
    assert len(raw["waypoints"]) >= len(smoothed["waypoints"])


def test_start_equals_goal(client):
    body = client.post("/path", json={"map": "arena", "start": [1, 1], "goal": [1, 1]}).json()
    assert body["found"] and body["cost"] == 0 and body["path"] == [[1, 1]]
    assert body["waypoints"] == [[1, 1]]


def test_unreachable(tmp_path):
    (tmp_path / "split.map").write_text("type octile\nheight 1\nwidth 3\nmap\n.@.\n")
    app = create_app(Settings(maps_dir=tmp_path))
    with TestClient(app) as c:
        from tests.conftest import wait_ready

        wait_ready(c)
        response = c.post("/path", json={"map": "split", "start": [0, 0], "goal": [2, 0]})
    assert response.status_code == 200
    body = response.json()
    assert body["found"] is False and body["reason"] == "unreachable"
    assert body["path"] == [] and body["waypoints"] == [] and body["cost"] is None


@pytest.mark.parametrize(
    "request_body,status,code",
    [
        ({"map": "nope", "start": [1, 1], "goal": [2, 2]}, 404, "map_not_found"),
        ({"map": "arena", "start": [-1, 1], "goal": [2, 2]}, 422, "out_of_bounds"),
        ({"map": "arena", "start": [1, 1], "goal": [64, 2]}, 422, "out_of_bounds"),
        ({"map": "arena", "start": [1, 1], "goal": [2, 10**30]}, 422, "out_of_bounds"),
        ({"map": "arena", "start": [0, 0], "goal": [2, 2]}, 422, "start_blocked"),
        ({"map": "arena", "start": [1, 1], "goal": [0, 0]}, 422, "goal_blocked"),
        ({"map": "arena", "start": [1.5, 1], "goal": [2, 2]}, 422, "invalid_request"),
        ({"map": "arena", "start": [1.0, 1], "goal": [2, 2]}, 422, "invalid_request"),
        ({"map": "arena", "start": ["1", 1], "goal": [2, 2]}, 422, "invalid_request"),
        ({"map": "arena", "start": [True, 1], "goal": [2, 2]}, 422, "invalid_request"),
        ({"map": "arena", "start": [1, 1, 1], "goal": [2, 2]}, 422, "invalid_request"),
        ({"map": "arena", "start": [1], "goal": [2, 2]}, 422, "invalid_request"),
        ({"map": "arena", "start": [1, 1]}, 422, "invalid_request"),
        ({"map": "../maps/arena", "start": [1, 1], "goal": [2, 2]}, 422, "invalid_request"),
        (
            {"map": "arena", "start": [1, 1], "goal": [2, 2], "smooth": "yes"},
            422,
            "invalid_request",
        ),
        ({"map": "arena", "start": [1, 1], "goal": [2, 2], "smoth": True}, 422, "invalid_request"),
        ([1, 2, 3], 422, "invalid_request"),
    ],
)
def test_bad_input_error_codes(client, request_body, status, code):
    response = client.post("/path", json=request_body)
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


@pytest.mark.parametrize(
    "content,headers",
    [
        (b"{not json", {"content-type": "application/json"}),
        (b"", {"content-type": "application/json"}),
        (b'{"map": "arena"', {"content-type": "application/json"}),
        (b"\xff\xfe\x00", {"content-type": "application/json"}),
        (b'{"map": "arena", "start": [1, 1], "goal": [2, 2]}', {"content-type": "text/plain"}),
    ],
)
def test_malformed_bodies(client, content, headers):
    response = client.post("/path", content=content, headers=headers)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"


def test_error_messages_name_the_problem(client):
    message = client.post("/path", json={"map": "arena", "start": [1, 1]}).json()["error"][
        "message"
    ]
    assert "goal" in message
    message = client.post("/path", json={"map": "arena", "start": [1, 99], "goal": [1, 1]}).json()[
        "error"
    ]["message"]
    assert "start" in message and "[1, 99]" in message and "0..63" in message


def test_body_size_limit(client):
    big = b'{"map": "arena", "pad": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    response = client.post("/path", content=big, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"

    def chunks():
        for _ in range(30):
            yield b" " * 100_000

    response = client.post("/path", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_unknown_endpoint_and_method(client):
    assert client.get("/nope").json()["error"]["code"] == "not_found"
    response = client.get("/path")
    assert response.status_code == 405 and response.json()["error"]["code"] == "method_not_allowed"


def test_openapi_declares_models(client):
    schema = client.get("/openapi.json").json()
    post = schema["paths"]["/path"]["post"]
    answers = post["responses"]["200"]["content"]["application/json"]["schema"]["anyOf"]
    assert [a["$ref"].rsplit("/", 1)[1] for a in answers] == [
        "PathResponse",  # a grid's
        "PolygonPathResponse",
        "WorldPathResponse",  # through a world (docs/worlds.md)
    ]
    for status in ("404", "422"):
        assert post["responses"][status]["content"]["application/json"]["schema"]["$ref"].endswith(
            "/ErrorResponse"
        )
    props = schema["components"]["schemas"]["PathResponse"]["properties"]
    assert {"map", "found", "cost", "path", "waypoints", "expanded"} <= set(props)


def test_not_ready_before_startup_finishes(tmp_path, monkeypatch):
    import threading

    from app import state as service

    gate = threading.Event()
    real_serving = service.StagedWarmUp.serving
    monkeypatch.setattr(
        service.StagedWarmUp, "serving", lambda self: gate.wait(30) and real_serving(self)
    )
    app = create_app(Settings(maps_dir=tmp_path))
    with TestClient(app) as c:
        health = c.get("/health")
        assert health.status_code == 503 and health.json()["status"] == "starting"
        assert "kernel step 1 of" in health.json()["waiting_for"]  # says what it waits for
        response = c.post("/path", json={"map": "arena", "start": [1, 1], "goal": [2, 2]})
        assert response.status_code == 503 and response.json()["error"]["code"] == "not_ready"
        gate.set()
        from tests.conftest import wait_ready

        wait_ready(c)


def test_health_reports_broken_map_and_serves_the_rest(tmp_path):
    (tmp_path / "ok.map").write_text("type octile\nheight 1\nwidth 2\nmap\n..\n")
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\ntruncated")
    app = create_app(Settings(maps_dir=tmp_path))
    with TestClient(app) as c:
        from tests.conftest import wait_ready

        wait_ready(c)
        body = c.get("/health").json()
        assert body["maps"] == ["ok"]
        assert body["errors"][0]["file"] == "bad.png" and body["errors"][0]["reason"]
        assert c.post("/path", json={"map": "ok", "start": [0, 0], "goal": [1, 0]}).json()["found"]


def test_the_subgoal_tier_by_name():
    """The preprocessed tier answers where the revision has it, with the optimal cost;
    auto takes it on maps of 16,384 cells or more (maze), stays on JPS on smaller ones
    (arena); GET /maps lists the tier with its bytes."""
    app = create_app(Settings(maps_dir=MAPS_DIR))  # the default: every map gets the tier
    with TestClient(app) as client:
        wait_ready(client)
        _subgoal_tier_by_name(client)


def _subgoal_tier_by_name(client):
    arena = {m["name"]: m for m in client.get("/maps").json()["maps"]}["arena"]
    # the subgoal tier: a byte per padded cell plus the hierarchy, on uniform-cost maps
    assert arena["tiers"]["subgoal"] > (arena["width"] + 2) ** 2
    query = {"map": "arena", "start": [2, 2], "goal": [24, 9]}
    default = client.post("/path", json=query).json()
    tier = client.post("/path", json={**query, "algorithm": "subgoal"}).json()
    assert default["algorithm"] == "jps" and tier["algorithm"] == "subgoal"
    assert tier["found"] and tier["optimal"] and tier["cost"] == pytest.approx(default["cost"])
    again = client.post("/path", json={**query, "algorithm": "subgoal"}).json()
    assert again["path_hash"] == tier["path_hash"]
    costly = client.post(
        "/path", json={**query, "algorithm": "subgoal", "terrain_costs": {"ground": 2}}
    ).json()
    assert costly["found"] and costly["algorithm"] != "subgoal"  # served as auto
    maze = {m["name"]: m for m in client.get("/maps").json()["maps"]}["maze"]
    assert maze["width"] * maze["height"] >= 16_384 and "subgoal" in maze["tiers"]
    ends = {"map": "maze", "start": [1, 1], "goal": [127, 127]}
    auto = client.post("/path", json=ends).json()
    jps = client.post("/path", json={**ends, "algorithm": "jps"}).json()
    assert auto["algorithm"] == "subgoal" and jps["algorithm"] == "jps"
    assert auto["found"] and auto["cost"] == pytest.approx(jps["cost"], abs=1e-9)
    assert client.post("/path", json=ends).json() == auto  # the same body again


def test_a_query_whose_kernels_still_compile_gets_503_warming_up(client):
    """A first start serves before every kernel is compiled (gridpath/search/staged.py):
    meanwhile a query that needs a pending step is refused, with Retry-After, and declared
    so in the OpenAPI document; other algorithms answer as usual."""
    from gridpath.search import warming

    body = {"map": "arena", "start": [2, 2], "goal": [24, 9]}
    warming.mark_pending("a test's step", ("theta",))  # the gate, as a first start has it
    try:
        response = client.post("/path", json={**body, "algorithm": "theta"})
        assert response.status_code == 503 and response.headers["retry-after"] == "5"
        assert response.json()["error"]["code"] == "warming_up"
        assert client.post("/path", json=body).json()["algorithm"] == "jps"
    finally:
        warming.mark_ready(("theta",))
    assert client.post("/path", json={**body, "algorithm": "theta"}).status_code == 200
    declared = client.get("/openapi.json").json()["paths"]["/path"]["post"]["responses"]["503"]
    assert "`warming_up`" in declared["description"] and "Retry-After" in declared["headers"]
    health = client.get("/health").json()
    assert health["waiting_for"] is None and health["kernels"]["waiting"] == []
