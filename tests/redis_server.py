"""A real ``redis-server`` for tests: its own process, a free loopback port, a temporary dir.

Used by the unit, integration and system tests of the shared map store (no fake Redis: the
tests claim atomicity and ordering, which only the real server can show)::

    server = RedisServer(tmp_path)  # not started yet
    server.start()                  # waits until it answers PING
    server.url                      # "redis://127.0.0.1:PORT/0"
    server.kill()                   # SIGKILL, as a crash would
    server.start()                  # same port, same dir (AOF on: acknowledged writes survive)
    server.stop()

The ``redis_server`` fixture (``tests/conftest.py``) gives a started server, stopped after the
test. The tests skip when ``redis-server`` is not installed, fail under ``CI=true``
(``tests/packages.py``).
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from tests.packages import find

REDIS_SERVER = find("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """One ``redis-server`` process on 127.0.0.1, data in ``directory``."""

    def __init__(self, directory: Path, port: int | None = None, *, appendonly: bool = True):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.appendonly = appendonly
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> RedisServer:
        if self.process is not None and self.process.poll() is None:
            return self
        args = [
            REDIS_SERVER,
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.directory),
            "--save",
            "",
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--appendfsync",
            "always",
            "--daemonize",
            "no",
            "--protected-mode",
            "yes",
            "--logfile",
            str(self.directory / "redis.log"),
        ]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while not self.ping():
            if self.process.poll() is not None:
                log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server exited ({self.process.returncode}): {log}")
            if time.monotonic() > deadline:
                self.kill()
                raise TimeoutError(f"redis-server on port {self.port} did not answer PING")
            time.sleep(0.02)
        return self

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: what a crash or an OOM kill looks like to the clients."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM (a clean shutdown), then SIGKILL if it does not exit in 10 s."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def restart(self) -> RedisServer:
        self.stop()
        return self.start()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
