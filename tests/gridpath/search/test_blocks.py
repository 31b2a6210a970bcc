"""Block-based JPS (gridpath/search/_blocks.py, runner jps_blocks): the same answers as JPS+
with its table (status, expansions, path, cost), optimal and legal, on random grids whose
rows and columns cross 64-cell word boundaries; an edit's bitsets updated around the
changed cells equal the bitsets built afresh."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridpath.grid import Grid
from gridpath.grid.edits import Edit, GridEdit
from gridpath.search import Algorithm, SearchOptions, SearchScratch
from gridpath.search._blocks import block_bits, edit_block_bits
from gridpath.search._frontier import FOUND, UNREACHABLE
from gridpath.search._jps import jps
from gridpath.search._jumps import build_jump_distances, edit_run_sums, long_runs, run_sums
from gridpath.search.algorithms import JPS, JPS_BLOCKS, choose_runner
from gridpath.search.find import checked_query, find_path
from gridpath.search.runner import PairKernel, PairRun
from gridpath.search.runners import jps_blocks
from gridpath.search.runners.jps import jump_distances
from tests.reference import path_cost, reference_costs, step_is_legal

SIDES = (1, 2, 63, 64, 65, 130)


@st.composite
def grids(draw):
    width = draw(st.sampled_from(SIDES))
    height = draw(st.sampled_from(SIDES)) if width < 100 else draw(st.integers(1, 8))
    density = draw(st.sampled_from((0.0, 0.05, 0.2, 0.4)))
    seed = draw(st.integers(0, 2**32 - 1))
    walkable = np.random.default_rng(seed).random((height, width)) >= density
    return walkable, seed


def _open_cells(walkable, rng, n):
    cells = np.argwhere(walkable)
    picks = rng.integers(0, len(cells), size=(n, 2))
    return [(tuple(cells[a][::-1]), tuple(cells[b][::-1])) for a, b in picks]


def _query(grid, start, goal, clearance=1):
    options = SearchOptions(algorithm=Algorithm.JPS, clearance=clearance).resolved()
    return checked_query(grid, start, goal, None, options, (), 0)


def _jps_plus(query, scratch):
    """JPS+ with the map's table built whatever its runs (the JPS runner's path and cost)."""
    grid = query.grid
    table = build_jump_distances(grid.flat, grid.stride, 1)
    outcome = PairRun(PairKernel(jps, (table,), jumps=True), query)(query, scratch)
    if outcome.status != FOUND:
        return outcome.status, outcome.expanded, None, None
    return outcome.status, outcome.expanded, outcome.path, outcome.cost


def _same_record(a: tuple, b: tuple) -> bool:
    return np.array_equal(a[0], b[0]) and a[1:] == b[1:]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids())
def test_block_jps_answers_as_jps_plus_does_optimal_and_legal(case):
    """Whatever the map's runs (the kernel runs here even where the runner would refuse),
    block JPS and JPS+ with its table agree on everything the answer shows."""
    walkable, seed = case
    if not walkable.any():
        return
    grid = Grid.from_walkable("blocks", walkable)
    record = block_bits(grid.flat, grid.stride)
    rng = np.random.default_rng(seed)
    scratch = SearchScratch()
    for start, goal in _open_cells(walkable, rng, 4):
        query = _query(grid, start, goal)
        got = PairRun(jps_blocks.pair_with(record), query)(query, scratch)
        status, expanded, path, cost = _jps_plus(query, scratch)
        assert (got.status, got.expanded) == (status, expanded)
        if status == FOUND:
            assert np.array_equal(got.path, path) and got.cost == cost
        want = reference_costs(walkable, start, "no_corner_cut")[goal[::-1]]
        if np.isinf(want):
            assert got.status == UNREACHABLE
            continue
        assert got.status == FOUND and got.cost == pytest.approx(want, abs=1e-9)
        cells = [tuple(c) for c in got.path.tolist()]
        assert cells[0] == start and cells[-1] == goal
        assert all(step_is_legal(walkable, a, b) for a, b in zip(cells, cells[1:]))
        assert path_cost(cells) == pytest.approx(got.cost, abs=1e-9)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids(), st.lists(st.tuples(st.integers(0, 10**6), st.booleans()), max_size=12))
def test_an_edit_updates_the_bits_around_the_changed_cells(case, flips):
    walkable, _ = case
    grid = Grid.from_walkable("blocks", walkable)
    edited = walkable.copy()
    for where, value in flips:
        edited.flat[where % edited.size] = value
    after = Grid.from_walkable("blocks", edited)
    changed = np.flatnonzero((grid.flat != 0) != (after.flat != 0))
    updated = edit_block_bits(block_bits(grid.flat, grid.stride), after.flat, after.stride, changed)
    assert _same_record(updated, block_bits(after.flat, after.stride))


def _hall(width=200, height=40):
    walkable = np.ones((height, width), dtype=bool)
    walkable[10, 20:150] = False
    walkable[5:30, 100] = False
    return walkable


def test_the_choice_is_block_jps_for_long_runs_with_or_without_a_table():
    grid = Grid.from_walkable("hall", _hall())
    for with_table in (False, True):
        if with_table:
            assert jump_distances(grid) is not None
        options = SearchOptions(algorithm=Algorithm.JPS).resolved()
        query = checked_query(grid, (0, 0), (199, 39), None, options, (), 0)
        assert choose_runner(query).runner is JPS_BLOCKS
        auto = checked_query(grid, (0, 0), (199, 39), None, SearchOptions().resolved(), (), 0)
        assert choose_runner(auto).runner is JPS_BLOCKS


def test_block_jps_refuses_short_runs_and_large_units():
    maze = np.indices((64, 64)).sum(axis=0) % 2 == 0  # a checkerboard: no straight runs
    maze[::2, :] = True
    grid = Grid.from_walkable("rows", maze)
    query = _query(grid, (0, 0), (63, 62))
    assert "short" in JPS_BLOCKS.refuses(query)
    assert choose_runner(query).runner is JPS  # the byte scan, which gives those maps' paths
    hall = Grid.from_walkable("hall", _hall())
    assert "size 1" in JPS_BLOCKS.refuses(_query(hall, (0, 0), (150, 30), clearance=2))


def test_block_jps_answers_as_jps_plus():
    """Block JPS answers as JPS+ with its table does, so a map's JPS paths do not depend on
    whether a table was built."""
    grid = Grid.from_walkable("hall", _hall())
    served = find_path(grid, (0, 39), (199, 0))
    jump_distances(grid)
    table = JPS.run(_query(grid, (0, 39), (199, 0)), SearchScratch())
    assert np.array_equal(served.path, table.path) and served.cost == table.cost
    assert served.expanded == table.expanded


def test_an_edits_revision_gets_its_bits_from_the_earlier_revision():
    grid = Grid.from_walkable("hall", _hall())
    before = jps_blocks.block_record(grid)
    assert before is not None
    edits = [
        Edit(value="blocked", cells=[(150, 10), (0, 0)]),
        Edit(value="walkable", rect=(30, 10, 40, 10)),
    ]
    edited = grid.edit(GridEdit(edits), 2)
    after = jps_blocks.block_record(edited)  # built with the edit, updated from before
    assert after is not None and after[0] is not before[0]
    assert _same_record(after, block_bits(edited.flat, edited.stride))
    assert not _same_record(after, before) and not before[0].flags.writeable
    # about six bits per padded cell, counted in the revision's memory
    assert edited.nbytes >= Grid.from_walkable("hall", edited.walkable).nbytes + 202 * 42 * 6 // 8
    path = find_path(edited, (0, 0 + 1), (199, 0))
    assert path.found and (150, 10) not in {tuple(c) for c in path.path.tolist()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids(), st.lists(st.tuples(st.integers(0, 10**6), st.booleans()), max_size=40))
def test_an_edit_updates_the_run_sums_to_the_new_maps_own(case, flips):
    """The line sums an edit updates equal the new map's own, so the verdict (bitsets or
    not) is long_runs' on the revision's cells, whatever revisions came before."""
    walkable, _ = case
    grid = Grid.from_walkable("runs", walkable)
    sums = run_sums(grid.flat, grid.stride, grid.width, grid.height)
    edited = walkable.copy()
    for where, value in flips:
        edited.flat[where % edited.size] = value
    after = Grid.from_walkable("runs", edited)
    changed = np.flatnonzero((grid.flat != 0) != (after.flat != 0))
    updated = edit_run_sums(sums, after.flat, after.stride, changed)
    fresh = run_sums(after.flat, after.stride, after.width, after.height)
    assert np.array_equal(updated.lines, fresh.lines) and updated.every == fresh.every
    assert fresh.long == long_runs(after.flat, after.stride, after.width, after.height)


def test_a_revision_loses_and_regains_its_bits_as_its_runs_change():
    grid = Grid.from_walkable("hall", _hall())
    assert jps_blocks.block_record(grid) is not None
    checker = [(x, y) for y in range(40) for x in range(200) if (x + y) % 2]
    short = grid.edit(GridEdit([Edit(value="blocked", cells=checker)]), 2)
    assert jps_blocks.block_record(short) is None  # short runs: JPS scans the bytes
    again = short.edit(GridEdit([Edit(value="walkable", cells=checker)]), 3)
    record = jps_blocks.block_record(again)
    assert record is not None and _same_record(record, block_bits(again.flat, again.stride))
    big = np.ones((600, 600), dtype=bool)
    big[::7, 3:590] = False  # sampled every third line: the update keeps the sampling
    wide = Grid.from_walkable("wide", big)
    assert jps_blocks.block_record(wide) is not None
    door = wide.edit(GridEdit([Edit(value="walkable", rect=(100, 0, 104, 599))]), 2)
    kept = door.derived(jps_blocks.KEY, jps_blocks._BUILD)
    assert np.array_equal(
        kept.runs.lines, run_sums(door.flat, door.stride, door.width, door.height).lines
    )
