"""Real processes for the benchmarks and the system tests alike: gridpath servers (uvicorn,
or ``python -m app``) on a loopback port, started from the source tree (every process shares
numba's on-disk kernel cache), each in a process group of its own (``--workers N`` children
go with it); and a throwaway ``redis-server`` (:func:`redis_server`).

``with running([ServerSpec(...), ...]) as servers``, or ``start_all`` on :class:`Server`
objects a test may kill and start again on the same port. A server's output goes to a file
(a pipe nobody reads would fill up and block its logging), quoted when it fails to start;
ready is its ``ready_path`` answering 200 (:meth:`Server.wait_ready`, with several workers
each one); ``running`` stops every server it started whatever happens (SIGTERM to the group,
SIGKILL after a grace period), and a :class:`PidFile` lists the running groups so a shell
trap can kill them even if the Python process itself is killed (``make bench-http`` does).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

REPO_ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
GRIDPATH_APP = "app.main:app"
# A cold numba cache compiles every kernel (minutes on a loaded 2-core machine); warm, a start
# takes seconds.
READY_TIMEOUT = 600.0


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def http_probe(port: int, path: str, timeout: float) -> tuple[int | None, str]:
    """``GET path`` on a new connection: its status (None if the connection failed) and
    which worker answered (the per-process prefix of its ``X-Request-ID``, '' if none)."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                chunk = s.recv(4096)
                if not chunk:
                    break
                head += chunk
    except OSError:
        return None, ""
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None, ""
    found = re.search(rb"(?im)^x-request-id: *([0-9a-f]{16})", head)
    return status, found.group(1).decode() if found else ""


def signal_group(process: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


def stop_group(process: subprocess.Popen, grace: float) -> None:
    """SIGTERM to the process group, SIGKILL after ``grace`` seconds and then to whatever is
    left (workers of a dead parent)."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        signal_group(process, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=wait)
            break
    signal_group(process, signal.SIGKILL)


class PidFile:
    """Process-group ids of running servers, one a line (no file: kept in memory only)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.groups: set[int] = set()

    def _write(self) -> None:
        if self.path is not None:
            self.path.write_text("".join(f"{g}\n" for g in sorted(self.groups)))

    def add(self, group: int) -> None:
        self.groups.add(group)
        self._write()

    def remove(self, group: int) -> None:
        self.groups.discard(group)
        self._write()


@dataclass(frozen=True)
class ServerSpec:
    """What to run: an ASGI app (``launcher`` ``"uvicorn"``) or ``python -m app``
    (``launcher`` ``"app"``), its uvicorn workers, extra command-line options and the
    environment variables set on top of the caller's (``MAPS_DIR``, ``SEARCH_THREADS``, ...;
    ``None`` removes one)."""

    env: Mapping[str, str | None] = field(default_factory=dict)
    workers: int = 1
    app: str = GRIDPATH_APP
    port: int = 0  # 0: a free port, chosen once (a restart keeps it)
    launcher: str = "uvicorn"
    args: Sequence[str] = ()
    ready_path: str = "/health"  # or /health/ready, which also checks the map store
    root: Path = REPO_ROOT  # another checkout (an older commit) runs its own .venv's Python

    def command(self, port: int) -> list[str]:
        entry = ["-m", "uvicorn", self.app] if self.launcher == "uvicorn" else ["-m", "app"]
        python = sys.executable if self.root == REPO_ROOT else str(self.root / ".venv/bin/python")
        return [
            python, *entry, "--host", HOST, "--port", str(port),
            "--workers", str(self.workers), *self.args,
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        env.update(LOG_LEVEL="warning", PYTHONUNBUFFERED="1")
        for name, value in self.env.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return env


class Server:
    """One uvicorn process (and its workers) in its own process group. Its output goes to
    ``log_path`` (appended, kept), or to a temporary file removed by :meth:`stop`."""

    def __init__(
        self, spec: ServerSpec, pids: PidFile | None = None, log_path: Path | None = None
    ) -> None:
        self.spec = spec
        self.pids = pids if pids is not None else PidFile()
        self.port = spec.port or free_port()
        self.process: subprocess.Popen | None = None
        self.started = 0.0
        self.keep_log = log_path is not None
        self.log_path = log_path

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def start(self) -> Server:
        if self.log_path is None:
            handle, name = tempfile.mkstemp(prefix="gridpath-server-", suffix=".log")
            os.close(handle)
            self.log_path = Path(name)
        self.started = time.perf_counter()
        with open(self.log_path, "ab") as log:  # its own process group: stop() reaches workers
            self.process = subprocess.Popen(
                self.spec.command(self.port), cwd=self.spec.root, env=self.spec.environment(),
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        self.pids.add(self.process.pid)
        return self

    def wait_ready(self, timeout: float = READY_TIMEOUT, poll: float = 0.01) -> float:
        """Seconds from process start to the spec's ``ready_path`` answering 200 (many times
        in a row with several workers)."""
        assert self.process is not None, "start() first"
        path = self.spec.ready_path
        needed = 1 if self.spec.workers <= 1 else 10 * self.spec.workers
        deadline, streak, workers = self.started + timeout, 0, set()
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}: {self.log()}")
            status, worker = http_probe(self.port, path, timeout=5.0)
            now = time.perf_counter() - self.started
            streak = streak + 1 if status == 200 else 0
            workers = workers | {worker} if status == 200 else set()
            # With several workers, ready once each has answered 200 (a streak from one
            # worker says nothing of the others, still loading maps).
            if streak >= needed and len(workers) >= self.spec.workers and self._kernels_ready():
                return now
            time.sleep(poll if streak == 0 else 0.0)
        raise TimeoutError(f"{self.url}{path} not 200 after {timeout:.0f} s: {self.log()}")

    def log(self, tail: int = 4000) -> str:
        """The end of the server's output."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-tail:]

    def kill(self) -> None:
        """SIGKILL to the process group, as a crash would: no shutdown handler runs."""
        if self.process is not None:
            signal_group(self.process, signal.SIGKILL)
            self.process.wait(10)

    def stop(self, grace: float = 15.0) -> None:
        """SIGTERM to the process group, SIGKILL after ``grace`` seconds; always leaves
        nothing behind."""
        if self.process is None:
            return
        stop_group(self.process, grace)
        self.pids.remove(self.process.pid)
        self.process = None
        if not self.keep_log and self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None

    # --- talking to it -------------------------------------------------------------------

    def request(
        self, method: str, url: str, body: object = None, timeout: float = 60
    ) -> tuple[int, dict[str, str], bytes, float]:
        """Status, headers (lower-case names), body and seconds taken; a new connection per
        request. ``body`` is sent as JSON."""
        began = time.perf_counter()
        connection = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
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

    def _kernels_ready(self) -> bool:
        """Every kernel loaded too: on a cold numba cache the service answers before the
        kernels of the less common queries are compiled (``/health``'s ``waiting_for``)."""
        try:
            status, body = self.health()
        except (OSError, ValueError, http.client.HTTPException):
            return False
        return status == 200 and body.get("waiting_for") is None

    def health(self) -> tuple[int, dict]:
        """``GET /health``: status and JSON body."""
        status, _, body, _ = self.request("GET", "/health", timeout=5)
        return status, json.loads(body)

    def metric(self, name: str) -> float:
        """One sample of ``/metrics`` (the first line of that name)."""
        text = self.request("GET", "/metrics")[2].decode()
        for line in text.splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                return float(line.rsplit(" ", 1)[1])
        raise AssertionError(f"no metric {name}")

    def rss_bytes(self) -> int:
        """Resident memory of the main process."""
        from bench.common import rss_bytes

        assert self.process is not None
        return rss_bytes(self.process.pid)

    def cpu_seconds(self) -> float:
        """CPU time used so far by the live processes of the server's group (the uvicorn
        process and its workers: each server runs in its own process group)."""
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # the process ended meanwhile
            if int(fields[2]) == self.pid:  # pgrp; utime and stime are fields 14 and 15
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")


class JsonClient:
    """One keep-alive connection to a server: JSON bodies in and out, the bearer ``token``
    sent where a call asks for it (the admin routes). orjson: the client's own share of a
    timed call stays small."""

    def __init__(self, port: int, token: str | None = None, timeout: float = 10.0) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        self.token = token

    def call(
        self, method: str, path: str, body: dict | None = None, admin: bool = False
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if admin:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None if body is None else orjson.dumps(body)
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        return response.status, orjson.loads(response.read() or b"null")

    def close(self) -> None:
        self.conn.close()


def start_all(servers: Sequence[Server], timeout: float = READY_TIMEOUT) -> None:
    """Start every server at once (they compile or load the kernels side by side), then wait
    until each is ready; on failure every one is stopped."""
    try:
        for server in servers:
            server.start()
        for server in servers:
            server.wait_ready(timeout)
    except BaseException:
        for server in servers:
            server.stop()
        raise


@contextlib.contextmanager
def running(
    specs: Sequence[ServerSpec], timeout: float = READY_TIMEOUT, pids: PidFile | None = None
) -> Iterator[list[Server]]:
    """Servers started together, each ready within ``timeout`` seconds, and stopped on the
    way out whatever happens."""
    servers = [Server(spec, pids) for spec in specs]
    start_all(servers, timeout)
    try:
        yield servers
    finally:
        for server in servers:
            server.stop()


@contextlib.contextmanager
def running_server(
    spec: ServerSpec, timeout: float = READY_TIMEOUT, pids: PidFile | None = None
) -> Iterator[Server]:
    """One ready server (see :func:`running`)."""
    with running([spec], timeout, pids) as servers:
        yield servers[0]


def redis_ping(port: int, timeout: float = 1.0) -> bool:
    """Whether a Redis server answers PING on ``port`` of 127.0.0.1."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def redis_server(pids: PidFile | None = None, timeout: float = 10.0) -> Iterator[str]:
    """A fresh, empty, non-persistent ``redis-server`` (no snapshots, no append-only file) on
    a free loopback port, in its own process group and temporary folder; yields its
    ``redis://`` URL and stops it after."""
    pids = pids if pids is not None else PidFile()
    with tempfile.TemporaryDirectory(prefix="gridpath-redis-") as folder:
        port, quiet = free_port(), subprocess.DEVNULL
        command = ["redis-server", "--port", str(port), "--bind", HOST, "--save", "",
                   "--appendonly", "no", "--dir", folder]  # fmt: skip
        process = subprocess.Popen(
            command, stdin=quiet, stdout=quiet, stderr=quiet, start_new_session=True
        )
        pids.add(process.pid)
        try:
            deadline = time.monotonic() + timeout
            while not redis_ping(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {port}")
                time.sleep(0.02)
            yield f"redis://{HOST}:{port}/0"
        finally:
            stop_group(process, 10.0)
            pids.remove(process.pid)
