"""One road through ``find_path``: check, the plan kept per revision, options and query
shape, the runner, one finishing function. The exact-pair runners' compiled finish (path,
turns and waypoints in one call, :class:`~gridpath.search.runner.PairRun`) gives what the
finishing function pulls from a path itself; plans are chosen once and again only when a
late table appears; errors keep their order."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gridpath.errors import AlgorithmUnsupported, GoalBlocked, StartBlocked
from gridpath.grid import Grid
from gridpath.search import SearchOptions, subgoal_graph
from gridpath.search import plan as plan_module
from gridpath.search.find import checked_query, count_turns, find_path, finish
from gridpath.search.options import Algorithm, CostModel, InvalidOption
from gridpath.search.plan import plan_for
from gridpath.search.runner import PairRun
from gridpath.search.runners import jps
from gridpath.search.scratch import SearchScratch
from tests.conftest import MAPS_DIR

OPTIONS = [
    SearchOptions(),  # auto: block JPS on long runs, byte-scan JPS on short ones
    SearchOptions(smooth=True),
    SearchOptions(algorithm=Algorithm.ASTAR, smooth=True),  # the fast A* runner
    SearchOptions(algorithm=Algorithm.JPS, cost_model=CostModel.INTEGER),
    SearchOptions(clearance=2, smooth=True),  # byte-scan JPS for a larger unit
    SearchOptions(max_expanded=3),  # limit_reached
]


def _grids() -> list[Grid]:
    rng = np.random.default_rng(15)
    open_rooms = np.ones((40, 90), dtype=bool)  # long runs: block JPS
    open_rooms[10:30, 45] = False
    open_rooms[20, 10:80] = False
    open_rooms[20, 44:47] = True
    scattered = rng.random((30, 30)) > 0.3  # short runs, several components
    walled = np.ones((12, 12), dtype=bool)
    walled[:, 6] = False  # two components: unreachable without a search
    grids = [
        Grid.from_walkable("rooms", open_rooms),
        Grid.from_walkable("scattered", scattered),
        Grid.from_walkable("walled", walled),
    ]
    with_table = Grid.from_walkable("table", open_rooms)
    assert jps.jump_distances(with_table) is not None  # the JPS+ jump distances where one is built
    return [*grids, with_table]


def _open_cells(grid: Grid, rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    ys, xs = np.nonzero(grid.walkable)
    picks = rng.integers(0, len(xs), size=n)
    return [(int(xs[i]), int(ys[i])) for i in picks]


def _apart(grid: Grid, plan, start, goal) -> bool:
    return plan.components.of(grid.index(*start)) != plan.components.of(grid.index(*goal))


def _same(a, b) -> None:
    for f in dataclasses.fields(a):
        if f.name in ("search_us", "known_turns"):
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), f.name
            assert x.flags.c_contiguous and y.flags.c_contiguous
        else:
            assert x == y and type(x) is type(y), (f.name, x, y)
    assert a.turns == b.turns


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_the_pair_runs_finish_gives_what_the_finishing_function_pulls(options) -> None:
    """An exact-pair run's waypoints and turns, made with its path in one compiled call,
    are what ``finish`` pulls and counts from the path alone."""
    rng = np.random.default_rng(7)
    scratch = SearchScratch()
    served = 0
    for grid in _grids():
        cells = _open_cells(grid, rng, 60)
        for start, goal in zip(cells[::2], cells[1::2], strict=True):
            try:
                query = checked_query(grid, start, goal, None, options, (), 0)
            except (StartBlocked, GoalBlocked):
                continue  # no room for a larger unit
            plan = plan_for(grid, options, 0)
            if not isinstance(plan.run, PairRun) or _apart(grid, plan, start, goal):
                continue  # find_path answers those without a search
            query.options = plan.options
            outcome = plan.run(query, scratch)
            served += 1
            if outcome.turns is not None:
                assert outcome.turns == count_turns(outcome.path)
            bare = dataclasses.replace(outcome, waypoints=None, turns=None)
            for waypoints in (False, True):
                pulled = finish(plan, query, bare, waypoints, scratch)
                _same(finish(plan, query, outcome, waypoints, scratch), pulled)
                _same(find_path(grid, start, goal, options, waypoints=waypoints), pulled)
    assert served > 50


def test_a_plan_is_chosen_once_per_revision_options_and_shape(monkeypatch) -> None:
    calls = []
    choose = plan_module.choose_runner
    monkeypatch.setattr(plan_module, "choose_runner", lambda q: calls.append(q) or choose(q))
    grid = Grid.from_walkable("once", np.ones((10, 10), dtype=bool))
    options = SearchOptions(algorithm=Algorithm.ASTAR)
    for _ in range(3):
        find_path(grid, (0, 0), (9, 9), options)
        find_path(grid, (0, 0), (9, 9), SearchOptions(algorithm=Algorithm.ASTAR))  # equal
    assert len(calls) == 1
    fast = find_path(grid, (0, 0), (9, 9), options)
    several = find_path(grid, (0, 0), None, options, goals=[(9, 9), (9, 8)])
    blocked = find_path(grid, (0, 0), (9, 9), options, blocked=[(0, 9)])
    assert len(calls) == 3  # two more shapes, each its own plan (its own runner)
    assert fast.cost == blocked.cost and several.goal_index == 1 and several.cost < fast.cost


def test_a_plan_is_made_again_when_a_late_table_appears() -> None:
    grid = Grid.from_walkable("late", np.ones((130, 130), dtype=bool))
    before = find_path(grid, (0, 0), (129, 100))
    assert before.options.algorithm == Algorithm.JPS  # no subgoal tier yet
    assert subgoal_graph(grid) is not None
    after = find_path(grid, (0, 0), (129, 100))
    assert after.options.algorithm == Algorithm.SUBGOAL and after.cost == before.cost


def test_errors_keep_their_order_and_are_not_kept() -> None:
    grid = Grid.from_walkable("walled", np.eye(5, dtype=bool) | np.eye(5, k=1, dtype=bool))
    with pytest.raises(Exception, match="blocked cell"):
        find_path(grid, (0, 0), (4, 0))
    with pytest.raises(Exception, match="outside map"):
        find_path(grid, (0, 0), (9, 9))
    unknown = SearchOptions(terrain_costs=(("lava", 5.0),))
    with pytest.raises(StartBlocked):  # the endpoints first, then the options
        find_path(grid, (0, 4), (4, 4), unknown)
    for _ in range(2):
        with pytest.raises(InvalidOption):
            find_path(grid, (0, 0), (4, 4), unknown)
    theta_explored = SearchOptions(algorithm=Algorithm.THETA)
    with pytest.raises(AlgorithmUnsupported):
        find_path(grid, (0, 0), (4, 4), theta_explored, explored_limit=3)
    assert find_path(grid, (0, 0), (4, 4), theta_explored).found


def test_the_demo_arena_takes_a_pair_run() -> None:
    from gridpath.grid.loader import load_map

    arena = load_map(MAPS_DIR / "arena.png", max_cells=1 << 20, max_bytes=1 << 24)
    assert isinstance(plan_for(arena, SearchOptions(smooth=True), 0).run, PairRun)
    result = find_path(arena, (2, 2), (24, 9), SearchOptions(smooth=True), waypoints=True)
    assert result.found and result.options.algorithm == Algorithm.JPS
    assert result.known_turns is not None and result.waypoints_cost <= result.cost
