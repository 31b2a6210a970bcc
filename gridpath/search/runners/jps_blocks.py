"""The block-based JPS runner: jump point search whose straight jumps scan the map's
row and column bitsets 64 cells at a time (:mod:`gridpath.search._blocks`), for the JPS
queries of units of size 1 on a revision without a JPS+ table.

Which JPS serves a query (registry order: this runner, then :mod:`.jps`):

* the revision has a JPS+ table: JPS+ (table lookups measured 2-3x faster than block
  scans on the Dragon Age maps; see ``bench/README.md``);
* no table because the map is over ``JUMP_TABLE_MAX_CELLS`` (or the limit is 0): this
  runner. It stops at intermediate jump points like the byte scan it replaces, so it
  expands the same jump points in the same order and returns the same paths, 1.4-2.5x
  faster (the answer does not depend on which of the two ran);
* no table because the map's straight runs are short (``_jumps.MIN_MEAN_RUN``: mazes,
  scattered obstacles): the byte scan, which is as fast there; this runner refuses.

The bitsets are built per revision through ``Grid.derived`` (``np.packbits`` over the
map and one sweep for the per-cell jump flags, a few ms for a million cells; an edit's
revision builds them again, as it does its other tables).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search._blocks import jump_blocks
from gridpath.search._jumps import long_runs
from gridpath.search.runner import Outcome, Query, Runner
from gridpath.search.runners import jps
from gridpath.search.scratch import SearchScratch


@dataclass(frozen=True)
class Blocks:
    """A revision's block record as kept with the :class:`Grid` (``nbytes``: what it adds
    to the snapshot's memory; the record also holds the grid's own ``flat`` array)."""

    record: tuple
    nbytes: int


def block_record(grid: Grid, prune: bool = False) -> tuple | None:
    """The revision's block record for units of size 1 (``prune``: see
    :func:`gridpath.search._blocks.jump_blocks`), or None on a map with costly terrain or
    short straight runs."""

    def build(grid: Grid) -> Blocks | None:
        if not grid.uniform:
            return None
        if not long_runs(grid.flat, grid.stride, grid.width, grid.height):
            return None
        record = jump_blocks(grid.flat, grid.stride, 1, prune)
        return Blocks(record, sum(a.nbytes for a in record[:5]))

    blocks = grid.derived(("jump_blocks", bool(prune)), build)
    return None if blocks is None else blocks.record


def refuses(query: Query) -> str | None:
    reason = jps.refuses(query)
    if reason is not None:
        return reason
    if query.options.clearance != 1:
        return "its bitsets are for units of size 1"
    if jps.jump_table(query.grid, query.jump_table_max_cells) is not None:
        return "the revision has a JPS+ jump table (lookups are faster than block scans)"
    if block_record(query.grid) is None:
        return "the map's straight runs are short (scanning the bytes is as fast)"
    return None


def run(query: Query, scratch: SearchScratch) -> Outcome:
    return jps.run_jps(query, scratch, block_record(query.grid))


def warm_up(scratch: SearchScratch) -> None:
    from gridpath.search.find import find_path  # the runner as the service reaches it

    open_grid = Grid.from_walkable("_warmup_blocks", np.ones((8, 70), dtype=bool))
    assert block_record(open_grid) is not None
    find_path(open_grid, (0, 0), (69, 5), jump_table_max_cells=0, scratch=scratch)


RUNNER = Runner("jps_blocks", refuses, run, warm_up)
