"""The lean ``POST /path`` and ``POST /paths`` routes (app/api/routes/paths.py,
``serve_path``, ``serve_paths``) answer exactly what the FastAPI routes that declare them
(``post_path``, ``post_paths``) answer.

Two apps on the same maps: the service as built, and the same service without the lean
routes (FastAPI's declared routes then serve ``/path`` and ``/paths``). Each request below
goes to both; status, headers (but the request id) and body bytes must be equal, for good
requests, every kind of bad one, and the service's refusals (token, not ready, stale
revision).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.api.routes.paths import serve_path, serve_paths
from app.config import Settings
from app.main import create_app
from tests.conftest import MAPS_DIR, wait_ready

TOKEN = "lean-route-token"
GOOD = {"map": "arena", "start": [2, 2], "goal": [24, 9]}


def _without_lean_route(app: FastAPI) -> FastAPI:
    app.router.routes = [
        r
        for r in app.router.routes
        if getattr(r, "endpoint", None) not in (serve_path, serve_paths)
    ]
    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[TestClient, TestClient]]:
    settings = Settings(maps_dir=MAPS_DIR, api_token=TOKEN)
    with (
        TestClient(create_app(settings)) as direct,
        TestClient(_without_lean_route(create_app(settings))) as routed,
    ):
        wait_ready(direct)
        wait_ready(routed)
        yield direct, routed


def _comparable(response) -> tuple:
    headers = sorted(
        (k, v)
        for k, v in response.headers.items()
        if k not in ("x-request-id", "server-timing", "date")
    )
    return response.status_code, headers, response.content


def _both(pair, content: bytes | None, headers: dict[str, str], path: str = "/path") -> tuple:
    direct, routed = pair
    sent = {"authorization": f"Bearer {TOKEN}", **headers}
    one = direct.post(path, content=content, headers=sent)
    other = routed.post(path, content=content, headers=sent)
    assert _comparable(one) == _comparable(other), (one.text, other.text)
    assert "x-request-id" in one.headers
    return one.status_code, one.content


JSON = {"content-type": "application/json"}
# Through the example world (maps/keep.world.json): good, and each kind of mistake.
PLACES = {"start": {"map": "keep_1", "cell": [2, 2]}, "goal": {"map": "keep_2", "cell": [40, 13]}}
WORLD_BODIES = [
    {"world": "keep", **PLACES},
    {"world": "keep", **PLACES, "algorithm": "dijkstra", "links": {"exclude_tags": ["stairs"]}},
    {"world": "nowhere", **PLACES},
    {"world": "keep", "map": "keep_1", **PLACES},
    {"world": "keep", "start": [2, 2], "goal": [40, 13]},
    {"world": "keep", **PLACES, "world_revision": 99},
    {"world": "keep", **PLACES, "snap": True},
]
BODIES = [
    GOOD,
    {**GOOD, "include": ["path", "waypoints"]},  # not timing: search_us varies
    {**GOOD, "algorithm": "astar", "smooth": False, "include": ["explored"]},
    {**GOOD, "goals": [[24, 9], [3, 3]], "goal": None},
    {**GOOD, "revision": 1},
    {**GOOD, "snap": True, "start": [0, 0]},
    {"map": "nope", "start": [1, 1], "goal": [2, 2]},
    {"map": "arena", "start": [-1, 1], "goal": [2, 2]},
    {"map": "arena", "start": [1, 1], "goal": [2, 10**30]},
    {"map": "arena", "start": [0, 0], "goal": [2, 2]},
    {"map": "arena", "start": [1.5, 1], "goal": [2, 2]},
    {"map": "arena", "start": ["1", 1], "goal": [2, 2]},
    {"map": "arena", "start": [True, 1], "goal": [2, 2]},
    {"map": "arena", "start": [1, 1]},
    {"map": "../maps/arena", "start": [1, 1], "goal": [2, 2]},
    {**GOOD, "smoth": True},
    {**GOOD, "connectivity": 6, "heuristic_weight": -1},
    {**GOOD, "max_expanded": 0},
    {**GOOD, "time_budget_ms": 10**40},
    {**GOOD, "terrain_costs": {"sand": "x"}},
    {**GOOD, "blocked": [[3, 3], [4]]},
    {**GOOD, "revision": 0},
    {"map": "courtyard", "start": [1.25, 2.5], "goal": [45, 15]},  # a polygon map
    {"map": "courtyard", "start": [20, 15], "goal": [45, 15]},
    {"map": "courtyard", "start": [1, 1], "goal": [5, 5], "connectivity": 4},
    [1, 2, 3],
    "arena",
    None,
    {},
    *WORLD_BODIES,
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_same_answers_as_fastapi(pair, body):
    _both(pair, json.dumps(body).encode(), JSON)


QUERY = {k: v for k, v in GOOD.items() if k != "map"}
BATCHES = [
    {"map": "arena", "queries": [QUERY, {"start": [3, 3], "goal": [40, 50]}]},
    {"map": "arena", "queries": [QUERY] + [b for b in BODIES if isinstance(b, dict)]},
    {"map": "arena", "queries": [QUERY, 1, "x", None, []]},
    {"map": "arena", "queries": [], "revision": 1},
    {"map": "arena", "queries": [QUERY], "revision": 0},
    {"map": "arena", "queries": [QUERY] * 1001},
    {"map": "arena", "queries": "x"},
    {"map": "arena"},
    {"map": "nope", "queries": []},
    {"map": "arena", "queries": [], "extra": 1},
    {"map": "courtyard", "queries": [{"start": [1.25, 2.5], "goal": [45, 15]}, QUERY]},
    {"world": "keep", "queries": [PLACES, QUERY, {**PLACES, "algorithm": "bfs"}]},
    {"world": "keep", "map": "keep_1", "queries": [PLACES]},
    {"world": "nowhere", "queries": [PLACES]},
    {"world": "keep", "queries": "x"},
    [1, 2, 3],
    "arena",
    None,
    {},
]


@pytest.mark.parametrize("body", BATCHES, ids=range(len(BATCHES)))
def test_same_batch_answers_as_fastapi(pair, body):
    _both(pair, json.dumps(body).encode(), JSON, "/paths")


@pytest.mark.parametrize(
    "content,headers",
    [
        (b"{not json", JSON),
        (b"", JSON),
        (b'{"map": "arena"', JSON),
        (b"\xff\xfe\x00", JSON),
        (b'\xef\xbb\xbf{"map": "arena", "start": [2, 2], "goal": [24, 9]}', JSON),
        (b'{"map": "arena", "start": [2, 2], "goal": [24, NaN]}', JSON),
        (b'{"map": "arena", "map": "field", "start": [2, 2], "goal": [24, 9]}', JSON),
        (b"[" * 5000 + b"]" * 5000, JSON),
        # orjson decodes these differently or not at all: the lean route's decoding must not show
        (b'{"map": "arena", "start": [2, 2], "goal": [24, 1e400]}', JSON),
        (b'{"map": "ar\\ud800ena", "start": [2, 2], "goal": [24, 9]}', JSON),
        (b'{"map": "arena", "start": [2, 2], "goal": [24, 18446744073709551616]}', JSON),
        (b'{"map": "arena", "start": [2, 2], "goal": [24, -9223372036854775809]}', JSON),
        (b'{"map": "arena", "start": [2, 2], "goal": [24, 9.0000000000000000000001]}', JSON),
        (b'{"map": "arena", "start": [2, 2], "goal": [24, 9], "revision": -0}', JSON),
        (json.dumps(GOOD).encode(), {"content-type": "text/plain"}),
        (json.dumps(GOOD).encode(), {"content-type": "application/vnd.game+json; charset=utf-8"}),
        (json.dumps(GOOD).encode(), {"content-type": "APPLICATION/JSON"}),
        (json.dumps(GOOD).encode(), {"content-type": "application"}),
        (json.dumps(GOOD).encode(), {}),
    ],
)
@pytest.mark.parametrize("path", ["/path", "/paths"])
def test_same_answers_for_malformed_bodies(pair, content, headers, path):
    _both(pair, content, headers, path)


def test_same_refusals(pair):
    direct, routed = pair
    for client in pair:  # no token: 401 from the guard, whatever the body
        assert client.post("/path", content=b"{", headers=JSON).status_code == 401
    one = direct.post("/path", json=GOOD, headers={"authorization": "Bearer wrong"})
    other = routed.post("/path", json=GOOD, headers={"authorization": "Bearer wrong"})
    assert _comparable(one) == _comparable(other) and one.status_code == 401
    # Not ready: 503 not_ready, after a body that is not JSON got its 422 (FastAPI's order).
    for client in pair:
        client.app.state.service.ready.clear()
    try:
        assert _both(pair, json.dumps(GOOD).encode(), JSON)[0] == 503
        assert _both(pair, b"{", JSON)[0] == 422
        assert _both(pair, json.dumps(BATCHES[0]).encode(), JSON, "/paths")[0] == 503
        assert _both(pair, b"{", JSON, "/paths")[0] == 422
    finally:
        for client in pair:
            client.app.state.service.ready.set()
    # A revision this process has not reached: the wait, then 409 stale_revision.
    for client in pair:
        client.app.state.service.settings.revision_wait_ms = 1
    assert _both(pair, json.dumps({**GOOD, "revision": 99}).encode(), JSON)[0] == 409
    stale = {**BATCHES[0], "revision": 99}
    assert _both(pair, json.dumps(stale).encode(), JSON, "/paths")[0] == 409


def test_other_methods_and_paths_stay_with_fastapi(pair):
    direct, routed = pair
    auth = {"authorization": f"Bearer {TOKEN}"}
    for method, path in [("GET", "/path"), ("PUT", "/path"), ("POST", "/path/")]:
        one = direct.request(method, path, headers=auth, follow_redirects=False)
        other = routed.request(method, path, headers=auth, follow_redirects=False)
        assert _comparable(one) == _comparable(other)
        assert one.status_code in (307, 405)


def test_path_takes_the_lean_route(pair):
    direct, routed = pair
    lean = [r for r in direct.app.router.routes if getattr(r, "endpoint", None) is serve_path]
    assert len(lean) == 1 and lean[0].path == "/path" and lean[0].methods == {"POST"}
    assert not [r for r in routed.app.router.routes if getattr(r, "endpoint", None) is serve_path]
    lean = [r for r in direct.app.router.routes if getattr(r, "endpoint", None) is serve_paths]
    assert len(lean) == 1 and lean[0].path == "/paths" and lean[0].methods == {"POST"}
    # The metrics label the request by its route, as when the router matched it.
    auth = {"authorization": f"Bearer {TOKEN}"}
    label = 'gridpath_http_requests_total{method="POST",route="/path",status="200"} '

    def served() -> float:
        lines = direct.get("/metrics", headers=auth).text.splitlines()
        return sum(float(x[len(label) :]) for x in lines if x.startswith(label))

    before = served()
    assert direct.post("/path", json=GOOD, headers=auth).status_code == 200
    assert served() == before + 1


def test_same_answers_for_a_body_in_chunks(pair):
    direct, routed = pair
    body = json.dumps(GOOD).encode()

    def chunks():
        for i in range(0, len(body), 7):
            yield body[i : i + 7]

    sent = {"authorization": f"Bearer {TOKEN}", **JSON}
    one = direct.post("/path", content=chunks(), headers=sent)
    other = routed.post("/path", content=chunks(), headers=sent)
    assert one.status_code == 200 and _comparable(one) == _comparable(other)


def test_search_response_has_starlettes_headers():
    from starlette.responses import Response

    from app.api.responses import SearchResponse, server_timing

    for body, us in [(b'{"a":1}', 12.345), (b"", 0.0), (b"x" * 70_000, 1e7)]:
        ours = SearchResponse(body, us)
        theirs = Response(body, media_type="application/json", headers=server_timing(us))
        assert ours.raw_headers == theirs.raw_headers and ours.body == theirs.body
        assert ours.status_code == theirs.status_code == 200 and ours.background is None
