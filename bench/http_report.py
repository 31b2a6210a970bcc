"""The report of ``bench.http_load``: Markdown tables on stdout."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench.common import header, log, ms, row

P99_TARGET_MS = 10.0  # at 1,000 requests/s, short and medium queries (issue 15)
LATENCY_KEYS = ("p50", "p90", "p99", "max")
LATENCY_MS = tuple(f"{k} ms" for k in LATENCY_KEYS)


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
    columns = ("configuration", "queries", "offered req/s", "achieved req/s", "requests",
               *LATENCY_MS, "errors", "p99 < 10 ms", "client late ms")  # fmt: skip
    out = [
        "Open loop (`python -m bench.load`, a separate process: requests due at fixed "
        f"times, {connections} keep-alive connections, latency from the due time):\n",
        header(columns, 2),
    ]
    for r in rows:
        lat = r["latency_us"]
        met = "yes" if lat["p99"] < P99_TARGET_MS * 1000 and not r["error_count"] else "**no**"
        out.append(row([r["config"], r["queries"], f"{r['offered_rps']:,.0f}", f"{r['rps']:,.0f}",
                        f"{r['requests']:,}", latency_text(lat), errors_text(r), met,
                        f"{r['max_send_lag_ms']:.1f}"]))  # fmt: skip
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
    print(results["machine_line"])
    print()
    print(f"Run time {results['elapsed_s']:.0f} s.")
    if results["app_changed_during_run"]:
        print("\n**gridpath/ changed during the run**: servers started after it ran the new code.")
        log("warning: gridpath/ sources changed during the run")
