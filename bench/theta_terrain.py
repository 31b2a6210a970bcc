"""Any-angle paths on terrain maps: Lazy Theta* (``algorithm: "theta"``) against A*'s
``cost`` and against the cost of A*'s ``smooth`` waypoints (issue 20).

Run from the repository root::

    python -m bench.theta_terrain                  # village + 4 Moving AI maps x 2 terrains
    python -m bench.theta_terrain --limit 20 --maps den312d

Maps: the bundled ``village`` (road 1, grass 1.5, mud 4; random pairs of walkable cells,
fixed seed) and Moving AI maps (their scenarios, ``--limit`` spread evenly over the file)
given terrain of our own, fixed seed: ``swamps`` (discs of cost 4 over ground 1) and
``grey`` (smooth noise cut into five grey levels of cost 1, 1.5, 2, 3 and 5). Per query:
A* (the optimal grid cost), its ``smooth`` waypoints (their continuous cost, never above
A*'s cost) and Theta* (its cost: the continuous cost of its own vertices). Every Theta*
answer is checked: its waypoints validate in ``waypoints`` mode at exactly its cost.
Printed (Markdown): per map and terrain, the mean of each cost relative to A*'s cost and
how often Theta* is cheaper than the smooth waypoints. Exit status 1 if a check failed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from bench.common import DEFAULT_DATA, MAX_BYTES, MAX_CELLS, load_scenarios
from gridpath.grid import load_map
from gridpath.grid.model import Grid, TerrainClass
from gridpath.search import Algorithm, SearchOptions, find_path
from gridpath.search.validate import validate_path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MAPS = ("arena", "den312d", "ost003d", "Berlin_0_256")
ASTAR = SearchOptions(algorithm=Algorithm.ASTAR, smooth=True)
THETA = SearchOptions(algorithm=Algorithm.THETA)
SEED = 20


def swamps(grid: Grid, rng: np.random.Generator) -> Grid:
    """Discs of swamp (cost 4) over ground (cost 1), about a quarter of the map."""
    height, width = grid.height, grid.width
    ys, xs = np.mgrid[0:height, 0:width]
    swamp = np.zeros((height, width), dtype=bool)
    while swamp.mean() < 0.25:
        cx, cy = rng.integers(0, width), rng.integers(0, height)
        r = rng.uniform(2, max(3.0, min(width, height) / 8))
        swamp |= (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r
    classes = (TerrainClass("ground", 1.0), TerrainClass("swamp", 4.0))
    return Grid.from_walkable(
        grid.name, grid.walkable, terrain=swamp.astype(np.uint8), terrain_classes=classes
    )


def grey(grid: Grid, rng: np.random.Generator) -> Grid:
    """Smooth noise cut into five levels: costs 1, 1.5, 2, 3 and 5."""
    height, width = grid.height, grid.width
    coarse = rng.random((height // 8 + 2, width // 8 + 2))
    ys = np.linspace(0, coarse.shape[0] - 1.001, height)
    xs = np.linspace(0, coarse.shape[1] - 1.001, width)
    y0, x0 = ys.astype(int), xs.astype(int)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    c = coarse
    noise = (
        c[y0][:, x0] * (1 - fy) * (1 - fx)
        + c[y0 + 1][:, x0] * fy * (1 - fx)
        + c[y0][:, x0 + 1] * (1 - fy) * fx
        + c[y0 + 1][:, x0 + 1] * fy * fx
    )
    levels = np.digitize(noise, np.quantile(noise, [0.4, 0.6, 0.75, 0.9]))
    classes = tuple(TerrainClass(f"grey{k}", c) for k, c in enumerate((1.0, 1.5, 2.0, 3.0, 5.0)))
    return Grid.from_walkable(
        grid.name, grid.walkable, terrain=levels.astype(np.uint8), terrain_classes=classes
    )


def compare(grid: Grid, queries) -> tuple[list[tuple[float, float, float]], int]:
    """Per query found: (A* cost, smooth waypoints' cost, Theta* cost); and the failures."""
    rows, failures = [], 0
    for start, goal in queries:
        if start == goal:
            continue
        astar = find_path(grid, start, goal, ASTAR, waypoints=True)
        theta = find_path(grid, start, goal, THETA, waypoints=True)
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


def table_row(label: str, rows: list[tuple[float, float, float]]) -> str:
    a = np.array(rows)
    waypoints, theta = a[:, 1] / a[:, 0], a[:, 2] / a[:, 0]
    cheaper = float(np.mean(a[:, 2] < a[:, 1] * (1 - 1e-9)))
    return (
        f"| {label} | {len(a)} | {a[:, 0].mean():.2f} | {waypoints.mean():.4f} | "
        f"{theta.mean():.4f} | {theta.max():.3f} | {100 * cheaper:.0f} % |"
    )


def village_queries(rng: np.random.Generator, count: int) -> tuple[Grid, list]:
    grid = load_map(ROOT / "maps" / "village.tmx", max_cells=MAX_CELLS, max_bytes=MAX_BYTES)
    cells = np.argwhere(grid.walkable)
    pairs = cells[rng.integers(0, len(cells), size=(count, 2))]
    return grid, [((int(s[1]), int(s[0])), (int(g[1]), int(g[0]))) for s, g in pairs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--maps", nargs="*", default=list(DEFAULT_MAPS))
    parser.add_argument("--limit", type=int, default=40, help="scenarios per Moving AI map")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="Moving AI folder")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(SEED)
    print("| map | terrain | queries | mean A* cost | smooth waypoints / A* | theta / A* |", end="")
    print(" theta / A* max | theta cheaper than waypoints |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    failures = 0
    grid, queries = village_queries(rng, 200)
    rows, failed = compare(grid, queries)
    failures += failed
    print(table_row("village | road 1, grass 1.5, mud 4", rows), flush=True)
    for name in args.maps:
        base, scenarios = load_scenarios(args.data / f"{name}.map", args.limit)
        queries = [(s.start, s.goal) for s in scenarios]
        for label, make in (("swamps (4)", swamps), ("grey (1-5)", grey)):
            rows, failed = compare(make(base, rng), queries)
            failures += failed
            print(table_row(f"{name} | {label}", rows), flush=True)
    if failures:
        print(f"{failures} checks failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
