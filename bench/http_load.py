"""HTTP benchmark: the real server (uvicorn) under load on loopback (``make bench-http``
installs wrk, then runs this): ``closed`` (wrk per configuration and workload) and ``open``
(fixed offered rates, latency from each request's due time). Servers come from
:mod:`bench.server`, load from :mod:`bench.load`, tables from :mod:`bench.http_report`.
Method and latest tables: bench/README.md, "bench-http".
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import common, load
from bench.http_report import config_name, print_report
from bench.server import PidFile, Server, ServerSpec, running_server

# Query classes by published optimal length (Moving AI bucket = floor(length / 4)).
CLASSES: dict[str, tuple[float, float]] = {
    "short": (0.0, 32.0), "medium": (64.0, 256.0), "long": (512.0, math.inf),
}  # fmt: skip
# Workloads of the closed-loop runs: a class, and options added to every body. "long A*"
# runs the long queries with plain A* (several times JPS's kernel time per query), so the
# kernel's share of a request is larger: what GIL release can scale.
WORKLOADS: dict[str, tuple[str, dict[str, Any]]] = {
    "short": ("short", {}), "medium": ("medium", {}), "long": ("long", {}),
    "long A*": ("long", {"algorithm": "astar"}),
}  # fmt: skip
# Server configurations of the closed-loop runs: (workers, SEARCH_THREADS per worker).
CONFIGS: tuple[tuple[int, int], ...] = ((1, 1), (1, 2), (2, 1), (2, 2))
EXPERIMENTS = ("closed", "open")


def build_queries(data: Path, per_map: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    """``/path`` bodies per query class: up to ``per_map`` per map, evenly spread over the
    map's scenarios of that class, then shuffled (seeded) so maps are interleaved."""
    scen_files = sorted(data.glob("*.map.scen"), key=lambda p: p.name.lower())
    if not scen_files:
        raise FileNotFoundError(f"no .map.scen files in {data}")
    queries: dict[str, list[dict[str, Any]]] = {name: [] for name in CLASSES}
    for scen in scen_files:
        map_name = scen.name.removesuffix(".map.scen")
        scenarios = common.parse_scenarios(scen)
        for name, (low, high) in CLASSES.items():
            chosen = common.subsample([s for s in scenarios if low <= s.optimal < high], per_map)
            queries[name] += [
                {"map": map_name, "start": list(s.start), "goal": list(s.goal)} for s in chosen
            ]
    rng = random.Random(seed)
    for bodies in queries.values():
        rng.shuffle(bodies)
    return queries


def workload_files(directory: Path, queries: dict[str, list[dict[str, Any]]]) -> dict[str, Path]:
    """One file of JSON bodies (a line each) per workload and ``all`` (every workload mixed,
    for warm-ups)."""
    workloads = {
        name: [{**body, **extra} for body in queries[query_class]]
        for name, (query_class, extra) in WORKLOADS.items()
    }
    everything = [b for bodies in workloads.values() for b in bodies]
    random.Random(0).shuffle(everything)
    named = {**workloads, "all": everything}
    return {
        name: common.write_bodies(directory / f"bodies-{index}.jsonl", bodies)
        for index, (name, bodies) in enumerate(named.items())
    }


def code_stamp() -> float:
    """Latest modification time of the app's sources (numba recompiles when it changes)."""
    return max(
        p.stat().st_mtime
        for p in (p for d in ("gridpath", "app") for p in (common.REPO_ROOT / d).rglob("*.py"))
    )


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
    experiments: tuple[str, ...]

    def gridpath(self, workers: int, threads: int) -> ServerSpec:
        """gridpath serving the Moving AI maps with ``threads`` searches per worker."""
        env = {"MAPS_DIR": str(self.data), "SEARCH_THREADS": str(threads)}
        return ServerSpec(env=env, workers=workers)


def closed_load(plan: Plan, server: Server, bodies: Path, duration: float) -> dict[str, Any]:
    """One closed-loop run (wrk)."""
    return load.run_wrk(server.url, bodies, duration, plan.max_requests, plan.connections)


def bench_closed(plan: Plan, files: dict[str, Path], pids: PidFile) -> list[dict[str, Any]]:
    """Every configuration x workload, closed loop (wrk)."""
    rows = []
    for workers, threads in CONFIGS:
        name = config_name(workers, threads)
        spec = plan.gridpath(workers, threads)
        with running_server(spec, plan.ready_timeout, pids) as server:
            common.log(f"closed loop: {name}: warm-up {plan.warmup_duration:.0f} s")
            closed_load(plan, server, files["all"], plan.warmup_duration)
            for workload in WORKLOADS:
                common.log(f"closed loop: {name}: {workload} for {plan.closed_duration:.0f} s")
                result = closed_load(plan, server, files[workload], plan.closed_duration)
                row = {"config": name, "workers": workers, "threads": threads}
                rows.append(row | {"queries": workload} | result)
    return rows


def bench_open(plan: Plan, files: dict[str, Path], pids: PidFile) -> list[dict[str, Any]]:
    """Fixed offered rates (open loop, the Python generator in its own process)."""
    rows = []
    for workers, threads in plan.open_configs:
        name = config_name(workers, threads)
        spec = plan.gridpath(workers, threads)
        with running_server(spec, plan.ready_timeout, pids) as server:
            common.log(f"open loop: {name}: warm-up")
            warm_up = (files["all"], 200, plan.warmup_duration, plan.max_requests)
            load.run_open_loop(server.port, *warm_up, plan.open_connections)
            for query_class in ("short", "medium"):
                for rate in plan.rates:
                    common.log(f"open loop: {name}: {query_class} at {rate:.0f}/s")
                    result = load.run_open_loop(
                        server.port, files[query_class], rate, plan.open_duration,
                        plan.max_requests, plan.open_connections,
                    )  # fmt: skip
                    row = {"config": name, "workers": workers, "threads": threads}
                    rows.append(row | {"queries": query_class} | result)
    return rows


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.http_load", description=__doc__)
    add = parser.add_argument
    add("--data", type=Path, default=common.DEFAULT_DATA, help="Moving AI folder (MAPS_DIR)")
    add("--per-map", type=int, default=40, help="queries per map and class (default 40)")
    add("--seed", type=int, default=2024, help="query shuffle seed")
    add("--duration", type=float, default=10.0, help="seconds per closed-loop run (default 10)")
    add("--open-duration", type=float, default=8.0, help="seconds per open-loop rate (default 8)")
    add("--rates", type=float, nargs="+", default=[250, 500, 1000, 1500], help="offered req/s")
    load.add_run_options(parser, EXPERIMENTS)
    parser.add_argument("--quick", action="store_true", help="2 s runs, rates 500 and 1000")
    return parser.parse_args(argv)


def make_plan(args: argparse.Namespace) -> Plan:
    quick = args.quick
    return Plan(
        data=args.data.resolve(), closed_duration=2.0 if quick else args.duration,
        warmup_duration=1.0 if quick else 3.0,
        open_duration=2.0 if quick else args.open_duration, max_requests=args.max_requests,
        connections=args.connections, open_connections=32,
        rates=(500.0, 1000.0) if quick else tuple(args.rates), open_configs=((1, 2), (2, 1)),
        ready_timeout=args.ready_timeout,
        experiments=tuple(e for e in EXPERIMENTS if e in args.only),
    )  # fmt: skip


def run_all(plan: Plan, queries: dict[str, list[dict[str, Any]]], pids: PidFile) -> dict:
    """The chosen experiments, in one run; the figures, with the machine and its other load."""
    began = time.perf_counter()
    results = load.results_of(plan) | {"queries": {k: len(v) for k, v in queries.items()}}
    stamp = code_stamp()
    run = plan.experiments
    with tempfile.TemporaryDirectory(prefix="gridpath-bench-") as tmp:
        files = workload_files(Path(tmp), queries)
        if "closed" in run:
            results["closed"] = bench_closed(plan, files, pids)
        if "open" in run:
            results["open"] = bench_open(plan, files, pids)
    results["app_changed_during_run"] = code_stamp() != stamp
    results["elapsed_s"] = time.perf_counter() - began
    return results


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.data.is_dir():
        common.log(f"no Moving AI data in {args.data}")
        return 2
    common.exit_on_signals()
    load.require_wrk()
    plan = make_plan(args)
    queries = build_queries(plan.data, args.per_map, args.seed)
    common.log("queries: " + ", ".join(f"{len(v)} {k}" for k, v in queries.items()))
    results = run_all(plan, queries, PidFile(args.pid_file))
    results["per_map"] = args.per_map
    print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
