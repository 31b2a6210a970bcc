"""What walking the ``smooth`` waypoints costs against the ``cost`` the server quotes, on
terrain maps: how often (and by how much) the waypoints are dearer than the path.

Run from the repository root (on any version of the code: it prices the waypoints
itself, with the library's continuous polyline cost, :mod:`gridpath.search.cost`)::

    python -m bench.waypoints                 # village + 60 random terrain maps
    python -m bench.waypoints --maps 20 --queries 10

Queries: the ``village`` example of issue 20, every ordered pair of a fixed sample of
``village``'s walkable cells, and random queries on random maps (fixed seed: random
walls, and terrain classes of random costs laid in patches). Each is searched with A*
and ``smooth``; the waypoints' continuous cost is compared with ``cost``. Printed: the
village example, then per query set the share of answers whose waypoints cost more than
``cost`` by over 1e-9 (relative), over 1 % and over 10 %, and the largest ratio.
Exit status 0 always (a measurement, not a check: the tests check the guarantee).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from bench.common import MAX_BYTES, MAX_CELLS
from gridpath.grid import load_map
from gridpath.grid.model import Grid, TerrainClass
from gridpath.search import Algorithm, SearchOptions, find_path
from gridpath.search.cost import polyline_cost, price_record
from gridpath.search.find import terrain_table

VILLAGE = Path(__file__).resolve().parent.parent / "maps" / "village.tmx"
SMOOTH_ASTAR = SearchOptions(algorithm=Algorithm.ASTAR, smooth=True)
SEED = 20


def waypoints_cost(grid: Grid, options: SearchOptions, waypoints: np.ndarray) -> float:
    """The continuous cost of walking ``waypoints`` (independent of the answer's fields)."""
    class_cost, uniform, _min = terrain_table(grid, options.resolved())
    return polyline_cost(price_record(grid, options.resolved(), class_cost, uniform), waypoints)


def random_terrain_map(rng: np.random.Generator, index: int) -> Grid:
    """A random map: 3 to 5 terrain classes of random costs (1 to 8) laid in patches, and
    random walls (10 to 30 % of the cells)."""
    width, height = (int(v) for v in rng.integers(16, 65, size=2))
    n_classes = int(rng.integers(3, 6))
    costs = [1.0] + [round(float(c), 2) for c in rng.uniform(1.0, 8.0, size=n_classes - 1)]
    classes = tuple(TerrainClass(f"t{k}", c) for k, c in enumerate(costs))
    patch = int(rng.integers(2, 7))
    coarse = rng.integers(0, n_classes, size=(height // patch + 1, width // patch + 1))
    terrain = np.kron(coarse, np.ones((patch, patch), dtype=np.int64))[:height, :width]
    walkable = rng.random((height, width)) >= rng.uniform(0.1, 0.3)
    return Grid.from_walkable(
        f"random{index}", walkable, terrain=terrain.astype(np.uint8), terrain_classes=classes
    )


def random_queries(rng: np.random.Generator, grid: Grid, count: int) -> Iterator[tuple]:
    cells = np.argwhere(grid.walkable)
    for _ in range(count):
        (sy, sx), (gy, gx) = cells[rng.integers(0, len(cells), size=2)]
        yield (int(sx), int(sy)), (int(gx), int(gy))


def measure(grid: Grid, queries, options: SearchOptions = SMOOTH_ASTAR) -> list[float]:
    """Per found answer: its waypoints' continuous cost divided by its ``cost``."""
    ratios = []
    for start, goal in queries:
        if start == goal:
            continue
        result = find_path(grid, start, goal, options, waypoints=True)
        if not result.found or not result.cost:
            continue
        ratios.append(waypoints_cost(grid, options, result.waypoints) / result.cost)
    return ratios


def summary(label: str, ratios: list[float]) -> str:
    r = np.array(ratios)
    n = len(r)
    over = [int(np.sum(r > 1 + eps)) for eps in (1e-9, 0.01, 0.10)]
    shares = " | ".join(f"{k} ({100 * k / n:.1f} %)" for k in over)
    return f"| {label} | {n} | {shares} | {r.max():.3f} |"


def village_example() -> str:
    grid = load_map(VILLAGE, max_cells=MAX_CELLS, max_bytes=MAX_BYTES)
    result = find_path(grid, (0, 0), (23, 15), SMOOTH_ASTAR, waypoints=True)
    walked = waypoints_cost(grid, SMOOTH_ASTAR, result.waypoints)
    return (
        f"village [0, 0] -> [23, 15], astar, smooth: cost {result.cost:.2f}, "
        f"waypoints {result.waypoints.tolist()} cost {walked:.2f}"
    )


def village_queries(rng: np.random.Generator) -> tuple[Grid, list]:
    grid = load_map(VILLAGE, max_cells=MAX_CELLS, max_bytes=MAX_BYTES)
    return grid, list(random_queries(rng, grid, 400))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--maps", type=int, default=60, help="random terrain maps")
    parser.add_argument("--queries", type=int, default=20, help="queries per random map")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(SEED)
    print(village_example())
    print()
    print("| queries | answers | waypoints dearer than cost: > 1e-9 | > 1 % | > 10 % | max ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    grid, queries = village_queries(rng)
    print(summary("village, 400 random pairs", measure(grid, queries)), flush=True)
    ratios: list[float] = []
    for index in range(args.maps):
        grid = random_terrain_map(rng, index)
        ratios += measure(grid, list(random_queries(rng, grid, args.queries)))
    print(summary(f"{args.maps} random terrain maps x {args.queries}", ratios), flush=True)


if __name__ == "__main__":
    main()
