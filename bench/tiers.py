"""The preprocessed tiers per Moving AI map: build time, memory, change-to-publish time,
and (``--check``) every scenario through the subgoal tier.

``python -m bench.tiers --help`` lists the options; the method and the latest results are
in bench/README.md, "bench.tiers".
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench import common
from gridpath.grid.edits import Edit, GridEdit
from gridpath.search import Algorithm, SearchOptions, SearchScratch, find_path
from gridpath.search.runners.jps import DEFAULT_JUMP_DISTANCES_MAX_CELLS, jump_distances
from gridpath.search.runners.subgoal import DEFAULT_SUBGOAL_MAX_CELLS, subgoal_graph

COLUMNS = ["map", "cells", "JPS+ build s", "JPS+ MB", "subgoals", "edges", "upward edges",
           "subgoal build s", "subgoal MB", "subgoal B/cell", "change-to-publish s"]  # fmt: skip
CHECK_COLUMNS = ["queries", "wrong", "kernel µs (median)", "settled (median)"]
SUBGOAL = SearchOptions(algorithm=Algorithm.SUBGOAL)


def timed(build, *args) -> tuple[float, object]:
    began = time.perf_counter()
    value = build(*args)
    return time.perf_counter() - began, value


def change_to_publish(grid) -> float:
    """Median of 3: one cell flipped, the new revision built with its tables."""
    y, x = (int(v) for v in np.argwhere(grid.walkable)[0])
    seconds = []
    for revision in (2, 3, 4):
        edit = Edit(value="blocked" if revision % 2 == 0 else "walkable", cells=[(x, y)])
        began = time.perf_counter()
        grid.edit(GridEdit([edit]), revision)
        seconds.append(time.perf_counter() - began)
    return statistics.median(seconds)


def check(grid, scenarios, name: str) -> tuple[list[float], list[int], list[common.Failure]]:
    scratch = SearchScratch(grid.flat.size)
    kernel_us, settled, failures = [], [], []
    for s in scenarios:
        result = find_path(grid, s.start, s.goal, SUBGOAL, scratch=scratch)
        cost = result.cost if result.found else None
        problem = common.scenario_problem(grid, s, result.path, cost)
        if result.options.algorithm != Algorithm.SUBGOAL:
            problem = f"served by {result.options.algorithm.value}"
        if problem is not None:
            failures.append(common.Failure.at(name, s, cost, problem))
        kernel_us.append(result.search_us)
        settled.append(result.expanded)
    return kernel_us, settled, failures


def run(maps: Sequence[Path], limit: int | None, do_check: bool) -> tuple[list[str], list]:
    rows, failures = [], []
    for map_path in maps:
        common.log(f"{map_path.stem}: building")
        grid, scenarios = common.load_scenarios(map_path, limit)
        jps_s, table = timed(jump_distances, grid, DEFAULT_JUMP_DISTANCES_MAX_CELLS)
        sub_s, graph = timed(subgoal_graph, grid, DEFAULT_SUBGOAL_MAX_CELLS)
        cells = grid.cell_count
        cols: list[object] = [map_path.stem, f"{cells:,}", f"{jps_s:.2f}"]
        cols.append("-" if table is None else f"{table.nbytes / 1e6:.1f}")
        if graph is None:
            cols += ["-", "-", "-", f"{sub_s:.2f}", "-", "-"]
        else:
            cols += [f"{graph.cells.size:,}", f"{graph.edges:,}", f"{graph.up_edges.shape[0]:,}"]
            cols += [f"{sub_s:.2f}", f"{graph.nbytes / 1e6:.2f}", f"{graph.nbytes / cells:.1f}"]
        cols.append(f"{change_to_publish(grid):.2f}")
        if do_check:
            if graph is None:
                cols += [0, "-", "-", "-"]
            else:
                common.log(f"{map_path.stem}: {len(scenarios)} scenarios")
                kernel_us, settled, wrong = check(grid, scenarios, map_path.stem)
                failures += wrong
                cols += [f"{len(scenarios):,}", len(wrong)]
                cols += [f"{np.median(kernel_us):.1f}", f"{np.median(settled):.0f}"]
        rows.append(common.row(cols))
    return rows, failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = common.scenario_parser("bench.tiers", __doc__.split("\n\n")[0])
    common.add_limit(parser, None, "with --check: scenarios per map (default: all)")
    parser.add_argument("--check", action="store_true", help="run the scenarios too")
    args = parser.parse_args(argv)
    maps, info = common.begin(args)  # exit status 2: no maps
    rows, failures = run(maps, args.limit, args.check)
    print(common.header(COLUMNS + (CHECK_COLUMNS if args.check else [])))
    print("\n".join(rows))
    if args.check:
        print(f"\nsubgoal tier: {len(failures)} scenario(s) failed")
    print(f"\n{common.machine_line(info)}")
    common.report_failures(failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
