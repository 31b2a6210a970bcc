"""Search configurations side by side on the Moving AI scenarios: speed against path quality.

Run from the repository root::

    python -m bench.algorithms                            # 13 maps, 100 scenarios each
    python -m bench.algorithms --maps arena --limit 20    # a quick check
    python -m bench.algorithms --limit 0 --json out.json  # every scenario, figures as JSON

Nine configurations of ``find_path`` run on the same (evenly subsampled) scenarios: the
default options (``auto``: jump point search on these uniform maps), A*, Dijkstra, BFS,
greedy best-first, weighted A* (weights 1.5 and 3), A* with the Euclidean heuristic and
A* with a turn penalty of 0.1. The configurations alternate per scenario (round-robin,
starting one further along each time), so they share the machine's noise. Only the
``find_path`` call is timed.

Every path is checked for legality (ends, 8-connected steps on walkable cells, no corner
cutting, length equal to the reported cost), and every claim a result makes is checked:
``optimal`` against the published length (with the turn penalty, against the penalised
objective, see ``claim_problem``), ``bounded_suboptimal`` against ``weight x published``.
The tables go to stdout as GitHub-flavoured Markdown, progress and failures to stderr.
The exit status is 1 if any check failed, 2 if the data could not be read.
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

from bench.common import (
    Failure,
    Progress,
    Scenario,
    add_json_option,
    add_limit,
    begin,
    header,
    is_optimal,
    load_scenarios,
    machine_line,
    path_problem,
    percent,
    report_failures,
    scenario_parser,
    write_scenario_results,
)
from gridpath.errors import MapLoadError
from gridpath.grid import Grid
from gridpath.search import (
    Algorithm,
    Heuristic,
    PathResult,
    SearchOptions,
    SearchScratch,
    find_path,
)

DEFAULT_LIMIT = 100
TURN_STATES = 9  # a turn-penalty search runs over (cell, heading) states


@dataclass(frozen=True)
class Configuration:
    """A named set of search options."""

    name: str
    options: SearchOptions


ASTAR = Algorithm.ASTAR
CONFIGURATIONS = (
    Configuration("auto (default)", SearchOptions()),
    Configuration("astar", SearchOptions(algorithm=ASTAR)),
    Configuration("dijkstra", SearchOptions(algorithm=Algorithm.DIJKSTRA)),
    Configuration("bfs", SearchOptions(algorithm=Algorithm.BFS)),
    Configuration("greedy", SearchOptions(algorithm=Algorithm.GREEDY)),
    Configuration("weighted 1.5", SearchOptions(algorithm=ASTAR, heuristic_weight=1.5)),
    Configuration("weighted 3", SearchOptions(algorithm=ASTAR, heuristic_weight=3.0)),
    Configuration("astar euclidean", SearchOptions(algorithm=ASTAR, heuristic=Heuristic.EUCLIDEAN)),
    Configuration("astar turn 0.1", SearchOptions(algorithm=ASTAR, turn_penalty=0.1)),
)
REFERENCE = CONFIGURATIONS[1]  # plain A*: the time baseline, and its path is a shortest one


@dataclass
class Runs:
    """Raw measurements of one configuration on one map."""

    map: str
    configuration: str
    search_ns: list[int] = field(default_factory=list)
    expanded: list[int] = field(default_factory=list)
    cost_ratio: list[float] = field(default_factory=list)  # cost / published (found only)
    shortest: int = 0  # results within the tolerance of the published length
    claim: str = ""
    algorithms: set[str] = field(default_factory=set)  # what the search ran as (auto: jps)
    failures: list[Failure] = field(default_factory=list)


@dataclass
class MapRuns:
    """All configurations on one map (``runs`` and ``failures`` as Progress reads them)."""

    name: str
    runs: int
    by_configuration: dict[str, Runs]

    @property
    def failures(self) -> list[Failure]:
        return [f for r in self.by_configuration.values() for f in r.failures]


# --- checking ----------------------------------------------------------------------------


def claim_of(result: PathResult) -> str:
    """What a result promises about its cost, in words."""
    options = result.options
    if result.optimal and options.turn_penalty > 0:
        return f"optimal (length + {options.turn_penalty:g}/turn)"
    if result.optimal:
        return "optimal"
    if result.bounded_suboptimal:
        return f"<= {options.heuristic_weight:g}x optimal"
    return "none"


def within(cost: float, bound: float) -> bool:
    """``cost <= bound`` up to the published lengths' rounding (see ``is_optimal``)."""
    return cost <= bound + max(1e-4, 1e-5 * bound)


def claim_problem(result: PathResult, scenario: Scenario, reference: PathResult) -> str | None:
    """Why ``result`` breaks a promise it makes (None if it keeps them).

    ``optimal`` without a turn penalty: the cost is the published length. With a turn
    penalty ``p`` the minimised objective is ``cost + p * turns``, which no published
    figure gives, so it is bracketed: the path is no shorter than the published length,
    and its objective is no worse than that of the ``reference`` (plain A*) path, a
    shortest path and thus a candidate the penalised search also had.
    ``bounded_suboptimal``: the cost is at most ``heuristic_weight x`` published.
    """
    cost, published = result.cost, scenario.optimal
    penalty = result.options.turn_penalty
    if result.optimal and penalty == 0 and not is_optimal(cost, published):
        return "claims optimal, cost differs from the published length"
    if result.optimal and penalty > 0:
        if not within(published, cost):
            return "claims optimal, path shorter than the published length"
        objective = cost + penalty * result.turns
        bound = reference.cost + penalty * reference.turns if reference.found else math.inf
        if not within(objective, bound):
            return (
                f"claims optimal, length + {penalty:g} x {result.turns} turns = "
                f"{objective:.6f} > {bound:.6f} of the plain A* path"
            )
    if result.bounded_suboptimal and not within(cost, result.options.heuristic_weight * published):
        return f"cost over {result.options.heuristic_weight:g}x the published length"
    return None


def check(
    grid: Grid,
    scenario: Scenario,
    configuration: Configuration,
    result: PathResult,
    reference: PathResult,
) -> Failure | None:
    """A :class:`Failure` if ``result`` is not found, not a legal path, or breaks its claim."""
    if not result.found:
        problem = f"not found ({result.reason})"
    else:
        problem = path_problem(grid, result.path, scenario, result.cost) or claim_problem(
            result, scenario, reference
        )
    if problem is None:
        return None
    return Failure(
        grid.name,
        scenario.line,
        scenario.start,
        scenario.goal,
        scenario.optimal,
        result.cost,
        f"{configuration.name}: {problem}",
    )


def record(runs: Runs, scenario: Scenario, result: PathResult, elapsed_ns: int) -> None:
    """Add one timed result to ``runs``."""
    runs.search_ns.append(elapsed_ns)
    runs.expanded.append(result.expanded)
    runs.claim = runs.claim or claim_of(result)
    runs.algorithms.add(result.options.algorithm.value)
    if result.found:
        runs.cost_ratio.append(result.cost / scenario.optimal if scenario.optimal else 1.0)
        runs.shortest += is_optimal(result.cost, scenario.optimal)


# --- running -----------------------------------------------------------------------------


def ready_scratch(scratch: SearchScratch, cells: int) -> None:
    """Grow ``scratch`` to ``cells`` nodes and touch every page before anything is timed."""
    if scratch.capacity >= cells:
        return
    scratch.begin(cells)
    for array in (scratch.nodes, scratch.frontier, scratch.g_cost, scratch.marks):
        array.fill(0)  # state 0 and mark 0 never equal a live generation's stamps


def rotated(configurations: Sequence[Configuration], turn: int) -> list[Configuration]:
    """The configurations in round-robin order, starting at ``turn`` (mod their number)."""
    k = turn % len(configurations)
    return [*configurations[k:], *configurations[:k]]


def run_map(
    map_path: Path,
    limit: int | None,
    configurations: Sequence[Configuration],
    scratch: SearchScratch,
    progress: Progress,
) -> MapRuns:
    """Run every scenario of one map under every configuration, round-robin."""
    grid, scenarios = load_scenarios(map_path, limit)
    ready_scratch(scratch, grid.flat.size * TURN_STATES)
    result = MapRuns(
        grid.name, len(scenarios), {c.name: Runs(grid.name, c.name) for c in configurations}
    )
    progress.start(grid.name, len(scenarios))
    for done, scenario in enumerate(scenarios, start=1):
        found: dict[str, PathResult] = {}
        for configuration in rotated(configurations, done - 1):
            began = time.perf_counter_ns()
            found[configuration.name] = find_path(
                grid, scenario.start, scenario.goal, configuration.options, scratch=scratch
            )
            elapsed = time.perf_counter_ns() - began
            record(
                result.by_configuration[configuration.name],
                scenario,
                found[configuration.name],
                elapsed,
            )
        for configuration in configurations:
            failure = check(
                grid, scenario, configuration, found[configuration.name], found[REFERENCE.name]
            )
            if failure is not None:
                result.by_configuration[configuration.name].failures.append(failure)
        progress.update(done)
    progress.finish(result)
    return result


# --- statistics and output -----------------------------------------------------------------


def summarise(label: str, configuration: str, runs: Sequence[Runs]) -> dict[str, float | int | str]:
    """Pool ``runs`` (one configuration) into one row of statistics (times in µs)."""
    search_us = np.concatenate([np.asarray(r.search_ns, dtype=np.float64) for r in runs]) / 1e3
    expanded = np.concatenate([np.asarray(r.expanded, dtype=np.int64) for r in runs])
    ratios = np.concatenate([np.asarray(r.cost_ratio, dtype=np.float64) for r in runs])
    queries = int(search_us.size)
    total_s = float(search_us.sum()) / 1e6
    return {
        "map": label,
        "configuration": configuration,
        "claim": runs[0].claim,
        "ran_as": "/".join(sorted(set().union(*(r.algorithms for r in runs)))),
        "queries": queries,
        "failures": sum(len(r.failures) for r in runs),
        "optimal_pct": 100.0 * sum(r.shortest for r in runs) / queries,
        "mean_cost_ratio": float(ratios.mean()) if ratios.size else math.nan,
        "max_cost_ratio": float(ratios.max()) if ratios.size else math.nan,
        "median_us": float(np.median(search_us)),
        "p95_us": float(np.percentile(search_us, 95)),
        "median_expanded": float(np.median(expanded)),
        "expansions_per_s": float(expanded.sum()) / total_s if total_s > 0 else math.nan,
        "search_total_s": total_s,
    }


MAP_COLUMNS = (
    "map",
    "configuration",
    "queries",
    "median µs",
    "p95 µs",
    "median expanded",
    "expansions/s",
    "% optimal",
    "mean cost ratio",
    "max cost ratio",
)
SUMMARY_COLUMNS = (
    "configuration",
    "ran as",
    "claim",
    "queries",
    "median µs",
    "p95 µs",
    "median expanded",
    "expansions/s",
    "% optimal",
    "mean cost ratio",
    "max cost ratio",
    "time vs astar",
    "failed checks",
)


def figures(row: dict[str, float | int | str]) -> list[str]:
    """The cells the two tables share, from ``queries`` to ``max cost ratio``."""
    return [
        f"{row['queries']:,}",
        f"{row['median_us']:,.1f}",
        f"{row['p95_us']:,.1f}",
        f"{row['median_expanded']:,.0f}",
        f"{row['expansions_per_s'] / 1e6:.2f} M",
        percent(float(row["optimal_pct"])),
        f"{row['mean_cost_ratio']:.4f}",
        f"{row['max_cost_ratio']:.4f}",
    ]


def map_table(rows: Sequence[dict[str, float | int | str]]) -> str:
    """One row per (map, configuration)."""
    lines = [header(MAP_COLUMNS, 2)]
    lines += [
        f"| {row['map']} | {row['configuration']} | {' | '.join(figures(row))} |" for row in rows
    ]
    return "\n".join(lines)


def summary_table(rows: Sequence[dict[str, float | int | str]]) -> str:
    """One row per configuration over all maps; total time relative to plain A*."""
    reference = next(r for r in rows if r["configuration"] == REFERENCE.name)
    lines = [header(SUMMARY_COLUMNS, 3)]
    for row in rows:
        cells = [
            str(row["configuration"]),
            str(row["ran_as"]),
            str(row["claim"]),
            *figures(row),
            f"{row['search_total_s'] / reference['search_total_s']:.2f}x",
            f"{row['failures']:,}",
        ]
        lines.append(f"| {' | '.join(cells)} |")
    return "\n".join(lines)


# --- entry point -------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = scenario_parser("python -m bench.algorithms", __doc__)
    add_limit(
        parser, DEFAULT_LIMIT, "at most N scenarios per map, spread evenly over the file; 0: all"
    )
    add_json_option(parser)
    args = parser.parse_args(argv)
    if args.limit < 0:
        parser.error("--limit must be at least 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = begin(args)
    if started is None:
        return 2
    maps, info = started
    print(flush=True)
    progress = Progress(len(maps))
    scratch = SearchScratch()
    try:
        results = [
            run_map(path, args.limit or None, CONFIGURATIONS, scratch, progress) for path in maps
        ]
    except (MapLoadError, OSError, ValueError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2

    rows = [
        summarise(r.name, c.name, [r.by_configuration[c.name]])
        for r in results
        for c in CONFIGURATIONS
    ]
    label = f"{len(results)} map{'s' if len(results) > 1 else ''}"
    summary = [
        summarise(label, c.name, [r.by_configuration[c.name] for r in results])
        for c in CONFIGURATIONS
    ]
    print(map_table(rows))
    print(f"\n{machine_line(info)}\n")
    print(f"Over all maps ({label}):\n")
    print(summary_table(summary))
    print(f"\n{machine_line(info)}")

    failures = [f for r in results for f in r.failures]
    report_failures(failures)
    configurations = {c.name: repr(c.options) for c in CONFIGURATIONS}
    write_scenario_results(
        args, info, failures, configurations=configurations, rows=rows, summary=summary
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
