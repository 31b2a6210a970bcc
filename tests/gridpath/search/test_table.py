"""Cost tables (gridpath.search.table) against pairwise find_path, under every movement rule."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridpath.errors import GoalBlocked, OutOfBounds, StartBlocked
from gridpath.grid import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.search import Algorithm, CostModel, Diagonal, InvalidOption, SearchOptions, find_path
from gridpath.search.table import (
    COMPUTED,
    NOT_COMPUTED,
    UNREACHABLE,
    assemble,
    cost_table,
    plan_table,
    search_line,
)
from tests.conftest import make_grid
from tests.reference import assert_costs_match, reference_costs

CLASSES = (TerrainClass("ground", 1.0), TerrainClass("mud", 3.0), TerrainClass("road", 0.5))


def pairwise(grid, sources, targets, options, blocked=()):
    """The reference: one find_path per pair (Dijkstra, so no heuristic can differ)."""
    dijkstra = replace(options, algorithm=Algorithm.DIJKSTRA)
    out = []
    for s in sources:
        row = []
        for t in targets:
            try:
                row.append(find_path(grid, s, t, dijkstra, blocked=blocked).cost)
            except (StartBlocked, GoalBlocked):  # a blocked end: the table's null
                row.append(None)
        out.append(row)
    return out


@st.composite
def scenes(draw):
    width, height = draw(st.integers(1, 14)), draw(st.integers(1, 14))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.2, 0.35]))
    terrain = None
    grid = Grid.from_walkable("t", walkable)
    if draw(st.booleans()):
        terrain = rng.integers(0, len(CLASSES), size=(height, width)).astype(np.uint8)
        grid = Grid.from_walkable("t", walkable, terrain=terrain, terrain_classes=CLASSES)
    cell = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
    sources = draw(st.lists(cell, min_size=1, max_size=5))
    targets = draw(st.lists(cell, min_size=1, max_size=5))
    blocked = draw(st.lists(cell, max_size=3))
    options = SearchOptions(
        connectivity=draw(st.sampled_from([4, 8])),
        diagonal=draw(st.sampled_from(list(Diagonal))),
        cost_model=draw(st.sampled_from(list(CostModel))) if terrain is None else CostModel.FLOAT,
        clearance=draw(st.sampled_from([1, 1, 2])),
    )
    return grid, sources, targets, options, blocked


@settings(max_examples=250, deadline=None)
@given(scene=scenes())
def test_table_equals_pairwise_searches(scene):
    grid, sources, targets, options, blocked = scene
    table = cost_table(grid, sources, targets, options, blocked=blocked)
    assert_costs_match(table.costs, pairwise(grid, sources, targets, options, blocked))
    # Searched from the other side (the transposed request), the costs are the same.
    flipped = cost_table(grid, targets, sources, options, blocked=blocked)
    assert_costs_match(flipped.costs, [list(col) for col in zip(*table.costs, strict=True)])
    assert table.not_computed == []


def test_uniform_costs_are_bit_equal_to_find_path():
    rng = np.random.default_rng(3)
    walkable = rng.random((40, 60)) > 0.3
    grid = Grid.from_walkable("u", walkable)
    cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    pick = [cells[i] for i in rng.choice(len(cells), 9, replace=False)]
    for sources, targets in ((pick[:3], pick[3:]), (pick[3:], pick[:3])):
        table = cost_table(grid, sources, targets)
        assert table.reverse == (len(targets) < len(sources))
        for i, s in enumerate(sources):
            for j, t in enumerate(targets):
                assert table.costs[i][j] == find_path(grid, s, t).cost  # same bits


def test_fewer_targets_search_from_the_targets():
    grid = make_grid("....\n....\n....")
    four = SearchOptions(connectivity=4)  # floods: one search per origin
    table = cost_table(grid, [(0, 0), (1, 0), (2, 0)], [(3, 2)], four)
    assert table.reverse and table.searches == 1
    table = cost_table(grid, [(0, 0)], [(3, 2), (3, 0)], four)
    assert not table.reverse and table.searches == 1
    # Repeated cells are searched once (and once per distinct pair with JPS).
    assert cost_table(grid, [(0, 0)] * 3, [(3, 2)] * 5, four).searches == 1
    assert cost_table(grid, [(0, 0)] * 3, [(3, 2)] * 5).searches == 1


def test_unreachable_and_blocked_ends_are_null():
    grid = make_grid("..#..\n..#..\n..#.#")
    table = cost_table(grid, [(0, 0), (4, 2), (3, 0)], [(1, 1), (3, 1), (2, 0)])
    assert table.costs[0] == [pytest.approx(math.sqrt(2)), None, None]
    assert table.costs[1] == [None, None, None]  # (4, 2) is a wall
    assert table.costs[2] == [None, 1.0, None]
    assert table.blocked_sources == (1,) and table.blocked_targets == (2,)
    assert table.kinds[0, 1] == UNREACHABLE and table.kinds[0, 0] == COMPUTED
    # A per-request blocked cell blocks an end too; an end in another component costs no
    # search (the other side has nothing to settle there).
    table = cost_table(grid, [(0, 0)], [(1, 1), (3, 1)], blocked=[(1, 1)])
    assert table.costs == [[None, None]] and table.blocked_targets == (0,)
    assert table.expanded == 0


def test_same_cell_costs_zero():
    grid = make_grid("...\n...")
    assert cost_table(grid, [(1, 1)], [(1, 1), (0, 0)]).costs == [[0.0, math.sqrt(2)]]


def test_expansion_share_leaves_far_entries_not_computed():
    grid = make_grid("." * 30)
    four = SearchOptions(connectivity=4)  # floods (jump point search does not apply)
    table = cost_table(grid, [(0, 0), (29, 0)], [(1, 0), (28, 0)], four, max_expanded_total=10)
    # Each of the two searches may expand 5 cells: the near target is settled, the far not.
    assert table.costs == [[1.0, None], [None, 1.0]]
    assert table.not_computed == [[0, 1], [1, 0]]
    assert table.kinds[0, 1] == NOT_COMPUTED
    plan = plan_table(grid, [(0, 0)], [(1, 0)], max_expanded=3, max_expanded_total=100)
    assert plan.max_expanded == 3


def test_out_of_bounds_names_the_index_and_turn_penalty_is_refused():
    grid = make_grid("...\n...")
    with pytest.raises(OutOfBounds, match=r"targets\[1\] \[3, 0\]"):
        cost_table(grid, [(0, 0)], [(1, 1), (3, 0)])
    with pytest.raises(OutOfBounds, match=r"sources\[0\]"):
        cost_table(grid, [(0, -1)], [(1, 1)])
    with pytest.raises(InvalidOption, match="turn_penalty"):
        cost_table(grid, [(0, 0)], [(1, 1)], SearchOptions(turn_penalty=1.0))


def test_integer_cost_model_gives_integers():
    grid = make_grid("....\n....")
    table = cost_table(grid, [(0, 0)], [(3, 1)], SearchOptions(cost_model=CostModel.INTEGER))
    assert table.costs == [[34]] and isinstance(table.costs[0][0], int)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    diagonal=st.sampled_from(["never", "no_corner_cut", "one_free", "always"]),
    terrain=st.booleans(),
)
def test_table_equals_independent_reference(seed, diagonal, terrain):
    """Against scipy's Dijkstra on an explicit graph (tests/reference.py), not find_path."""
    rng = np.random.default_rng(seed)
    walkable = rng.random((9, 11)) > 0.3
    classes = rng.integers(0, len(CLASSES), size=walkable.shape).astype(np.uint8)
    grid = Grid.from_walkable("r", walkable)
    cell_cost = None
    if terrain:
        grid = Grid.from_walkable("r", walkable, terrain=classes, terrain_classes=CLASSES)
        cell_cost = np.array([c.cost for c in CLASSES])[classes]
    cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    if not cells:
        return
    pick = [cells[i] for i in rng.integers(0, len(cells), 6)]
    sources, targets = pick[:2], pick[2:]
    options = SearchOptions(diagonal=Diagonal(diagonal))
    table = cost_table(grid, sources, targets, options)
    for i, s in enumerate(sources):
        far = reference_costs(walkable, s, diagonal, cell_cost=cell_cost)
        want = [None if math.isinf(far[y, x]) else float(far[y, x]) for x, y in targets]
        assert_costs_match([table.costs[i]], [want])


def test_pairwise_jump_point_searches_where_they_apply():
    rng = np.random.default_rng(5)
    walkable = rng.random((30, 30)) > 0.25
    grid = Grid.from_walkable("p", walkable)
    cells = [(int(x), int(y)) for y, x in np.argwhere(walkable)]
    pick = [cells[i] for i in rng.choice(len(cells), 8, replace=False)]
    jps = plan_table(grid, pick[:3], pick[3:])
    assert jps.pairwise
    for options, blocked in ((SearchOptions(connectivity=4), ()), (SearchOptions(), [pick[7]])):
        assert not plan_table(grid, pick[:3], pick[3:], options, blocked=blocked).pairwise
    flood = replace(jps, pairwise=False)
    both = [assemble(p, [search_line(p, k) for k in range(3)]).costs for p in (jps, flood)]
    assert_costs_match(both[0], both[1])
    # The origin's share is spent pair by pair, in order: the later pairs are not computed.
    tight = plan_table(grid, pick[:1], pick[3:], max_expanded_total=1)
    line = search_line(tight, 0)
    assert list(line.kinds).count(NOT_COMPUTED) >= len(pick[3:]) - 1


def test_pairwise_searches_of_one_origin_are_not_capped_at_one_map_of_expansions():
    # One search per end: together they may expand more than the map has cells (here 7
    # expansions for 5 ends on a 6-cell row), which a single flood never needs.
    grid = make_grid("......")
    options = SearchOptions(cost_model=CostModel.INTEGER)
    table = cost_table(grid, [(3, 0)], [(5, 0), (0, 0), (3, 0), (4, 0), (2, 0)], options)
    assert table.not_computed == []
    assert table.costs == [[20, 30, 0, 10, 10]]
