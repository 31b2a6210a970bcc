"""Issue 20: waypoints a unit can walk at the cost the server charged.

On random terrain maps (terrain classes of random costs, random walls) the waypoints'
continuous cost never exceeds ``cost``; ``/validate``'s waypoints mode prices them at
exactly their ``waypoints_cost``; uniform maps keep their plain string-pulled waypoints;
Lazy Theta* runs on terrain; terrain costs out of range are refused; and every answer
with ``optimal: true`` has the cost an independent Dijkstra (scipy) finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.errors import InvalidField, InvalidOption, TerrainCostOutOfRange
from gridpath.grid import load_map
from gridpath.grid.edits import Edit, GridEdit
from gridpath.grid.loader import apply_costs
from gridpath.grid.model import Grid
from gridpath.grid.terrain import GROUND, MIN_TERRAIN_COST, TerrainClass
from gridpath.grid.tiled import _tile_class
from gridpath.search import Algorithm, CostModel, Diagonal, SearchOptions, find_path, smooth
from gridpath.search.validate import validate_path
from tests.conftest import MAPS_DIR
from tests.reference import reference_costs

MAPS = MAPS_DIR
TOLERANCE = 1e-9


def random_terrain_grid(rng: np.random.Generator, whole: bool = False) -> Grid:
    height, width = (int(v) for v in rng.integers(8, 28, size=2))
    n = int(rng.integers(2, 5))
    raw = rng.integers(1, 9, size=n) if whole else rng.uniform(0.5, 9.0, size=n)
    classes = tuple(TerrainClass(f"t{k}", float(c)) for k, c in enumerate(raw))
    patch = int(rng.integers(1, 5))
    coarse = rng.integers(0, n, size=(height // patch + 1, width // patch + 1))
    terrain = np.kron(coarse, np.ones((patch, patch), dtype=np.int64))[:height, :width]
    walkable = rng.random((height, width)) >= rng.uniform(0.0, 0.3)
    return Grid.from_walkable(
        "r", walkable, terrain=terrain.astype(np.uint8), terrain_classes=classes
    )


def ends(rng: np.random.Generator, grid: Grid) -> tuple:
    cells = np.argwhere(grid.walkable)
    (sy, sx), (gy, gx) = cells[rng.integers(0, len(cells), size=2)]
    return (int(sx), int(sy)), (int(gx), int(gy))


VARIANTS = [
    {},
    {"diagonal": Diagonal.ONE_FREE},
    {"diagonal": Diagonal.ALWAYS},
    {"connectivity": 4},
    {"clearance": 2},
    {"algorithm": Algorithm.GREEDY},
    {"algorithm": Algorithm.DIJKSTRA, "turn_penalty": 0.5},
    {"cost_model": CostModel.INTEGER},
    {"cost_model": CostModel.INTEGER, "connectivity": 4},
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(map(str, v.values())))
def test_waypoints_never_cost_more_and_validate_at_their_cost(variant):
    rng = np.random.default_rng(len(str(variant)))
    integer = variant.get("cost_model") == CostModel.INTEGER
    checked = 0
    for _ in range(12):
        grid = random_terrain_grid(rng, whole=integer)
        for _ in range(6):
            start, goal = ends(rng, grid)
            blocked = [tuple(int(v) for v in c) for c in np.argwhere(grid.walkable)[:3, ::-1]]
            blocked = [c for c in blocked if c not in (start, goal)]
            for smoothed in (True, False):
                options = SearchOptions(algorithm=Algorithm.ASTAR, smooth=smoothed)
                options = SearchOptions(**{**options.__dict__, **variant})
                try:
                    result = find_path(grid, start, goal, options, blocked=blocked, waypoints=True)
                except Exception as exc:  # an end too narrow for clearance 2
                    assert type(exc).__name__ == "StartBlocked" or "Blocked" in type(exc).__name__
                    continue
                if not result.found:
                    assert result.waypoints_cost is None
                    continue
                walked = result.waypoints_cost
                assert walked <= result.cost * (1 + TOLERANCE), (start, goal, variant)
                if integer:
                    assert isinstance(walked, int)
                if not smoothed:  # the turning points: the path itself
                    assert walked == pytest.approx(result.cost, rel=TOLERANCE)
                check = validate_path(
                    grid, result.waypoints, mode="waypoints", options=options, blocked=blocked,
                    max_cost=walked,
                )  # fmt: skip
                assert check.valid, check.violations
                assert check.cost == walked  # exactly: the same pricing
                checked += 1
    assert checked > 40


def test_village_example_of_the_issue():
    grid = load_map(MAPS / "village.tmx", max_cells=10**6, max_bytes=10**7)
    options = SearchOptions(algorithm=Algorithm.ASTAR, smooth=True)
    result = find_path(grid, (0, 0), (23, 15), options, waypoints=True)
    assert result.cost == pytest.approx(41.81, abs=0.005)
    # Before: [[0,0],[1,6],[22,10],[23,15]], costing 48.84 to walk (through the mud).
    assert result.waypoints.tolist() != [[0, 0], [1, 6], [22, 10], [23, 15]]
    assert result.waypoints_cost <= result.cost
    priced = validate_path(grid, [[0, 0], [1, 6], [22, 10], [23, 15]], mode="waypoints")
    assert priced.cost == pytest.approx(48.84, abs=0.005)


def test_uniform_maps_keep_plain_string_pulling():
    rng = np.random.default_rng(5)
    for _ in range(10):
        walkable = rng.random((20, 30)) > 0.25
        grid = Grid.from_walkable("u", walkable)
        start, goal = ends(rng, grid)
        for model in (CostModel.FLOAT, CostModel.INTEGER):
            options = SearchOptions(algorithm=Algorithm.ASTAR, smooth=True, cost_model=model)
            result = find_path(grid, start, goal, options, waypoints=True)
            if result.found:
                assert result.waypoints.tolist() == smooth(grid, result.path).tolist()
                assert result.waypoints_cost <= result.cost * (1 + TOLERANCE)


def test_theta_runs_on_terrain_and_costs_its_waypoints():
    rng = np.random.default_rng(11)
    ran = 0
    for _ in range(8):
        grid = random_terrain_grid(rng)
        start, goal = ends(rng, grid)
        result = find_path(
            grid, start, goal, SearchOptions(algorithm=Algorithm.THETA), waypoints=True
        )
        if not result.found:
            continue
        assert not result.optimal
        assert result.waypoints_cost == result.cost  # summed in the same order
        check = validate_path(grid, result.waypoints, mode="waypoints")
        assert check.valid and check.cost == result.cost
        assert validate_path(grid, result.path, mode="cells").valid
        ran += 1
    assert ran >= 4


def test_terrain_costs_out_of_range_are_refused_everywhere():
    grid = load_map(MAPS / "village.tmx", max_cells=10**6, max_bytes=10**7)
    for cost in (5e-324, MIN_TERRAIN_COST / 2, 2e6):
        with pytest.raises(InvalidOption) as raised:
            SearchOptions(terrain_costs=(("road", cost),))
        assert raised.value.code == "invalid_terrain_costs"
        with pytest.raises(InvalidField) as raised:
            grid.edit(GridEdit([Edit(cells=((0, 0),), value=cost)]), 2)
        assert raised.value.code == "invalid_terrain_costs"
        with pytest.raises(TerrainCostOutOfRange):  # a sidecar's costs
            apply_costs(GROUND, {"ground": cost})
        with pytest.raises(TerrainCostOutOfRange):  # a Tiled tile's cost property
            _tile_class(1, {"cost": cost})
        with pytest.raises(ValueError):
            Grid.from_walkable("x", np.ones((2, 2)), terrain_classes=(TerrainClass("g", cost),))
    SearchOptions(terrain_costs=(("road", MIN_TERRAIN_COST),))  # the minimum itself is allowed


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    costs=st.lists(
        st.floats(MIN_TERRAIN_COST, 1e6, allow_nan=False, allow_infinity=False),
        min_size=2,
        max_size=4,
    ),
)
def test_optimal_answers_have_the_dijkstra_cost(seed, costs):
    rng = np.random.default_rng(seed)
    height, width = 10, 14
    classes = tuple(TerrainClass(f"t{k}", c) for k, c in enumerate(costs))
    terrain = rng.integers(0, len(costs), size=(height, width))
    walkable = rng.random((height, width)) > 0.2
    grid = Grid.from_walkable(
        "p", walkable, terrain=terrain.astype(np.uint8), terrain_classes=classes
    )
    cell_cost = np.array(costs)[terrain]
    start, goal = ends(rng, grid)
    want = reference_costs(walkable, start, cell_cost=cell_cost)[goal[1], goal[0]]
    for algorithm in (Algorithm.AUTO, Algorithm.ASTAR, Algorithm.DIJKSTRA):
        result = find_path(grid, start, goal, SearchOptions(algorithm=algorithm))
        if result.optimal:
            if np.isinf(want):
                assert not result.found
            else:
                assert result.cost == pytest.approx(want, rel=1e-9)


PAIR_VARIANTS = [
    {},
    {"smooth": False},
    {"cost_model": CostModel.INTEGER},
    {"algorithm": Algorithm.ASTAR},
    {"algorithm": Algorithm.ASTAR, "cost_model": CostModel.INTEGER},
]


@pytest.mark.parametrize("variant", PAIR_VARIANTS, ids=lambda v: ",".join(map(str, v.values())))
def test_a_pair_run_prices_its_waypoints_as_walked_cost_does(variant):
    """An exact-pair run (uniform terrain) prices its waypoints in its finishing call; the
    price is exactly what ``walked_cost`` gives for them (the same compiled sum)."""
    from gridpath.search.cost import walked_cost
    from gridpath.search.plan import plan_for
    from gridpath.search.runner import PairRun

    rng = np.random.default_rng(2101)
    options = SearchOptions(**variant)
    for _ in range(4):
        height, width = (int(v) for v in rng.integers(8, 40, size=2))
        grid = Grid.from_walkable("u", rng.random((height, width)) >= 0.25)
        plan = plan_for(grid, options, 0)
        assert isinstance(plan.run, PairRun)
        for _ in range(15):
            start, goal = ends(rng, grid)
            result = find_path(grid, start, goal, options, waypoints=True)
            if not result.found:
                continue
            expected = walked_cost(grid, plan.options, plan.class_cost, plan.uniform,
                                   result.waypoints)  # fmt: skip
            assert type(result.waypoints_cost) is type(expected)
            assert result.waypoints_cost == expected
