"""What metrics and request logs cost: the same build side by side, switched by settings.

    python -m bench.metrics_overhead [--rounds 4] [--seconds 5]

Three servers (one worker each, the bundled maps) differ only in ``METRICS_ENABLED`` and
``ACCESS_LOG``: ``off`` (neither), ``metrics`` (metrics only), ``metrics+log`` (both, the
default). wrk (8 connections, loopback) sends short ``/path`` queries on ``arena`` to each in
turn, round after round, so slow phases of a shared machine fall on every configuration
alike. The table gives each one's median throughput and the server's CPU time per request
(user + system, from ``/proc``: much less sensitive than throughput to what else the machine
runs), and their cost against ``off``. Results go in bench/README.md ("Metrics overhead").
Needs ``wrk``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
from pathlib import Path

from bench.common import write_bodies
from bench.load import run_wrk
from bench.server import REPO_ROOT, Server, ServerSpec

CONFIGS = {
    "off": {"METRICS_ENABLED": "false", "ACCESS_LOG": "false"},
    "metrics": {"METRICS_ENABLED": "true", "ACCESS_LOG": "false"},
    "metrics+log": {"METRICS_ENABLED": "true", "ACCESS_LOG": "true"},
}


def short_queries(count: int = 200) -> list[dict]:
    """Short queries on arena (64 x 64, nine rooms): walkable ends a few cells apart."""
    from gridpath.grid import load_map

    grid = load_map(REPO_ROOT / "maps" / "arena.png", max_cells=10**6, max_bytes=10**8)
    walkable = grid.walkable
    rng = random.Random(7)
    cells = [(x, y) for y in range(grid.height) for x in range(grid.width) if walkable[y, x]]
    queries = []
    while len(queries) < count:
        sx, sy = rng.choice(cells)
        gx, gy = sx + rng.randint(-8, 8), sy + rng.randint(-8, 8)
        if 0 <= gx < grid.width and 0 <= gy < grid.height and walkable[gy, gx]:
            queries.append({"map": "arena", "start": [sx, sy], "goal": [gx, gy]})
    return queries


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="gridpath-metrics-ab-"))
    bodies = write_bodies(folder / "bodies.jsonl", short_queries())
    servers: dict[str, Server] = {}
    try:
        for name, env in CONFIGS.items():
            # The request lines go to the server's log file, as they would in production.
            spec = ServerSpec(env={"LOG_LEVEL": "info", "LOG_FORMAT": "json", **env})
            servers[name] = server = Server(spec)
            server.start()
        for server in servers.values():
            server.wait_ready(timeout=600)
        rps: dict[str, list[float]] = {name: [] for name in CONFIGS}
        cpu_us: dict[str, list[float]] = {name: [] for name in CONFIGS}
        for server in servers.values():  # warm-up: not counted
            run_wrk(server.url, bodies, 2, 0, args.connections)
        for round_ in range(args.rounds):
            order = list(CONFIGS) if round_ % 2 == 0 else list(reversed(CONFIGS))
            for name in order:
                server = servers[name]
                before = cpu_seconds(server.pid)
                result = run_wrk(server.url, bodies, args.seconds, 0, args.connections)
                if result["error_count"]:
                    raise RuntimeError(f"{name}: errors {result['errors']}")
                rps[name].append(result["rps"])
                cpu_us[name].append((cpu_seconds(server.pid) - before) / result["requests"] * 1e6)
                print(
                    f"round {round_ + 1} {name:12} {result['rps']:8.0f} req/s "
                    f"{cpu_us[name][-1]:6.0f} CPU µs/request",
                    flush=True,
                )
        base_rps, base_cpu = statistics.median(rps["off"]), statistics.median(cpu_us["off"])
        print(
            "\n| configuration | median req/s | throughput cost | median CPU µs per request "
            "| CPU cost |\n|---|---|---|---|---|"
        )
        for name in CONFIGS:
            median_rps, median_cpu = statistics.median(rps[name]), statistics.median(cpu_us[name])
            print(
                f"| {name} | {median_rps:.0f} | {(1 - median_rps / base_rps) * 100:+.1f} % "
                f"| {median_cpu:.0f} | {(median_cpu / base_cpu - 1) * 100:+.1f} % |"
            )
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    main()
