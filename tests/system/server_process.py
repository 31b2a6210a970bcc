"""Real server processes for the system tests: start one on a free loopback port, wait
until it is ready, talk to it, and always stop it."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import ROOT

APP = ["-m", "app"]  # python -m app: uvicorn serving app.main:app, exit 0 after SIGTERM
UVICORN = ["-m", "uvicorn", "app.main:app"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, process: subprocess.Popen, port: int) -> None:
        self.process = process
        self.port = port

    def request(
        self, method: str, url: str, body: dict | None = None, timeout: float = 60
    ) -> tuple[int, dict[str, str], bytes, float]:
        """Status, headers, body and seconds taken; a fresh connection per request."""
        began = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = None if body is None else json.dumps(body).encode()
            headers = {"content-type": "application/json"} if data else {}
            connection.request(method, url, body=data, headers=headers)
            response = connection.getresponse()
            content = response.read()
            found = {k.lower(): v for k, v in response.getheaders()}
            return response.status, found, content, time.perf_counter() - began
        finally:
            connection.close()

    def rss_bytes(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1]) * 1024

    def metric(self, name: str) -> float:
        text = self.request("GET", "/metrics")[2].decode()
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
        raise AssertionError(f"no metric {name}")


@contextmanager
def serve(
    *extra: str, entry: list[str] = APP, ready_within: float = 600.0, **env: str
) -> Iterator[Server]:
    """A server on a free port with ``env`` added to the environment (``MAPS_DIR``, ...) and
    ``extra`` uvicorn options, once ``/health/ready`` answers 200 (a cold numba cache on a
    loaded machine takes minutes). Its output goes to a file: a pipe nobody reads would fill
    up and block the server's logging."""
    port = free_port()
    output = tempfile.TemporaryFile()
    inherited = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    environment = {
        **inherited,
        "LOG_LEVEL": "warning",
        "ACCESS_LOG": "false",
        **env,
    }
    command = [sys.executable, *entry, "--host", "127.0.0.1"]
    process = subprocess.Popen(
        [*command, "--port", str(port), *extra],
        cwd=ROOT,
        env=environment,
        stdout=output,
        stderr=subprocess.STDOUT,
    )
    server = Server(process, port)
    deadline = time.monotonic() + ready_within
    try:
        while True:
            if process.poll() is not None:
                output.seek(0)
                pytest.fail(f"uvicorn exited: {output.read().decode()}")
            try:  # ready, and every kernel loaded (a cold cache compiles some after ready)
                if server.request("GET", "/health/ready", timeout=5)[0] == 200:
                    status, _, body, _ = server.request("GET", "/health", timeout=5)
                    if status == 200 and json.loads(body).get("waiting_for") is None:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"uvicorn did not become ready within {ready_within:.0f} s")
            time.sleep(0.1)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        output.close()


@contextmanager
def uvicorn_process(env: dict[str, str], ready_within: float = 600.0) -> Iterator[str]:
    """Plain ``uvicorn app.main:app`` with ``env`` added to the environment; yields its base
    URL."""
    with serve(entry=UVICORN, ready_within=ready_within, **env) as server:
        yield f"http://127.0.0.1:{server.port}"
