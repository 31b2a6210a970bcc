"""Issue 22: no plain-text answer on shutdown. A real ``python -m app`` with
``--timeout-graceful-shutdown 3`` gets SIGTERM while ten Dijkstra searches corner to corner
run on a 2000 x 2000 map with 20 % random walls: each request answers 200 if it finished
within the grace period, else 503 ``shutting_down`` with ``Retry-After`` (the JSON envelope),
never uvicorn's text/plain 500; and the process exits 0.

Before the fix the cut-off requests got ``500 Internal Server Error`` as text/plain.
"""

from __future__ import annotations

import http.client
import json
import signal
import threading
import time

import numpy as np
from PIL import Image

from bench.server import ServerSpec, running_server

GRACE = 3  # --timeout-graceful-shutdown
SEARCHES = 10
SIZE = 2000


def big_map(directory) -> None:
    rng = np.random.default_rng(22)
    walls = rng.random((SIZE, SIZE)) < 0.2
    walls[:3, :3] = walls[-3:, -3:] = False  # the corners stay open
    directory.mkdir()
    Image.fromarray(np.where(walls, 0, 255).astype(np.uint8)).save(directory / "big.png")


def search(port: int, body: dict, out: list, lock: threading.Lock) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("POST", "/path", json.dumps(body), {"content-type": "application/json"})
        response = connection.getresponse()
        answer = (response.status, dict(response.getheaders()), response.read())
    except OSError as exc:  # the server closed the connection without an answer
        answer = (None, {}, repr(exc).encode())
    finally:
        connection.close()
    with lock:
        out.append(answer)


def test_requests_cut_off_by_the_shutdown_get_the_json_envelope(tmp_path):
    big_map(tmp_path / "maps")
    corner_to_corner = {
        "map": "big",
        "start": [0, 0],
        "goal": [SIZE - 1, SIZE - 1],
        "algorithm": "dijkstra",
    }
    answers: list = []
    lock = threading.Lock()
    spec = ServerSpec(
        # the queue-wait limit (503 overloaded) out of the way: what is cut off is the shutdown's
        {
            "MAPS_DIR": str(tmp_path / "maps"),
            "ACCESS_LOG": "false",
            "SEARCH_QUEUE_WAIT_MS": "600000",
        },
        launcher="app",
        args=("--timeout-graceful-shutdown", str(GRACE)),
        ready_path="/health/ready",
    )
    with running_server(spec) as server:
        clients = [
            threading.Thread(target=search, args=(server.port, corner_to_corner, answers, lock))
            for _ in range(SEARCHES)
        ]
        for client in clients:
            client.start()
        time.sleep(1.0)
        sent_term = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        status = server.process.wait(timeout=GRACE + 60)
        exited_after = time.monotonic() - sent_term
        for client in clients:
            client.join(30)
    assert status == 0, status  # python -m app: a graceful shutdown exits 0
    assert len(answers) == SEARCHES, answers
    statuses = sorted(answer[0] for answer in answers)
    for code, headers, body in answers:
        headers = {k.lower(): v for k, v in headers.items()}
        assert code in (200, 503), (code, headers, body[:200])
        assert headers["content-type"] == "application/json", (code, headers, body[:200])
        if code == 503:
            assert json.loads(body)["error"]["code"] == "shutting_down", body
            assert headers["retry-after"] == "1"
    assert 503 in statuses, f"nothing was cut off: {statuses}; the test needs longer searches"
    assert exited_after < GRACE + 30, exited_after
