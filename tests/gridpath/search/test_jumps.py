"""JPS+ jump distances (gridpath.search._jumps, one per map revision): entries against a
plain-Python definition, and JPS with the table (which prunes intermediate jump points)
against JPS that scans: the same optimal cost, legal paths, fewer expansions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.grid.edits import Edit, GridEdit
from gridpath.grid.terrain import TerrainClass
from gridpath.search import Algorithm, SearchOptions, SearchScratch, _jps, find_path, jump_distances
from gridpath.search import _jumps as jumps
from gridpath.search._frontier import COST_DIAG, COST_ORTH
from gridpath.search._records import grid_record, rules_record
from tests.conftest import make_grid
from tests.reference import SQRT2, path_cost, step_is_legal

STRAIGHT = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}  # N E S W
DIAGONAL = {4: (1, -1), 5: (1, 1), 6: (-1, 1), 7: (-1, -1)}  # NE SE SW NW


def reference_entry(walkable: np.ndarray, x: int, y: int, column: int) -> int:
    """A table entry by definition: walk the line cell by cell."""
    h, w = walkable.shape

    def is_open(cx, cy):
        return 0 <= cx < w and 0 <= cy < h and bool(walkable[cy, cx])

    def straight(cx, cy, dx, dy):
        k = 0
        while True:
            k += 1
            nx, ny = cx + k * dx, cy + k * dy
            if not is_open(nx, ny):
                return -k
            for sx, sy in ((dy, dx), (-dy, -dx)):  # the two side cells
                if is_open(nx + sx, ny + sy) and not is_open(nx + sx - dx, ny + sy - dy):
                    return k

    if column in STRAIGHT:
        return straight(x, y, *STRAIGHT[column])
    dx, dy = DIAGONAL[column]
    k, cx, cy = 0, x, y
    while True:
        k += 1
        if not (is_open(cx + dx, cy) and is_open(cx, cy + dy) and is_open(cx + dx, cy + dy)):
            return -k
        cx, cy = cx + dx, cy + dy
        if straight(cx, cy, dx, 0) > 0 or straight(cx, cy, 0, dy) > 0:
            return k


@st.composite
def walkable_grids(draw, max_side=12):
    width = draw(st.integers(1, max_side))
    height = draw(st.integers(1, max_side))
    density = draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= density
    walkable[0, 0] = True
    return walkable


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walkable_grids())
def test_every_entry_matches_the_definition(walkable):
    grid = Grid.from_walkable("t", walkable)
    table = jumps.build_jump_distances(grid.flat, grid.stride, 1)
    assert table.shape == (grid.flat.size, 8) and table.dtype == np.int16
    for y, x in np.argwhere(walkable):
        got = table[grid.index(int(x), int(y))].tolist()
        want = [reference_entry(walkable, int(x), int(y), c) for c in range(8)]
        assert got == want, f"cell ({x}, {y})"


def test_hand_made_entries():
    grid = make_grid("""
        .....
        ..#..
        .....
    """)
    table = jumps.build_jump_distances(grid.flat, grid.stride, 1)
    east = table[:, jumps.JUMP_EAST]
    # East from (0, 0): at (3, 0) the side cell (3, 1) is open and the cell behind it,
    # (2, 1), is the wall: (3, 1) is a forced neighbour, (3, 0) a jump point 3 steps away.
    assert east[grid.index(0, 0)] == 3
    assert east[grid.index(3, 0)] == -2  # (4, 0), then the border
    assert east[grid.index(0, 1)] == -2  # (1, 1), then the wall (2, 1)
    south_east = table[:, jumps.JUMP_SE]
    # (1, 1) is a diagonal jump point: going south from it, (2, 2) is open behind the wall.
    assert south_east[grid.index(0, 0)] == 1
    assert south_east[grid.index(3, 0)] == -2  # (4, 1), then off the map
    assert south_east[grid.index(1, 0)] == -1  # (2, 1) is the wall


@st.composite
def queries(draw):
    walkable = draw(walkable_grids(max_side=16))
    cells = np.argwhere(walkable)
    i = draw(st.integers(0, len(cells) - 1))
    j = draw(st.integers(0, len(cells) - 1))
    limit = draw(st.sampled_from([10**9, 1, 3, 10]))
    start = (int(cells[i][1]), int(cells[i][0]))
    goal = (int(cells[j][1]), int(cells[j][0]))
    return walkable, start, goal, limit


def run_jps(grid: Grid, table, start, goal, limit):
    """(status, expanded, cost pair, cell path) of the JPS kernel."""
    scratch = SearchScratch(grid.flat.size)
    generation = scratch.begin(grid.flat.size)
    s, g = grid.index(*start), grid.index(*goal)
    records = (grid_record(grid), rules_record(max_expanded=limit), scratch.record(generation))
    status, expanded = _jps.jps(*records, table, s, g)
    if status != 0:
        return int(status), int(expanded), None, None
    pair = (int(scratch.nodes[g, COST_ORTH]), int(scratch.nodes[g, COST_DIAG]))
    return int(status), int(expanded), pair, _jps.expand_jumps(scratch.nodes, g, grid.stride)


def assert_path(walkable: np.ndarray, path: np.ndarray, start, goal, pair) -> None:
    """Endpoints, legal steps (no corner cutting), and the cost of ``pair`` = (straight,
    diagonal) steps."""
    cells = [tuple(c) for c in path.tolist()]
    assert cells[0] == start and cells[-1] == goal
    for a, b in zip(cells, cells[1:]):
        assert step_is_legal(walkable, a, b), f"illegal step {a} -> {b}"
    assert path_cost(cells) == pair[0] + pair[1] * SQRT2


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_jps_with_the_table_is_as_good_as_jps_that_scans(case):
    walkable, start, goal, limit = case
    grid = Grid.from_walkable("t", walkable)
    table = jumps.build_jump_distances(grid.flat, grid.stride, 1)
    pruned = run_jps(grid, table, start, goal, limit)
    scanned = run_jps(grid, None, start, goal, limit)
    complete = run_jps(grid, None, start, goal, 10**9)
    for status, _, pair, path in (pruned, scanned):
        assert status in (complete[0], 2)  # the answer, or the work limit first
        if status == 0:
            assert pair == complete[2]  # the optimal (straight, diagonal) steps
            assert_path(walkable, path, start, goal, pair)
    if limit == 10**9:
        assert pruned[0] == scanned[0]


def open_room(width: int = 16, height: int = 12) -> np.ndarray:
    walkable = np.ones((height, width), dtype=bool)
    walkable[2 : height - 2, width // 2] = False  # a wall to walk around
    return walkable


def test_no_table_for_costly_terrain_or_big_maps_and_the_same_answers():
    walkable = open_room()
    terrain = Grid.from_walkable(
        "sand",
        walkable,
        terrain=np.ones(walkable.shape, dtype=np.uint8),
        terrain_classes=(TerrainClass("ground", 1.0), TerrainClass("sand", 2.0)),
    )
    assert jump_distances(terrain) is None and terrain.jump_distances is None
    with_table = Grid.from_walkable("t", walkable)
    without = Grid.from_walkable("t", walkable)
    assert jump_distances(with_table) is not None
    assert jump_distances(without, walkable.size - 1) is None  # over its max_cells
    options = SearchOptions(algorithm=Algorithm.JPS)
    a = find_path(with_table, (0, 11), (15, 0), options)
    b = find_path(without, (0, 11), (15, 0), options)
    # block JPS serves both (long runs), as JPS+ would with the table: the same answer
    assert a.cost == b.cost and a.expanded == b.expanded and np.array_equal(a.path, b.path)


def test_maps_of_short_runs_scan_instead():
    rng = np.random.default_rng(1)  # a third of the cells blocked at random: runs of ~1
    grid = Grid.from_walkable("random", rng.random((40, 40)) >= 0.35)
    table = jumps.build_jump_distances(grid.flat, grid.stride, 1)
    assert jumps.mean_run(table, grid.flat) < jumps.MIN_MEAN_RUN and jump_distances(grid) is None
    room = Grid.from_walkable("room", open_room())
    assert jumps.mean_run(jump_distances(room), room.flat) >= jumps.MIN_MEAN_RUN


def test_the_limit_bounds_the_table_and_each_revision_builds_its_own_once():
    grid = Grid.from_walkable("t", open_room())
    assert jump_distances(grid, 0) is None and grid.jump_distances is None  # 0: never
    table = jump_distances(grid, 16 * 12)
    assert table is not None and jump_distances(grid, 16 * 12) is table  # kept with the revision
    assert grid.jump_distances is table and grid.nbytes >= table.nbytes


def test_an_edit_rebuilds_the_table():
    grid = Grid.from_walkable("t", open_room())
    assert jump_distances(grid) is not None  # as the service builds it when the map loads
    edited = grid.edit(GridEdit([Edit("blocked", cells=[(3, 5)])]), 2)
    assert edited.jump_distances is not None  # built with the edit, before any query
    rebuilt = Grid.from_walkable("t", edited.walkable.astype(bool))
    assert np.array_equal(jump_distances(edited), jump_distances(rebuilt))
    assert not np.array_equal(jump_distances(edited), jump_distances(grid))
    result = find_path(edited, (0, 5), (6, 5), SearchOptions(algorithm=Algorithm.JPS))
    assert [3, 5] not in result.path.tolist() and result.cost == pytest.approx(4 + 2 * 2**0.5)


def test_the_table_is_read_only():
    grid = Grid.from_walkable("t", open_room())
    with pytest.raises(ValueError):
        jump_distances(grid)[0, 0] = 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walkable_grids(max_side=20))
def test_the_mean_run_estimate_is_exact_on_every_row_and_column(walkable):
    grid = Grid.from_walkable("t", walkable)
    table = jumps.build_jump_distances(grid.flat, grid.stride, 1)
    exact = jumps.mean_run(table, grid.flat)
    assert jumps.estimate_mean_run(grid.flat, grid.stride, 1, 1) == pytest.approx(exact, abs=1e-12)


def test_the_estimate_samples_odd_prime_steps():
    assert [jumps._sample_step(n) for n in (100, 511, 512, 1024, 2048, 4096)] == [
        1,
        1,
        3,
        5,
        11,
        17,
    ]


def test_no_table_where_int16_entries_could_overflow():
    assert jumps.wants_jump_distances(100, 100, 10**9)
    assert not jumps.wants_jump_distances(
        jumps.JUMP_DISTANCES_MAX_SIDE, 1, 10**9
    )  # 32,002 padded cells
    assert jumps.JUMP_DISTANCES_MAX_SIDE < np.iinfo(np.int16).max
