"""Real server processes for benchmarks and tests: uvicorn on a free loopback port.

::

    with running([ServerSpec(env={"MAPS_DIR": maps}), ServerSpec(env=..., workers=2)]) as servers:
        servers[0].url  # http://127.0.0.1:PORT, /health already answered 200

Each process runs ``python -m uvicorn APP --host 127.0.0.1 --port P --workers N --log-level
warning`` from the repository root, with the caller's environment plus ``LOG_LEVEL=warning``
and the spec's variables, in a session (process group) of its own, its output in a
temporary log file. ``wait_ready`` polls a path (``/health``) until it answers 200, with a
timeout, and fails at once with the log's tail if the process exits. ``stop`` sends SIGTERM
to the whole group (the workers too), SIGKILL after a grace period, and always leaves
nothing behind; ``running`` stops every server it started whatever happens. A
:class:`PidFile` lists the running groups, so a shell trap can kill them even if the Python
process itself is killed (``make bench-http`` does).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
GRIDPATH_APP = "app.main:app"


def free_port() -> int:
    """A TCP port of 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def http_get_status(port: int, path: str, timeout: float) -> int | None:
    """Status of ``GET path`` on a new connection; None if the connection failed."""
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
            head = s.recv(64)
    except OSError:
        return None
    try:
        return int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


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
    """What to run: an ASGI app, its uvicorn workers and the environment variables added
    to the caller's (the service's settings: ``MAPS_DIR``, ``SEARCH_THREADS``, ...)."""

    env: Mapping[str, str] = field(default_factory=dict)
    workers: int = 1
    app: str = GRIDPATH_APP
    port: int = 0  # 0: a free port


class Server:
    """One uvicorn process (and its workers) in its own process group."""

    def __init__(self, spec: ServerSpec, pids: PidFile | None = None) -> None:
        self.spec = spec
        self.pids = pids if pids is not None else PidFile()
        self.port = 0
        self.process: subprocess.Popen | None = None
        self.started = 0.0
        self.port_open_s: float | None = None
        self.ready_s: float | None = None
        self.log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def start(self) -> None:
        self.port = self.spec.port or free_port()
        env = {**os.environ, "LOG_LEVEL": "warning", "PYTHONUNBUFFERED": "1", **self.spec.env}
        command = [
            sys.executable, "-m", "uvicorn", self.spec.app,
            "--host", HOST, "--port", str(self.port),
            "--workers", str(self.spec.workers), "--log-level", "warning",
        ]  # fmt: skip
        handle, name = tempfile.mkstemp(prefix="gridpath-server-", suffix=".log")
        self.log_path = Path(name)
        self.started = time.perf_counter()
        self.port_open_s = self.ready_s = None
        self.process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() reaches the workers
        )
        os.close(handle)
        self.pids.add(self.process.pid)

    def wait_ready(self, timeout: float, path: str = "/health", poll: float = 0.01) -> float:
        """Seconds from process start to ``path`` answering 200 (also notes when the port
        first answered at all, in ``port_open_s``)."""
        assert self.process is not None, "start() first"
        deadline = self.started + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}: {self.tail()}")
            status = http_get_status(self.port, path, timeout=1.0)
            now = time.perf_counter() - self.started
            if status is not None and self.port_open_s is None:
                self.port_open_s = now
            if status == 200:
                self.ready_s = now
                return now
            time.sleep(poll)
        raise TimeoutError(f"{path} not 200 after {timeout:.0f} s: {self.tail()}")

    def tail(self, lines: int = 20) -> str:
        """The last lines of the server's output."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, grace: float = 10.0) -> None:
        """SIGTERM to the process group, SIGKILL after ``grace`` seconds; always leaves
        nothing behind."""
        if self.process is None:
            return
        group = self.process.pid
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, sig)
            try:
                self.process.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)  # workers left behind by a dead parent
        self.pids.remove(group)
        self.process = None
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)

    def connection_split(self) -> list[int]:
        """Established client connections held by each worker process, largest first.

        uvicorn's workers share one listening socket and each accepted connection stays with
        the worker that accepted it, so keep-alive clients are balanced per connection, not
        per request: this shows how the connections fell.
        """
        from bench.procs import count_sockets, established_inodes, proc_table

        if self.process is None:
            return []
        table = proc_table()
        workers = [pid for pid, proc in table.items() if proc.ppid == self.process.pid]
        holders = [pid for pid in workers if "resource_tracker" not in table[pid].command]
        established = established_inodes(self.port)
        counts = [count_sockets(pid, established) for pid in holders or [self.process.pid]]
        return sorted(counts, reverse=True)


@contextlib.contextmanager
def running(
    specs: Sequence[ServerSpec], timeout: float = 300.0, pids: PidFile | None = None
) -> Iterator[list[Server]]:
    """Servers started together (they load and warm up in parallel), each ready (``/health``
    200 within ``timeout`` seconds), and stopped on the way out whatever happens."""
    servers = [Server(spec, pids) for spec in specs]
    try:
        for server in servers:
            server.start()
        for server in servers:
            server.wait_ready(timeout)
        yield servers
    finally:
        for server in servers:
            server.stop()


@contextlib.contextmanager
def running_server(
    spec: ServerSpec, timeout: float = 300.0, pids: PidFile | None = None
) -> Iterator[Server]:
    """One ready server (see :func:`running`)."""
    with running([spec], timeout, pids) as servers:
        yield servers[0]
