"""HTTP benchmark: the real server (uvicorn) under load on loopback, from separate processes.

Run from the repository root (``make bench-http`` installs wrk and matplotlib, then runs
this)::

    python -m bench.http_load                  # everything, about 6 minutes
    python -m bench.http_load --quick          # every experiment, short runs (a smoke test)
    python -m bench.http_load load --help      # the Python load generator alone

Every server is ``uvicorn app.main:app`` in its own process group, production settings
(no reload, ``--log-level warning``, ``LOG_LEVEL=warning``), on a free port of 127.0.0.1,
serving the Moving AI maps (``MAPS_DIR`` is the data folder). It is waited for with a
timeout (``/health`` 200) and always stopped at the end (SIGTERM to its group, then
SIGKILL). Queries are Moving AI scenarios in three classes by published optimal length
(``short`` < 32, ``medium`` 64-256, ``long`` >= 512 cells: Moving AI buckets 0-7, 16-63
and 128 up), up to ``--per-map`` of each per map, shuffled.

Experiments, all in one run:

1. cold start: process start to ``/health`` 200 with an empty numba cache
   (``NUMBA_CACHE_DIR`` a fresh temporary folder), then warm (the same folder again);
2. closed loop (wrk, ``bench/wrk/path.lua``; the Python client below if wrk is missing):
   each query class, and the long queries with ``"algorithm": "astar"`` ("long A*"),
   against 1 worker with ``SEARCH_THREADS`` 1 and 2, and 2 workers with 1 and 2, for a
   bounded time and request count; during the long-query runs a separate client probes
   ``GET /health`` every 50 ms on a new connection each time;
3. open loop (this module's ``load`` subcommand in its own process: requests sent at
   fixed times, latency counted from the time each request was due, so a slow server is
   not hidden by a client that waits): short and medium queries at several offered rates,
   1,000 requests/s among them, against 1 worker and against 2 workers.

The tables go to stdout as GitHub-flavoured Markdown, progress to stderr; ``--chart``
writes the latency chart, ``--json`` every figure, and ``--from-json`` prints the tables
(and draws the chart) of a saved run. Every run also records the CPU used by the server,
the clients and the machine's other processes, and how the connections fell over the
workers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "movingai"
WRK_SCRIPT = REPO_ROOT / "bench" / "wrk" / "path.lua"
HOST = "127.0.0.1"

# Query classes by published optimal length (Moving AI bucket = floor(length / 4)).
CLASSES: dict[str, tuple[float, float]] = {
    "short": (0.0, 32.0),
    "medium": (64.0, 256.0),
    "long": (512.0, math.inf),
}
# Workloads of the closed-loop runs: a class, and options added to every body. "long A*"
# runs the long queries with plain A* (several times JPS's kernel time per query), so the
# kernel's share of a request is larger: what GIL release can scale.
WORKLOADS: dict[str, tuple[str, dict[str, Any]]] = {
    "short": ("short", {}),
    "medium": ("medium", {}),
    "long": ("long", {}),
    "long A*": ("long", {"algorithm": "astar"}),
}
SATURATING = ("long", "long A*")  # /health is probed during these
# Server configurations of the closed-loop runs: (workers, SEARCH_THREADS per worker).
CONFIGS: tuple[tuple[int, int], ...] = ((1, 1), (1, 2), (2, 1), (2, 2))
P99_TARGET_MS = 10.0
HEALTH_TARGET_MS = 50.0
PERCENTILES = (50, 90, 99)


def log(message: str) -> None:
    """Progress on stderr (stdout carries the tables)."""
    print(message, file=sys.stderr, flush=True)


def config_name(workers: int, threads: int) -> str:
    """``1 worker x 2 threads``: uvicorn workers x SEARCH_THREADS per worker."""
    plural = {True: "s", False: ""}
    return f"{workers} worker{plural[workers > 1]} x {threads} thread{plural[threads > 1]}"


# --- statistics --------------------------------------------------------------------------


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of an ascending sequence (0 when empty)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return float(sorted_values[rank - 1])


def latency_summary(latencies_us: Sequence[float]) -> dict[str, float]:
    """p50/p90/p99/max and mean of latencies in µs."""
    values = sorted(latencies_us)
    summary = {f"p{p}": percentile(values, p) for p in PERCENTILES}
    summary["max"] = float(values[-1]) if values else 0.0
    summary["mean"] = sum(values) / len(values) if values else 0.0
    return summary


# --- queries -----------------------------------------------------------------------------


def read_scenarios(scen: Path) -> list[tuple[tuple[int, int], tuple[int, int], float]]:
    """(start, goal, optimal length) of every line of a ``.map.scen`` file."""
    rows = []
    for line in scen.read_text(encoding="utf-8").splitlines()[1:]:
        fields = line.rstrip("\r").split("\t")
        if len(fields) != 9:
            continue
        _, _, _, _, sx, sy, gx, gy, optimal = fields
        rows.append(((int(sx), int(sy)), (int(gx), int(gy)), float(optimal)))
    return rows


def build_queries(data: Path, per_map: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    """``/path`` bodies per query class: up to ``per_map`` per map, evenly spread over the
    map's scenarios of that class, then shuffled (seeded) so maps are interleaved."""
    scen_files = sorted(data.glob("*.map.scen"), key=lambda p: p.name.lower())
    if not scen_files:
        raise FileNotFoundError(f"no .map.scen files in {data}")
    queries: dict[str, list[dict[str, Any]]] = {name: [] for name in CLASSES}
    for scen in scen_files:
        map_name = scen.name.removesuffix(".map.scen")
        rows = read_scenarios(scen)
        for name, (low, high) in CLASSES.items():
            chosen = [r for r in rows if low <= r[2] < high]
            if len(chosen) > per_map:
                chosen = [chosen[i * len(chosen) // per_map] for i in range(per_map)]
            for start, goal, _ in chosen:
                queries[name].append({"map": map_name, "start": list(start), "goal": list(goal)})
    rng = random.Random(seed)
    for bodies in queries.values():
        rng.shuffle(bodies)
    return queries


def write_bodies(directory: Path, queries: dict[str, list[dict[str, Any]]]) -> dict[str, Path]:
    """One file of JSON bodies (a line each) per workload, and ``all`` (every workload
    mixed, for warm-ups)."""
    workloads = {
        name: [{**body, **extra} for body in queries[query_class]]
        for name, (query_class, extra) in WORKLOADS.items()
    }
    everything = [b for bodies in workloads.values() for b in bodies]
    random.Random(0).shuffle(everything)
    files = {}
    for index, (name, bodies) in enumerate({**workloads, "all": everything}.items()):
        path = directory / f"bodies-{index}.jsonl"
        lines = [json.dumps(body, separators=(",", ":")) for body in bodies]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files[name] = path
    return files


def read_bodies(path: Path) -> list[bytes]:
    bodies = [line.encode() for line in path.read_text(encoding="utf-8").splitlines() if line]
    if not bodies:
        raise ValueError(f"no request bodies in {path}")
    return bodies


# --- the machine's other load ------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    """One process as /proc shows it: CPU time so far (clock ticks), parent, group, command."""

    ticks: int
    ppid: int
    pgid: int
    command: str


def proc_table() -> dict[int, Proc]:
    """Every process of the machine (an empty table where there is no /proc)."""
    table = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        comm = stat[stat.find("(") + 1 : stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2 :].split()  # fields[0] is the state (field 3)
        table[int(entry.name)] = Proc(
            ticks=int(fields[11]) + int(fields[12]),
            ppid=int(fields[1]),
            pgid=int(fields[2]),
            command=cmd.strip() or f"[{comm}]",
        )
    return table


def descendants(table: dict[int, Proc], root: int) -> set[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, proc in table.items():
        children.setdefault(proc.ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, ()))
    return found


class CpuMonitor(threading.Thread):
    """Samples the machine's CPU use every ``interval`` seconds, split three ways: the
    servers (this process's descendants in other process groups: they run in their own
    sessions), the clients (this process, wrk, the load generator) and everything else.

    ``window(t0, t1)`` gives the mean cores each used between two ``perf_counter`` times,
    so every measurement can say what else the machine was doing meanwhile.
    """

    def __init__(self, interval: float = 0.5) -> None:
        super().__init__(name="cpu-monitor", daemon=True)
        self.interval = interval
        self.samples: list[tuple[float, float, float, float]] = []  # t, server, client, others
        self.others_by_command: dict[str, float] = {}  # CPU seconds over the whole run
        self._stop_event = threading.Event()
        self._hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def run(self) -> None:
        me, my_group = os.getpid(), os.getpgid(0)
        previous, previous_t = proc_table(), time.perf_counter()
        while not self._stop_event.wait(self.interval):
            table, now = proc_table(), time.perf_counter()
            ours = descendants(table, me)
            used = {"server": 0.0, "client": 0.0, "others": 0.0}
            for pid, proc in table.items():
                before = previous.get(pid)
                seconds = (proc.ticks - before.ticks) / self._hz if before else 0.0
                if pid in ours:
                    used["server" if proc.pgid != my_group else "client"] += seconds
                else:
                    used["others"] += seconds
                    key = proc.command[:100]
                    self.others_by_command[key] = self.others_by_command.get(key, 0.0) + seconds
            span = now - previous_t
            self.samples.append((now, *(used[k] / span for k in ("server", "client", "others"))))
            previous, previous_t = table, now

    def window(self, began: float, ended: float) -> dict[str, float]:
        """Mean cores used by the servers, the clients and the others in ``[began, ended]``."""
        inside = [s for s in self.samples if began < s[0] <= ended + self.interval / 2]
        if not inside:
            return {"server": 0.0, "client": 0.0, "others": 0.0}
        return {
            key: sum(s[i] for s in inside) / len(inside)
            for i, key in enumerate(("server", "client", "others"), start=1)
        }

    def stop(self, elapsed: float) -> dict[str, Any]:
        """Stop sampling; the others' mean load over the run and their busiest commands."""
        self._stop_event.set()
        self.join(timeout=5)
        busiest = sorted(self.others_by_command.items(), key=lambda kv: -kv[1])[:3]
        return {
            "others_cores": sum(s[3] for s in self.samples) / max(1, len(self.samples)),
            "busiest": [
                {"command": cmd, "cores": seconds / elapsed}
                for cmd, seconds in busiest
                if seconds / elapsed > 0.05
            ],
        }


def background_load(seconds: float = 2.0) -> dict[str, Any]:
    """Load average and the processes busy over ``seconds`` (more than 10 % of a core)."""
    if not Path("/proc/loadavg").exists():
        return {"loadavg": "unknown", "busy": []}
    before = proc_table()
    time.sleep(seconds)
    after = proc_table()
    hz = os.sysconf("SC_CLK_TCK")
    busy = []
    for pid, proc in after.items():
        if pid == os.getpid() or pid not in before:
            continue
        share = (proc.ticks - before[pid].ticks) / hz / seconds * 100
        if share > 10:
            busy.append({"pid": pid, "cpu_percent": round(share), "command": proc.command[:120]})
    busy.sort(key=lambda b: -b["cpu_percent"])
    loadavg = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return {"loadavg": loadavg, "busy": busy}


def code_stamp() -> float:
    """Latest modification time of the app's sources (numba recompiles when it changes)."""
    return max(p.stat().st_mtime for p in (REPO_ROOT / "app").rglob("*.py"))


def describe_load(load: dict[str, Any]) -> str:
    busy = "; ".join(f"{b['cpu_percent']} % {b['command']}" for b in load["busy"]) or "none"
    return f"load average {load['loadavg']}; other processes over 10 % of a core: {busy}"


# --- the server --------------------------------------------------------------------------


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
    """Process-group ids of running servers, one a line, for the Makefile's exit trap."""

    def __init__(self, path: Path | None) -> None:
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


@dataclass
class Server:
    """One uvicorn process (and its workers) in its own process group."""

    data: Path
    workers: int
    search_threads: int
    cache_dir: Path
    pids: PidFile
    port: int = 0
    process: subprocess.Popen | None = None
    started: float = 0.0
    port_open_s: float | None = None
    ready_s: float | None = None
    log_path: Path | None = None

    def start(self) -> None:
        self.port = free_port()
        env = {
            **os.environ,
            "MAPS_DIR": str(self.data),
            "SEARCH_THREADS": str(self.search_threads),
            "LOG_LEVEL": "warning",
            "NUMBA_CACHE_DIR": str(self.cache_dir),
            "PYTHONUNBUFFERED": "1",
        }
        command = [
            sys.executable, "-m", "uvicorn", "app.main:app",
            "--host", HOST, "--port", str(self.port),
            "--workers", str(self.workers), "--log-level", "warning",
        ]  # fmt: skip
        handle, name = tempfile.mkstemp(prefix="gridpath-server-", suffix=".log")
        self.log_path = Path(name)
        self.started = time.perf_counter()
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

    def wait_ready(self, timeout: float, poll: float = 0.01) -> float:
        """Seconds from process start to ``/health`` 200 (also notes when the port opened)."""
        assert self.process is not None
        deadline = self.started + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}: {self.tail()}")
            status = http_get_status(self.port, "/health", timeout=1.0)
            now = time.perf_counter() - self.started
            if status is not None and self.port_open_s is None:
                self.port_open_s = now
            if status == 200:
                self.ready_s = now
                return now
            time.sleep(poll)
        raise TimeoutError(f"/health not 200 after {timeout:.0f} s: {self.tail()}")

    def tail(self, lines: int = 20) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL after 10 s; always leaves nothing behind."""
        if self.process is None:
            return
        group = self.process.pid
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
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

    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def connection_split(self) -> list[int]:
        """Established client connections held by each worker process, largest first.

        uvicorn's workers share one listening socket and each accepted connection stays with
        the worker that accepted it, so keep-alive clients are balanced per connection, not
        per request: this shows how the connections fell.
        """
        if self.process is None:
            return []
        table = proc_table()
        workers = [pid for pid, proc in table.items() if proc.ppid == self.process.pid]
        holders = [pid for pid in workers if "resource_tracker" not in table[pid].command]
        established = established_inodes(self.port)
        counts = [count_sockets(pid, established) for pid in holders or [self.process.pid]]
        return sorted(counts, reverse=True)


def established_inodes(port: int) -> set[int]:
    """Socket inodes of established TCP connections whose local port is ``port``."""
    inodes = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
                inodes.add(int(fields[9]))
    return inodes


def count_sockets(pid: int, inodes: set[int]) -> int:
    """How many of ``inodes`` process ``pid`` holds open."""
    count = 0
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:[") and int(target[8:-1]) in inodes:
                    count += 1
    return count


@contextlib.contextmanager
def running_server(
    data: Path, workers: int, threads: int, cache_dir: Path, pids: PidFile, timeout: float
) -> Iterator[Server]:
    """A started, ready server, stopped on the way out whatever happens."""
    server = Server(data, workers, threads, cache_dir, pids)
    try:
        server.start()
        server.wait_ready(timeout)
        yield server
    finally:
        server.stop()


# --- a minimal HTTP/1.1 client on asyncio (the Python load generator) --------------------


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
        completed = len(self.latencies_us)
        return {
            "mode": self.mode,
            "offered_rps": self.offered_rps,
            "duration_s": self.duration_s,
            "sent": self.sent,
            "requests": completed,
            "rps": completed / self.duration_s if self.duration_s else 0.0,
            "errors": self.errors,
            "error_count": sum(self.errors.values()),
            "latency_us": latency_summary(self.latencies_us),
            "max_send_lag_ms": self.max_send_lag_ms,
        }


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
    port: int,
    bodies: Sequence[bytes],
    rate: float,
    duration: float,
    max_requests: int,
    connections: int,
    timeout: float,
) -> LoadResult:
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


async def closed_loop(
    port: int,
    bodies: Sequence[bytes],
    duration: float,
    max_requests: int,
    connections: int,
    timeout: float,
) -> LoadResult:
    """``connections`` clients, each sending its next request when the last one answered
    (what wrk does; used only when wrk is not installed)."""
    result = LoadResult("closed", None, duration)
    began = time.perf_counter()
    deadline = began + duration
    counter = iter(range(max_requests))

    async def client(offset: int) -> None:
        conn = await Connection.open(port)
        try:
            for i in counter:
                if time.perf_counter() >= deadline:
                    break
                sent = time.perf_counter()
                result.sent += 1
                ok, reusable = await _exchange(
                    conn, bodies[(offset + i) % len(bodies)], timeout, result
                )
                if ok:
                    result.latencies_us.append((time.perf_counter() - sent) * 1e6)
                if not reusable:
                    conn.close()
                    conn = await Connection.open(port)
        finally:
            conn.close()

    await asyncio.gather(*(client(k * 7919) for k in range(connections)))
    result.duration_s = time.perf_counter() - began
    return result


def run_async(coroutine: Any) -> Any:
    """Run on uvloop when it is installed (it comes with uvicorn[standard]), else asyncio."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


def load_main(args: argparse.Namespace) -> int:
    """The ``load`` subcommand: one load run; its result as one JSON line on stdout."""
    bodies = read_bodies(args.bodies)
    if args.rate:
        coroutine = open_loop(
            args.port,
            bodies,
            args.rate,
            args.duration,
            args.max_requests,
            args.connections,
            args.timeout,
        )
    else:
        coroutine = closed_loop(
            args.port, bodies, args.duration, args.max_requests, args.connections, args.timeout
        )
    result = run_async(coroutine)
    print(json.dumps(result.as_dict()))
    return 0


def run_python_load(
    port: int,
    bodies: Path,
    duration: float,
    max_requests: int,
    connections: int,
    rate: float | None = None,
    timeout: float = 10.0,
) -> dict[str, Any]:
    """The ``load`` subcommand in a separate process (so it has its own GIL and core time)."""
    command = [
        sys.executable, "-m", "bench.http_load", "load", "--port", str(port),
        "--bodies", str(bodies), "--duration", str(duration),
        "--max-requests", str(max_requests), "--connections", str(connections),
        "--timeout", str(timeout),
    ]  # fmt: skip
    if rate:
        command += ["--rate", str(rate)]
    done = subprocess.run(
        command,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=duration + 4 * timeout + 60,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"load generator failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- wrk ---------------------------------------------------------------------------------


def run_wrk(
    url: str,
    bodies: Path,
    duration: float,
    max_requests: int,
    connections: int,
    threads: int = 1,
    timeout: float = 10.0,
) -> dict[str, Any]:
    """wrk (closed loop) with ``bench/wrk/path.lua``; its figures in the load result form."""
    command = [
        "wrk", f"-t{threads}", f"-c{connections}", f"-d{max(1, round(duration))}s",
        f"--timeout={round(timeout)}s", "-s", str(WRK_SCRIPT), url,
        "--", str(bodies), str(max_requests), str(threads),
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
    return {
        "mode": "closed",
        "offered_rps": None,
        "duration_s": duration_s,
        "sent": raw["requests"],
        "requests": raw["requests"],
        "rps": raw["requests"] / duration_s if duration_s else 0.0,
        "errors": errors,
        "error_count": sum(errors.values()),
        "latency_us": {k: float(v) for k, v in raw["latency_us"].items()},
        "max_send_lag_ms": 0.0,
    }


# --- /health probe -----------------------------------------------------------------------


class HealthProbe(threading.Thread):
    """``GET /health`` every ``interval`` seconds, each on a new connection (as an
    orchestrator's probe does), timed from connect to the end of the answer."""

    def __init__(self, port: int, interval: float = 0.05, limit: int = 10_000) -> None:
        super().__init__(name="health-probe", daemon=True)
        self.port = port
        self.interval = interval
        self.limit = limit
        self.latencies_us: list[float] = []
        self.failures = 0
        self._stop_event = threading.Event()

    def probe(self) -> float | None:
        """One probe's latency in µs, or None if it failed or did not answer 200."""
        began = time.perf_counter()
        try:
            with socket.create_connection((HOST, self.port), timeout=2.0) as s:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.sendall(f"GET /health HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = s.recv(4096)
                    if not chunk:
                        return None
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(body) < length:
                    chunk = s.recv(4096)
                    if not chunk:
                        return None
                    body += chunk
        except OSError:
            return None
        if head.split(b" ", 2)[1] != b"200":
            return None
        return (time.perf_counter() - began) * 1e6

    def run(self) -> None:
        next_due = time.perf_counter()
        while not self._stop_event.is_set() and len(self.latencies_us) + self.failures < self.limit:
            latency = self.probe()
            if latency is None:
                self.failures += 1
            else:
                self.latencies_us.append(latency)
            next_due += self.interval
            self._stop_event.wait(max(0.0, next_due - time.perf_counter()))

    def stop(self) -> dict[str, Any]:
        self._stop_event.set()
        self.join(timeout=5)
        return {
            "probes": len(self.latencies_us) + self.failures,
            "failures": self.failures,
            "latency_us": latency_summary(self.latencies_us),
        }


def idle_health(port: int, count: int = 20) -> dict[str, Any]:
    """``/health`` latency on an idle server, as a baseline."""
    probe = HealthProbe(port)
    latencies = [probe.probe() for _ in range(count)]
    ok = [x for x in latencies if x is not None]
    return {
        "probes": count,
        "failures": count - len(ok),
        "latency_us": latency_summary(ok),
    }


# --- experiments -------------------------------------------------------------------------


@dataclass
class Plan:
    """Durations and sizes of one benchmark run."""

    data: Path
    closed_duration: float
    warmup_duration: float
    open_duration: float
    max_requests: int
    connections: int
    open_connections: int
    rates: tuple[float, ...]
    open_configs: tuple[tuple[int, int], ...]
    ready_timeout: float
    use_wrk: bool


def closed_load(plan: Plan, server: Server, bodies: Path, duration: float) -> dict[str, Any]:
    """One closed-loop run: wrk, or the Python client when wrk is missing."""
    if plan.use_wrk:
        return run_wrk(server.url(), bodies, duration, plan.max_requests, plan.connections)
    return run_python_load(
        server.port, bodies, duration, plan.max_requests, plan.connections, rate=None
    )


def bench_cold_start(plan: Plan, cache: Path, pids: PidFile) -> list[dict[str, Any]]:
    """Process start to ``/health`` 200 with ``cache`` (an empty folder) as numba's cache,
    then again with the cache the first start filled."""
    if any(cache.iterdir()):
        raise ValueError(f"{cache} must be empty for a cold start")
    rows = []
    for label in ("cold (empty NUMBA_CACHE_DIR)", "warm (same NUMBA_CACHE_DIR)"):
        log(f"start-up: {label}")
        with running_server(plan.data, 1, 2, cache, pids, plan.ready_timeout) as server:
            rows.append(
                {"cache": label, "port_open_s": server.port_open_s, "ready_s": server.ready_s}
            )
    return rows


def measured(
    monitor: CpuMonitor, server: Server, run: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """``run()``'s result with the CPU use meanwhile and, sampled one second in, how the
    client connections fell over the server's workers."""
    split: list[list[int]] = []
    timer = threading.Timer(1.0, lambda: split.append(server.connection_split()))
    began = time.perf_counter()
    timer.start()
    try:
        result = run()
    finally:
        timer.cancel()
    cpu = monitor.window(began, time.perf_counter())
    return {**result, "cpu": cpu, "split": split[0] if split else []}


def bench_closed(
    plan: Plan, files: dict[str, Path], cache: Path, pids: PidFile, monitor: CpuMonitor
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every configuration x workload, closed loop; /health probed during the long ones."""
    rows, health = [], []
    for workers, threads in CONFIGS:
        name = config_name(workers, threads)
        with running_server(plan.data, workers, threads, cache, pids, plan.ready_timeout) as server:
            log(f"closed loop: {name}: warm-up {plan.warmup_duration:.0f} s")
            closed_load(plan, server, files["all"], plan.warmup_duration)
            if (workers, threads) == CONFIGS[0]:
                health.append({"config": name, "load": "idle", **idle_health(server.port)})
            for workload in WORKLOADS:
                log(f"closed loop: {name}: {workload} for {plan.closed_duration:.0f} s")
                probe = HealthProbe(server.port) if workload in SATURATING else None
                if probe:
                    probe.start()
                result = measured(
                    monitor,
                    server,
                    lambda w=workload: closed_load(plan, server, files[w], plan.closed_duration),
                )
                if probe:
                    load = f"{workload}, {plan.connections} connections"
                    health.append({"config": name, "load": load, **probe.stop()})
                rows.append(
                    {"config": name, "workers": workers, "threads": threads, "queries": workload}
                    | result
                )
    return rows, health


def bench_open(
    plan: Plan, files: dict[str, Path], cache: Path, pids: PidFile, monitor: CpuMonitor
) -> list[dict[str, Any]]:
    """Fixed offered rates (open loop, the Python generator in its own process)."""
    rows = []
    for workers, threads in plan.open_configs:
        name = config_name(workers, threads)
        with running_server(plan.data, workers, threads, cache, pids, plan.ready_timeout) as server:
            log(f"open loop: {name}: warm-up")
            run_python_load(
                server.port,
                files["all"],
                plan.warmup_duration,
                plan.max_requests,
                plan.open_connections,
                rate=200,
            )
            for query_class in ("short", "medium"):
                for rate in plan.rates:
                    log(f"open loop: {name}: {query_class} at {rate:.0f}/s")

                    def run(bodies: Path = files[query_class], rate: float = rate) -> dict:
                        return run_python_load(
                            server.port,
                            bodies,
                            plan.open_duration,
                            plan.max_requests,
                            plan.open_connections,
                            rate=rate,
                        )

                    rows.append(
                        {
                            "config": name,
                            "workers": workers,
                            "threads": threads,
                            "queries": query_class,
                        }
                        | measured(monitor, server, run)
                    )
    return rows


# --- report ------------------------------------------------------------------------------


def ms(us: float) -> str:
    return f"{us / 1000:,.2f}"


def split_text(row: dict[str, Any]) -> str:
    """Connections per worker, ``5+3``."""
    return "+".join(str(n) for n in row.get("split") or []) or "?"


def cpu_text(row: dict[str, Any]) -> str:
    """Mean cores used by the server, the clients and other processes during the run."""
    cpu = row.get("cpu") or {}
    return " / ".join(f"{cpu.get(k, 0.0):.2f}" for k in ("server", "client", "others"))


def errors_text(row: dict[str, Any]) -> str:
    if not row["error_count"]:
        return "0"
    detail = ", ".join(f"{k} {v}" for k, v in sorted(row["errors"].items()))
    return f"{row['error_count']} ({detail})"


def table_closed(rows: Sequence[dict[str, Any]], connections: int, tool: str) -> str:
    base = {r["queries"]: r["rps"] for r in rows if (r["workers"], r["threads"]) == CONFIGS[0]}
    out = [
        f"Closed loop ({tool}, {connections} connections, each sends its next request when "
        "its last one is answered):",
        "",
        "| configuration | queries | requests | req/s | vs 1x1 | p50 ms | p90 ms | p99 ms "
        "| max ms | errors | conns per worker | cores: server / client / others |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in sorted(
        rows, key=lambda r: (list(WORKLOADS).index(r["queries"]), r["workers"], r["threads"])
    ):
        lat = r["latency_us"]
        ratio = r["rps"] / base[r["queries"]] if base.get(r["queries"]) else float("nan")
        out.append(
            f"| {r['config']} | {r['queries']} | {r['requests']:,} | {r['rps']:,.0f} | "
            f"{ratio:.2f}x | {ms(lat['p50'])} | {ms(lat['p90'])} | {ms(lat['p99'])} | "
            f"{ms(lat['max'])} | {errors_text(r)} | {split_text(r)} | {cpu_text(r)} |"
        )
    return "\n".join(out)


def table_open(rows: Sequence[dict[str, Any]], connections: int) -> str:
    out = [
        "Open loop (bench/http_load.py `load`, a separate process: requests due at fixed "
        f"times, {connections} keep-alive connections, latency from the due time):",
        "",
        "| configuration | queries | offered req/s | achieved req/s | requests | p50 ms "
        "| p90 ms | p99 ms | max ms | errors | p99 < 10 ms | client late ms | conns per worker "
        "| cores: server / client / others |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|",
    ]
    for r in rows:
        lat = r["latency_us"]
        met = "yes" if lat["p99"] < P99_TARGET_MS * 1000 and not r["error_count"] else "**no**"
        out.append(
            f"| {r['config']} | {r['queries']} | {r['offered_rps']:,.0f} | {r['rps']:,.0f} | "
            f"{r['requests']:,} | {ms(lat['p50'])} | {ms(lat['p90'])} | {ms(lat['p99'])} | "
            f"{ms(lat['max'])} | {errors_text(r)} | {met} | {r['max_send_lag_ms']:.1f} | "
            f"{split_text(r)} | {cpu_text(r)} |"
        )
    return "\n".join(out)


def table_health(rows: Sequence[dict[str, Any]]) -> str:
    out = [
        "`GET /health` every 50 ms from a separate client, a new connection per probe:",
        "",
        "| configuration | load | probes | p50 ms | p90 ms | p99 ms | max ms | failed "
        "| max < 50 ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lat = r["latency_us"]
        met = "yes" if lat["max"] < HEALTH_TARGET_MS * 1000 and not r["failures"] else "**no**"
        out.append(
            f"| {r['config']} | {r['load']} | {r['probes']:,} | {ms(lat['p50'])} | "
            f"{ms(lat['p90'])} | {ms(lat['p99'])} | {ms(lat['max'])} | {r['failures']} | {met} |"
        )
    return "\n".join(out)


def table_start(rows: Sequence[dict[str, Any]]) -> str:
    out = [
        "Start-up (1 worker, 13 Moving AI maps; process start to the first answer and to "
        "`/health` 200, polled every 10 ms):",
        "",
        "| numba cache | port open s | /health 200 s |",
        "|---|---:|---:|",
    ]
    for r in rows:
        out.append(f"| {r['cache']} | {r['port_open_s']:.2f} | {r['ready_s']:.2f} |")
    return "\n".join(out)


# --- chart -------------------------------------------------------------------------------


def _plot_open(ax: Any, rows: Sequence[dict[str, Any]], query_class: str, colours: dict) -> None:
    """Open loop: latency percentiles against the offered rate, one colour per config."""
    from matplotlib.lines import Line2D

    styles = {50: ":", 90: "--", 99: "-"}
    for config, colour in colours.items():
        mine = [r for r in rows if r["config"] == config and r["queries"] == query_class]
        rates = [r["offered_rps"] for r in mine]
        for p in PERCENTILES:
            latencies = [r["latency_us"][f"p{p}"] / 1000 for r in mine]
            ax.plot(rates, latencies, styles[p], marker="o", markersize=4, color=colour)
    ax.axhline(P99_TARGET_MS, color="red", linewidth=0.8)
    ax.annotate(
        "p99 target 10 ms",
        (0.01, P99_TARGET_MS),
        xycoords=("axes fraction", "data"),
        xytext=(0, 3),
        textcoords="offset points",
        color="red",
        fontsize=8,
    )
    ax.axvline(1000, color="grey", linewidth=0.6)
    ax.set_yscale("log")
    ax.set_xlabel("offered load, requests/s (open loop, fixed rate)")
    ax.set_ylabel("latency from due time, ms (log)")
    ax.set_title(f"{query_class} queries at a fixed rate")
    ax.grid(True, which="both", alpha=0.3)
    handles = [Line2D([], [], color=c, marker="o", label=k) for k, c in colours.items()]
    handles += [
        Line2D([], [], color="black", linestyle=styles[p], label=f"p{p}") for p in PERCENTILES
    ]
    ax.legend(handles=handles, fontsize=8, loc="upper left")


def draw_chart(results: dict[str, Any], path: Path) -> None:
    """Four panels: open-loop latency by offered rate (short, medium); closed-loop latency
    and closed-loop throughput relative to 1 worker x 1 thread, by configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    palette = plt.get_cmap("tab10")
    colours = {config_name(w, t): palette(i) for i, (w, t) in enumerate(CONFIGS)}
    open_colours = {c: colours[c] for c in dict.fromkeys(r["config"] for r in results["open"])}
    fig, axes = plt.subplots(2, 2, figsize=(15, 10.5))
    for ax, query_class in zip(axes[0], ("short", "medium")):
        _plot_open(ax, results["open"], query_class, open_colours)

    closed = results["closed"]
    configs = list(dict.fromkeys(r["config"] for r in closed))
    workloads = list(dict.fromkeys(r["queries"] for r in closed))
    width = 0.8 / len(configs)  # bars of one workload side by side, one per config
    offsets = [(i - (len(configs) - 1) / 2) * width for i in range(len(configs))]
    by_key = {(r["config"], r["queries"]): r for r in closed}
    ax_lat, ax_rps = axes[1]
    top = 0.0
    for offset, config in zip(offsets, configs):
        xs = [w + offset for w in range(len(workloads))]
        rows = [by_key[(config, w)] for w in workloads]
        p99 = [r["latency_us"]["p99"] / 1000 for r in rows]
        p50 = [r["latency_us"]["p50"] / 1000 for r in rows]
        ax_lat.bar(xs, p99, width * 0.9, color=colours[config], alpha=0.55, label=config)
        ax_lat.scatter(xs, p50, color=colours[config], marker="_", s=200, linewidths=3)
        base = [by_key[(configs[0], w)]["rps"] for w in workloads]
        ratio = [r["rps"] / b if b else 0.0 for r, b in zip(rows, base)]
        ax_rps.bar(xs, ratio, width * 0.9, color=colours[config], alpha=0.8, label=config)
        top = max(top, *ratio)
        for x, value, r in zip(xs, ratio, rows):
            split = f" ({split_text(r)})" if r["workers"] > 1 else ""
            ax_rps.annotate(
                f"{r['rps']:,.0f}/s{split}",
                (x, value),
                ha="center",
                va="bottom",
                fontsize=7,
                rotation=90,
                xytext=(0, 2),
                textcoords="offset points",
            )
    connections = results["plan"]["connections"]
    for ax, corner in ((ax_lat, "upper left"), (ax_rps, "upper right")):
        ax.set_xticks(range(len(workloads)), [f"{w} queries" for w in workloads])
        ax.legend(fontsize=8, loc=corner)
    ax_lat.set_yscale("log")
    ax_lat.set_ylabel("latency, ms (log): bar p99, tick p50")
    ax_lat.set_title(f"closed loop (wrk), {connections} connections: latency")
    ax_lat.grid(True, axis="y", which="both", alpha=0.3)
    ax_rps.axhline(1, color="black", linewidth=0.6)
    ax_rps.axhline(2, color="grey", linewidth=0.6, linestyle="--")
    ax_rps.annotate(
        "2x: both cores",
        (0.0, 2),
        xycoords=("axes fraction", "data"),
        ha="left",
        xytext=(3, 3),
        textcoords="offset points",
        fontsize=8,
        color="grey",
    )
    ax_rps.set_ylim(0, max(2.4, top * 1.45))
    ax_rps.set_ylabel(f"throughput / {configs[0]}'s")
    ax_rps.set_title(
        f"closed loop (wrk), {connections} connections: throughput\n"
        "(label: requests/s, and connections per worker)"
    )
    ax_rps.grid(True, axis="y", alpha=0.3)
    others = results.get("during", {}).get("others_cores", 0.0)
    fig.suptitle(
        f"gridpath over HTTP on loopback (other processes: {others:.2f} cores on average)\n"
        f"{results['machine_line']}",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --- main --------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.http_load",
        description="Load the real gridpath server over loopback; print Markdown tables.",
    )
    sub = parser.add_subparsers(dest="command")
    load = sub.add_parser("load", help="one load run (the Python generator); JSON on stdout")
    load.add_argument("--port", type=int, required=True, help="server port on 127.0.0.1")
    load.add_argument("--bodies", type=Path, required=True, help="file of JSON bodies, a line each")
    load.add_argument(
        "--rate", type=float, default=0.0, help="requests/s, open loop (default 0: closed loop)"
    )
    load.add_argument("--duration", type=float, default=10.0, help="seconds (default 10)")
    load.add_argument("--max-requests", type=int, default=100_000, help="request cap")
    load.add_argument("--connections", type=int, default=32, help="keep-alive connections")
    load.add_argument("--timeout", type=float, default=10.0, help="seconds per request")

    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="Moving AI folder of X.map and X.map.scen, served as MAPS_DIR",
    )
    parser.add_argument(
        "--per-map", type=int, default=40, help="queries per map and class (default 40)"
    )
    parser.add_argument("--seed", type=int, default=2024, help="query shuffle seed")
    parser.add_argument(
        "--duration", type=float, default=10.0, help="seconds per closed-loop run (default 10)"
    )
    parser.add_argument(
        "--open-duration", type=float, default=8.0, help="seconds per open-loop rate (default 8)"
    )
    parser.add_argument(
        "--rates",
        type=float,
        nargs="+",
        default=[250, 500, 1000, 1500],
        help="open-loop offered rates, requests/s",
    )
    parser.add_argument(
        "--max-requests",
        type=int,
        default=100_000,
        help="request cap of every run (default 100,000)",
    )
    parser.add_argument(
        "--connections", type=int, default=8, help="closed-loop connections (default 8)"
    )
    parser.add_argument(
        "--open-connections",
        type=int,
        default=32,
        help="open-loop keep-alive connections (default 32)",
    )
    parser.add_argument(
        "--ready-timeout",
        type=float,
        default=300.0,
        help="seconds to wait for /health 200 (default 300)",
    )
    parser.add_argument(
        "--no-wrk",
        action="store_true",
        help="closed loop with the Python client, even with wrk installed",
    )
    parser.add_argument("--quick", action="store_true", help="2 s runs, rates 500 and 1000")
    parser.add_argument(
        "--pid-file", type=Path, help="running servers' process groups, for a shell trap"
    )
    parser.add_argument("--json", type=Path, help="also write every figure here")
    parser.add_argument("--chart", type=Path, help="write the latency chart (PNG) here")
    parser.add_argument(
        "--from-json", type=Path, help="measure nothing: tables and chart from a --json file"
    )
    return parser.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    use_wrk = not args.no_wrk and shutil.which("wrk") is not None
    if not use_wrk and not args.no_wrk:
        log("wrk not found: the closed-loop runs use the Python client (apt-get install wrk)")
    quick = args.quick
    return Plan(
        data=args.data.resolve(),
        closed_duration=2.0 if quick else args.duration,
        warmup_duration=1.0 if quick else 3.0,
        open_duration=2.0 if quick else args.open_duration,
        max_requests=args.max_requests,
        connections=args.connections,
        open_connections=args.open_connections,
        rates=(500.0, 1000.0) if quick else tuple(args.rates),
        open_configs=((1, 2), (2, 1)),
        ready_timeout=args.ready_timeout,
        use_wrk=use_wrk,
    )


def run_all(plan: Plan, queries: dict[str, list[dict[str, Any]]], pids: PidFile) -> dict:
    """Every experiment, in one run; the figures, with the machine and its other load."""
    from bench.machine import machine_info, machine_line

    began = time.perf_counter()
    log("measuring the machine's other load (2 s)")
    results: dict[str, Any] = {"load_before": background_load()}
    info = machine_info()
    results.update(
        machine=info,
        machine_line=machine_line(info),
        plan={k: str(v) if isinstance(v, Path) else v for k, v in vars(plan).items()},
        queries={k: len(v) for k, v in queries.items()},
    )
    stamp = code_stamp()
    monitor = CpuMonitor()
    monitor.start()
    with tempfile.TemporaryDirectory(prefix="gridpath-bench-") as tmp:
        files = write_bodies(Path(tmp), queries)
        cache = Path(tmp) / "numba-cache"  # filled by the cold start, reused from then on
        cache.mkdir()
        results["start"] = bench_cold_start(plan, cache, pids)
        results["closed"], results["health"] = bench_closed(plan, files, cache, pids, monitor)
        results["open"] = bench_open(plan, files, cache, pids, monitor)
    results["during"] = monitor.stop(time.perf_counter() - began)
    results["load_after"] = background_load()
    results["app_changed_during_run"] = code_stamp() != stamp
    results["elapsed_s"] = time.perf_counter() - began
    return results


def print_report(results: dict[str, Any]) -> None:
    """The Markdown tables and the lines under them, on stdout."""
    plan = results["plan"]
    counts = ", ".join(f"{n} {k}" for k, n in results["queries"].items())
    per_map = results.get("per_map", 40)
    tool = "wrk 4 with bench/wrk/path.lua" if plan["use_wrk"] else "the Python client (no wrk)"
    print(f"Queries: {counts} (Moving AI scenarios, at most {per_map} per map and class).\n")
    print(table_closed(results["closed"], plan["connections"], tool), end="\n\n")
    print(table_open(results["open"], plan["open_connections"]), end="\n\n")
    print(table_health(results["health"]), end="\n\n")
    print(table_start(results["start"]), end="\n\n")
    print(results["machine_line"])
    during = results["during"]
    busiest = "; ".join(f"{b['cores']:.2f} {b['command']}" for b in during["busiest"]) or "none"
    print(f"\nBefore the run: {describe_load(results['load_before'])}.  ")
    print(
        f"During the run: other processes used {during['others_cores']:.2f} cores on average "
        f"(busiest, cores averaged over the run: {busiest}).  "
    )
    print(f"After the run: {describe_load(results['load_after'])}.  ")
    print(f"Run time {results['elapsed_s']:.0f} s.")
    if results["app_changed_during_run"]:
        print("\n**app/ changed during the run**: servers started after it ran the new code.")
        log("warning: app/ sources changed during the run")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.command == "load":
        return load_main(args)
    if not args.data.is_dir():
        log(f"no Moving AI data in {args.data}")
        return 2
    # SIGTERM and SIGHUP unwind like Ctrl-C, so every running server is stopped
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _frame: sys.exit(128 + signum))
    if args.from_json:
        results = json.loads(args.from_json.read_text())
    else:
        plan = make_plan(args)
        queries = build_queries(plan.data, args.per_map, args.seed)
        log("queries: " + ", ".join(f"{len(v)} {k}" for k, v in queries.items()))
        results = run_all(plan, queries, PidFile(args.pid_file))
        results["per_map"] = args.per_map
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    if args.chart:
        draw_chart(results, args.chart)
        log(f"chart written to {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
