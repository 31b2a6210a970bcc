"""A cost matrix two ways: ``POST /table`` against ``/path`` for every pair.

``python -m bench.table --help`` lists the options; the method and the latest results are
in bench/README.md, "bench.table".
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx
import numpy as np

from app.api.path_body import answer
from app.api.rules import search_options
from app.config import Settings
from app.models import MovementRules, PathQuery
from bench.common import DEFAULT_DATA, load_grid, log, machine_info, machine_line, table
from bench.server import ServerSpec, running_server
from gridpath.grid import Grid
from gridpath.search import SearchScratch
from gridpath.search.table import assemble, plan_table, search_line

SEED = 2026
# The movement rules of both rows: the default (the table runs jump point search per pair,
# as /path does) and one where JPS does not apply (one Dijkstra flood per origin, against
# A* per pair).
RULES = {"default": {}, "one_free": {"diagonal": "one_free"}}


def pick_cells(grid: Grid, count: int, rng: np.random.Generator) -> list[list[int]]:
    """``count`` distinct cells of the largest connected component."""
    labels = grid.components().labels.reshape(grid.passable.shape)[1:-1, 1:-1]
    ids, sizes = np.unique(labels[labels > 0], return_counts=True)
    ys, xs = np.nonzero(labels == ids[np.argmax(sizes)])
    chosen = rng.choice(len(xs), count, replace=False)
    return [[int(xs[i]), int(ys[i])] for i in chosen]


def best(run: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Fastest wall time in ms over ``repeat`` runs, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        began = time.perf_counter()
        result = run()
        times.append((time.perf_counter() - began) * 1000)
    return min(times), result


def in_process(grid: Grid, sources, targets, rules: dict, repeat: int) -> tuple[float, float]:
    settings = Settings()
    scratch = SearchScratch()
    options = search_options(MovementRules(**rules), settings)

    def table():
        plan = plan_table(
            grid, sources, targets, options, max_expanded=settings.max_expanded,
            max_expanded_total=settings.max_batch_expanded,
        )  # fmt: skip
        return assemble(plan, [search_line(plan, k, scratch) for k in range(len(plan.origins))])

    queries = [
        PathQuery(start=s, goal=t, include=[], **rules) for s in sources for t in targets
    ]  # parsed once: the service's work from here on

    def pairs():
        return [answer(grid, q, settings, scratch)[0]["cost"] for q in queries]

    table_ms, result = best(table, repeat)
    pairs_ms, costs = best(pairs, repeat)
    check(result.costs, costs, len(targets))
    return table_ms, pairs_ms


def check(matrix: Sequence[Sequence[float | None]], flat: Sequence[float | None], n: int) -> None:
    for k, want in enumerate(flat):
        got = matrix[k // n][k % n]
        if got is None or want is None or not math.isclose(got, want, rel_tol=1e-9):
            raise SystemExit(f"table entry {k // n},{k % n} is {got}, /path says {want}")


def over_http(url: str, name: str, sources, targets, rules: dict, repeat: int) -> tuple:
    with httpx.Client(base_url=url, timeout=600) as client:
        body = {"map": name, "sources": sources, "targets": targets, **rules}
        table_ms, reply = best(lambda: client.post("/table", json=body), repeat)
        reply.raise_for_status()

        def pairs():
            out = []
            for s in sources:
                for t in targets:
                    query = {"map": name, "start": s, "goal": t, "include": [], **rules}
                    out.append(client.post("/path", json=query).json()["cost"])
            return out

        pairs_ms, costs = best(pairs, repeat)
        check(reply.json()["costs"], costs, len(targets))
        queries = [
            {"start": s, "goal": t, "include": [], **rules} for s in sources for t in targets
        ]
        step = Settings().max_batch

        def batches():
            out = []
            for i in range(0, len(queries), step):
                r = client.post("/paths", json={"map": name, "queries": queries[i : i + step]})
                r.raise_for_status()
                out += [result["cost"] for result in r.json()["results"]]
            return out

        batch_ms, batch_costs = best(batches, repeat)
        check(reply.json()["costs"], batch_costs, len(targets))
    return table_ms, pairs_ms, batch_ms


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.table", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--map", default="Berlin_0_256", help="a Moving AI map (NAME.map)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-http", action="store_true", help="in-process rows only")
    args = parser.parse_args(argv)
    path = args.data / f"{args.map}.map"
    if not path.is_file():
        log(f"no map {path}")
        return 2
    grid = load_grid(path)
    rng = np.random.default_rng(SEED)
    cells = {n: pick_cells(grid, 2 * n, rng) for n in args.sizes}
    rows = []
    for label, rules in RULES.items():
        for n in args.sizes:
            sources, targets = cells[n][:n], cells[n][n:]
            log(f"in process {label} {n}x{n} ...")
            times = in_process(grid, sources, targets, rules, args.repeat)
            rows.append((label, f"{n}×{n}", "in process", *times, None))
    if not args.no_http:
        with tempfile.TemporaryDirectory() as folder:
            shutil.copy(path, Path(folder) / path.name)
            with running_server(ServerSpec(env={"MAPS_DIR": folder})) as server:
                for label, rules in RULES.items():
                    for n in args.sizes:
                        sources, targets = cells[n][:n], cells[n][n:]
                        log(f"HTTP {label} {n}x{n} ...")
                        url = server.url
                        times = over_http(url, grid.name, sources, targets, rules, args.repeat)
                        rows.append((label, f"{n}×{n}", "HTTP", *times))
    print(f"`{args.map}` ({grid.width}×{grid.height}), best of {args.repeat}, ms:\n")
    columns = ("rules", "size", "where", "/table", "/path per pair", "/paths", "/path ÷ /table")
    print(table(columns, ([*text, f"{t:,.1f}", f"{p:,.1f}", "–" if b is None else f"{b:,.1f}",
                           f"{p / t:.1f}x"] for *text, t, p, b in rows), 3))  # fmt: skip
    print(f"\n{machine_line(machine_info())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
