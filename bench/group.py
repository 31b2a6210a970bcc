"""``make bench-group``: POST /group on the real server, the issue's figures (docs/group.md),
every plan through the independent checker of the tests (tests/gridpath/group/checker.py);
the peer, ``cbs-mapf``, in :mod:`bench.group_peer`. Instances, maps and the latest tables:
bench/README.md, "bench-group".
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from bench.common import DEFAULT_DATA, REPO_ROOT, load_grid, table
from bench.server import Server, ServerSpec, running_server
from gridpath.group.graph import build_graph, free_cells
from tests.gridpath.group.checker import check_plans

LIMIT_S = 5.0
BUDGET_MS = int(LIMIT_S * 1000 * 0.8)
# Published LaCAM figures (C++, one core): Okumura, "LaCAM: Search-Based Algorithm for Quick
# Multi-Agent Pathfinding", AAAI 2023: LaCAM solves every random-32-32-20 instance up to 409
# agents (the benchmark's most) and den312d with 1,000 agents, each within about a second;
# LaCAM* (IJCAI 2023) brings sum-of-costs within about 1.1-1.3x of the lower bound given 30 s.
PUBLISHED = "LaCAM (AAAI 2023): random-32-32-20 409 agents, den312d 1000 agents, ~1 s or less"


def random_map(path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    walls = rng.random((32, 32)) < 0.2
    rows = ["".join("@" if w else "." for w in row) for row in walls]
    path.write_text("type octile\nheight 32\nwidth 32\nmap\n" + "\n".join(rows) + "\n")


def free_of(path: Path) -> np.ndarray:
    return free_cells(load_grid(path).passable, 1)


def instance(free: np.ndarray, n: int, seed: int) -> tuple[list, list]:
    graph = build_graph(free)
    biggest = np.bincount(graph.component).argmax()
    cells = np.nonzero(graph.component == biggest)[0]
    rng = np.random.default_rng(seed)
    pick = [rng.choice(cells, n, replace=False) for _ in range(2)]
    as_xy = [[[int(graph.xs[v]), int(graph.ys[v])] for v in p] for p in pick]
    return as_xy[0], as_xy[1]


def run(
    client: httpx.Client, server: Server, name: str, free, starts, goals, budget_ms=BUDGET_MS,
    connectivity=4, diagonal="no_corner_cut",
) -> dict:  # fmt: skip
    """One ``POST /group``, its plans checked; its wall and CPU seconds (the server's CPU time,
    every thread: on a shared machine the wall time also counts other jobs' turns)."""
    units = [{"start": s, "goal": g} for s, g in zip(starts, goals)]
    rules = {"connectivity": connectivity, "diagonal": diagonal}
    body = {"map": name, "units": units, "time_budget_ms": budget_ms, **rules}
    cpu, began = server.cpu_seconds(), time.perf_counter()
    r = client.post("/group", json=body, timeout=120)
    seconds, cpu = time.perf_counter() - began, server.cpu_seconds() - cpu
    r.raise_for_status()
    out = r.json()
    if out["found"]:
        problems = check_plans(free, out["plans"], starts, goals, connectivity, diagonal)
        assert not problems, problems[:3]
    found, soc, bound = out["found"], out.get("sum_of_costs"), out.get("lower_bound")
    ratio = soc / bound if found and bound else None
    return {"s": seconds, "cpu": cpu, "found": found, "ratio": ratio, "work": out["work"],
            "soc": soc if found else None}  # fmt: skip


def row(label: str, n: int, runs: list[dict]) -> list:
    solved = sum(r["found"] for r in runs)
    worst = max(r["s"] for r in runs)
    within = sum(r["found"] and r["s"] <= LIMIT_S for r in runs)
    ratios = [r["ratio"] for r in runs if r["ratio"] is not None]
    med = f"{statistics.median(ratios):.2f}" if ratios else "-"
    cpu_within = sum(r["found"] and r["cpu"] <= LIMIT_S for r in runs)
    worst_cpu = max(r["cpu"] for r in runs)
    rate = statistics.median(r["work"] / max(r["cpu"], 1e-3) / 1000 for r in runs)
    wall = f"{statistics.median(r['s'] for r in runs):.2f}"
    return [label, n, len(runs), solved, within, f"{worst:.2f}", wall, cpu_within,
            f"{worst_cpu:.2f}", med, f"{rate:.0f}"]  # fmt: skip


def cases(maps: Path, quick: bool) -> list[tuple]:
    out = []
    for seed in range(5 if quick else 25):
        random_map(maps / f"random32_{seed}.map", seed)
        out.append(("random-32-32-20", f"random32_{seed}", 400, seed))
    (maps / "den312d.map").symlink_to(DEFAULT_DATA / "den312d.map")
    (maps / "field.png").symlink_to(REPO_ROOT / "maps" / "field.png")
    out += [("den312d", "den312d", 1000, s) for s in range(3 if quick else 10)]
    out += [("den312d (quality)", "den312d", 500, 100 + s) for s in range(3 if quick else 10)]
    out += [("field 256x256", "field", 2000, s) for s in range(2 if quick else 5)]
    return out


def main() -> None:
    from bench.group_peer import compare_cbs  # the peer, on small instances

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer instances")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        maps = Path(tmp)
        todo = cases(maps, args.quick)
        results: dict[tuple, list] = {}
        env = {"MAPS_DIR": str(maps), "SEARCH_THREADS": "1", "MAX_GROUP_UNITS": "2000"}
        with (
            running_server(ServerSpec(env=env), timeout=900) as server,
            httpx.Client(base_url=server.url) as client,
        ):
            for name in sorted({case[1] for case in todo}):  # untimed: first use of a map
                free = free_of(next(maps.glob(f"{name}.*")))
                starts, goals = instance(free, 10, 999)
                run(client, server, name, free, starts, goals)
            for label, name, n, seed in todo:
                free = free_of(next(maps.glob(f"{name}.*")))
                starts, goals = instance(free, n, seed)
                got = run(client, server, name, free, starts, goals)
                results.setdefault((label, n), []).append(got)
            limits = f"time_budget_ms {BUDGET_MS} per request, limit {LIMIT_S:.0f} s"
            print(f"{limits}; every plan checked")
            columns = ("map", "units", "instances", "solved", "solved within 5 s wall",
                       "worst wall s", "median wall s", "solved within 5 s CPU", "worst CPU s",
                       "median SoC / lower bound", "work per CPU ms")  # fmt: skip
            rows = [row(label, n, runs) for (label, n), runs in results.items()]
            print(table(columns, rows, 11), f"Published: {PUBLISHED}", sep="\n")
            compare_cbs(maps, client, server)


if __name__ == "__main__":
    main()
