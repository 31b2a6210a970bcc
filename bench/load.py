"""The HTTP load runner shared by the HTTP benches (wrk and an open-loop client). Method and
figures: bench/README.md, "bench-http"."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bench.common import REPO_ROOT, json_of_child, machine_info, machine_line, percentile
from bench.server import HOST

WRK_SCRIPT = REPO_ROOT / "bench" / "wrk" / "path.lua"
PERCENTILES = (50, 90, 99)
T = TypeVar("T")


def load_figures(
    duration_s: float, requests: int, errors: dict[str, int], latency_us: dict, offered=None
) -> dict[str, Any]:
    """One run's figures, the same form whatever the tool (wrk, the open loop, pooled runs)."""
    rps = requests / duration_s if duration_s else 0.0
    mode = "closed" if offered is None else "open"
    return {
        "mode": mode, "offered_rps": offered, "duration_s": duration_s, "sent": requests,
        "requests": requests, "rps": rps, "errors": errors, "error_count": sum(errors.values()),
        "latency_us": latency_us, "max_send_lag_ms": 0.0,
    }  # fmt: skip


class HttpError(Exception):
    """A response that could not be read (closed connection, bad framing)."""


class Connection:
    """One keep-alive HTTP/1.1 connection; one request at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.transport.get_extra_info("socket").setsockopt(
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
        )
        return cls(reader, writer)

    async def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        self.writer.write(head + body)
        try:
            header = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            raise HttpError(f"no response head: {exc}") from None
        lines = header.split(b"\r\n")
        try:
            status = int(lines[0].split(b" ", 2)[1])
        except (IndexError, ValueError):
            raise HttpError(f"bad status line {lines[0]!r}") from None
        length = None
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            raise HttpError("response without Content-Length")
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


@dataclass
class LoadResult:
    """What one load run measured (latencies in µs)."""

    mode: str
    offered_rps: float | None
    duration_s: float
    sent: int = 0
    latencies_us: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    max_send_lag_ms: float = 0.0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        """The figures, latencies as p50/p90/p99/max and mean (µs)."""
        values = sorted(self.latencies_us)
        latency = {f"p{p}": percentile(values, p) for p in PERCENTILES}
        latency |= {"max": float(values[-1]) if values else 0.0,
                    "mean": sum(values) / len(values) if values else 0.0}  # fmt: skip
        figures = load_figures(self.duration_s, len(values), self.errors, latency,
                               self.offered_rps)  # fmt: skip
        return figures | {"sent": self.sent, "max_send_lag_ms": self.max_send_lag_ms}


async def _exchange(
    conn: Connection, body: bytes, timeout: float, result: LoadResult
) -> tuple[bool, bool]:
    """One request; (succeeded, connection still usable). Failures are counted by kind."""
    try:
        status, answer = await asyncio.wait_for(conn.post("/path", body), timeout)
    except asyncio.TimeoutError:
        result.error("timeout")
        return False, False
    except (HttpError, OSError) as exc:
        result.error(type(exc).__name__)
        return False, False
    if status != 200:
        result.error(f"status_{status}")
        return False, True
    if b'"found":true' not in answer:
        result.error("bad_answer")
        return False, True
    return True, True


async def open_loop(
    port: int, bodies: Sequence[bytes], rate: float, duration: float, max_requests: int,
    connections: int, timeout: float,
) -> LoadResult:  # fmt: skip
    """Send ``rate`` requests per second at fixed times for ``duration`` seconds.

    Request ``i`` is due at ``t0 + i / rate`` whatever happened to the earlier ones; its
    latency runs from that due time to the end of its response, so time spent waiting for
    a free connection, or a late send by this client, counts against the server's figure
    instead of being hidden (no coordinated omission).
    """
    total = min(max_requests, int(rate * duration))
    result = LoadResult("open", rate, duration)
    idle: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(connections):
        idle.put_nowait(await Connection.open(port))
    opened = connections
    tasks: set[asyncio.Task] = set()

    async def one(due: float, body: bytes) -> None:
        nonlocal opened
        try:
            conn = idle.get_nowait()
        except asyncio.QueueEmpty:
            if opened < connections * 4:  # a bounded number of extra connections
                opened += 1
                try:
                    conn = await Connection.open(port)
                except OSError:
                    result.error("connect")
                    opened -= 1
                    return
            else:
                conn = await idle.get()
        ok, reusable = await _exchange(conn, body, timeout, result)
        if ok:
            result.latencies_us.append((time.perf_counter() - due) * 1e6)
        if reusable:
            idle.put_nowait(conn)
        else:
            conn.close()
            opened -= 1

    loop_start = time.perf_counter() + 0.05
    sent = 0
    while sent < total:
        now = time.perf_counter()
        while sent < total and loop_start + sent / rate <= now:
            due = loop_start + sent / rate
            result.max_send_lag_ms = max(result.max_send_lag_ms, (now - due) * 1e3)
            task = asyncio.create_task(one(due, bodies[sent % len(bodies)]))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            sent += 1
        if sent < total:
            await asyncio.sleep(max(0.0, loop_start + sent / rate - time.perf_counter()))
    result.sent = sent
    if tasks:
        _, pending = await asyncio.wait(tasks, timeout=timeout + 1)
        for task in pending:
            task.cancel()
            result.error("unfinished")
    # from the first due time to the last answer: a server that falls behind stretches it
    result.duration_s = time.perf_counter() - loop_start
    while not idle.empty():
        idle.get_nowait().close()
    return result


def run_async(coroutine: Any) -> Any:
    """Run on uvloop when it is installed (it comes with uvicorn[standard]), else asyncio."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


def run_open_loop(
    port: int, bodies: Path, rate: float, duration: float, max_requests: int, connections: int,
    timeout: float = 10.0,
) -> dict[str, Any]:  # fmt: skip
    """``python -m bench.load`` in a separate process (its own GIL and core time)."""
    command = [
        sys.executable, "-m", "bench.load", "--port", str(port), "--bodies", str(bodies),
        "--rate", str(rate), "--duration", str(duration), "--max-requests", str(max_requests),
        "--connections", str(connections), "--timeout", str(timeout),
    ]  # fmt: skip
    return json_of_child(command, timeout=duration + 4 * timeout + 60)


def run_wrk(
    url: str, bodies: Path, duration: float, max_requests: int, connections: int,
    threads: int = 1, timeout: float = 10.0, route: str = "/path",
) -> dict[str, Any]:  # fmt: skip
    """wrk (closed loop) with ``bench/wrk/path.lua`` POSTing to ``route``; its figures in the
    load result form."""
    command = [
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(duration))}s",
        f"--timeout={round(timeout)}s", "-s", str(WRK_SCRIPT), url,
        "--", str(bodies), str(max_requests), str(threads), route,
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=duration + timeout + 60, check=False
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("WRK_JSON ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr}{done.stdout}")
    raw = json.loads(lines[-1].removeprefix("WRK_JSON "))
    duration_s = raw["duration_us"] / 1e6
    errors = {k: v for k, v in raw["errors"].items() if v}
    latency = {k: float(v) for k, v in raw["latency_us"].items()}
    return load_figures(duration_s, raw["requests"], errors, latency)


def abba(rounds: int, variants: Sequence[T]) -> Iterator[tuple[int, T]]:
    """(round, variant) for ``rounds`` rounds, the order reversed every other round (ABBA):
    each variant runs first as often as last, so a drift of the machine (or a first-run
    effect) favours none."""
    for turn in range(1, rounds + 1):
        for variant in variants if turn % 2 else variants[::-1]:
            yield turn, variant


def pooled_rate(runs: Sequence[dict[str, Any]], key: str, value: str) -> float:
    """Requests/s over every run whose ``key`` is ``value``."""
    mine = [r for r in runs if r[key] == value]
    return sum(r["requests"] for r in mine) / sum(r["duration_s"] for r in mine)


def results_of(plan: Any) -> dict[str, Any]:
    """The start of an HTTP benchmark's results: the machine, and the plan (a dataclass)."""
    info = machine_info()
    plan_dict = {k: str(v) if isinstance(v, Path) else v for k, v in vars(plan).items()}
    return {"machine": info, "machine_line": machine_line(info), "plan": plan_dict}


def require_wrk() -> None:
    """Stop with a clear message when wrk is missing: the closed-loop runs are wrk's."""
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian package 'wrk'; make bench-http installs it)")


def add_run_options(parser: argparse.ArgumentParser, experiments: Sequence[str]) -> None:
    """The options every HTTP benchmark shares: which experiments (if several), request cap,
    closed-loop connections, readiness timeout and the pid file."""
    add = parser.add_argument
    if experiments:
        add("--only", nargs="+", choices=experiments, default=list(experiments),
            help="run only these experiments (default: all)")  # fmt: skip
    add("--max-requests", type=int, default=100_000, help="request cap of every run (100,000)")
    add("--connections", type=int, default=8, help="closed-loop connections (default 8)")
    add("--ready-timeout", type=float, default=300.0, help="seconds to wait for /health 200 (300)")
    add("--pid-file", type=Path, help="running servers' process groups, for a shell trap")


def main(argv: Sequence[str] | None = None) -> int:
    """One open-loop run; its result as one JSON line on stdout."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.load",
        description="Open-loop load on POST /path of 127.0.0.1 (JSON result on stdout).",
    )
    add = parser.add_argument
    add("--port", type=int, required=True, help="server port on 127.0.0.1")
    add("--bodies", type=Path, required=True, help="JSON bodies, a line each")
    add("--rate", type=float, required=True, help="offered requests/s")
    add("--duration", type=float, default=10.0, help="seconds (default 10)")
    add("--max-requests", type=int, default=100_000, help="request cap")
    add("--connections", type=int, default=32, help="keep-alive connections")
    add("--timeout", type=float, default=10.0, help="seconds per request")
    args = parser.parse_args(argv)
    bodies = [line.encode() for line in args.bodies.read_text(encoding="utf-8").splitlines()]
    bodies = [body for body in bodies if body]
    coroutine = open_loop(args.port, bodies, args.rate, args.duration, args.max_requests,
                          args.connections, args.timeout)  # fmt: skip
    print(json.dumps(run_async(coroutine).as_dict()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
