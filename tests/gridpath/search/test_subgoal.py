"""The subgoal tier (subgoal graph + contraction hierarchy): optimal and legal against
scipy's Dijkstra on random maps, deterministic, built per revision, refused where it
does not apply (the plan falls through). All 39,260 Moving AI scenarios are checked by
``python -m bench.tiers --check`` (see bench/README.md)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.grid.edits import Edit, GridEdit
from gridpath.search import Algorithm, SearchOptions, find_path, subgoal_graph, tiers
from gridpath.search._subgoal.parts import Failure
from gridpath.search.runners import subgoal
from tests.reference import path_cost, reference_costs, step_is_legal

SUBGOAL = SearchOptions(algorithm=Algorithm.SUBGOAL)


def random_walkable(seed: int, width: int, height: int, density: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= density
    if rng.random() < 0.5:  # rooms and corridors as well as scattered obstacles
        walkable[rng.integers(0, height), :] = True
        walkable[:, rng.integers(0, width)] = True
    return walkable


def check_path(walkable, start, goal, result, want) -> None:
    if np.isinf(want):
        assert not result.found
        return
    assert result.found and result.options.algorithm == Algorithm.SUBGOAL
    cells = [tuple(c) for c in result.path.tolist()]
    assert cells[0] == start and cells[-1] == goal
    for a, b in zip(cells, cells[1:]):
        assert step_is_legal(walkable, a, b), f"illegal step {a} -> {b}"
    assert result.cost == pytest.approx(path_cost(cells), abs=1e-9)
    assert result.cost == pytest.approx(want, abs=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    width=st.integers(1, 24),
    height=st.integers(1, 24),
    density=st.sampled_from([0.0, 0.1, 0.2, 0.3, 0.4]),
)
def test_optimal_and_legal_against_dijkstra(seed, width, height, density):
    walkable = random_walkable(seed, width, height, density)
    open_cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    if not open_cells:
        return
    grid = Grid.from_walkable("random", walkable)
    assert subgoal_graph(grid) is not None
    rng = np.random.default_rng(seed ^ 0x5EED)
    for _ in range(3):
        start = open_cells[rng.integers(len(open_cells))]
        want = reference_costs(walkable, start)
        goals = [open_cells[i] for i in rng.choice(len(open_cells), min(12, len(open_cells)))]
        for goal in goals:
            result = find_path(grid, start, goal, SUBGOAL)
            check_path(walkable, start, goal, result, want[goal[1], goal[0]])


def test_a_room_with_pillars_every_pair():
    walkable = np.ones((9, 11), dtype=bool)
    walkable[2:4, 2:4] = walkable[5:7, 6:9] = walkable[1:8, 5] = False
    walkable[4, 5] = True
    grid = Grid.from_walkable("pillars", walkable)
    graph = subgoal_graph(grid)
    assert graph.cells.size > 0 and graph.up_edges.shape[0] >= graph.edges > 0
    cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    for start in cells[::3]:
        want = reference_costs(walkable, start)
        for goal in cells:
            result = find_path(grid, start, goal, SUBGOAL)
            check_path(walkable, start, goal, result, want[goal[1], goal[0]])


def test_deterministic_across_builds():
    walkable = random_walkable(7, 40, 30, 0.25)
    first, second = Grid.from_walkable("a", walkable), Grid.from_walkable("b", walkable)
    graphs = subgoal_graph(first), subgoal_graph(second)
    for name in ("bits", "sorted_ids", "cells", "first", "up_edges"):
        assert getattr(graphs[0], name).tobytes() == getattr(graphs[1], name).tobytes()
    cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)][::37]
    for start in cells:
        for goal in cells:
            a = find_path(first, start, goal, SUBGOAL)
            b = find_path(second, start, goal, SUBGOAL)
            c = find_path(first, start, goal, SUBGOAL)
            assert a.path.tobytes() == b.path.tobytes() == c.path.tobytes()


def test_falls_through_where_it_does_not_apply():
    walkable = np.ones((6, 6), dtype=bool)
    walkable[2, 1:5] = False
    grid = Grid.from_walkable("wall", walkable)
    # no hierarchy built for this revision yet: the plan goes on to JPS
    assert find_path(grid, (0, 0), (5, 5), SUBGOAL).options.algorithm == Algorithm.JPS
    assert subgoal_graph(grid) is not None and "subgoal" in tiers(grid)
    assert find_path(grid, (0, 0), (5, 5), SUBGOAL).options.algorithm == Algorithm.SUBGOAL
    served_elsewhere = [
        SearchOptions(algorithm=Algorithm.SUBGOAL, clearance=2),
        SearchOptions(algorithm=Algorithm.SUBGOAL, diagonal="always"),
        SearchOptions(algorithm=Algorithm.SUBGOAL, cost_model="integer"),
        SearchOptions(algorithm=Algorithm.SUBGOAL, turn_penalty=1),
    ]
    open_grid = Grid.from_walkable("open", np.ones((6, 6), dtype=bool))
    subgoal_graph(open_grid)
    for options in served_elsewhere:
        result = find_path(open_grid, (0, 0), (4, 4), options)
        assert result.found and result.options.algorithm != Algorithm.SUBGOAL
    blocked = find_path(grid, (0, 0), (5, 5), SUBGOAL, blocked=[(5, 1)])
    assert blocked.found and blocked.options.algorithm == Algorithm.ASTAR  # as auto
    # auto keeps JPS on small maps (block JPS is as fast there)
    assert find_path(grid, (0, 0), (5, 5)).options.algorithm == Algorithm.JPS


def test_no_hierarchy_over_the_limit_or_on_costly_terrain():
    walkable = np.ones((8, 8), dtype=bool)
    assert subgoal_graph(Grid.from_walkable("big", walkable), max_cells=63) is None
    assert subgoal_graph(Grid.from_walkable("off", walkable), max_cells=0) is None
    from gridpath.grid.terrain import TerrainClass

    costly = Grid.from_walkable(
        "mud",
        walkable,
        terrain=np.ones((8, 8), dtype=np.uint8),
        terrain_classes=(TerrainClass("ground", 1.0), TerrainClass("mud", 3.0)),
    )
    assert subgoal_graph(costly) is None and tiers(costly) == {}


def test_an_edited_revision_gets_its_own_hierarchy():
    walkable = np.ones((10, 10), dtype=bool)
    grid = Grid.from_walkable("door", walkable)
    subgoal_graph(grid)
    edited = grid.edit(GridEdit([Edit(value="blocked", rect=(5, 0, 5, 8))]), 2)
    assert edited.built(subgoal.KEY) is not None  # built with the revision, not on a query
    result = find_path(edited, (0, 0), (9, 0), SUBGOAL)
    want = reference_costs(edited.walkable.astype(bool), (0, 0))
    check_path(edited.walkable.astype(bool), (0, 0), (9, 0), result, want[0, 9])
    assert result.path.shape[0] > 10  # round the new wall


def same_bytes(a, b) -> bool:
    return all(x.tobytes() == y.tobytes() for x, y in zip(a.arrays, b.arrays))


def random_edit(rng, width: int, height: int) -> GridEdit:
    """A few cells or a rectangle blocked or freed."""
    value = "blocked" if rng.random() < 0.6 else "walkable"
    if rng.random() < 0.5:
        cells = [(int(rng.integers(width)), int(rng.integers(height))) for _ in range(3)]
        return GridEdit([Edit(value=value, cells=cells)])
    x, y = int(rng.integers(width)), int(rng.integers(height))
    w, h = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    return GridEdit([Edit(value=value, rect=(x, y, min(x + w, width - 1), min(y + h, height - 1)))])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    width=st.integers(60, 140),
    height=st.integers(60, 140),
    density=st.sampled_from([0.1, 0.2, 0.3]),
)
def test_edits_repair_the_hierarchy_as_a_fresh_build_would(seed, width, height, density):
    """Random edits on random maps (several parts, two or three levels): each revision's
    hierarchy, repaired from the one before through ``Grid.edit``, is byte for byte the
    one built from scratch on the edited map, and its answers are Dijkstra's."""
    rng = np.random.default_rng(seed)
    grid = Grid.from_walkable("random", random_walkable(seed, width, height, density))
    subgoal_graph(grid)
    for revision in range(2, 5):
        grid = grid.edit(random_edit(rng, width, height), revision)
        repaired = grid.built(subgoal.KEY)
        fresh = subgoal.build_subgoal_graph(grid)
        assert (repaired is None) == (fresh is None)
        if repaired is None:
            continue
        assert same_bytes(repaired, fresh)
        assert repaired.hierarchy.contracted_parts <= fresh.hierarchy.contracted_parts
    walkable = grid.walkable.astype(bool)
    open_cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    if grid.built(subgoal.KEY) is None or not open_cells:
        return
    for _ in range(2):
        start = open_cells[rng.integers(len(open_cells))]
        want = reference_costs(walkable, start)
        for i in rng.choice(len(open_cells), 10):
            goal = open_cells[i]
            check_path(
                walkable, start, goal, find_path(grid, start, goal, SUBGOAL), want[goal[1], goal[0]]
            )


def test_small_parts_many_levels_optimal_and_repaired_alike():
    """Leaf parts of 4 x 4 cells (six levels on a 100 x 80 map): the hierarchy answers as
    Dijkstra does, and an edit's repair re-contracts a few parts into the fresh build."""
    small = replace(subgoal.LIMITS, leaf_bits=2)
    walkable = random_walkable(11, 100, 80, 0.25)
    grid = Grid.from_walkable("small", walkable)
    graph = subgoal.build_subgoal_graph(grid, limits=small)
    assert max(level for level, _ in graph.hierarchy.parts) >= 6
    edited = grid.edit(GridEdit([Edit(value="blocked", rect=(40, 30, 42, 32))]), 2)
    repaired = subgoal.build_subgoal_graph(edited, graph, small)
    fresh = subgoal.build_subgoal_graph(edited, limits=small)
    assert same_bytes(repaired, fresh)
    assert repaired.hierarchy.contracted_parts < len(fresh.hierarchy.parts) // 4
    edited.derived((subgoal.KEY, 1), lambda _: repaired)  # this revision's tier: the repair
    walkable = edited.walkable.astype(bool)
    cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    for start in cells[::401]:
        want = reference_costs(walkable, start)
        for goal in cells[::97]:
            result = find_path(edited, start, goal, SUBGOAL)
            check_path(walkable, start, goal, result, want[goal[1], goal[0]])


def test_a_build_over_the_budget_is_not_tried_again_by_the_next_revision():
    """A contraction that runs over the budget gives no tier; the next revision's build
    reuses the parts before and gives up at the same part without contracting it again
    (an edit of a map too costly to contract does not pay for the attempt twice)."""
    tight = replace(subgoal.LIMITS, budget=2_000, leaf_bits=3)
    grid = Grid.from_walkable("tight", random_walkable(5, 60, 60, 0.2))
    failed = subgoal.build_subgoal_graph(grid, limits=tight)
    assert isinstance(failed, Failure) and failed.contracted > 0
    again = subgoal.build_subgoal_graph(grid, failed, tight)
    assert isinstance(again, Failure) and again.contracted == 0
    assert again.digest == failed.digest and set(again.parts) == set(failed.parts)
    roomy = replace(tight, budget=subgoal.BUILD_BUDGET)  # more budget: it tries again
    assert isinstance(subgoal.build_subgoal_graph(grid, failed, roomy), subgoal.SubgoalGraph)


def test_the_expansion_limit_stops_it():
    walkable = random_walkable(3, 30, 30, 0.3)
    walkable[0, :] = walkable[:, 0] = walkable[-1, :] = walkable[:, -1] = True
    grid = Grid.from_walkable("limit", walkable)
    subgoal_graph(grid)
    far = find_path(grid, (0, 0), (29, 29), SUBGOAL)
    assert far.found and far.expanded > 1
    stopped = find_path(grid, (0, 0), (29, 29), SearchOptions(Algorithm.SUBGOAL, max_expanded=1))
    assert not stopped.found and stopped.reason == "limit_reached"


def _walled(side: int) -> Grid:
    """A side x side map with wall segments (convex corners: subgoals)."""
    walkable = np.ones((side, side), dtype=bool)
    for k in range(8, side - 8, 12):
        walkable[k, 4 : side - 20] = False
        walkable[12 : side - 4, k + 6] = False
        walkable[k, k + 2] = True  # doors
    return Grid.from_walkable(f"walled{side}", walkable)


def test_auto_answers_from_the_tier_on_maps_large_enough():
    from gridpath.search.runners.subgoal import AUTO_MIN_CELLS

    large, small = _walled(132), _walled(60)
    assert large.cell_count >= AUTO_MIN_CELLS > small.cell_count
    start, goal = (0, 0), (131, 131)
    before = find_path(large, start, goal)  # no tier yet: JPS (the plan is remembered)
    assert before.options.algorithm == Algorithm.JPS
    assert subgoal_graph(large) is not None and subgoal_graph(small) is not None
    after = find_path(large, start, goal)  # the tier now: auto takes it, no stale plan
    assert after.options.algorithm == Algorithm.SUBGOAL
    assert abs(after.cost - before.cost) < 1e-9 and after.path.tobytes() == (
        find_path(large, start, goal, SUBGOAL).path.tobytes()
    )
    assert find_path(small, (0, 0), (59, 59)).options.algorithm == Algorithm.JPS


def test_a_plan_chooses_again_only_once_what_it_watches_is_built():
    """A plan that fell through for want of the hierarchy reads the revision's count of
    derived values per query; something else built keeps the plan (checked once), the
    hierarchy built makes it choose again."""
    from gridpath.search.plan import plan_for

    walkable = np.ones((6, 6), dtype=bool)
    walkable[2, 1:5] = False
    grid = Grid.from_walkable("wall", walkable)
    plan_for(grid, SUBGOAL, 0)  # its making may build some (read before: checked once)
    first = plan_for(grid, SUBGOAL, 0)
    assert first.watch and first.options.algorithm == Algorithm.JPS
    assert plan_for(grid, SUBGOAL, 0) is first  # nothing built since
    grid.derived("unrelated", lambda g: np.zeros(1))
    again = plan_for(grid, SUBGOAL, 0)
    assert again is not first and again.run is first.run
    assert again.seen == grid.derived_count() and plan_for(grid, SUBGOAL, 0) is again
    assert subgoal_graph(grid) is not None
    assert plan_for(grid, SUBGOAL, 0).options.algorithm == Algorithm.SUBGOAL
