"""A real uvicorn process: start it, wait for /health, ask for a path."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR


def call(url: str, body: dict | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture(scope="module")
def server():
    with running_server(ServerSpec({"MAPS_DIR": str(MAPS_DIR), "LOG_LEVEL": "warning"})) as server:
        base = server.url
        yield base


def test_health_and_path(server):
    status, body = call(server + "/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, body = call(server + "/path", {"map": "arena", "start": [1, 1], "goal": [62, 62]})
    assert status == 200
    result = json.loads(body)
    assert result["found"] and result["path"][0] == [1, 1] and result["path"][-1] == [62, 62]


def test_error_envelope_over_http(server):
    status, body = call(server + "/path", {"map": "nope", "start": [1, 1], "goal": [2, 2]})
    assert status == 404 and json.loads(body)["error"]["code"] == "map_not_found"


def test_same_bytes_in_another_process_and_under_concurrency(server, client):
    request = {"map": "field", "start": [1, 1], "goal": [254, 254]}
    local = client.post("/path", json=request).content
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: call(server + "/path", request), range(16)))
    assert all(status == 200 and body == local for status, body in answers)
