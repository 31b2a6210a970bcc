"""A real uvicorn process serving the app on a free loopback port, for the system tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def uvicorn_process(env: dict[str, str], ready_within: float = 600.0) -> Iterator[str]:
    """Start ``uvicorn app.main:app`` with ``env`` added to the environment, wait until
    ``/health`` answers 200 (a cold numba cache on a loaded machine takes minutes), yield
    its base URL, and stop it."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"]
        + ["--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + ready_within
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"uvicorn exited: {process.stdout.read().decode()}")
            try:
                with urllib.request.urlopen(base + "/health", timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:  # refused while starting, or 503 (HTTPError) until ready
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"uvicorn did not become ready within {ready_within:.0f} s")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
