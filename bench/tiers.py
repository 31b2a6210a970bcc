"""The subgoal tier per Moving AI map (and seeded city maps): build time, memory, an edit's
repair, and (``--check``) every scenario through the tier, with ``auto`` and A* side by
side on the longest 40 % of them.

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
from gridpath.grid import Grid
from gridpath.grid.edits import Edit, GridEdit
from gridpath.search import Algorithm, SearchOptions, SearchScratch, find_path
from gridpath.search.runners.subgoal import KEY, subgoal_graph

COLUMNS = ["map", "cells", "subgoals", "edges", "upward edges", "build s", "MB", "B/cell",
           "edit ms (median)", "edit ms (max)", "parts re-contracted"]  # fmt: skip
CHECK_COLUMNS = ["queries", "wrong", "kernel µs (median)", "long queries", "auto runs",
                 "auto µs", "A* µs", "A* / auto"]  # fmt: skip
SUBGOAL = SearchOptions(algorithm="subgoal")
PAIR = (SearchOptions(), SearchOptions(algorithm="astar"))  # auto, A*


def city(size: int, seed: int = 28) -> Grid:
    """Streets every 32 cells; per block three random buildings of 4-13 cells a side."""
    rng, walkable = np.random.default_rng(seed), np.ones((size, size), dtype=bool)
    for by in range(0, size, 32):
        for bx in range(0, size, 32):
            for w, h in rng.integers(4, 14, size=(3, 2)):
                x, y = bx + 1 + rng.integers(0, 31 - w), by + 1 + rng.integers(0, 31 - h)
                walkable[y : y + h, x : x + w] = False
    return Grid.from_walkable(f"city{size}", walkable)


def build_columns(grid: Grid) -> list[object]:
    """The tier's build, then nine one-cell edits (``Grid.edit`` repairs the tier)."""
    began = time.perf_counter()
    graph = subgoal_graph(grid, grid.cell_count)
    cols: list[object] = [grid.name, f"{grid.cell_count:,}"]
    if graph is None:
        return cols + ["-"] * 3 + [f"{time.perf_counter() - began:.2f}"] + ["-"] * 5
    cols += [f"{graph.cells.size:,}", f"{graph.edges:,}", f"{graph.up_edges.shape[0]:,}"]
    cols += [f"{time.perf_counter() - began:.2f}", f"{graph.nbytes / 1e6:.2f}"]
    rng, cells, seconds, parts = np.random.default_rng(7), np.argwhere(grid.walkable), [], []
    for y, x in cells[rng.integers(len(cells), size=9)].tolist():
        began = time.perf_counter()
        grid = grid.edit(GridEdit([Edit(value="blocked", cells=[(x, y)])]), grid.revision + 1)
        seconds.append(1e3 * (time.perf_counter() - began))
        parts.append(grid.built(KEY).hierarchy.contracted_parts if grid.built(KEY) else 0)
    return cols + [f"{graph.nbytes / grid.cell_count:.1f}", f"{statistics.median(seconds):.1f}",
                   f"{max(seconds):.1f}", f"{statistics.median(parts):.0f}"]  # fmt: skip


def check(grid, scenarios, name: str) -> tuple[list[object], list[common.Failure]]:
    """Every scenario through the tier (where the map has it); then, on the longest 40 %,
    auto (default options) and A*, each side's queries back to back (its data in cache)."""
    scratch, kernel_us, failures = SearchScratch(grid.flat.size), [], []
    for s in scenarios if grid.built(KEY) is not None else []:
        result = find_path(grid, s.start, s.goal, SUBGOAL, scratch=scratch)
        cost = result.cost if result.found else None
        problem = common.scenario_problem(grid, s, result.path, cost)
        if result.options.algorithm != Algorithm.SUBGOAL:
            problem = f"served by {result.options.algorithm.value}"
        if problem is not None:
            failures.append(common.Failure.at(name, s, cost, problem))
        kernel_us.append(result.search_us)
    long = sorted(scenarios, key=lambda s: s.optimal)[int(0.6 * len(scenarios)) :]
    sides = [[find_path(grid, s.start, s.goal, o, scratch=scratch) for s in long] for o in PAIR]
    ratio = statistics.median(b.search_us / max(a.search_us, 1e-3) for a, b in zip(*sides))
    runners = "+".join(sorted({a.options.algorithm.value for a in sides[0]}))
    medians = [f"{statistics.median(r.search_us for r in side):.1f}" for side in sides]
    n, median_us = len(kernel_us), round(statistics.median(kernel_us or [0]), 1)
    tier = [f"{n:,}", len(failures), median_us] if n else ["-"] * 3
    return tier + [f"{len(long):,}", runners, *medians, common.times(ratio)], failures


def run(maps: Sequence[Path], limit: int | None, cities: Sequence[int], do_check: bool):
    rows, failures = [], []
    for map_path in maps:
        common.log(f"{map_path.stem}: building")
        grid, scenarios = common.load_scenarios(map_path, limit)
        cols = build_columns(grid)  # first: the tier's build is timed
        more, wrong = check(grid, scenarios, map_path.stem) if do_check else ([], [])
        rows.append(common.row(cols + more))
        failures += wrong
    rows += [common.row(build_columns(city(size))) for size in cities]
    return rows, failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = common.scenario_parser("bench.tiers", __doc__.split("\n\n")[0])
    common.add_limit(parser, None, "with --check: scenarios per map (default: all)")
    parser.add_argument("--check", action="store_true", help="run the scenarios too")
    parser.add_argument("--city", type=int, nargs="*", default=[], help="city map sides")
    args = parser.parse_args(argv)
    maps, info = common.begin(args)  # exit status 2: no maps
    rows, failures = run(maps, args.limit, args.city, args.check)
    print(common.header(COLUMNS + (CHECK_COLUMNS if args.check else [])), *rows, sep="\n")
    print(f"\nsubgoal tier: {len(failures)} scenario(s) failed" if args.check else "")
    print(common.machine_line(info))
    common.report_failures(failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
