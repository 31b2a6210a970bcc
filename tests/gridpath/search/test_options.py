"""Every algorithm, heuristic, movement rule and cost model against independent references."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.search import (
    Algorithm,
    CostModel,
    Diagonal,
    Heuristic,
    InvalidOption,
    SearchOptions,
    find_path,
    line_of_sight,
    smooth,
)
from gridpath.search.algorithms import (
    ALGORITHMS,
    choose_runner,
    is_bounded_suboptimal,
    is_optimal,
)
from gridpath.search.find import checked_query
from tests.conftest import make_grid
from tests.reference import (
    SQRT2,
    path_cost,
    reference_costs,
    reference_line_of_sight_rule,
    step_is_legal,
)

RULES = [
    (4, Diagonal.NO_CORNER_CUT),
    (8, Diagonal.NEVER),
    (8, Diagonal.NO_CORNER_CUT),
    (8, Diagonal.ONE_FREE),
    (8, Diagonal.ALWAYS),
]


def rule_name(connectivity, diagonal):
    return "never" if connectivity == 4 else diagonal.value


def weights_of(cost_model):
    return (10.0, 14.0) if cost_model == CostModel.INTEGER else (1.0, SQRT2)


@st.composite
def grid_and_query(draw, max_side=12):
    width = draw(st.integers(1, max_side))
    height = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.15, 0.3, 0.45]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= density
    cells = np.argwhere(walkable)
    if len(cells) == 0:
        walkable[0, 0] = True
        cells = np.argwhere(walkable)
    i = draw(st.integers(0, len(cells) - 1))
    j = draw(st.integers(0, len(cells) - 1))
    return walkable, (int(cells[i][1]), int(cells[i][0])), (int(cells[j][1]), int(cells[j][0]))


def check_path(walkable, result, start, goal, rule):
    cells = [tuple(c) for c in result.path.tolist()]
    assert cells[0] == start and cells[-1] == goal
    for a, b in zip(cells, cells[1:]):
        assert step_is_legal(walkable, a, b, rule), f"illegal step {a}->{b} under {rule}"
    return cells


def optimal_cases() -> list[tuple[Algorithm, int, Diagonal, CostModel]]:
    """Every algorithm of the registry under every movement rule and cost model for which it
    promises an optimal answer and which one of its runners serves (a new algorithm is
    covered by its registry line alone)."""
    probe = Grid.from_walkable("probe", np.ones((3, 3), dtype=bool))
    cases = []
    for algorithm in ALGORITHMS:
        for (connectivity, diagonal), cost_model in itertools.product(RULES, CostModel):
            options = SearchOptions(
                algorithm=algorithm, connectivity=connectivity, diagonal=diagonal,
                cost_model=cost_model,
            )  # fmt: skip
            served = choose_runner(checked_query(probe, (0, 0), (2, 2), None, options, (), 0))
            if is_optimal(options) and served.runner is not None:
                cases.append((algorithm, connectivity, diagonal, cost_model))
    return cases


@pytest.mark.parametrize("algorithm,connectivity,diagonal,cost_model", optimal_cases())
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=grid_and_query())
def test_optimal_algorithms_match_scipy(algorithm, connectivity, diagonal, cost_model, case):
    walkable, start, goal = case
    rule = rule_name(connectivity, diagonal)
    weights = weights_of(cost_model)
    options = SearchOptions(
        algorithm=algorithm, connectivity=connectivity, diagonal=diagonal, cost_model=cost_model
    )
    result = find_path(Grid.from_walkable("p", walkable), start, goal, options)
    expected = reference_costs(walkable, start, rule, weights)[goal[1], goal[0]]
    assert is_optimal(options)
    if math.isinf(expected):
        assert not result.found and result.reason == "unreachable"
        return
    assert result.found
    if cost_model == CostModel.INTEGER:
        assert isinstance(result.cost, int) and result.cost == int(expected)
    else:
        assert abs(result.cost - expected) <= 1e-9
    cells = check_path(walkable, result, start, goal, rule)
    assert abs(path_cost(cells, weights) - result.cost) <= 1e-9


@pytest.mark.parametrize(
    "heuristic",
    [
        Heuristic.OCTILE,
        Heuristic.EUCLIDEAN,
        Heuristic.CHEBYSHEV,
        Heuristic.ZERO,
        Heuristic.MANHATTAN,
    ],
)
@pytest.mark.parametrize("cost_model", list(CostModel))
@settings(max_examples=40, deadline=None)
@given(case=grid_and_query())
def test_heuristics(heuristic, cost_model, case):
    walkable, start, goal = case
    options = SearchOptions(heuristic=heuristic, cost_model=cost_model)
    result = find_path(Grid.from_walkable("h", walkable), start, goal, options)
    expected = reference_costs(walkable, start, "no_corner_cut", weights_of(cost_model))[
        goal[1], goal[0]
    ]
    assert result.found == (not math.isinf(expected))
    if not result.found:
        return
    check_path(walkable, result, start, goal, "no_corner_cut")
    if is_optimal(options):  # every admissible heuristic gives the optimal cost
        assert abs(result.cost - expected) <= 1e-9
    else:  # manhattan with diagonals overestimates: legal, flagged not optimal
        assert heuristic == Heuristic.MANHATTAN and result.cost >= expected - 1e-9


@pytest.mark.parametrize("connectivity,diagonal", RULES)
@settings(max_examples=40, deadline=None)
@given(case=grid_and_query())
def test_bfs_finds_fewest_steps(connectivity, diagonal, case):
    walkable, start, goal = case
    rule = rule_name(connectivity, diagonal)
    options = SearchOptions(algorithm=Algorithm.BFS, connectivity=connectivity, diagonal=diagonal)
    result = find_path(Grid.from_walkable("b", walkable), start, goal, options)
    steps = reference_costs(walkable, start, rule, (1.0, 1.0))[goal[1], goal[0]]
    assert result.found == (not math.isinf(steps))
    if result.found:
        cells = check_path(walkable, result, start, goal, rule)
        assert len(cells) - 1 == steps
        assert abs(result.cost - path_cost(cells)) <= 1e-9  # cost is reported in real units
    assert is_optimal(options) == (rule == "never")


@pytest.mark.parametrize("connectivity,diagonal", RULES)
@settings(max_examples=40, deadline=None)
@given(case=grid_and_query())
def test_greedy_paths_are_legal(connectivity, diagonal, case):
    walkable, start, goal = case
    rule = rule_name(connectivity, diagonal)
    options = SearchOptions(
        algorithm=Algorithm.GREEDY, connectivity=connectivity, diagonal=diagonal
    )
    result = find_path(Grid.from_walkable("g", walkable), start, goal, options)
    reachable = not math.isinf(reference_costs(walkable, start, rule)[goal[1], goal[0]])
    assert result.found == reachable and not is_optimal(options)
    if result.found:
        check_path(walkable, result, start, goal, rule)


@pytest.mark.parametrize("weight", [1.5, 2.0, 5.0])
@settings(max_examples=40, deadline=None)
@given(case=grid_and_query(max_side=16))
def test_weighted_astar_within_bound(weight, case):
    walkable, start, goal = case
    options = SearchOptions(heuristic_weight=weight)
    result = find_path(Grid.from_walkable("w", walkable), start, goal, options)
    expected = reference_costs(walkable, start)[goal[1], goal[0]]
    assert is_bounded_suboptimal(options) and not is_optimal(options)
    if result.found:
        check_path(walkable, result, start, goal, "no_corner_cut")
        assert result.cost <= weight * expected + 1e-9


# Two routes of equal cost to (2, 3), summed in different orders (1 + √2 + √2 and
# √2 + √2 + 1): rounding once made the general kernel swap the parent.
_SAME_COST_ROUTES = (
    np.array(
        [
            [1, 1, 0, 1, 1, 0, 0, 1, 1, 1],
            [1, 1, 1, 0, 0, 1, 1, 0, 1, 0],
            [1, 1, 1, 0, 1, 1, 1, 1, 1, 0],
            [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        ],
        dtype=bool,
    ),
    (0, 0),
    (7, 0),
)


@settings(max_examples=150, deadline=None)
@given(case=grid_and_query())
@example(case=_SAME_COST_ROUTES)
def test_option_kernel_agrees_with_fast_kernel(case):
    """Default options through the option-rich kernel (forced by asking for explored cells)
    give the very same path as the exact fast kernel."""
    walkable, start, goal = case
    grid = Grid.from_walkable("same", walkable)
    astar = SearchOptions(algorithm=Algorithm.ASTAR)
    fast = find_path(grid, start, goal, astar)
    general = find_path(grid, start, goal, astar, explored_limit=10**6)
    assert fast.path.tolist() == general.path.tolist()
    assert fast.expanded == general.expanded and fast.cost == general.cost
    assert len(general.explored) == general.expanded
    if general.expanded:
        assert tuple(general.explored[0]) == start


@settings(max_examples=100, deadline=None)
@given(case=grid_and_query(), data=st.data())
def test_blocked_cells_equal_a_map_with_walls(case, data):
    walkable, start, goal = case
    free = [
        tuple(int(v) for v in c[::-1])
        for c in np.argwhere(walkable)
        if tuple(int(v) for v in c[::-1]) not in (start, goal)
    ]
    if not free:
        return
    blocked = data.draw(st.lists(st.sampled_from(free), max_size=8, unique=True))
    walled = walkable.copy()
    for x, y in blocked:
        walled[y, x] = False
    grid = Grid.from_walkable("o", walkable)
    astar = SearchOptions(algorithm=Algorithm.ASTAR)  # the same search on both sides
    with_overlay = find_path(grid, start, goal, astar, blocked=blocked, explored_limit=1)
    with_walls = find_path(Grid.from_walkable("o2", walled), start, goal, astar, explored_limit=1)
    assert with_overlay.path.tolist() == with_walls.path.tolist()
    assert with_overlay.cost == with_walls.cost
    # The shared map is untouched: the next search without overlay sees the walls gone.
    assert (
        find_path(grid, start, goal).cost
        == find_path(Grid.from_walkable("o3", walkable), start, goal).cost
    )
    if with_overlay.found:
        waypoints = smooth(grid, with_overlay.path, blocked=blocked)
        for a, b in zip(waypoints.tolist(), waypoints.tolist()[1:]):
            assert reference_line_of_sight_rule(walled, tuple(a), tuple(b), "no_corner_cut")


@settings(max_examples=100, deadline=None)
@given(case=grid_and_query(), data=st.data())
def test_multiple_goals_reach_the_cheapest(case, data):
    walkable, start, _ = case
    cells = [(int(c[1]), int(c[0])) for c in np.argwhere(walkable)]
    goals = data.draw(st.lists(st.sampled_from(cells), min_size=1, max_size=5))
    result = find_path(Grid.from_walkable("m", walkable), start, None, goals=goals)
    costs = reference_costs(walkable, start)
    best = min(costs[y, x] for x, y in goals)
    if math.isinf(best):
        assert not result.found
        return
    assert result.found and abs(result.cost - best) <= 1e-9
    assert goals[result.goal_index] == tuple(result.path[-1])
    assert result.goal_index == goals.index(tuple(result.path[-1]))


@settings(max_examples=100, deadline=None)
@given(case=grid_and_query())
def test_closest_returns_path_to_nearest_reachable_cell(case):
    walkable, start, goal = case
    costs = reference_costs(walkable, start)
    result = find_path(Grid.from_walkable("c", walkable), start, goal, SearchOptions(closest=True))
    if not math.isinf(costs[goal[1], goal[0]]):
        assert result.found and not result.partial
        return
    assert not result.found and result.partial and result.reason == "unreachable"
    end = tuple(result.path[-1])

    def octile(cell):
        dx, dy = abs(cell[0] - goal[0]), abs(cell[1] - goal[1])
        return max(dx, dy) - min(dx, dy) + SQRT2 * min(dx, dy)

    reachable = [(x, y) for y, x in np.argwhere(~np.isinf(costs))]
    assert abs(octile(end) - min(octile(c) for c in reachable)) <= 1e-9
    check_path(walkable, result, start, end, "no_corner_cut")
    assert abs(result.cost - costs[end[1], end[0]]) <= 1e-9


def test_limits_stop_the_search():
    grid = make_grid("." * 40)
    result = find_path(grid, (0, 0), (39, 0), SearchOptions(max_cost=10.0))
    assert not result.found and result.reason == "limit_reached"
    partial = find_path(grid, (0, 0), (39, 0), SearchOptions(max_cost=10.0, closest=True))
    assert partial.partial and partial.path[-1].tolist() == [10, 0] and partial.cost == 10.0
    assert find_path(grid, (0, 0), (39, 0), SearchOptions(max_cost=39.0)).found
    limited = find_path(grid, (0, 0), (39, 0), SearchOptions(max_expanded=5, closest=True))
    assert limited.reason == "limit_reached" and limited.partial and len(limited.path) == 5


def test_integer_cost_model_matches_client_arithmetic():
    grid = make_grid("\n".join(["......"] * 4))
    result = find_path(grid, (0, 0), (5, 3), SearchOptions(cost_model=CostModel.INTEGER))
    assert result.cost == 3 * 14 + 2 * 10 and isinstance(result.cost, int)


@pytest.mark.parametrize("diagonal", list(Diagonal))
@settings(max_examples=150, deadline=None)
@given(case=grid_and_query())
def test_line_of_sight_per_diagonal_rule(diagonal, case):
    walkable, a, b = case
    grid = Grid.from_walkable("l", walkable)
    assert line_of_sight(grid, a, b, diagonal=diagonal) == reference_line_of_sight_rule(
        walkable, a, b, diagonal.value
    )


@pytest.mark.parametrize("connectivity,diagonal", RULES)
@settings(max_examples=40, deadline=None)
@given(case=grid_and_query())
def test_smoothed_waypoints_see_each_other_under_each_rule(connectivity, diagonal, case):
    walkable, start, goal = case
    options = SearchOptions(connectivity=connectivity, diagonal=diagonal)
    grid = Grid.from_walkable("s", walkable)
    result = find_path(grid, start, goal, options)
    if not result.found:
        return
    effective = options.resolved().diagonal
    waypoints = smooth(grid, result.path, diagonal=effective).tolist()
    assert waypoints[0] == list(start) and waypoints[-1] == list(goal)
    for a, b in zip(waypoints, waypoints[1:]):
        assert reference_line_of_sight_rule(walkable, tuple(a), tuple(b), effective.value)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"connectivity": 6}, "connectivity"),
        ({"heuristic_weight": 0.5}, "heuristic_weight"),
        ({"heuristic_weight": float("nan")}, "heuristic_weight"),
        ({"max_cost": -1.0}, "max_cost"),
        ({"max_cost": float("inf")}, "max_cost"),
        ({"max_expanded": 0}, "max_expanded"),
    ],
)
def test_invalid_options_name_the_field(kwargs, field):
    with pytest.raises(InvalidOption) as info:
        SearchOptions(**kwargs)
    assert info.value.field == field


def test_resolved_defaults():
    assert SearchOptions().resolved().heuristic == Heuristic.OCTILE
    four = SearchOptions(connectivity=4).resolved()
    assert four.heuristic == Heuristic.MANHATTAN and four.diagonal == Diagonal.NEVER
    assert is_optimal(SearchOptions(connectivity=4)) and not is_optimal(
        SearchOptions(heuristic=Heuristic.MANHATTAN)
    )
