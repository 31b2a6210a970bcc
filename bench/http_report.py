"""The report of ``bench.http_load``: Markdown tables on stdout."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bench.common import header, log, ms, row

P99_TARGET_MS = 10.0  # at 1,000 requests/s, short and medium queries (issue 15)
LATENCY_KEYS = ("p50", "p90", "p99", "max")
LATENCY_MS = tuple(f"{k} ms" for k in LATENCY_KEYS)
FLOOR_TARGET = 0.70  # gridpath's /path over the bare endpoint's throughput (issue 15)


def config_name(workers: int, threads: int) -> str:
    """``1 worker x 2 threads``: uvicorn workers x SEARCH_THREADS per worker."""
    plural = {True: "s", False: ""}
    return f"{workers} worker{plural[workers > 1]} x {threads} thread{plural[threads > 1]}"


def latency_text(lat: dict[str, float]) -> str:
    """p50, p90, p99 and max, in ms, as table cells."""
    return " | ".join(ms(lat[k]) for k in LATENCY_KEYS)


def errors_text(row: dict[str, Any]) -> str:
    if not row["error_count"]:
        return "0"
    detail = ", ".join(f"{k} {v}" for k, v in sorted(row["errors"].items()))
    return f"{row['error_count']} ({detail})"


def table_closed(rows: Sequence[dict[str, Any]], connections: int, tool: str) -> str:
    """Throughput and latency per configuration and workload; ``vs 1x1`` against the first
    configuration run (1 worker x 1 thread)."""
    first = (rows[0]["workers"], rows[0]["threads"]) if rows else None
    base = {r["queries"]: r["rps"] for r in rows if (r["workers"], r["threads"]) == first}
    workloads = list(dict.fromkeys(r["queries"] for r in rows))
    out = [
        f"Closed loop ({tool}, {connections} connections, each sends its next request when "
        "its last one is answered):",
        "",
        header(("configuration", "queries", "requests", "req/s", "vs 1x1", *LATENCY_MS,
                "errors"), 2),
    ]  # fmt: skip
    rows = sorted(rows, key=lambda r: (workloads.index(r["queries"]), r["workers"], r["threads"]))
    for r in rows:
        ratio = r["rps"] / base[r["queries"]] if base.get(r["queries"]) else float("nan")
        cells = [r["config"], r["queries"], f"{r['requests']:,}", f"{r['rps']:,.0f}"]
        out.append(row([*cells, f"{ratio:.2f}x", latency_text(r["latency_us"]), errors_text(r)]))
    return "\n".join(out)


def table_open(rows: Sequence[dict[str, Any]], connections: int) -> str:
    out = [
        "Open loop (`python -m bench.load`, a separate process: requests due at fixed "
        f"times, {connections} keep-alive connections, latency from the due time):",
        "",
        "| configuration | queries | offered req/s | achieved req/s | requests | p50 ms "
        "| p90 ms | p99 ms | max ms | errors | p99 < 10 ms | client late ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for r in rows:
        lat = r["latency_us"]
        met = "yes" if lat["p99"] < P99_TARGET_MS * 1000 and not r["error_count"] else "**no**"
        out.append(
            f"| {r['config']} | {r['queries']} | {r['offered_rps']:,.0f} | {r['rps']:,.0f} | "
            f"{r['requests']:,} | {latency_text(lat)} | {errors_text(r)} | {met} | "
            f"{r['max_send_lag_ms']:.1f} |"
        )
    return "\n".join(out)


def table_floor(floor: dict[str, Any], connections: int, tool: str) -> str:
    """The bare endpoint and gridpath's /path, run in turn; gridpath's share of the floor."""
    query = json.dumps(floor["query"])
    out = [
        f"HTTP floor ({tool}, {connections} connections, one worker each, the runs alternate; "
        f"body `{query}`):",
        "",
        header(("endpoint", "run", "requests", "req/s", "server CPU µs per request",
                *LATENCY_MS, "errors")),
    ]  # fmt: skip
    for r in floor["rounds"]:
        cpu = f"{r['cpu_us']:,.0f}" if r.get("cpu_us") is not None else "-"
        cells = [r["endpoint"], r["round"], f"{r['requests']:,}", f"{r['rps']:,.0f}", cpu]
        out.append(row([*cells, latency_text(r["latency_us"]), errors_text(r)]))
    met = "met" if floor["ratio"] >= FLOOR_TARGET else "**not met**"
    out += [
        "",
        f"gridpath `/path` answered **{floor['ratio']:.0%}** of the bare endpoint's requests/s "
        f"(all runs pooled; target >= {FLOOR_TARGET:.0%}: {met}).",
    ]
    if floor.get("cpu_ratio"):
        bare_cpu, our_cpu = floor["cpu_us"].values()
        out.append(
            f"By server CPU time per request, which other load on the machine changes less: "
            f"{our_cpu:,.0f} µs against the floor's {bare_cpu:,.0f} µs, "
            f"**{floor['cpu_ratio']:.0%}** of the floor's requests per CPU second."
        )
    return "\n".join(out)


def print_report(results: dict[str, Any]) -> None:
    """The Markdown tables and the lines under them, on stdout."""
    plan = results["plan"]
    counts = ", ".join(f"{n} {k}" for k, n in results["queries"].items())
    per_map = results.get("per_map", 40)
    tool = "wrk 4 with bench/wrk/path.lua"
    if results.get("closed") or results.get("open"):
        print(f"Queries: {counts} (Moving AI scenarios, at most {per_map} per map and class).\n")
    if results.get("closed"):
        print(table_closed(results["closed"], plan["connections"], tool), end="\n\n")
    if results.get("open"):
        print(table_open(results["open"], plan["open_connections"]), end="\n\n")
    if results.get("floor"):
        print(table_floor(results["floor"], plan["connections"], tool), end="\n\n")
    print(results["machine_line"])
    print()
    print(f"Run time {results['elapsed_s']:.0f} s.")
    if results["app_changed_during_run"]:
        print("\n**gridpath/ changed during the run**: servers started after it ran the new code.")
        log("warning: gridpath/ sources changed during the run")
