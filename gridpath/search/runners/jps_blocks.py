"""The block-based JPS runner: jump point search whose jumps scan the map's row and column
bitsets 64 cells at a time (:mod:`gridpath.search._blocks`), for units of size 1 on
uniform terrain. No jump distances: the bitsets are part of each revision (about six bits per
cell), and an edit updates them around the cells it changed.

Which JPS serves a query (in the order of :mod:`gridpath.search.algorithms`: this runner,
then :mod:`.jps`):

* a map whose straight runs are long (``_jumps.MIN_MEAN_RUN``): this runner. It offers
  the same nodes in the same order as JPS+ with its jump distances, so it returns the same paths
  and expansions; measured faster than the jump-distance lookups on the Dragon Age maps (see
  ``bench/README.md``), so such maps no longer need JPS+ jump distances;
* short runs (mazes, scattered obstacles): the byte scan of :mod:`.jps` (as fast there,
  and its lazy rule gives those maps' paths); this runner refuses;
* larger units: :mod:`.jps`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search._batch import pairs_blocks
from gridpath.search._blocks import block_bits, edit_block_bits, jps_blocks
from gridpath.search._jumps import RunSums, edit_run_sums, run_sums
from gridpath.search.runner import PairKernel, Query, Runner, WarmUp
from gridpath.search.runners import jps
from gridpath.search.warmup_grids import corridor

KEY = "jump_blocks"


@dataclass(frozen=True)
class Blocks:
    """A revision's block record as kept with the :class:`Grid` (``nbytes``: what it adds
    to the snapshot's memory), and the line sums that decided the map's runs are long
    enough (kept so that an edit's revision decides again without sweeping the map)."""

    record: tuple
    runs: RunSums
    nbytes: int


class _Build:
    """Builds a revision's :class:`Blocks` (None: costly terrain or short runs), and for
    an edit's revision updates the earlier revision's bitsets and line sums around the
    cells that changed (``Grid.derive_like``). Either way the verdict is
    :func:`long_runs`' on the revision's own cells, so it does not depend on the history."""

    def __call__(self, grid: Grid) -> Blocks | None:
        if not grid.uniform:
            return None
        runs = run_sums(grid.flat, grid.stride, grid.width, grid.height)
        return _blocks(block_bits(grid.flat, grid.stride), runs) if runs.long else None

    def update(self, grid: Grid, earlier: Grid, value: Blocks | None) -> Blocks | None:
        if value is None or earlier.flat.shape != grid.flat.shape:
            return self(grid)
        if not grid.uniform:
            return None
        changed = np.flatnonzero((earlier.flat != 0) != (grid.flat != 0))
        runs = edit_run_sums(value.runs, grid.flat, grid.stride, changed)
        if not runs.long:
            return None
        return _blocks(edit_block_bits(value.record, grid.flat, grid.stride, changed), runs)


def _blocks(record: tuple, runs: RunSums) -> Blocks:
    return Blocks(record, runs, record[0].nbytes + runs.lines.nbytes)


_BUILD = _Build()


def block_record(grid: Grid) -> tuple | None:
    """The revision's block record, or None (costly terrain, short straight runs)."""
    blocks = grid.derived(KEY, _BUILD)
    return None if blocks is None else blocks.record


def prepare_jps(grid: Grid) -> None:
    """Build what a revision's JPS queries read, before it is published: the block bitsets
    (where the map is uniform with long runs; its edits then update them through
    ``Grid.derive_like``). No JPS+ jump distances: block JPS serves every map they would
    serve (JPS+ needs the same long runs), with the same answers."""
    block_record(grid)


def refuses(query: Query) -> str | None:
    reason = jps.refuses(query)
    if reason is not None:
        return reason
    if query.options.clearance != 1:
        return "its bitsets are for units of size 1"
    if block_record(query.grid) is None:
        return "the map's straight runs are short (scanning the bytes is as fast)"
    return None


def pair(query: Query) -> PairKernel:
    return pair_with(block_record(query.grid))


def pair_with(record: tuple) -> PairKernel:
    """Block JPS with the block record ``record`` (the revision's, or a test's)."""
    return PairKernel(jps_blocks, (record,), jumps=True, many=pairs_blocks)


def _warm_edit() -> None:
    """The bitsets' update after an edit (no query reaches it)."""
    grid = corridor()
    changed = np.array([grid.index(3, 3)], dtype=np.int64)
    edit_block_bits(block_record(grid), grid.flat, grid.stride, changed)


WARM_UPS = (WarmUp(corridor, (0, 0), (69, 5)),)
RUNNER = Runner.exact_pair("jps_blocks", refuses, pair, WARM_UPS, warm_kernels=_warm_edit)
