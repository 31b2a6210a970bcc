"""Issue 22: every error is the envelope, the request head included. Against real processes
(raw sockets, so nothing in between rewrites the request):

* ``python -m app`` (its own parser, app/http_protocol.py): a request target over
  ``MAX_URL_BYTES`` (a 200 KB URL among them) answers 414 ``uri_too_long``, headers over
  ``MAX_HEADER_BYTES`` 431 ``headers_too_large`` (one huge header, many small ones, or a head
  that never ends), a request that is not HTTP 400 ``bad_request``: all JSON;
* plain ``uvicorn app.main:app``: the application answers 414 and 431 as JSON for what
  reaches it; a target over about 64 KB is refused by uvicorn's parser as text/plain 400
  before the application sees it (documented in docs/api.md, "Errors").

Before the fix a 200 KB URL got uvicorn's text/plain 400 and headers had no limit at all.
"""

from __future__ import annotations

import json
import socket

import pytest

from bench.server import ServerSpec, running_server
from tests.conftest import MAPS_DIR

OK = b"GET /maps/arena HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"


def spec(launcher: str, workers: int = 1) -> ServerSpec:
    env = {"MAPS_DIR": str(MAPS_DIR), "ACCESS_LOG": "false"}
    return ServerSpec(env, workers=workers, launcher=launcher, ready_path="/health/ready")


def exchange(port: int, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``data``, read until the server closes; the status, headers and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before all was sent: the answer is still there to read
        answer = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


def url_of(length: int) -> bytes:
    return b"GET /maps/arena?pad=" + b"a" * length + b" HTTP/1.1\r\nHost: t\r\n\r\n"


def big_header(length: int) -> bytes:
    return b"GET /maps/arena HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"a" * length + b"\r\n\r\n"


MANY_HEADERS = (
    b"GET /maps/arena HTTP/1.1\r\nHost: t\r\n"
    + b"".join(b"X-%d: a\r\n" % i for i in range(5000))
    + b"\r\n"
)
ENDLESS_HEAD = b"GET /maps/arena HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"a" * 2_000_000  # no end


def assert_envelope(answer, status: int, code: str) -> None:
    got, headers, body = answer
    assert (got, headers.get("content-type")) == (status, "application/json"), answer[:2]
    assert json.loads(body)["error"]["code"] == code, body


def test_python_m_app_answers_the_envelope_for_every_refused_head():
    with running_server(spec("app")) as server:
        port = server.port
        assert exchange(port, OK)[0] == 200
        assert exchange(port, url_of(7000))[0] == 200  # under MAX_URL_BYTES (8192)
        for length in (9000, 70_000, 200_000):
            assert_envelope(exchange(port, url_of(length)), 414, "uri_too_long")
        assert_envelope(exchange(port, big_header(40_000)), 431, "headers_too_large")
        assert_envelope(exchange(port, MANY_HEADERS), 431, "headers_too_large")
        assert_envelope(exchange(port, ENDLESS_HEAD), 431, "headers_too_large")
        assert_envelope(exchange(port, b"NOT HTTP AT ALL\r\n\r\n"), 400, "bad_request")
        assert exchange(port, OK)[0] == 200  # and it goes on serving


@pytest.mark.parametrize("workers", [1, 2])
def test_the_limits_hold_in_every_worker(workers):
    """With --workers N each worker is a new interpreter: it must use the same parser."""
    with running_server(spec("app", workers)) as server:
        for _ in range(12):  # new connections: the kernel spreads them over the workers
            assert_envelope(exchange(server.port, url_of(200_000)), 414, "uri_too_long")


def test_plain_uvicorn_the_application_answers_what_reaches_it():
    with running_server(spec("uvicorn")) as server:
        port = server.port
        assert_envelope(exchange(port, url_of(9000)), 414, "uri_too_long")
        assert_envelope(exchange(port, big_header(40_000)), 431, "headers_too_large")
        assert_envelope(exchange(port, MANY_HEADERS), 431, "headers_too_large")
        # Refused by uvicorn's parser before the application: documented, not ours to shape.
        status, headers, _ = exchange(port, url_of(200_000))
        assert (status, headers["content-type"]) == (400, "text/plain; charset=utf-8")
