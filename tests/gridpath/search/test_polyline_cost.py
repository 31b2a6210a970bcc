"""The continuous cost of a polyline (gridpath.search.cost) against hand-computed cases
and an independent fine sampling of each segment."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gridpath.grid.model import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.search import Algorithm, CostModel, SearchOptions, find_path
from gridpath.search.cost import polyline_cost, price_record
from gridpath.search.find import terrain_prices

FLOAT = SearchOptions(algorithm=Algorithm.ASTAR)
INTEGER = SearchOptions(algorithm=Algorithm.ASTAR, cost_model=CostModel.INTEGER)


def terrain_grid(terrain: np.ndarray, costs: list[float], walkable=None) -> Grid:
    classes = tuple(TerrainClass(f"t{k}", c) for k, c in enumerate(costs))
    walkable = np.ones(terrain.shape, dtype=bool) if walkable is None else walkable
    return Grid.from_walkable(
        "t", walkable, terrain=terrain.astype(np.uint8), terrain_classes=classes
    )


def cost_of(grid: Grid, vertices, options: SearchOptions = FLOAT) -> float:
    options = options.resolved()
    class_cost, uniform, _ = terrain_prices(grid, options)
    return polyline_cost(price_record(grid, options, class_cost, uniform), np.array(vertices))


def sampled(grid: Grid, vertices, samples: int = 200_000) -> float:
    """Midpoint rule: the cost of the cell under each of ``samples`` equal pieces."""
    costs = np.array([tc.cost for tc in grid.terrain_classes])
    classes = grid.terrain[1:-1, 1:-1]
    total = 0.0
    for (x0, y0), (x1, y1) in zip(vertices[:-1], vertices[1:], strict=True):
        t = (np.arange(samples) + 0.5) / samples
        xs = np.floor(x0 + (x1 - x0) * t + 0.5).astype(int)
        ys = np.floor(y0 + (y1 - y0) * t + 0.5).astype(int)
        length = math.hypot(x1 - x0, y1 - y0)
        total += length * costs[classes[ys, xs]].mean()
    return total


def test_hand_cases_with_a_terrain_change_and_corners():
    # Row 0: cost 1, 1, 3; row 1: cost 2 everywhere.
    terrain = np.array([[0, 0, 1], [2, 2, 2]])
    grid = terrain_grid(terrain, [1.0, 3.0, 2.0])
    # An axis step spends half in each cell: 0.5 * 1 + 0.5 * 3.
    assert cost_of(grid, [(1, 0), (2, 0)]) == 2.0
    # Along the row: 0.5 + 1 + 1.5.
    assert cost_of(grid, [(0, 0), (2, 0)]) == 3.0
    # A diagonal step through the shared corner: half of sqrt(2) in each end cell, nothing
    # in the side cells (costs 1 and 2 for the first, 1 and 2 for the second).
    assert cost_of(grid, [(0, 0), (1, 1)]) == pytest.approx(math.sqrt(2) * 1.5, abs=1e-15)
    assert cost_of(grid, [(2, 0), (1, 1)]) == pytest.approx(math.sqrt(2) * 2.5, abs=1e-15)
    # (0, 0) -> (2, 1): t crosses x = 0.5 at 1/4, the corner (1, 0.5) at 1/2, x = 1.5 at
    # 3/4: cells (0,0) 1/4, (1,0) 1/4, (1,1) 1/4, (2,1) 1/4; (0,1) and (2,0) get nothing.
    expected = math.sqrt(5) * (0.25 * 1 + 0.25 * 1 + 0.25 * 2 + 0.25 * 2)
    assert cost_of(grid, [(0, 0), (2, 1)]) == pytest.approx(expected, rel=1e-15)
    assert cost_of(grid, [(0, 0)]) == 0.0


def test_segments_with_corners_match_the_sampling():
    terrain = np.array([[0, 1, 1], [1, 1, 0], [0, 0, 1]])
    grid = terrain_grid(terrain, [1.0, 5.0])
    for vertices in (
        [(0, 0), (2, 1)],
        [(2, 0), (0, 1)],
        [(0, 1), (2, 0), (1, 2)],
        [(0, 0), (1, 2)],
    ):
        assert cost_of(grid, vertices) == pytest.approx(sampled(grid, vertices), rel=1e-4)


@pytest.mark.parametrize("seed", range(6))
def test_random_segments_match_the_sampling(seed):
    rng = np.random.default_rng(seed)
    height, width = 9, 13
    terrain = rng.integers(0, 4, size=(height, width))
    grid = terrain_grid(terrain, [1.0, 1.5, 4.0, 7.25])
    for _ in range(25):
        vertices = [tuple(int(v) for v in rng.integers(0, (width, height))) for _ in range(3)]
        assert cost_of(grid, vertices) == pytest.approx(sampled(grid, vertices), rel=2e-4)


def test_a_cell_path_costs_exactly_its_cost():
    rng = np.random.default_rng(3)
    terrain = rng.integers(0, 3, size=(20, 30))
    walkable = rng.random((20, 30)) > 0.15
    walkable[0, 0] = walkable[19, 29] = True
    grid = terrain_grid(terrain, [1.0, 2.0, 6.0], walkable)
    for options in (FLOAT, INTEGER):
        result = find_path(grid, (0, 0), (29, 19), options)
        assert result.found
        assert cost_of(grid, result.path, options) == pytest.approx(result.cost, rel=1e-12)


def test_uniform_costs_are_lengths():
    grid = Grid.from_walkable("u", np.ones((8, 8), dtype=bool))
    assert cost_of(grid, [(0, 0), (3, 4), (3, 7)]) == 8.0
    assert cost_of(grid, [(0, 0), (5, 5)]) == 5 * math.sqrt(2)
    # Integer model: the octile length, 10 per straight and 14 per diagonal unit.
    assert cost_of(grid, [(0, 0), (3, 4), (3, 7)], INTEGER) == 10 + 3 * 14 + 30


def test_integer_model_rounds_each_segment():
    terrain = np.array([[0, 1, 1], [1, 1, 0]])
    grid = terrain_grid(terrain, [1.0, 3.0])
    # (0, 0) -> (2, 1): octile 24 x mean terrain (1/4 * 1 + 1/4 * 3 + 1/4 * 3 + 1/4 * 1) = 48.
    assert cost_of(grid, [(0, 0), (2, 1)], INTEGER) == 48
    # A straight step: 10 x (1 + 3) / 2.
    assert cost_of(grid, [(0, 0), (1, 0)], INTEGER) == 20
