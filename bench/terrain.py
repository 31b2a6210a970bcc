"""``python -m bench.terrain anyangle|waypoints|theta``: Theta* and smooth waypoints against
A*. Method and figures: bench/README.md, "bench.terrain"."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from bench import common
from gridpath.grid.model import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.search import Algorithm, PathResult, SearchOptions, SearchScratch, find_path
from gridpath.search.cost import polyline_cost, price_record
from gridpath.search.find import terrain_prices
from gridpath.search.validate import validate_path

VILLAGE = Path(__file__).resolve().parent.parent / "maps" / "village.tmx"
DEFAULT_MAPS = ("arena", "den312d", "ost003d", "Berlin_0_256")
SMOOTH_ASTAR = SearchOptions(algorithm=Algorithm.ASTAR, smooth=True)
THETA = SearchOptions(algorithm=Algorithm.THETA)
SEED = 20

Query = tuple[tuple[int, int], tuple[int, int]]


def random_queries(rng: np.random.Generator, grid: Grid, count: int) -> list[Query]:
    """``count`` pairs of walkable cells (``(x, y)``), drawn one pair at a time."""
    cells = np.argwhere(grid.walkable)
    pairs = (cells[rng.integers(0, len(cells), size=2)] for _ in range(count))
    return [((int(s[1]), int(s[0])), (int(g[1]), int(g[0]))) for s, g in pairs]


def terrain_grid(grid: Grid, terrain: np.ndarray, costs: Sequence[float], name: str) -> Grid:
    """``grid``'s walls with ``terrain`` (class index per cell) of classes costing ``costs``."""
    classes = tuple(TerrainClass(f"{name}{k}", c) for k, c in enumerate(costs))
    return Grid.from_walkable(
        grid.name, grid.walkable, terrain=terrain.astype(np.uint8), terrain_classes=classes
    )


def waypoints_cost(grid: Grid, options: SearchOptions, waypoints: np.ndarray) -> float:
    """The continuous cost of walking ``waypoints`` (independent of the answer's fields)."""
    class_cost, uniform, _min = terrain_prices(grid, options.resolved())
    return polyline_cost(price_record(grid, options.resolved(), class_cost, uniform), waypoints)


def random_terrain_map(rng: np.random.Generator, index: int) -> Grid:
    """A random map: 3 to 5 terrain classes of random costs (1 to 8) laid in patches, and
    random walls (10 to 30 % of the cells)."""
    width, height = (int(v) for v in rng.integers(16, 65, size=2))
    n_classes = int(rng.integers(3, 6))
    costs = [1.0] + [round(float(c), 2) for c in rng.uniform(1.0, 8.0, size=n_classes - 1)]
    patch = int(rng.integers(2, 7))
    coarse = rng.integers(0, n_classes, size=(height // patch + 1, width // patch + 1))
    terrain = np.kron(coarse, np.ones((patch, patch), dtype=np.int64))[:height, :width]
    walkable = rng.random((height, width)) >= rng.uniform(0.1, 0.3)
    return terrain_grid(Grid.from_walkable(f"random{index}", walkable), terrain, costs, "t")


def waypoint_ratios(grid: Grid, queries: Sequence[Query]) -> list[float]:
    """Per found answer: its waypoints' continuous cost divided by its ``cost``."""
    ratios = []
    for start, goal in queries:
        if start == goal:
            continue
        result = find_path(grid, start, goal, SMOOTH_ASTAR, waypoints=True)
        if result.found and result.cost:
            ratios.append(waypoints_cost(grid, SMOOTH_ASTAR, result.waypoints) / result.cost)
    return ratios


def ratios_row(label: str, ratios: list[float]) -> str:
    r = np.array(ratios)
    over = [int(np.sum(r > 1 + eps)) for eps in (1e-9, 0.01, 0.10)]
    shares = " | ".join(f"{k} ({100 * k / len(r):.1f} %)" for k in over)
    return f"| {label} | {len(r)} | {shares} | {r.max():.3f} |"


def waypoints_main(args: argparse.Namespace) -> int:
    rng = np.random.default_rng(SEED)
    grid = common.load_grid(VILLAGE)
    result = find_path(grid, (0, 0), (23, 15), SMOOTH_ASTAR, waypoints=True)
    walked = waypoints_cost(grid, SMOOTH_ASTAR, result.waypoints)
    print(f"village [0, 0] -> [23, 15], astar, smooth: cost {result.cost:.2f}, "
          f"waypoints {result.waypoints.tolist()} cost {walked:.2f}\n")  # fmt: skip
    print("| queries | answers | waypoints dearer than cost: > 1e-9 | > 1 % | > 10 % | max ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    ratios = waypoint_ratios(grid, random_queries(rng, grid, 400))
    print(ratios_row("village, 400 random pairs", ratios), flush=True)
    ratios = []
    for index in range(args.maps):
        grid = random_terrain_map(rng, index)
        ratios += waypoint_ratios(grid, random_queries(rng, grid, args.queries))
    print(ratios_row(f"{args.maps} random terrain maps x {args.queries}", ratios), flush=True)
    return 0


def swamps(grid: Grid, rng: np.random.Generator) -> Grid:
    """Discs of swamp (cost 4) over ground (cost 1), about a quarter of the map."""
    height, width = grid.height, grid.width
    ys, xs = np.mgrid[0:height, 0:width]
    swamp = np.zeros((height, width), dtype=bool)
    while swamp.mean() < 0.25:
        cx, cy = rng.integers(0, width), rng.integers(0, height)
        r = rng.uniform(2, max(3.0, min(width, height) / 8))
        swamp |= (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r
    return terrain_grid(grid, swamp, (1.0, 4.0), "swamp")


def grey(grid: Grid, rng: np.random.Generator) -> Grid:
    """Smooth noise (coarse random values, bilinear) cut into five levels: costs 1, 1.5, 2,
    3 and 5."""
    height, width = grid.height, grid.width
    c = rng.random((height // 8 + 2, width // 8 + 2))
    ys = np.linspace(0, c.shape[0] - 1.001, height)
    xs = np.linspace(0, c.shape[1] - 1.001, width)
    y0, x0 = ys.astype(int), xs.astype(int)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    noise = (
        c[y0][:, x0] * (1 - fy) * (1 - fx)
        + c[y0 + 1][:, x0] * fy * (1 - fx)
        + c[y0][:, x0 + 1] * (1 - fy) * fx
        + c[y0 + 1][:, x0 + 1] * fy * fx
    )
    levels = np.digitize(noise, np.quantile(noise, [0.4, 0.6, 0.75, 0.9]))
    return terrain_grid(grid, levels, (1.0, 1.5, 2.0, 3.0, 5.0), "grey")


def searched(
    grid: Grid, queries: Sequence[Query], scratch: SearchScratch | None = None
) -> Iterator[tuple[int, PathResult, PathResult, float, float]]:
    """Per query (start != goal): its index, A* with smooth waypoints and Theta*, and the
    µs each took."""
    for i, (start, goal) in enumerate(queries):
        if start == goal:
            continue
        began = time.perf_counter_ns()
        astar = find_path(grid, start, goal, SMOOTH_ASTAR, waypoints=True, scratch=scratch)
        middle = time.perf_counter_ns()
        theta = find_path(grid, start, goal, THETA, waypoints=True, scratch=scratch)
        yield i, astar, theta, (middle - began) / 1e3, (time.perf_counter_ns() - middle) / 1e3


def compare(grid: Grid, queries: Sequence[Query]) -> tuple[list[tuple[float, ...]], int]:
    """Per query found: (A* cost, smooth waypoints' cost, Theta* cost); and the failures."""
    rows, failures = [], 0
    for _, astar, theta, _, _ in searched(grid, queries):
        if not astar.found or not theta.found:
            failures += astar.found != theta.found
            continue
        check = validate_path(grid, theta.waypoints, mode="waypoints")
        if not check.valid or check.cost != theta.cost or theta.waypoints_cost != theta.cost:
            failures += 1
        if astar.waypoints_cost > astar.cost * (1 + 1e-9):
            failures += 1
        rows.append((astar.cost, astar.waypoints_cost, theta.cost))
    return rows, failures


def theta_row(label: str, rows: list[tuple[float, ...]]) -> str:
    a = np.array(rows)
    waypoints, theta = a[:, 1] / a[:, 0], a[:, 2] / a[:, 0]
    cheaper = float(np.mean(a[:, 2] < a[:, 1] * (1 - 1e-9)))
    return (
        f"| {label} | {len(a)} | {a[:, 0].mean():.2f} | {waypoints.mean():.4f} | "
        f"{theta.mean():.4f} | {theta.max():.3f} | {100 * cheaper:.0f} % |"
    )


def theta_main(args: argparse.Namespace) -> int:
    rng = np.random.default_rng(SEED)
    print("| map | terrain | queries | mean A* cost | smooth waypoints / A* | theta / A* |", end="")
    print(" theta / A* max | theta cheaper than waypoints |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    grid = common.load_grid(VILLAGE)
    rows, failures = compare(grid, random_queries(rng, grid, 200))
    print(theta_row("village | road 1, grass 1.5, mud 4", rows), flush=True)
    for name in args.maps:
        base, scenarios = common.load_scenarios(args.data / f"{name}.map", args.limit)
        queries = [(s.start, s.goal) for s in scenarios]
        for label, make in (("swamps (4)", swamps), ("grey (1-5)", grey)):
            rows, failed = compare(make(base, rng), queries)
            failures += failed
            print(theta_row(f"{name} | {label}", rows), flush=True)
    if failures:
        print(f"{failures} checks failed", file=sys.stderr)
    return 1 if failures else 0


ANYANGLE_COLUMNS = ("map", "queries", "pulled / A*", "theta / A*", "theta < pulled %",
                    "= %", "> %", "theta > A* %", "A* ms", "theta ms")  # fmt: skip


def polyline(points: np.ndarray) -> float:
    return sum(math.dist(a, b) for a, b in zip(points.tolist(), points[1:].tolist()))


def anyangle_map(path: Path, limit: int | None, scratch: SearchScratch) -> tuple[list, list]:
    """Per scenario: (A* cost, its smooth waypoints' length, Theta* cost, A* µs, Theta* µs);
    and what failed: a path not found, a Theta* answer invalid in either validate mode."""
    grid, scenarios = common.load_scenarios(path, limit)
    figures, problems = [], []
    queries = [(s.start, s.goal) for s in scenarios]
    for i, astar, theta, astar_us, theta_us in searched(grid, queries, scratch):
        where = f"{path.name}:{scenarios[i].line}"
        if not (astar.found and theta.found):
            problems.append(f"{where}: found astar={astar.found} theta={theta.found}")
            continue
        for mode, points in (("waypoints", theta.waypoints), ("cells", theta.path)):
            if not validate_path(grid, points, mode=mode, options=THETA, scratch=scratch).valid:
                problems.append(f"{where}: theta {mode} invalid")
        figures.append((astar.cost, polyline(astar.waypoints), theta.cost, astar_us, theta_us))
    return figures, problems


def anyangle_row(name: str, figures: list) -> str:
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


def anyangle_main(args: argparse.Namespace) -> int:
    maps, info = common.begin(args)  # exit status 2: no maps
    scratch = SearchScratch()
    every, problems, lines = [], [], []
    for path in maps:
        figures, found = anyangle_map(path, args.limit or None, scratch)
        problems += found
        if figures:
            every += figures
            lines.append(anyangle_row(path.stem, figures))
        common.log(f"{path.stem}: {len(figures)} scenarios")
    print("\n" + common.header(ANYANGLE_COLUMNS))
    print("\n".join(lines))
    print(anyangle_row(f"all {len(maps)} maps", every))
    print(f"\n{common.machine_line(info)}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        "python -m bench.terrain", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    commands = parser.add_subparsers(dest="command", required=True)
    waypoints = commands.add_parser("waypoints", help="smooth waypoints against cost")
    waypoints.add_argument("--maps", type=int, default=60, help="random terrain maps")
    waypoints.add_argument("--queries", type=int, default=20, help="queries per random map")
    theta = commands.add_parser("theta", help="Theta* on terrain against A*")
    theta.add_argument("--maps", nargs="*", default=list(DEFAULT_MAPS), help="Moving AI maps")
    theta.add_argument("--limit", type=int, default=40, help="scenarios per Moving AI map")
    theta.add_argument("--data", type=Path, default=common.DEFAULT_DATA, help="Moving AI folder")
    anyangle = commands.add_parser("anyangle", help="Theta* against A* on Moving AI maps")
    anyangle.add_argument("--data", type=Path, default=common.DEFAULT_DATA, help="Moving AI folder")
    anyangle.add_argument("--maps", nargs="+", metavar="NAME", help="only these maps (stems)")
    anyangle.add_argument("--limit", type=int, default=30, help="scenarios per map (default 30)")
    args = parser.parse_args(argv)
    run = {"waypoints": waypoints_main, "theta": theta_main, "anyangle": anyangle_main}
    return run[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
