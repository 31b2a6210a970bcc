"""``make bench-peers``: our searches against other path finders on the same Moving AI queries.
Method and figures: bench/README.md, "bench-peers"."""

from __future__ import annotations

import argparse
import gc
import heapq
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench import common
from gridpath.errors import MapLoadError
from gridpath.grid import Grid
from gridpath.search import Algorithm, SearchOptions, find_path, subgoal_graph

DEFAULT_LIMIT = 100
DEFAULT_PEER_LIMIT = 20
TCOD_STRAIGHT, TCOD_DIAGONAL = 100_000, 141_421  # integer costs: 1 and sqrt 2 (rounded down)
STRAIGHT_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL_STEPS = ((1, 1), (1, -1), (-1, 1), (-1, -1))

Cell = tuple[int, int]
Solve = Callable[[Cell, Cell], Any]  # (start, goal) as (x, y) -> the solver's raw answer
ToPath = Callable[[Any], np.ndarray | None]  # raw answer -> (n, 2) [x, y] array (untimed)


@dataclass(frozen=True)
class Solver:
    """A path finder: ``prepare(grid)`` (untimed) gives the timed call and its decoder."""

    name: str
    slow: bool  # pure Python: runs only on the --peer-limit subset
    ours: bool
    prepare: Callable[[Grid], tuple[Solve, ToPath]]


def prepare_ours(algorithm: Algorithm) -> Callable[[Grid], tuple[Solve, ToPath]]:
    options = SearchOptions(algorithm=algorithm)

    def prepare(grid: Grid) -> tuple[Solve, ToPath]:
        if algorithm == Algorithm.SUBGOAL:
            subgoal_graph(grid)  # the tier's build, as the service's before it publishes
        scratch = common.touched_scratch(grid.flat.size)

        def solve(start: Cell, goal: Cell) -> Any:
            return find_path(grid, start, goal, options, scratch=scratch)

        return solve, lambda result: result.path if result.found else None

    return prepare


def prepare_tcod(grid: Grid) -> tuple[Solve, ToPath]:
    """``tcod.path.CustomGraph`` set up for the benchmark's rules (indices are ``[y, x]``)."""
    import tcod.path

    padded = grid.passable > 0
    walk = padded[1:-1, 1:-1]
    cost = walk.astype(np.int8)  # cost of entering a cell: 1, or 0 for blocked
    rows, cols = padded.shape
    graph = tcod.path.CustomGraph(walk.shape)
    for dx, dy in STRAIGHT_STEPS:
        graph.add_edge((dy, dx), TCOD_STRAIGHT, cost=cost)
    for dx, dy in DIAGONAL_STEPS:  # only from cells whose two orthogonal neighbours are open
        condition = (
            walk & padded[1 + dy : rows - 1 + dy, 1:-1] & padded[1:-1, 1 + dx : cols - 1 + dx]
        ).astype(np.int8)
        graph.add_edge((dy, dx), TCOD_DIAGONAL, cost=cost, condition=condition)
    graph.set_heuristic(cardinal=TCOD_STRAIGHT, diagonal=TCOD_DIAGONAL)
    pathfinder = tcod.path.Pathfinder(graph)

    def solve(start: Cell, goal: Cell) -> Any:
        pathfinder.clear()
        pathfinder.add_root((start[1], start[0]))
        return pathfinder.path_to((goal[1], goal[0]))

    return solve, lambda path: path[:, ::-1]


def prepare_pyastar2d(grid: Grid) -> tuple[Solve, ToPath]:
    """``pyastar2d.astar_path``: walls are infinite weights; diagonals cost 1 and cut corners."""
    import pyastar2d

    weights = np.where(grid.walkable > 0, np.float32(1.0), np.float32(np.inf)).astype(np.float32)

    def solve(start: Cell, goal: Cell) -> Any:
        return pyastar2d.astar_path(
            weights, (start[1], start[0]), (goal[1], goal[0]), allow_diagonal=True
        )

    return solve, lambda path: None if path is None else path[:, ::-1]


def prepare_pathfinding(grid: Grid) -> tuple[Solve, ToPath]:
    """python-pathfinding: A* that only moves diagonally when both side cells are open."""
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid as PFGrid
    from pathfinding.finder.a_star import AStarFinder

    pf_grid = PFGrid(matrix=(grid.walkable > 0).astype(np.int8).tolist())
    finder = AStarFinder(diagonal_movement=DiagonalMovement.only_when_no_obstacle)

    def solve(start: Cell, goal: Cell) -> Any:
        # find_path resets the whole grid first (Grid.cleanup), as every search must
        path, _runs = finder.find_path(pf_grid.node(*start), pf_grid.node(*goal), pf_grid)
        return path

    return solve, lambda path: np.array([(n.x, n.y) for n in path]) if path else None


def octile(a: Cell, b: Cell) -> float:
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return (dx + dy) + (common.SQRT2 - 2.0) * min(dx, dy)


class TutorialGrid:
    """The grid of the tutorial A*: ``passable`` and ``neighbors`` with step costs."""

    def __init__(self, walkable: list[list[bool]]) -> None:
        self.walkable = walkable
        self.height = len(walkable)
        self.width = len(walkable[0])

    def passable(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height and self.walkable[y][x]

    def neighbors(self, cell: Cell) -> list[tuple[Cell, float]]:
        x, y = cell
        result = []
        for dx, dy in STRAIGHT_STEPS:
            if self.passable(x + dx, y + dy):
                result.append(((x + dx, y + dy), 1.0))
        for dx, dy in DIAGONAL_STEPS:  # no corner cutting: both side cells must be open
            if all(self.passable(*c) for c in ((x + dx, y + dy), (x + dx, y), (x, y + dy))):
                result.append(((x + dx, y + dy), common.SQRT2))
        return result


def tutorial_a_star(graph: TutorialGrid, start: Cell, goal: Cell) -> list[Cell] | None:
    """A* as the Red Blob Games tutorial writes it, then the path rebuilt from came_from."""
    frontier: list[tuple[float, Cell]] = [(0.0, start)]
    came_from: dict[Cell, Cell | None] = {start: None}
    cost_so_far: dict[Cell, float] = {start: 0.0}
    while frontier:
        _, current = heapq.heappop(frontier)
        if current == goal:
            break
        for nxt, step in graph.neighbors(current):
            new_cost = cost_so_far[current] + step
            if nxt not in cost_so_far or new_cost < cost_so_far[nxt]:
                cost_so_far[nxt] = new_cost
                heapq.heappush(frontier, (new_cost + octile(nxt, goal), nxt))
                came_from[nxt] = current
    if goal not in came_from:
        return None
    path = [goal]
    while path[-1] != start:
        path.append(came_from[path[-1]])
    path.reverse()
    return path


def prepare_networkx(grid: Grid) -> tuple[Solve, ToPath]:
    """networkx ``astar_path`` on a prebuilt graph of the legal moves (the tutorial grid's
    neighbours: weights 1 and sqrt 2)."""
    import networkx as nx

    walk = grid.walkable > 0
    tutorial = TutorialGrid(walk.tolist())
    graph = nx.Graph()
    cells = [(int(x), int(y)) for y, x in zip(*np.nonzero(walk))]
    graph.add_nodes_from(cells)
    graph.add_weighted_edges_from((c, n, w) for c in cells for n, w in tutorial.neighbors(c))

    def solve(start: Cell, goal: Cell) -> Any:
        return nx.astar_path(graph, start, goal, heuristic=octile, weight="weight")

    return solve, lambda path: np.array(path)


def prepare_heapq(grid: Grid) -> tuple[Solve, ToPath]:
    tutorial = TutorialGrid((grid.walkable > 0).tolist())
    return (
        lambda start, goal: tutorial_a_star(tutorial, start, goal),
        lambda path: None if path is None else np.array(path),
    )


SOLVERS = (
    Solver("ours A*", False, True, prepare_ours(Algorithm.ASTAR)),
    # JPS as find_path serves it: block scans where runs are long (jps_blocks)
    Solver("ours JPS", False, True, prepare_ours(Algorithm.JPS)),
    Solver("ours subgoal", False, True, prepare_ours(Algorithm.SUBGOAL)),
    Solver("tcod", False, False, prepare_tcod),
    Solver("pyastar2d", False, False, prepare_pyastar2d),
    Solver("python-pathfinding", True, False, prepare_pathfinding),
    Solver("networkx", True, False, prepare_networkx),
    Solver("heapq A*", True, False, prepare_heapq),
)
OURS_ASTAR, OURS_JPS, OURS_SUBGOAL = (s.name for s in SOLVERS[:3])


@dataclass
class Answer:
    """One solver on one query: time, and how its path scored (problem None: optimal)."""

    ns: float  # the call (with --order blocks: the median over the rounds)
    cost: float | None
    legal: bool
    problem: str | None
    kernel_ns: float | None = None  # ours: the search kernel alone (the answer's search_us)
    expanded: int | None = None  # ours: nodes expanded


@dataclass
class MapRun:
    """All solvers on one map; ``runs`` and ``failures`` are what ``Progress`` reads."""

    name: str
    size: str
    scenarios: list[common.Scenario]
    answers: dict[str, dict[int, Answer]]  # solver -> scenario index -> answer
    failures: list[common.Failure] = field(default_factory=list)  # our kernels only

    @property
    def runs(self) -> int:
        return len(self.scenarios)


def score(
    grid: Grid, scenario: common.Scenario, path: np.ndarray | None, reported: float | None = None
) -> tuple[float | None, bool, str | None]:
    """(length, legal, problem) of ``path``; ``reported`` is the solver's own cost, if any."""
    if path is None or len(path) == 0:
        return None, False, "no path"
    path = np.asarray(path, dtype=np.int64).reshape(-1, 2)
    step = np.abs(np.diff(path, axis=0))
    diagonal = int(((step[:, 0] != 0) & (step[:, 1] != 0)).sum())
    length = (len(step) - diagonal) + diagonal * common.SQRT2
    problem = common.path_problem(grid, path, scenario, length if reported is None else reported)
    if problem is not None:
        return length, False, problem
    if not common.is_optimal(length, scenario.optimal):
        return length, True, "not optimal"
    return length, True, None


ORDERS = ("query", "blocks")
DEFAULT_ROUNDS = 3


def run_map(
    map_path: Path, limit: int, peer_limit: int, progress: common.Progress, order: str = "query",
    rounds: int = DEFAULT_ROUNDS,
) -> MapRun:  # fmt: skip
    """Every solver on one map's queries: round-robin per query (``order`` "query"), or
    (``order`` "blocks") per round each solver's queries back to back, the solvers in an
    order rotated every round, a query's time the median of its ``rounds`` times."""
    grid, scenarios = common.load_scenarios(map_path, limit)
    slow_queries = set(common.subsample(list(range(len(scenarios))), peer_limit))
    prepared = {s.name: s.prepare(grid) for s in SOLVERS}
    for solve, _ in prepared.values():  # one untimed call each: first-call costs
        solve(scenarios[0].start, scenarios[0].goal)
    gc.collect()
    gc.freeze()  # the peers' millions of node objects: out of the collector's way
    run = MapRun(grid.name, f"{grid.width}x{grid.height}", scenarios, {s.name: {} for s in SOLVERS})
    # per query, per solver: its first answer, and every round's call and kernel times
    raw: list[dict[str, tuple[Any, list[int], list[float]]]] = [{} for _ in scenarios]

    n = len(scenarios)
    if order == "blocks":
        calls = [
            (s, i) for r in range(rounds) for s in common.rotated(SOLVERS, r) for i in range(n)
        ]
    else:
        calls = [(s, i) for i in range(n) for s in common.rotated(SOLVERS, i)]
    progress.start(grid.name, n * (rounds if order == "blocks" else 1))
    try:
        for solver, i in calls:
            if solver.slow and i not in slow_queries:
                continue
            began = time.perf_counter_ns()
            answer = prepared[solver.name][0](scenarios[i].start, scenarios[i].goal)
            ns = time.perf_counter_ns() - began
            _, all_ns, kernels = raw[i].setdefault(solver.name, (answer, [], []))
            all_ns.append(ns)
            kernels.append(answer.search_us * 1e3 if solver.ours else 0.0)
    finally:
        gc.unfreeze()
    for i, scenario in enumerate(scenarios):
        for solver in SOLVERS:
            if solver.name not in raw[i]:
                continue
            answer, all_ns, kernels = raw[i][solver.name]
            path = prepared[solver.name][1](answer)
            reported = answer.cost if solver.ours else None
            cost, legal, problem = score(grid, scenario, path, reported)
            kernel = (common.median(kernels), answer.expanded) if solver.ours else (None, None)
            run.answers[solver.name][i] = Answer(
                common.median(all_ns), cost, legal, problem, *kernel
            )
            if solver.ours and problem is not None:
                what = f"{solver.name}: {problem}"
                run.failures.append(common.Failure.at(grid.name, scenario, cost, what))
    progress.finish(run)
    prepared.clear()
    gc.collect()
    return run


@dataclass
class Row:
    """One solver's figures over some queries (times in µs; ratios: peer / ours)."""

    solver: str
    queries: int
    median_us: float
    optimal_pct: float
    legal_pct: float
    vs_astar: float
    vs_jps: float


def row_of(solver: str, runs: Sequence[MapRun]) -> Row:
    """Pool ``solver``'s answers over ``runs`` (one map, or all)."""
    us, optimal, legal, vs_astar, vs_jps = [], 0, 0, [], []
    for run in runs:
        for i, answer in run.answers[solver].items():
            us.append(answer.ns / 1e3)
            optimal += answer.problem is None
            legal += answer.legal
            vs_astar.append(answer.ns / run.answers[OURS_ASTAR][i].ns)
            vs_jps.append(answer.ns / run.answers[OURS_JPS][i].ns)
    n = len(us)
    median = common.median
    return Row(solver, n, median(us), 100 * optimal / n, 100 * legal / n, median(vs_astar),
               median(vs_jps))  # fmt: skip


def by_map_table(runs: Sequence[MapRun]) -> str:
    """One row per map: our two medians, and every peer's time over our A*'s (the median of
    its per-query ratios; pure-Python peers on their subset of the queries)."""
    peers = [s.name for s in SOLVERS if not s.ours]
    columns = ("map", "size", "queries", "our A* median µs", "our JPS median µs")
    rows = []
    for run in runs:
        astar, jps = row_of(OURS_ASTAR, [run]), row_of(OURS_JPS, [run])
        ratios = [common.times(row_of(p, [run]).vs_astar) for p in peers]
        rows.append([run.name, run.size, f"{astar.queries:,}", f"{astar.median_us:,.1f}",
                     f"{jps.median_us:,.1f}", *ratios])  # fmt: skip
    return common.table((*columns, *(f"{p} / our A*" for p in peers)), rows, 2)


SUMMARY_COLUMNS = ("solver", "queries", "% optimal", "% legal", "time / our A*",
                   "per-map range", "time / our JPS", "per-map range")  # fmt: skip


def summary_table(runs: Sequence[MapRun]) -> str:
    rows, t = [], common.times
    for solver in SOLVERS:
        r, per_map = row_of(solver.name, runs), [row_of(solver.name, [run]) for run in runs]
        a, j = [p.vs_astar for p in per_map], [p.vs_jps for p in per_map]
        rows.append([r.solver, f"{r.queries:,}", common.percent(r.optimal_pct),
                     common.percent(r.legal_pct), t(r.vs_astar), f"{t(min(a))} – {t(max(a))}",
                     t(r.vs_jps), f"{t(min(j))} – {t(max(j))}"])  # fmt: skip
    return common.table(SUMMARY_COLUMNS, rows)


KERNEL_COLUMNS = ("map", "A* µs", "JPS µs", "subgoal µs", "A* expanded", "JPS expanded",
                  "A* / JPS", "A* / JPS, calls", "A* / subgoal")  # fmt: skip


def kernel_row(name: str, runs: Sequence[MapRun]) -> list[str]:
    """Our searches on ``runs``: medians of kernel time (``search_us``) and expansions, and
    of the per-query time ratios, kernels alone and (A* / JPS) whole ``find_path`` calls."""
    ours = (OURS_ASTAR, OURS_JPS, OURS_SUBGOAL)
    answers = [[run.answers[s][i] for s in ours] for run in runs for i in run.answers[OURS_ASTAR]]
    # kernel times in ns, the divisors (JPS, subgoal) at least 1
    a, j, sg = (np.array([max(q[k].kernel_ns, float(k > 0)) for q in answers]) for k in range(3))
    a_ex, j_ex = (common.median([q[k].expanded for q in answers]) for k in range(2))
    by_call = common.median([q[0].ns / q[1].ns for q in answers])
    us = [f"{common.median(ns) / 1e3:,.1f}" for ns in (a, j, sg)]
    ratios = [common.times(r) for r in (common.median(a / j), by_call, common.median(a / sg))]
    return [name, *us, f"{a_ex:,.0f}", f"{j_ex:,.0f}", *ratios]


def kernel_table(runs: Sequence[MapRun]) -> str:
    """Per map and over all maps: what our searches cost without the ~10 µs of Python
    around each ``find_path`` call (the same queries as the tables above)."""
    rows = [kernel_row(run.name, [run]) for run in runs]
    return common.table(KERNEL_COLUMNS, rows + [kernel_row("all maps", runs)] * (len(runs) > 1))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = common.scenario_parser("python -m bench.peers", __doc__)
    common.add_limit(parser, DEFAULT_LIMIT, "queries per map for our kernels, tcod and pyastar2d")
    add = parser.add_argument
    add("--peer-limit", type=int, default=DEFAULT_PEER_LIMIT, metavar="N",
        help="queries per map for the pure-Python peers (an even subset)")  # fmt: skip
    add("--order", choices=ORDERS, default="query",
        help="query: every solver per query, round-robin (caches cold); "
        "blocks: each solver's queries back to back per round (caches warm)")  # fmt: skip
    add("--rounds", type=int, default=DEFAULT_ROUNDS, metavar="N",
        help="with --order blocks: rounds per map (default: %(default)s)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.limit < 1 or args.peer_limit < 1 or args.rounds < 1:
        parser.error("--limit, --peer-limit and --rounds must be at least 1")
    args.peer_limit = min(args.peer_limit, args.limit)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    maps, info = common.begin(args)  # exit status 2: no maps
    print(flush=True)
    progress = common.Progress(len(maps))
    try:
        runs = [
            run_map(path, args.limit, args.peer_limit, progress, args.order, args.rounds)
            for path in maps
        ]
    except (MapLoadError, OSError, ValueError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2

    line = common.machine_line(info)
    print("#### By map: our medians, and each peer's time over our A*'s\n")
    print(by_map_table(runs))
    print()
    label = f"{len(runs)} map{'s' if len(runs) > 1 else ''}"
    print(f"#### Over all maps ({label})\n")
    print(summary_table(runs))
    how = "round-robin per query" if args.order == "query" else f"blocks, {args.rounds} rounds"
    print(f"\n#### Our searches, kernels alone (`search_us`) and whole calls ({how})\n")
    print(kernel_table(runs))
    print(f"\n{line}")

    common.report_failures([f for run in runs for f in run.failures])
    return 1 if any(run.failures for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
