"""Real gridpath server processes for the system tests: ``uvicorn app.main:app`` started from
the source tree (so every process shares numba's on-disk kernel cache), in its own process
group (``--workers N`` children die with it), its output in a log file quoted on failure.

    servers = [GridpathProcess(tmp_path / f"s{i}", env) for i in range(3)]
    start_all(servers)                    # concurrently, then wait for /health 200 on each
    servers[0].url                        # "http://127.0.0.1:PORT"
    servers[0].kill()                     # SIGKILL to the whole group, as a crash would
    servers[0].start(); servers[0].wait_ready()   # again, on the same port
"""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
from PIL import Image

from tests.conftest import ROOT
from tests.redis_server import free_port

# A cold numba cache compiles every kernel (minutes on a loaded 2-core machine); warm, a start
# takes seconds. As generous as tests/conftest.py's wait_ready, for a loaded shared machine.
READY_TIMEOUT = 600.0
ADMIN_TOKEN = "cluster-test-admin-token"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}

# One line per request drowns the failure reports of tests that make thousands.
logging.getLogger("httpx").setLevel(logging.WARNING)


class GridpathProcess:
    """One server: ``uvicorn app.main:app`` on 127.0.0.1 with extra ``env`` and ``workers``."""

    def __init__(self, directory: Path, env: dict[str, str], *, workers: int | None = None):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.env = env
        self.workers = workers
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log_path = self.directory / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> GridpathProcess:
        argv = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1"]
        argv += ["--port", str(self.port), "--no-access-log"]
        if self.workers:
            argv += ["--workers", str(self.workers)]
        env = {**os.environ, "LOG_LEVEL": "info", **self.env}
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def log(self, tail: int = 4000) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return text[-tail:]

    def health(self) -> tuple[int, dict]:
        response = httpx.get(self.url + "/health", timeout=5)
        return response.status_code, response.json()

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> GridpathProcess:
        """/health 200; with several workers, on many new connections in a row: each worker
        answers 503 until it is ready itself, and the kernel picks which worker accepts."""
        deadline = time.monotonic() + timeout
        needed = 1 if not self.workers or self.workers == 1 else 10 * self.workers
        streak = 0
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited ({self.process.returncode}):\n{self.log()}")
            try:  # every kernel loaded too (a cold cache compiles some after /health is 200)
                status, body = self.health()
                streak = streak + 1 if status == 200 and body.get("waiting_for") is None else 0
            except (httpx.HTTPError, ValueError):
                streak = 0
            if streak >= needed:
                return self
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.url} not ready in {timeout:.0f} s:\n{self.log()}")
            time.sleep(0.1 if streak == 0 else 0.01)

    def _signal_group(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL to the process group: no shutdown handler runs."""
        self._signal_group(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(10)

    def stop(self) -> None:
        self._signal_group(signal.SIGTERM)
        if self.process is None:
            return
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()


def start_all(servers: list[GridpathProcess]) -> None:
    """Start every server at once (they compile or load the kernels side by side), then wait."""
    for server in servers:
        server.start()
    try:
        for server in servers:
            server.wait_ready()
    except BaseException:
        for server in servers:
            server.kill()
        raise


def walkable_from_png(data: bytes) -> np.ndarray:
    """The loader's rule for a bitmap, restated: luminance at least 128 is walkable."""
    return np.asarray(Image.open(io.BytesIO(data)).convert("L")) >= 128
