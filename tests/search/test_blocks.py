"""Block-based JPS (gridpath/search/_blocks.py, runner jps_blocks): the block scans give the
JPS+ table's entries, and the searches give optimal, legal paths, the same as the JPS they
stand in for, on random grids whose rows and columns cross 64-cell word boundaries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from gridpath.grid import Grid
from gridpath.search import SearchScratch
from gridpath.search._blocks import entry, jump_blocks
from gridpath.search._frontier import FOUND, UNREACHABLE
from gridpath.search._jumps import build_jump_table
from gridpath.search.find import checked_query, find_path
from gridpath.search.registry import JPS, JPS_BLOCKS, plan
from gridpath.search.runners import jps, jps_blocks
from tests.reference import path_cost, reference_costs, step_is_legal

SIDES = (1, 2, 63, 64, 65, 130)


@njit(cache=True)
def every_entry(source, passable, stride):
    """The entry of every walkable cell in each of the 8 directions, from ``source``."""
    out = np.zeros((passable.shape[0], 8), dtype=np.int64)
    for cell in range(passable.shape[0]):
        if passable[cell] != 0:
            for col in range(8):
                out[cell, col] = entry(source, cell, cell % stride, cell // stride, col)
    return out


@st.composite
def grids(draw):
    width = draw(st.sampled_from(SIDES))
    height = draw(st.sampled_from(SIDES)) if width < 100 else draw(st.integers(1, 8))
    density = draw(st.sampled_from((0.0, 0.05, 0.2, 0.4)))
    seed = draw(st.integers(0, 2**32 - 1))
    walkable = np.random.default_rng(seed).random((height, width)) >= density
    return walkable, seed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids())
def test_block_scans_give_the_jump_tables_entries(case):
    walkable, _ = case
    grid = Grid.from_walkable("blocks", walkable)
    table = build_jump_table(grid.flat, grid.stride, 1)
    blocks = jump_blocks(grid.flat, grid.stride)
    want = every_entry(table, grid.flat, grid.stride)
    assert np.array_equal(every_entry(blocks, grid.flat, grid.stride), want)


def _open_cells(walkable, rng, n):
    cells = np.argwhere(walkable)
    picks = rng.integers(0, len(cells), size=(n, 2))
    return [(tuple(cells[a][::-1]), tuple(cells[b][::-1])) for a, b in picks]


def _run(runner, grid, start, goal, table_cells):
    query = checked_query(grid, start, goal, None, _jps_options(), (), 0, table_cells)
    return runner.run(query, SearchScratch())


def _jps_options():
    from gridpath.search import Algorithm, SearchOptions

    return SearchOptions(algorithm=Algorithm.JPS).resolved()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grids())
def test_block_jps_is_optimal_legal_and_the_same_as_jps(case):
    """Lazy block scans (the runner: no table) return JPS's byte-scan answers; pruned ones
    (as with a table) JPS+'s; both cost what scipy's Dijkstra says, with legal steps."""
    walkable, seed = case
    if not walkable.any():
        return
    grid = Grid.from_walkable("blocks", walkable)
    rng = np.random.default_rng(seed)
    scratch = SearchScratch()
    table = build_jump_table(grid.flat, grid.stride, 1)
    pruned = jump_blocks(grid.flat, grid.stride, prune=True)
    lazy = jump_blocks(grid.flat, grid.stride, prune=False)
    for start, goal in _open_cells(walkable, rng, 4):
        query = checked_query(grid, start, goal, None, _jps_options(), (), 0, 0)
        want = reference_costs(walkable, start, "no_corner_cut")[goal[::-1]]
        for source, twin in ((lazy, None), (pruned, table)):
            got = jps.run_jps(query, scratch, source)
            same = jps.run_jps(query, scratch, twin)
            assert (got.status, got.expanded) == (same.status, same.expanded)
            assert np.array_equal(got.path, same.path) and got.cost == same.cost
            if np.isinf(want):
                assert got.status == UNREACHABLE
                continue
            assert got.status == FOUND and got.cost == pytest.approx(want, abs=1e-9)
            cells = [tuple(c) for c in got.path.tolist()]
            assert cells[0] == start and cells[-1] == goal
            assert all(step_is_legal(walkable, a, b) for a, b in zip(cells, cells[1:]))
            assert path_cost(cells) == pytest.approx(got.cost, abs=1e-9)


def _hall(width=200, height=40):
    walkable = np.ones((height, width), dtype=bool)
    walkable[10, 20:150] = False
    walkable[5:30, 100] = False
    return walkable


def test_the_plan_picks_block_jps_where_a_revision_has_no_table():
    grid = Grid.from_walkable("hall", _hall())
    with_table = checked_query(grid, (0, 0), (199, 39), None, _jps_options(), (), 0, 4_194_304)
    without = checked_query(grid, (0, 0), (199, 39), None, _jps_options(), (), 0, 0)
    assert plan(with_table).runner is JPS
    assert "JPS+ jump table" in JPS_BLOCKS.refuses(with_table)
    assert plan(without).runner is JPS_BLOCKS


def test_block_jps_refuses_short_runs_and_large_units():
    maze = np.indices((64, 64)).sum(axis=0) % 2 == 0  # a checkerboard: no straight runs
    maze[::2, :] = True
    grid = Grid.from_walkable("rows", maze)
    query = checked_query(grid, (0, 0), (63, 62), None, _jps_options(), (), 0, 0)
    assert "short" in JPS_BLOCKS.refuses(query)
    hall = Grid.from_walkable("hall", _hall())
    options = _jps_options().__class__(algorithm=_jps_options().algorithm, clearance=2)
    query = checked_query(hall, (0, 0), (150, 30), None, options.resolved(), (), 0, 0)
    assert "size 1" in JPS_BLOCKS.refuses(query)


def test_the_answer_does_not_depend_on_the_table_limit_over_the_block_runner():
    """A map with no table (over the limit) gets the byte scan's answer from the block
    runner: the same body either way."""
    grid = Grid.from_walkable("hall", _hall())
    block = _run(jps_blocks.RUNNER, grid, (0, 39), (199, 0), 0)
    scan = jps.run_jps(
        checked_query(grid, (0, 39), (199, 0), None, _jps_options(), (), 0, 0),
        SearchScratch(),
        None,
    )
    assert np.array_equal(block.path, scan.path) and block.cost == scan.cost
    via_find = find_path(grid, (0, 39), (199, 0), jump_table_max_cells=0)
    assert np.array_equal(via_find.path, scan.path)


def test_an_edit_builds_the_bitsets_again():
    from gridpath.grid.edits import Edit, apply_edits

    grid = Grid.from_walkable("hall", _hall())
    before = jps_blocks.block_record(grid)
    assert before is not None
    edited = apply_edits(grid, [Edit(value="blocked", cells=[(150, 10)])], revision=2)
    after = jps_blocks.block_record(edited)
    assert after is not None and after is not before
    fresh = jump_blocks(edited.flat, edited.stride, 1, False)
    assert all(np.array_equal(a, b) for a, b in zip(after[:6], fresh[:6]))
    # 4 bits and 1 byte per padded cell, counted in the revision's memory
    assert edited.nbytes >= Grid.from_walkable("hall", edited.walkable).nbytes + 202 * 42
