"""Any-angle paths (``algorithm: "theta"``, Lazy Theta*) against A* and string-pulled A*
on the Moving AI scenarios: path length and time.

``python -m bench.anyangle --help`` lists the options; the method and the latest results are
in bench/README.md, "bench.anyangle".
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence

import numpy as np

from bench import common
from gridpath.search import Algorithm, SearchOptions, SearchScratch, find_path
from gridpath.search.validate import validate_path

ASTAR = SearchOptions(algorithm=Algorithm.ASTAR, smooth=True)
THETA = SearchOptions(algorithm=Algorithm.THETA)
COLUMNS = ("map", "queries", "pulled / A*", "theta / A*", "theta < pulled %",
           "= %", "> %", "theta > A* %", "A* ms", "theta ms")  # fmt: skip


def polyline(points: np.ndarray) -> float:
    return sum(math.dist(a, b) for a, b in zip(points.tolist(), points[1:].tolist()))


def timed(grid, scenario, options, scratch):
    began = time.perf_counter_ns()
    result = find_path(grid, scenario.start, scenario.goal, options, waypoints=True,
                       scratch=scratch)  # fmt: skip
    return result, (time.perf_counter_ns() - began) / 1000


def run_map(path, limit, scratch) -> tuple[list, list[str]]:
    grid, scenarios = common.load_scenarios(path, limit)
    figures, problems = [], []
    for s in scenarios:
        if s.start == s.goal:
            continue
        astar, astar_us = timed(grid, s, ASTAR, scratch)
        theta, theta_us = timed(grid, s, THETA, scratch)
        if not (astar.found and theta.found):
            problems.append(f"{path.name}:{s.line}: found astar={astar.found} theta={theta.found}")
            continue
        for mode, points in (("waypoints", theta.waypoints), ("cells", theta.path)):
            check = validate_path(grid, points, mode=mode, options=THETA, scratch=scratch)
            if not check.valid:
                problems.append(f"{path.name}:{s.line}: theta {mode} invalid")
        pulled = polyline(astar.waypoints)
        figures.append((astar.cost, pulled, theta.cost, astar_us, theta_us))
    return figures, problems


def table_row(name: str, figures: list) -> str:
    a = np.array(figures)
    cost, pulled, theta = a[:, 0], a[:, 1], a[:, 2]
    shorter = np.mean(theta < pulled - 1e-9) * 100
    longer = np.mean(theta > pulled + 1e-9) * 100
    return common.row([
        name, len(a), f"{np.mean(pulled / cost):.4f}", f"{np.mean(theta / cost):.4f}",
        common.percent(shorter), common.percent(100 - shorter - longer), common.percent(longer),
        common.percent(np.mean(theta > cost + 1e-9) * 100),
        f"{np.median(a[:, 3]) / 1000:.2f}", f"{np.median(a[:, 4]) / 1000:.2f}",
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = common.scenario_parser("bench.anyangle", __doc__)
    common.add_limit(parser, 30, "scenarios per map, spread evenly over the file")
    args = parser.parse_args(argv)
    started = common.begin(args)
    if started is None:
        return 2
    maps, info = started
    scratch = SearchScratch()
    every, problems, lines = [], [], []
    for path in maps:
        figures, found = run_map(path, args.limit or None, scratch)
        problems += found
        if figures:
            every += figures
            lines.append(table_row(path.stem, figures))
        common.log(f"{path.stem}: {len(figures)} scenarios")
    print("\n" + common.header(COLUMNS))
    print("\n".join(lines))
    print(table_row(f"all {len(maps)} maps", every))
    print(f"\n{common.machine_line(info)}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
