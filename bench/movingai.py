"""Moving AI benchmark: every scenario of every map through ``find_path``.

``python -m bench.movingai --help`` lists the options; the method and the latest results are
in bench/README.md, "bench.movingai".
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench import common
from gridpath.errors import MapLoadError
from gridpath.grid import Grid
from gridpath.search import Algorithm, PathResult, SearchOptions, SearchScratch, find_path, smooth
from gridpath.search.options import DEFAULT_OPTIONS
from gridpath.search.runners.subgoal import subgoal_graph


@dataclass
class MapResult:
    """Raw per-scenario measurements of one map, and the statistics the table shows."""

    name: str
    width: int
    height: int
    search_ns: list[int] = field(default_factory=list)
    smooth_ns: list[int] = field(default_factory=list)
    expanded: list[int] = field(default_factory=list)
    failures: list[common.Failure] = field(default_factory=list)

    @property
    def runs(self) -> int:
        return len(self.search_ns)

    def summary(self) -> dict[str, float | int | str]:
        """The figures of one table row (times in µs)."""
        return summarise(self.name, f"{self.width}x{self.height}", [self])


def summarise(name: str, size: str, results: Sequence[MapResult]) -> dict[str, float | int | str]:
    """Pool the scenarios of ``results`` into one row of statistics (times in µs)."""
    search_us = np.concatenate([np.asarray(r.search_ns, dtype=np.float64) for r in results]) / 1e3
    smooth_us = np.concatenate([np.asarray(r.smooth_ns, dtype=np.float64) for r in results]) / 1e3
    expanded = np.concatenate([np.asarray(r.expanded, dtype=np.int64) for r in results])
    runs = int(search_us.size)
    failures = sum(len(r.failures) for r in results)
    total_s = float(search_us.sum()) / 1e6
    return {
        "map": name, "size": size, "scenarios": runs, "failures": failures,
        "optimal_pct": 100.0 * (runs - failures) / runs if runs else 0.0,
        "median_us": float(np.median(search_us)) if runs else math.nan,
        "p95_us": float(np.percentile(search_us, 95)) if runs else math.nan,
        "median_expanded": float(np.median(expanded)) if runs else math.nan,
        "expansions_per_s": float(expanded.sum()) / total_s if total_s > 0 else math.nan,
        "median_smooth_us": float(np.median(smooth_us)) if smooth_us.size else math.nan,
        "search_total_s": total_s,
    }  # fmt: skip


def check(grid: Grid, scenario: common.Scenario, result: PathResult) -> common.Failure | None:
    """A :class:`Failure` if ``result`` is not an optimal legal path for ``scenario``."""
    cost = result.cost if result.found else None
    problem = common.scenario_problem(grid, scenario, result.path, cost)
    if problem is None:
        return None
    if not result.found:
        problem = f"not found ({result.reason})"
    return common.Failure.at(grid.name, scenario, result.cost, problem)


def run_map(
    map_path: Path, limit: int | None, progress: common.Progress,
    options: SearchOptions = DEFAULT_OPTIONS,
) -> MapResult:  # fmt: skip
    """Load one map and run its (subsampled) scenarios, timing find_path and smooth."""
    grid, scenarios = common.load_scenarios(map_path, limit)
    subgoal_graph(grid)  # as the service builds it on load: auto's first choice
    result = MapResult(grid.name, grid.width, grid.height)
    scratch = SearchScratch(grid.flat.size)  # sized up front: no allocation while timing
    progress.start(grid.name, len(scenarios))
    for scenario in scenarios:
        began = time.perf_counter_ns()
        found = find_path(grid, scenario.start, scenario.goal, options, scratch=scratch)
        searched = time.perf_counter_ns()
        smooth(grid, found.path)
        smoothed = time.perf_counter_ns()
        result.search_ns.append(searched - began)
        result.smooth_ns.append(smoothed - searched)
        result.expanded.append(found.expanded)
        failure = check(grid, scenario, found)
        if failure is not None:
            result.failures.append(failure)
    progress.finish(result)
    return result


COLUMNS = ("map", "size", "scenarios", "% optimal", "median µs", "p95 µs", "median expanded",
           "expansions/s", "median smooth µs")  # fmt: skip


def table_row(row: dict[str, float | int | str], bold: bool = False) -> str:
    """One Markdown row from a :func:`summarise` dict."""
    cells = [str(row["map"]), str(row["size"]), f"{row['scenarios']:,}",
             f"{row['optimal_pct']:.2f}" if row["failures"] else "100", f"{row['median_us']:,.1f}",
             f"{row['p95_us']:,.1f}", f"{row['median_expanded']:,.0f}",
             f"{row['expansions_per_s'] / 1e6:.2f} M",
             f"{row['median_smooth_us']:,.1f}"]  # fmt: skip
    return common.row([f"**{c}**" for c in cells] if bold else cells)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = common.scenario_parser("python -m bench.movingai", __doc__)
    common.add_limit(parser, None, "at most N scenarios per map, spread evenly over the file")
    parser.add_argument(
        "--algorithm", choices=["auto", "jps", "astar", "dijkstra"], default="auto",
        help="search algorithm (default auto: the service's default)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    maps, info = common.begin(args)  # exit status 2: no maps
    print(f"Algorithm: {args.algorithm}\n", flush=True)
    progress = common.Progress(len(maps))
    try:
        options = SearchOptions(algorithm=Algorithm(args.algorithm))
        results = [run_map(path, args.limit, progress, options) for path in maps]
    except (MapLoadError, OSError, ValueError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2

    rows = [r.summary() for r in results]
    total = summarise("total", f"{len(results)} map{'s' if len(results) > 1 else ''}", results)
    print(common.header(COLUMNS, 2))
    for row in rows:
        print(table_row(row))
    print(table_row(total, bold=True))
    print(f"\n{common.machine_line(info)}")

    failures = [f for r in results for f in r.failures]
    common.report_failures(failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
