"""The report of ``bench.http_load``: Markdown tables on stdout and the latency chart."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import log, ms
from bench.load import PERCENTILES
from bench.procs import describe_load

P99_TARGET_MS = 10.0  # at 1,000 requests/s, short and medium queries (issue 15)
HEALTH_TARGET_MS = 50.0  # every /health probe while long searches saturate the server
FLOOR_TARGET = 0.70  # gridpath's /path over the bare endpoint's throughput (issue 15)


def config_name(workers: int, threads: int) -> str:
    """``1 worker x 2 threads``: uvicorn workers x SEARCH_THREADS per worker."""
    plural = {True: "s", False: ""}
    return f"{workers} worker{plural[workers > 1]} x {threads} thread{plural[threads > 1]}"


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
    """Throughput and latency per configuration and workload; ``vs 1x1`` against the first
    configuration run (1 worker x 1 thread)."""
    first = (rows[0]["workers"], rows[0]["threads"]) if rows else None
    base = {r["queries"]: r["rps"] for r in rows if (r["workers"], r["threads"]) == first}
    workloads = list(dict.fromkeys(r["queries"] for r in rows))
    out = [
        f"Closed loop ({tool}, {connections} connections, each sends its next request when "
        "its last one is answered):",
        "",
        "| configuration | queries | requests | req/s | vs 1x1 | p50 ms | p90 ms | p99 ms "
        "| max ms | errors | conns per worker | cores: server / client / others |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in sorted(
        rows, key=lambda r: (workloads.index(r["queries"]), r["workers"], r["threads"])
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
        "Open loop (`python -m bench.load`, a separate process: requests due at fixed "
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


def table_floor(floor: dict[str, Any], connections: int, tool: str) -> str:
    """The bare endpoint and gridpath's /path, run in turn; gridpath's share of the floor."""
    query = json.dumps(floor["query"])
    out = [
        f"HTTP floor ({tool}, {connections} connections, one worker each, the runs alternate; "
        f"body `{query}`):",
        "",
        "| endpoint | run | requests | req/s | server CPU µs per request | p50 ms | p90 ms "
        "| p99 ms | max ms | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in floor["rounds"]:
        lat = r["latency_us"]
        cpu = f"{r['cpu_us']:,.0f}" if r.get("cpu_us") is not None else "-"
        out.append(
            f"| {r['endpoint']} | {r['round']} | {r['requests']:,} | {r['rps']:,.0f} | {cpu} | "
            f"{ms(lat['p50'])} | {ms(lat['p90'])} | {ms(lat['p99'])} | {ms(lat['max'])} | "
            f"{errors_text(r)} |"
        )
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
    configs_run = dict.fromkeys(r["config"] for r in [*results["closed"], *results["open"]])
    colours = {config: palette(i) for i, config in enumerate(configs_run)}
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
    if results.get("health"):
        print(table_health(results["health"]), end="\n\n")
    if results.get("start"):
        print(table_start(results["start"]), end="\n\n")
    if results.get("floor"):
        print(table_floor(results["floor"], plan["connections"], tool), end="\n\n")
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
        print("\n**gridpath/ changed during the run**: servers started after it ran the new code.")
        log("warning: gridpath/ sources changed during the run")
