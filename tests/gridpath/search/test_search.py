"""find_path and the A* kernel: hand-made grids, then properties against scipy's Dijkstra."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridpath.errors import GoalBlocked, OutOfBounds, StartBlocked
from gridpath.grid import Grid
from gridpath.search import (
    Algorithm,
    SearchOptions,
    SearchScratch,
    _astar,
    _cost,
    _frontier,
    _general,
    _jps,
    _sight,
    _validate,
    find_path,
)
from tests.conftest import make_grid
from tests.reference import SQRT2, path_cost, reference_costs, step_is_legal


def assert_legal(grid: Grid, path: np.ndarray) -> None:
    cells = [tuple(c) for c in path.tolist()]
    for a, b in zip(cells, cells[1:]):
        assert step_is_legal(np.asarray(grid.walkable), a, b), f"illegal step {a} -> {b}"


# --- hand-made grids -------------------------------------------------------------------


def test_straight_line():
    grid = make_grid(".....")
    result = find_path(grid, (0, 0), (4, 0))
    assert result.found and result.reason is None
    assert result.path.tolist() == [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]
    assert result.cost == 4.0


def test_diagonal_costs_sqrt2():
    grid = make_grid("""
        ...
        ...
        ...
    """)
    result = find_path(grid, (0, 0), (2, 2))
    assert result.path.tolist() == [[0, 0], [1, 1], [2, 2]]
    assert result.cost == pytest.approx(2 * SQRT2, abs=1e-12)


def test_corner_cutting_is_refused():
    # The only diagonal (0,1)->(1,0) squeezes between two walls: not allowed.
    grid = make_grid("""
        #.
        .#
    """)
    result = find_path(grid, (0, 1), (1, 0))
    assert not result.found and result.reason == "unreachable"
    assert result.path.shape == (0, 2) and result.cost is None


def test_corner_cutting_with_one_wall_goes_around():
    grid = make_grid("""
        ..
        #.
    """)
    result = find_path(grid, (0, 0), (1, 1))
    assert result.path.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert result.cost == 2.0


def test_unreachable_goal():
    grid = make_grid("""
        ..#..
        ..#..
        ..#..
    """)
    result = find_path(grid, (0, 0), (4, 2))
    assert not result.found and result.reason == "unreachable"
    assert result.expanded == 0  # answered from the component labels, without a search


def test_start_equals_goal():
    grid = make_grid("...")
    result = find_path(grid, (1, 0), (1, 0))
    assert result.found and result.cost == 0.0
    assert result.path.tolist() == [[1, 0]]


@pytest.mark.parametrize(
    "text,start,goal,cost",
    [
        ("......", (0, 0), (5, 0), 5.0),  # 1xN
        (".\n.\n.\n.", (0, 0), (0, 3), 3.0),  # Nx1
        (".", (0, 0), (0, 0), 0.0),  # 1x1
    ],
)
def test_thin_maps(text, start, goal, cost):
    result = find_path(make_grid(text), start, goal)
    assert result.found and result.cost == cost
    assert len(result.path) == int(cost) + 1


def test_diagonal_free_only_route():
    # A zig-zag corridor: every diagonal shortcut would cut a corner.
    grid = make_grid("""
        ..####
        #..###
        ##..##
        ###..#
        ####..
    """)
    result = find_path(grid, (0, 0), (5, 4))
    assert result.found
    assert result.cost == 9.0  # 9 straight steps, no diagonal is legal
    steps = np.diff(result.path, axis=0)
    assert (np.abs(steps).sum(axis=1) == 1).all()
    assert_legal(grid, result.path)


def test_detour_around_wall():
    grid = make_grid("""
        .....
        .###.
        .....
    """)
    result = find_path(grid, (0, 1), (4, 1))
    assert result.cost == 6.0  # the diagonals off (0, 1) would cut the wall's corner
    assert_legal(grid, result.path)


@pytest.mark.parametrize(
    "start,goal,error",
    [
        ((-1, 0), (1, 1), OutOfBounds),
        ((0, 0), (3, 0), OutOfBounds),
        ((0, 5), (0, 0), OutOfBounds),
        ((1, 0), (0, 0), StartBlocked),
        ((0, 0), (1, 0), GoalBlocked),
    ],
)
def test_bad_endpoints_raise(start, goal, error):
    grid = make_grid("""
        .#.
        ...
    """)
    with pytest.raises(error):
        find_path(grid, start, goal)


def test_limit_reached():
    grid = make_grid("." * 50)
    astar = Algorithm.ASTAR  # JPS would jump there in two expansions
    result = find_path(grid, (0, 0), (49, 0), SearchOptions(algorithm=astar, max_expanded=10))
    assert not result.found and result.reason == "limit_reached"
    assert result.expanded == 10
    assert find_path(grid, (0, 0), (49, 0), SearchOptions(algorithm=astar, max_expanded=50)).found


def test_tie_break_is_documented_rule():
    # Open 3x3, (0,0)->(2,1): cost 1 + sqrt2 either way; the frontier prefers larger g,
    # then the smaller (y, x) index, which picks the diagonal first here.
    grid = make_grid("...\n...\n...")
    assert find_path(grid, (0, 0), (2, 1)).path.tolist() == [[0, 0], [1, 1], [2, 1]]


def test_scratch_reuse_never_leaks_state():
    grid = make_grid("""
        .....
        .###.
        .#...
        .#.##
        .....
    """)
    scratch = SearchScratch()
    queries = [((0, 0), (4, 4)), ((2, 2), (0, 4)), ((4, 0), (2, 3)), ((0, 0), (4, 4))]
    fresh = [find_path(grid, s, g, scratch=SearchScratch()) for s, g in queries]
    reused = [find_path(grid, s, g, scratch=scratch) for s, g in queries]
    for a, b in zip(fresh, reused):
        assert a.path.tolist() == b.path.tolist() and a.cost == b.cost and a.expanded == b.expanded


def test_generation_wraparound_resets_state(monkeypatch):
    from gridpath.search import scratch as scratch_module

    monkeypatch.setattr(scratch_module, "_MAX_GENERATION", 3)
    grid = make_grid("...\n.#.\n...")
    scratch = SearchScratch()
    expected = find_path(grid, (0, 0), (2, 2), scratch=SearchScratch()).path.tolist()
    for _ in range(8):
        assert find_path(grid, (0, 0), (2, 2), scratch=scratch).path.tolist() == expected
    assert scratch.generation <= 3


def test_kernels_release_the_gil_and_cache():
    for kernel in (
        _astar.astar_octile,
        _frontier.reconstruct_path,
        _sight.line_of_sight,
        _general.search_grid,
        _general.path_cost,
        _jps.jps,
        _jps.expand_jumps,
        _sight.turning_points,
        _validate.validate_cells,
        _validate.validate_waypoints,
        _cost.mean_terrain,
        _cost.segment_cost,
        _cost.polyline_cost,
        _cost.string_pull,
    ):
        assert kernel.targetoptions.get("nogil") is True
        assert kernel._cache is not None and type(kernel._cache).__name__ != "NullCache"


def test_grid_is_read_only_and_unchanged():
    grid = make_grid("....\n.##.\n....")
    before = grid.passable.copy()
    find_path(grid, (0, 0), (3, 2))
    assert not grid.passable.flags.writeable
    assert (grid.passable == before).all()


def test_concurrent_searches_agree():
    rng = np.random.default_rng(7)
    walkable = rng.random((60, 60)) > 0.3
    walkable[0, 0] = walkable[59, 59] = True
    grid = Grid.from_walkable("concurrent", walkable)
    cells = np.argwhere(walkable)[:, ::-1]
    queries = [
        (tuple(cells[i]), tuple(cells[j])) for i, j in rng.integers(0, len(cells), size=(40, 2))
    ]
    expected = [find_path(grid, s, g, scratch=SearchScratch()) for s, g in queries]
    results: dict[int, list] = {}

    def worker(k: int) -> None:
        scratch = SearchScratch()
        results[k] = [find_path(grid, s, g, scratch=scratch) for s, g in queries]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        for a, b in zip(expected, results[k]):
            assert a.path.tolist() == b.path.tolist() and a.cost == b.cost


# --- properties against an independent reference ------------------------------------


@st.composite
def grid_and_query(draw):
    width = draw(st.integers(1, 14))
    height = draw(st.integers(1, 14))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= density
    cells = np.argwhere(walkable)
    if len(cells) == 0:
        walkable[0, 0] = True
        cells = np.argwhere(walkable)
    i = draw(st.integers(0, len(cells) - 1))
    j = draw(st.integers(0, len(cells) - 1))
    start = (int(cells[i][1]), int(cells[i][0]))
    goal = (int(cells[j][1]), int(cells[j][0]))
    return walkable, start, goal


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid_and_query())
def test_matches_scipy_dijkstra(case):
    walkable, start, goal = case
    grid = Grid.from_walkable("prop", walkable)
    result = find_path(grid, start, goal)
    expected = reference_costs(walkable, start)[goal[1], goal[0]]
    if math.isinf(expected):
        assert not result.found and result.reason == "unreachable"
        return
    assert result.found
    assert abs(result.cost - expected) <= 1e-9
    cells = [tuple(c) for c in result.path.tolist()]
    assert cells[0] == start and cells[-1] == goal
    for a, b in zip(cells, cells[1:]):
        assert step_is_legal(walkable, a, b)
    assert abs(path_cost(cells) - result.cost) <= 1e-9
    again = find_path(grid, start, goal, scratch=SearchScratch())
    assert again.path.tolist() == result.path.tolist() and again.expanded == result.expanded


@settings(max_examples=100, deadline=None)
@given(grid_and_query())
def test_reverse_query_has_equal_cost(case):
    walkable, start, goal = case
    grid = Grid.from_walkable("prop", walkable)
    forward, backward = find_path(grid, start, goal), find_path(grid, goal, start)
    assert forward.found == backward.found
    if forward.found:
        assert abs(forward.cost - backward.cost) <= 1e-9


# --- jump point search ----------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid_and_query())
def test_jps_matches_scipy_and_is_legal(case):
    from gridpath.search import Algorithm

    walkable, start, goal = case
    grid = Grid.from_walkable("jps", walkable)
    result = find_path(grid, start, goal, SearchOptions(algorithm=Algorithm.JPS))
    expected = reference_costs(walkable, start)[goal[1], goal[0]]
    assert result.found == (not math.isinf(expected))
    if not result.found:
        return
    assert abs(result.cost - expected) <= 1e-9 and result.options.algorithm == Algorithm.JPS
    cells = [tuple(c) for c in result.path.tolist()]
    assert cells[0] == start and cells[-1] == goal
    assert all(step_is_legal(walkable, a, b) for a, b in zip(cells, cells[1:]))
    assert abs(path_cost(cells) - result.cost) <= 1e-9


def test_auto_picks_jps_when_it_applies_and_says_why_not():
    from gridpath.errors import AlgorithmUnsupported
    from gridpath.search import Algorithm, Diagonal

    grid = make_grid("....\n.##.\n....")
    assert find_path(grid, (0, 0), (3, 2)).options.algorithm == Algorithm.JPS
    fallback = find_path(grid, (0, 0), (3, 2), SearchOptions(diagonal=Diagonal.ALWAYS))
    assert fallback.options.algorithm == Algorithm.ASTAR
    assert find_path(grid, (0, 0), (3, 2), blocked=[(3, 0)]).options.algorithm == Algorithm.ASTAR
    with pytest.raises(AlgorithmUnsupported, match="corner"):
        find_path(grid, (0, 0), (3, 2), SearchOptions(algorithm=Algorithm.JPS, connectivity=4))
    with pytest.raises(AlgorithmUnsupported, match="blocked"):
        find_path(grid, (0, 0), (3, 2), SearchOptions(algorithm=Algorithm.JPS), blocked=[(3, 0)])


def test_prefetch_is_only_a_hint() -> None:
    """The prefetch intrinsic compiles for 1-D and 2-D arrays, reads nothing back and never
    faults, even for indices far outside the array."""
    from numba import njit

    from gridpath.search._prefetch import prefetch

    @njit
    def hint_then_sum(flat, rows):
        for i in (-(10**9), -1, 0, 3, 10**9):
            prefetch(flat, i)
            prefetch(rows, i)
        return flat.sum() + rows.sum()

    flat = np.arange(10, dtype=np.uint8)
    rows = np.ones((4, 5), dtype=np.int32)
    assert hint_then_sum(flat, rows) == 45 + 20
    assert flat.tolist() == list(range(10)) and rows.tolist() == [[1] * 5] * 4


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([(-1, -1), (-1, 0), (0, 1), (1, 1), (1, 0), (0, 0)]), max_size=20))
def test_turns_count_every_change_of_direction(steps):
    """``turns`` against its definition: the inner cells where the step differs from the
    step before."""
    from gridpath.search.find import count_turns

    cells = [(0, 0)]
    for dx, dy in steps:
        cells.append((cells[-1][0] + dx, cells[-1][1] + dy))
    expected = sum(steps[i] != steps[i - 1] for i in range(1, len(steps)))
    assert count_turns(np.array(cells, dtype=np.int32).reshape(-1, 2)) == expected
