"""POST /path options and POST /paths batches through the real app."""

from __future__ import annotations

import numpy as np
import pytest

from gridpath.grid import load_map
from gridpath.search import SearchOptions
from gridpath.search.algorithms import ALGORITHMS, is_optimal
from tests.conftest import MAPS_DIR
from tests.reference import step_is_legal

ARENA = {"map": "arena", "start": [2, 2], "goal": [40, 50]}
ARENA_WALKABLE = np.asarray(
    load_map(MAPS_DIR / "arena.png", max_cells=10**6, max_bytes=10**7).walkable, dtype=bool
)


def post(client, body, url="/path"):
    return client.post(url, json=body)


def test_options_are_echoed(client):
    body = post(client, {**ARENA, "algorithm": "dijkstra", "connectivity": 4}).json()
    assert body["algorithm"] == "dijkstra" and body["optimal"] is True
    assert body["bounded_suboptimal"] is False
    assert body["options"] == {
        "algorithm": "dijkstra",
        "heuristic": "manhattan",
        "heuristic_weight": 1.0,
        "connectivity": 4,
        "diagonal": "never",
        "cost_model": "float",
        "max_expanded": 16_000_000,
        "max_cost": None,
        "closest": False,
        "clearance": 1,
        "turn_penalty": 0.0,
        "terrain_costs": {"ground": 1.0},
        "smooth": True,
    }


@pytest.mark.parametrize("algorithm", list(ALGORITHMS), ids=lambda a: a.value)
def test_each_algorithm_over_http(client, algorithm):
    """Every algorithm of the registry (a new one joins by its registry line) answers with
    the default options, flagged optimal as the registry says."""
    body = post(client, {**ARENA, "algorithm": algorithm.value}).json()
    assert body["found"] and body["path"][0] == [2, 2] and body["path"][-1] == [40, 50]
    assert body["optimal"] is is_optimal(SearchOptions(algorithm=algorithm))


def test_optimal_algorithms_agree_and_greedy_is_flagged(client):
    costs = {
        a: post(client, {**ARENA, "algorithm": a}).json()["cost"]
        for a in ("astar", "dijkstra", "greedy")
    }
    assert costs["astar"] == costs["dijkstra"] <= costs["greedy"]
    weighted = post(client, {**ARENA, "heuristic_weight": 3}).json()
    assert weighted["bounded_suboptimal"] is True and weighted["optimal"] is False
    assert weighted["cost"] <= 3 * costs["astar"]


def test_integer_cost_model_is_integer(client):
    body = post(client, {**ARENA, "cost_model": "integer"}).json()
    assert isinstance(body["cost"], int)


def test_blocked_goals_include_explored(client):
    base = post(client, ARENA).json()
    middle = base["path"][len(base["path"]) // 2]
    detour = post(client, {**ARENA, "blocked": [middle]}).json()
    assert detour["found"] and middle not in detour["path"] and detour["cost"] >= base["cost"]
    multi = post(
        client,
        {
            "map": "arena",
            "start": [2, 2],
            "goals": [[40, 50], [3, 3]],
            "include": ["path", "explored"],
        },
    ).json()
    assert multi["goal_index"] == 1 and multi["path"][-1] == [3, 3]
    assert "waypoints" not in multi and len(multi["explored"]) == multi["expanded"]


def test_closest_on_unreachable_goal(client):
    # A wall of blocked cells around the goal makes it unreachable for this request only.
    goal = [40, 50]
    ring = [[goal[0] + dx, goal[1] + dy] for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    body = post(client, {**ARENA, "blocked": ring, "closest": True}).json()
    assert body["found"] is False and body["partial"] is True and body["reason"] == "unreachable"
    assert body["path"][0] == [2, 2] and body["cost"] > 0
    assert max(abs(body["path"][-1][0] - goal[0]), abs(body["path"][-1][1] - goal[1])) == 2
    plain = post(client, {**ARENA, "blocked": ring}).json()
    assert plain["path"] == [] and plain["partial"] is False


def test_limit_reached(client):
    body = post(client, {**ARENA, "max_expanded": 5}).json()
    assert body["found"] is False and body["reason"] == "limit_reached" and body["expanded"] == 5


@pytest.mark.parametrize(
    "extra,code",
    [
        ({"algorithm": "dfs"}, "invalid_algorithm"),
        ({"heuristic": "magic"}, "invalid_heuristic"),
        ({"connectivity": 6}, "invalid_connectivity"),
        ({"diagonal": "sometimes"}, "invalid_diagonal"),
        ({"cost_model": "fixed"}, "invalid_cost_model"),
        ({"heuristic_weight": 0.5}, "invalid_heuristic_weight"),
        ({"max_cost": -1}, "invalid_max_cost"),
        ({"max_expanded": 0}, "invalid_max_expanded"),
        ({"blocked": [[1, 2, 3]]}, "invalid_blocked"),
        ({"blocked": [[1, 1]] * 5000}, "invalid_blocked"),
        ({"include": ["everything"]}, "invalid_include"),
        ({"goals": []}, "invalid_goals"),
        ({"goals": [[1, 1]]}, "invalid_goals"),  # both goal and goals
        ({"blocked": [[900, 1]]}, "out_of_bounds"),
        ({"blocked": [[40, 50]]}, "goal_blocked"),
        ({"blocked": [[2, 2]]}, "start_blocked"),
    ],
)
def test_bad_options(client, extra, code):
    response = post(client, {**ARENA, **extra})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == code


@pytest.mark.parametrize("raw", [b'"heuristic_weight": NaN', b'"max_cost": Infinity'])
def test_nan_and_infinity_refused(client, raw):
    content = b'{"map": "arena", "start": [2, 2], "goal": [40, 50], ' + raw + b"}"
    response = client.post("/path", content=content, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] in (
        "invalid_heuristic_weight",
        "invalid_max_cost",
        "invalid_request",
    )


@pytest.mark.parametrize(
    "url,body,code",
    [
        ("/path", {**ARENA, "heuristic_weight": True}, "invalid_heuristic_weight"),
        ("/path", {**ARENA, "max_cost": "50"}, "invalid_max_cost"),
        ("/path", {**ARENA, "turn_penalty": False}, "invalid_turn_penalty"),
        ("/path", {**ARENA, "terrain_costs": {"ground": True}}, "invalid_terrain_costs"),
        ("/validate", {"map": "arena", "path": [[2, 2]], "max_cost": True}, "invalid_max_cost"),
        (
            "/flowfield",
            {"map": "arena", "goal": [40, 50], "terrain_costs": {"ground": "2"}},
            "invalid_terrain_costs",
        ),
    ],
)
def test_numbers_are_not_bools_or_strings(client, url, body, code):
    """Number fields are strict like the integer and boolean ones (they used to take true
    as 1, false as 0 and "50" as 50)."""
    response = post(client, body, url)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == code
    if url == "/path":  # the same query in a batch fails alone
        query = {k: v for k, v in body.items() if k != "map"}
        batch = post(client, {"map": "arena", "queries": [query]}, "/paths").json()
        assert batch["results"][0]["error"]["code"] == code


def test_batch_in_order_with_per_query_errors(client):
    queries = [
        {"start": [2, 2], "goal": [40, 50]},
        {"start": [0, 0], "goal": [40, 50]},
        {"start": [2, 2], "goal": [40, 50], "algorithm": "bfs", "connectivity": 4},
        {"start": [2, 2]},
        {"start": [2, 2], "goal": [40, 50], "algorithm": "nope"},
    ]
    response = post(client, {"map": "arena", "queries": queries}, "/paths")
    assert response.status_code == 200
    results = response.json()["results"]
    assert len(results) == 5
    single = post(client, {**ARENA}).json()
    # The same answer, but for the cap: a batch shares MAX_BATCH_EXPANDED among its queries.
    assert results[0]["options"].pop("max_expanded") == 64_000_000 // 5
    single["options"].pop("max_expanded")
    assert results[0] == single
    assert results[1] == {
        "error": {
            "code": "start_blocked",
            "message": "start [0, 0] is a blocked cell on map 'arena'",
        }
    }
    assert results[2]["algorithm"] == "bfs" and results[2]["found"]
    assert results[3]["error"]["code"] == "invalid_request"
    assert results[4]["error"]["code"] == "invalid_algorithm"


def test_batch_errors(client):
    too_many = {"map": "arena", "queries": [{"start": [2, 2], "goal": [3, 3]}] * 1001}
    response = post(client, too_many, "/paths")
    assert response.status_code == 422 and response.json()["error"]["code"] == "batch_too_large"
    response = post(client, {"map": "nope", "queries": []}, "/paths")
    assert response.status_code == 404
    response = post(client, {"map": "arena"}, "/paths")
    assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_request"


def test_batch_of_many_queries_is_consistent(client):
    queries = [{"start": [2, 2], "goal": [x, 50]} for x in range(30, 50)]
    results = post(client, {"map": "arena", "queries": queries}, "/paths").json()["results"]
    for query, result in zip(queries, results):
        if "error" in result:
            assert result["error"]["code"] == "goal_blocked"
            continue
        single = post(client, {"map": "arena", **query}).json()
        assert {**result, "options": None} == {**single, "options": None}
        cells = [tuple(c) for c in result["path"]]
        assert cells[0] == (2, 2) and cells[-1] == tuple(query["goal"])
        assert all(step_is_legal(ARENA_WALKABLE, a, b) for a, b in zip(cells, cells[1:]))


@pytest.mark.parametrize(
    "extra,code",
    [
        ({"terrain_costs": {"lava": 2}}, "invalid_terrain_costs"),
        ({"terrain_costs": {"ground": -1}}, "invalid_terrain_costs"),
        ({"terrain_costs": {"ground": 0}}, "invalid_terrain_costs"),
        ({"terrain_costs": {"ground": 1.5}, "cost_model": "integer"}, "invalid_cost_model"),
    ],
)
def test_bad_terrain_costs(client, extra, code):
    response = post(client, {**ARENA, **extra})
    assert response.status_code == 422 and response.json()["error"]["code"] == code


def test_terrain_override_changes_cost(client):
    cheap = post(client, {**ARENA, "terrain_costs": {"ground": 2}}).json()
    base = post(client, ARENA).json()
    assert cheap["cost"] == pytest.approx(2 * base["cost"])
    assert cheap["options"]["terrain_costs"] == {"ground": 2.0}


def test_clearance_over_http(client):
    body = post(client, {**ARENA, "clearance": 2}).json()
    assert body["found"] and body["options"]["clearance"] == 2
    response = post(client, {**ARENA, "clearance": 300})
    assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_clearance"
    response = post(client, {**ARENA, "clearance": 60})
    assert response.status_code == 422 and response.json()["error"]["code"] == "start_blocked"


def test_flowfield_over_http(client):
    import base64

    request = {"map": "arena", "goal": [40, 50]}
    first = client.post("/flowfield", json=request)
    assert first.status_code == 200 and first.headers["x-cache"] == "miss"
    body = first.json()
    assert (body["width"], body["height"]) == (64, 64)
    cost = np.frombuffer(base64.b64decode(body["cost"]["data"]), dtype=body["cost"]["dtype"])
    cost = cost.reshape(body["cost"]["shape"])
    nxt = np.frombuffer(base64.b64decode(body["next"]["data"]), dtype=body["next"]["dtype"])
    assert nxt.reshape(64, 64)[50, 40] == -1 and cost[50, 40] == 0
    path = post(client, {**ARENA}).json()
    assert cost[2, 2] == pytest.approx(path["cost"], abs=1e-9)
    assert body["reachable"] == int((cost >= 0).sum())
    second = client.post("/flowfield", json=request)
    assert second.headers["x-cache"] == "hit" and second.content == first.content
    picture = client.post("/flowfield", json={**request, "format": "png"})
    assert picture.status_code == 200 and picture.content.startswith(b"\x89PNG")
    bad = client.post("/flowfield", json={**request, "diagonal": "maybe"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_diagonal"
    blocked_goal = client.post("/flowfield", json={"map": "arena", "goal": [0, 0]})
    assert (
        blocked_goal.status_code == 422 and blocked_goal.json()["error"]["code"] == "goal_blocked"
    )
    assert len(client.app.state.service.flowfields) >= 2


def test_timing_is_opt_in_and_always_in_the_header(client):
    plain = post(client, ARENA)
    assert "search_us" not in plain.json()
    assert plain.headers["server-timing"].startswith("search;dur=")
    timed = post(client, {**ARENA, "include": ["path", "timing"]}).json()
    assert timed["search_us"] >= 0 and "waypoints" not in timed
    batch = post(
        client, {"map": "arena", "queries": [{"start": [2, 2], "goal": [40, 50]}]}, "/paths"
    )
    assert batch.headers["server-timing"].startswith("search;dur=")
    check = client.post(
        "/validate", json={"map": "arena", "path": [[2, 2], [3, 3]], "timing": True}
    )
    assert check.json()["search_us"] >= 0 and "server-timing" in check.headers


def test_batch_shares_an_expansion_budget(tmp_path):
    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app
    from tests.conftest import MAPS_DIR, wait_ready

    app = create_app(Settings(maps_dir=MAPS_DIR, max_batch_expanded=100))
    with TestClient(app) as c:
        wait_ready(c)
        queries = [{"start": [2, 2], "goal": [40, 50], "algorithm": "astar"}] * 4
        results = c.post("/paths", json={"map": "arena", "queries": queries}).json()["results"]
        assert all(r["reason"] == "limit_reached" and r["expanded"] == 25 for r in results)
        assert all(r["options"]["max_expanded"] == 25 for r in results)


@pytest.mark.parametrize(
    "url,body",
    [
        ("/validate", {"map": "arena", "path": [[2, 2], [3, 3]], "blocked": [[99, 1]]}),
        ("/flowfield", {"map": "arena", "goal": [40, 50], "blocked": [[99, 1]]}),
        ("/path", {**ARENA, "blocked": [[99, 1]]}),
    ],
)
def test_blocked_cells_off_the_map_are_refused_everywhere(client, url, body):
    response = client.post(url, json=body)
    assert response.status_code == 422 and response.json()["error"]["code"] == "out_of_bounds"


@pytest.mark.parametrize(
    ("url", "body", "module", "name"),
    [
        ("/path", ARENA, "app.api.path_body", "find_path"),
        (
            "/paths",
            {"map": "arena", "queries": [{"start": [2, 2], "goal": [40, 50]}] * 2},
            "app.api.path_batch",
            "find_pairs",  # a batch's common queries: one call per chunk
        ),
        (
            "/paths",
            {"map": "arena", "queries": [{"start": [2, 2], "goal": [40, 50], "smooth": False}]},
            "app.api.path_body",
            "find_path",
        ),
        (
            "/validate",
            {"map": "arena", "path": [[2, 2], [3, 3]], "mode": "cells"},
            "app.api.grid_kind",
            "validate_path",
        ),
        (
            "/flowfield",
            {"map": "arena", "goal": [5, 7]},
            "app.api.routes.flowfield",
            "flow_field",
        ),
    ],
)
def test_searches_run_on_search_threads_not_the_event_loop(
    client, monkeypatch, url, body, module, name
):
    """The event loop only parses and answers: every search whose worst case is over
    INLINE_SEARCH_EXPANSIONS (here 0: all of them) runs on one of the service's
    SEARCH_THREADS threads (named "search_N"), never on the loop's own thread."""
    import importlib
    import threading

    monkeypatch.setattr(client.app.state.service.settings, "inline_search_expansions", 0)
    target = importlib.import_module(module)
    real = getattr(target, name)
    threads: list[str] = []

    def recording(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, recording)
    request = {**body, "goal": [6, 7]} if url == "/flowfield" else body  # not cached yet
    response = client.post(url, json=request)
    assert response.status_code == 200, response.text
    assert threads and all(t.startswith("search") for t in threads), threads


def test_tiny_searches_run_inline_and_the_rest_on_search_threads(client, monkeypatch):
    """A search whose worst case is at most INLINE_SEARCH_EXPANSIONS (any on the 64 x 64
    arena, or one with a small max_expanded) runs on the event loop, with a search thread's
    scratch; a larger one still goes to a search thread. Same answers either way."""
    import threading

    import app.api.path_body as path_body

    real, threads = path_body.find_path, []

    def recording(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(path_body, "find_path", recording)
    far = {"map": "field", "start": [1, 1], "goal": [250, 250]}
    inline = client.post("/path", json=ARENA)
    capped = client.post("/path", json={**far, "max_expanded": 100})
    queued = client.post("/path", json=far)
    assert [r.status_code for r in (inline, capped, queued)] == [200, 200, 200]
    assert not threads[0].startswith("search") and not threads[1].startswith("search")
    assert threads[2].startswith("search"), threads
    settings = client.app.state.service.settings
    monkeypatch.setattr(settings, "inline_search_expansions", 0)
    assert client.post("/path", json=ARENA).content == inline.content
    assert client.post("/path", json={**far, "max_expanded": 100}).content == capped.content
    assert threads[3].startswith("search") and threads[4].startswith("search"), threads


@pytest.mark.parametrize("cost", [1e308, 1_000_000.5])
def test_terrain_costs_above_the_bound_are_refused(client, cost):
    # A cost of 1e308 made the path cost overflow to null in a 200 answer.
    r = client.post(
        "/path",
        json={"map": "arena", "start": [2, 2], "goal": [5, 2], "terrain_costs": {"ground": cost}},
    )
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "invalid_terrain_costs"
    ok = client.post(
        "/path",
        json={"map": "arena", "start": [2, 2], "goal": [5, 2], "terrain_costs": {"ground": 1e6}},
    )
    assert ok.status_code == 200 and ok.json()["cost"] == 3e6
