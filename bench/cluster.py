"""Cluster benchmark: several gridpath processes sharing one map store, over HTTP only.

``python -m bench.cluster --help`` lists the options; the method and the latest results are
in bench/README.md, "bench-cluster".
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import common, load
from bench.http_load import build_queries
from bench.http_report import LATENCY_KEYS, LATENCY_MS, errors_text, latency_text
from bench.server import JsonClient, PidFile, Server, ServerSpec, redis_server, running

EXPERIMENTS = ("propagation", "store", "scale")
ADMIN_TOKEN = "bench-cluster-admin"
EDITED_MAP = "arena"
PROPAGATION_TIMEOUT_S = 5.0  # a change not seen everywhere by then counts as lost


@dataclass
class Plan:
    data: Path
    changes: int
    process_counts: tuple[int, ...]
    duration: float
    warmup: float
    rounds: int
    connections: int
    max_requests: int
    ready_timeout: float
    experiments: tuple[str, ...]
    state_root: Path  # temporary: the folder store's lock and revision records go below

    def spec(self, store_url: str | None) -> ServerSpec:
        """One gridpath process (one worker) on the Moving AI maps; ``store_url``: Redis.
        Its folder-store state (``MAP_STATE_DIR``) is a fresh folder of its own, so runs
        share nothing with each other or with other servers of the same maps."""
        state = tempfile.mkdtemp(dir=self.state_root)
        env = {"MAPS_DIR": str(self.data), "ADMIN_TOKEN": ADMIN_TOKEN, "MAP_STATE_DIR": state}
        if store_url is not None:
            env["MAP_STORE"] = store_url
        return ServerSpec(env=env)


def toggled_cell(data: Path) -> list[int]:
    """A walkable cell of the edited map, away from its border."""
    grid = common.load_grid(data / f"{EDITED_MAP}.map")
    h, w = grid.walkable.shape
    for y in range(h // 2, h):
        for x in range(w // 2, w):
            if grid.walkable[y, x]:
                return [x, y]
    raise ValueError(f"no walkable cell in the lower right quarter of {EDITED_MAP}")


def measure_propagation(plan: Plan, processes: int, pids: PidFile) -> dict[str, Any]:
    """``plan.changes`` PATCHes through the processes in turn; per change, the time from its
    acknowledgement until every process reports its revision."""
    cell = toggled_cell(plan.data)
    path = f"/maps/{EDITED_MAP}"
    acks_us, spread_us, lost, mismatched, refused = [], [], 0, 0, {}
    poll_us: list[float] = []
    with redis_server(pids) as url:
        specs = [plan.spec(url) for _ in range(processes)]
        with running(specs, plan.ready_timeout, pids) as servers:
            clients = [JsonClient(s.port, ADMIN_TOKEN) for s in servers]
            try:
                for i in range(plan.changes):
                    writer = clients[i % processes]
                    value = "blocked" if i % 2 == 0 else "walkable"
                    edit = {"set": [{"cells": [cell], "value": value}]}
                    sent = time.perf_counter()
                    status, answer = writer.call("PATCH", path, edit, admin=True)
                    acked = time.perf_counter()
                    if status != 200:
                        refused[status] = refused.get(status, 0) + 1
                        continue
                    acks_us.append((acked - sent) * 1e6)
                    revision, digest = answer["revision"], answer["sha256"]
                    pending = set(range(processes))
                    deadline = acked + PROPAGATION_TIMEOUT_S
                    while pending and time.perf_counter() < deadline:
                        for k in sorted(pending):
                            began = time.perf_counter()
                            _, info = clients[k].call("GET", path, admin=True)
                            poll_us.append((time.perf_counter() - began) * 1e6)
                            if info["revision"] >= revision:
                                pending.discard(k)
                                mismatched += info["revision"] == revision and (
                                    info["sha256"] != digest
                                )
                    if pending:
                        lost += 1
                    else:
                        spread_us.append((time.perf_counter() - acked) * 1e6)
                    if (i + 1) % max(1, plan.changes // 10) == 0:
                        common.log(f"propagation, {processes} processes: {i + 1}/{plan.changes}")
            finally:
                for client in clients:
                    client.close()
    spread_us.sort()
    return {
        "processes": processes, "changes": plan.changes, "acknowledged": len(acks_us),
        "refused": refused, "ack_p50_us": statistics.median(acks_us) if acks_us else 0.0,
        "p50_us": common.percentile(spread_us, 50), "p99_us": common.percentile(spread_us, 99),
        "max_us": spread_us[-1] if spread_us else 0.0, "lost": lost,
        "hash_mismatches": int(mismatched),
        "poll_us": statistics.median(poll_us) if poll_us else 0.0,
    }  # fmt: skip


def pooled(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Several simultaneous runs (one per process) as one: requests summed over the longest
    duration, latency percentiles the worst of them."""
    duration = max(r["duration_s"] for r in results)
    requests = sum(r["requests"] for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for kind, n in r["errors"].items():
            errors[kind] = errors.get(kind, 0) + n
    latency = {k: max(r["latency_us"][k] for r in results) for k in LATENCY_KEYS}
    return load.load_figures(duration, requests, errors, latency)


def load_together(plan: Plan, servers: Sequence[Server], bodies: Path) -> dict[str, Any]:
    """``plan.connections`` connections split over ``servers``, loaded at the same time."""
    share = max(1, plan.connections // len(servers))
    results: list[dict[str, Any]] = [{} for _ in servers]

    def one(k: int) -> None:
        results[k] = load.run_wrk(servers[k].url, bodies, plan.duration, plan.max_requests, share)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(len(servers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if any(not r for r in results):
        raise RuntimeError("a load generator failed")
    return pooled(results)


def alternate(
    plan: Plan, labelled: Sequence[tuple[str, Sequence[Server]]], bodies: Path, what: str
) -> list[dict[str, Any]]:
    """Each labelled group of servers loaded in turn, ``plan.rounds`` times (the order
    reversed every other round), after a warm-up."""
    for server in (server for _, servers in labelled for server in servers):
        load.run_wrk(server.url, bodies, plan.warmup, plan.max_requests, plan.connections)
    runs = []
    for turn, (label, servers) in load.abba(plan.rounds, labelled):
        common.log(f"{what}: {label}, round {turn}, {plan.duration:.0f} s")
        runs.append({"label": label, "round": turn, **load_together(plan, servers, bodies)})
    return runs


def ratio(runs: Sequence[dict[str, Any]], label: str, base: str) -> float:
    """Pooled requests/s of ``label`` over that of ``base``."""
    return load.pooled_rate(runs, "label", label) / load.pooled_rate(runs, "label", base)


def bench_store(plan: Plan, bodies: Path, pids: PidFile) -> dict[str, Any]:
    """One process on Redis and one on the folder store, short queries, in turn."""
    with redis_server(pids) as url:
        specs = [plan.spec(None), plan.spec(url)]
        with running(specs, plan.ready_timeout, pids) as (folder, redis):
            labelled = [("folder store", [folder]), ("Redis store", [redis])]
            runs = alternate(plan, labelled, bodies, "store")
    return {"runs": runs, "ratio": ratio(runs, "Redis store", "folder store")}


def bench_scale(plan: Plan, bodies: Path, pids: PidFile, redis: bool) -> dict[str, Any]:
    """One process against two, the same connections in all, in turn."""
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(redis_server(pids)) if redis else None
        servers = stack.enter_context(running([plan.spec(url)] * 2, plan.ready_timeout, pids))
        labelled = [("1 process", servers[:1]), ("2 processes", servers)]
        runs = alternate(plan, labelled, bodies, "scale")
    store = "Redis" if redis else "folder"
    return {"store": store, "runs": runs, "ratio": ratio(runs, "2 processes", "1 process")}


def propagation_table(rows: Sequence[dict[str, Any]]) -> str:
    columns = (
        "processes", "changes", "acknowledged", "PATCH answer p50 ms", "propagation p50 ms",
        "p99 ms", "max ms", f"not everywhere in {PROPAGATION_TIMEOUT_S:.0f} s",
        "hash mismatches", "poll p50 ms",
    )  # fmt: skip
    cells = []
    for r in rows:
        refused = sum(r["refused"].values())
        acknowledged = f"{r['acknowledged']:,}" + (f" ({refused} refused)" if refused else "")
        cells.append([r["processes"], f"{r['changes']:,}", acknowledged,
                      *(common.ms(r[k]) for k in ("ack_p50_us", "p50_us", "p99_us", "max_us")),
                      r["lost"], r["hash_mismatches"], common.ms(r["poll_us"])])  # fmt: skip
    return common.table(columns, cells, 0)


def runs_table(runs: Sequence[dict[str, Any]], first: str) -> str:
    columns = (first, "run", "requests", "req/s", *LATENCY_MS, "errors")
    return common.table(columns, (
        [r["label"], r["round"], f"{r['requests']:,}", f"{r['rps']:,.0f}",
         latency_text(r["latency_us"]), errors_text(r)] for r in runs
    ))  # fmt: skip


def print_report(results: dict[str, Any]) -> None:
    plan = results["plan"]
    closed = f"wrk, {plan['connections']} connections in all, closed loop"
    for reason in results["skipped"]:
        print(f"Skipped: {reason}.\n")
    if results.get("propagation"):
        print(
            "Change propagation (Redis store; PATCH through each process in turn, then "
            "`GET /maps/arena` on every process until it reports the new revision):\n"
        )
        print(propagation_table(results["propagation"]), end="\n\n")
    if results.get("store"):
        store = results["store"]
        print(f"Short queries, one process per store, runs alternating ({closed}):\n")
        print(runs_table(store["runs"], "store"))
        print(f"\nRedis store / folder store: **{store['ratio']:.2f}x** requests/s.\n")
    if results.get("scale"):
        scale = results["scale"]
        print(
            f"Short queries, one process against two ({scale['store']} store; {closed}, "
            "split evenly over the processes; runs alternating):\n"
        )
        print(runs_table(scale["runs"], "processes"))
        print(f"\n2 processes / 1 process: **{scale['ratio']:.2f}x** requests/s.\n")
    print(results["machine_line"])
    print(f"\nRun time {results['elapsed_s']:.0f} s.")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__)
    parser.add_argument("--data", type=Path, default=common.DEFAULT_DATA, help="Moving AI folder")
    parser.add_argument("--changes", type=int, default=200, help="changes per propagation run")
    parser.add_argument("--processes", type=int, nargs="+", default=[2, 3],
                        help="process counts of the propagation runs")  # fmt: skip
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per load run")
    parser.add_argument("--rounds", type=int, default=2, help="runs per variant (default 2)")
    load.add_run_options(parser, EXPERIMENTS)
    parser.add_argument("--quick", action="store_true", help="20 changes, 2 s runs, 1 round")
    args = parser.parse_args(argv)
    if args.changes < 1 or args.rounds < 1 or min(args.processes) < 1:
        parser.error("--changes, --rounds and --processes must be at least 1")
    return args


def make_plan(args: argparse.Namespace, state_root: Path) -> Plan:
    load.require_wrk()
    quick = args.quick
    return Plan(
        data=args.data.resolve(), changes=min(args.changes, 20) if quick else args.changes,
        process_counts=tuple(args.processes), duration=2.0 if quick else args.duration,
        warmup=1.0 if quick else 2.0, rounds=1 if quick else args.rounds,
        connections=args.connections, max_requests=args.max_requests,
        ready_timeout=args.ready_timeout,
        experiments=tuple(e for e in EXPERIMENTS if e in args.only), state_root=state_root,
    )  # fmt: skip


def run_all(plan: Plan, pids: PidFile) -> dict[str, Any]:
    """The chosen experiments; the figures, with the machine and what was skipped."""
    began = time.perf_counter()
    results: dict[str, Any] = load.results_of(plan) | {"skipped": []}
    missing = None  # why Redis cannot run here (the experiments that need it are skipped)
    if shutil.which("redis-server") is None:
        missing = "redis-server is not installed (Debian package redis-server)"
    redis_needed = {"propagation", "store"} & set(plan.experiments)
    if missing and redis_needed:
        results["skipped"].append(f"{' and '.join(sorted(redis_needed))}: {missing}")
    short = build_queries(plan.data, 40, seed=0)["short"]  # < 32 cells, 40 per map
    bodies = common.write_bodies(plan.state_root / "short.jsonl", short)
    if "propagation" in plan.experiments and not missing:
        results["propagation"] = [measure_propagation(plan, n, pids) for n in plan.process_counts]
    if "store" in plan.experiments and not missing:
        results["store"] = bench_store(plan, bodies, pids)
    if "scale" in plan.experiments:
        results["scale"] = bench_scale(plan, bodies, pids, redis=missing is None)
    results["elapsed_s"] = time.perf_counter() - began
    return results


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.data.is_dir():
        common.log(f"no Moving AI data in {args.data}")
        return 2
    common.exit_on_signals()
    with tempfile.TemporaryDirectory(prefix="gridpath-cluster-") as tmp:
        results = run_all(make_plan(args, Path(tmp)), PidFile(args.pid_file))
    print_report(results)
    failed = any(r["lost"] or r["hash_mismatches"] for r in results.get("propagation", []))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
