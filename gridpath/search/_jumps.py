"""JPS's pruning rules and the JPS+ jump distances built from them
(beside :mod:`gridpath.search._jps`).

They are precomputed once per map revision
(see :func:`gridpath.search.runners.jps.jump_distances`)
and read by every JPS search. Jump point search (the variant without corner cutting) spends
its time scanning rows, columns and diagonals for the next jump point. The jump distances store
the answer for every cell and each of the 8 directions, ignoring the goal (Rabin's
"JPS+"); the search then only tests whether the goal lies on the way. Built in one
sweep per direction, O(cells), 16 bytes per cell, for uniform-cost maps up to
``JUMP_TABLE_MAX_CELLS`` cells (unit size 1; larger units scan).

Columns, in the order the start cell expands: N E S W NE SE SW NW. A straight entry
``k > 0``: the jump from this cell meets a jump point ``k`` steps away; ``k < 0``: it
meets a wall ``-k`` steps away (so ``-k - 1`` open cells lie ahead). A diagonal entry
counts diagonal steps the same way, a wall or a cut corner stopping the diagonal, and a
diagonal cell is a jump point when a straight jump from it (along the diagonal's two
components) finds one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

JUMP_NORTH, JUMP_EAST, JUMP_SOUTH, JUMP_WEST = 0, 1, 2, 3
JUMP_NE, JUMP_SE, JUMP_SW, JUMP_NW = 4, 5, 6, 7
JUMP_DISTANCES_MAX_SIDE = 32_000  # entries are int16
# Below this mean run (open cells a straight jump passes, over every walkable cell and the
# four straight directions) jumps are so short that scanning the bytes is as fast as a
# lookup in jump distances eight times the map's size (see bench/README.md, 'bench.memory': Moving
# AI's 1-wide maze and 35%-random maps gain nothing from one). Such maps do without.
# (estimate_mean_run runs build_jump_distances's straight rule, _straight_entry, without
# storing the entries; a test checks that both agree.)
MIN_MEAN_RUN = 2.0


def wants_jump_distances(width: int, height: int, max_cells: int) -> bool:
    """Whether a uniform-cost map of this size may get jump distances under the limit
    ``max_cells`` (``JUMP_TABLE_MAX_CELLS``; 0: never)."""
    return width * height <= max_cells and max(width, height) + 2 <= JUMP_DISTANCES_MAX_SIDE


def jump_distances_for(
    passable: np.ndarray, stride: int, width: int, height: int, max_cells: int
) -> np.ndarray | None:
    """The jump distances of a uniform-cost padded grid (read-only), or None when the map is
    over ``max_cells`` or too large for one, or its jumps are too short to gain from it
    (:data:`MIN_MEAN_RUN`)."""
    if not wants_jump_distances(width, height, max_cells):
        return None
    if not long_runs(passable, stride, width, height):
        return None  # decided before paying for them (bench/README.md, 'bench.memory')
    jumps = build_jump_distances(passable, stride, 1)
    jumps.flags.writeable = False
    return jumps


def long_runs(passable: np.ndarray, stride: int, width: int, height: int) -> bool:
    """Whether a padded grid's straight jumps are long enough (:data:`MIN_MEAN_RUN`, for
    units of size 1) for jump distances or block scans to beat scanning the bytes."""
    every = _sample_step(max(width, height))
    return estimate_mean_run(passable, stride, 1, every) >= MIN_MEAN_RUN


def _sample_step(side: int) -> int:
    """Every how many rows and columns to sample for about 256 of each: 1 up to 511 cells a
    side, else an odd prime (3, 5, 7, 11, ...), so that no power-of-two tile pattern of the
    map can line the samples up with its walls."""
    want = side // 256
    if want <= 1:
        return 1
    step = max(3, want | 1)
    while any(step % d == 0 for d in range(3, int(step**0.5) + 1, 2)):
        step += 2
    return step


@njit(nogil=True, cache=True)
def estimate_mean_run(passable, stride, unit, every):
    """:func:`mean_run` without building the jump distances: the straight entries of every
    ``every``-th row (east, west) and column (north, south), each swept keeping only the
    last entry. Exact with ``every`` = 1."""
    rows = passable.shape[0] // stride
    total = 0
    count = 0
    for y in range(1, rows - 1, every):
        t, c = _row_runs(passable, stride, unit, y)
        total += t
        count += c
    for x in range(1, stride - 1, every):
        t, c = _column_runs(passable, stride, unit, rows, x)
        total += t
        count += c
    return total / count if count else 0.0


@njit(nogil=True, cache=True)
def _row_runs(passable, stride, unit, y):
    """(sum of run lengths, entries) of row ``y``'s east and west entries: it reads rows
    ``y - 1`` to ``y + 1`` only (for units of size 1)."""
    base = y * stride
    total = 0
    count = 0
    for sweep in range(2):
        step = 1 if sweep == 0 else -1
        entry = 0
        for i in range(1, stride - 1):
            x = stride - 1 - i if step == 1 else i  # against the direction of travel
            cell = base + x
            entry = _straight_entry(passable, unit, cell + step, step, stride, entry)
            if room(passable, unit, cell):
                total += entry if entry > 0 else -entry - 1
                count += 1
    return total, count


@njit(nogil=True, cache=True)
def _column_runs(passable, stride, unit, rows, x):
    """:func:`_row_runs` for column ``x`` (north and south entries)."""
    total = 0
    count = 0
    for sweep in range(2):
        step = -stride if sweep == 0 else stride
        entry = 0
        for i in range(1, rows - 1):
            y = i if step < 0 else rows - 1 - i
            cell = y * stride + x
            entry = _straight_entry(passable, unit, cell + step, step, 1, entry)
            if room(passable, unit, cell):
                total += entry if entry > 0 else -entry - 1
                count += 1
    return total, count


def run_sums(passable: np.ndarray, stride: int, width: int, height: int) -> RunSums:
    """What :func:`long_runs` decides from, kept line by line so that an edit can update it
    (:func:`edit_run_sums`) instead of sweeping the map again."""
    every = _sample_step(max(width, height))
    rows = passable.shape[0] // stride
    lines = np.zeros((rows + stride, 2), dtype=np.int64)  # rows, then columns
    _line_runs(passable, stride, every, lines, np.arange(rows + stride, dtype=np.int64))
    lines.flags.writeable = False
    return RunSums(lines, every)


def edit_run_sums(sums: RunSums, passable: np.ndarray, stride: int, changed) -> RunSums:
    """``sums`` after an edit of the padded cells ``changed``: the sampled rows and columns
    within one cell of a changed cell swept again (a row's entries read its two
    neighbouring rows), the rest kept. Equal to :func:`run_sums` of the new map."""
    rows = passable.shape[0] // stride
    ys, xs = changed // stride, changed % stride
    near = np.concatenate([ys - 1, ys, ys + 1, rows + xs - 1, rows + xs, rows + xs + 1])
    lines = sums.lines.copy()
    _line_runs(passable, stride, sums.every, lines, np.unique(near))
    lines.flags.writeable = False
    return RunSums(lines, sums.every)


@njit(nogil=True, cache=True)
def _line_runs(passable, stride, every, lines, which):
    """Sweep the lines ``which`` (row ``y``: index ``y``; column ``x``: ``rows + x``) that
    :func:`estimate_mean_run` samples into ``lines``; other indices are left alone."""
    rows = passable.shape[0] // stride
    for k in which:
        if k < rows:
            if 1 <= k <= rows - 2 and (k - 1) % every == 0:
                lines[k, 0], lines[k, 1] = _row_runs(passable, stride, 1, k)
        else:
            x = k - rows
            if 1 <= x <= stride - 2 and (x - 1) % every == 0:
                lines[k, 0], lines[k, 1] = _column_runs(passable, stride, 1, rows, x)


@dataclass(frozen=True)
class RunSums:
    """Per sampled row and column, (sum of straight run lengths, entries), for units of
    size 1; ``long`` is :func:`long_runs`' verdict."""

    lines: np.ndarray
    every: int

    @property
    def long(self) -> bool:
        total, count = int(self.lines[:, 0].sum()), int(self.lines[:, 1].sum())
        return (total / count if count else 0.0) >= MIN_MEAN_RUN


@njit(nogil=True, cache=True)
def mean_run(jumps, passable):
    """Mean number of open cells a straight jump passes (jump point included), over the
    walkable cells and the four straight directions."""
    total = 0
    cells = 0
    for cell in range(passable.shape[0]):
        if passable[cell] == 0:
            continue
        cells += 1
        for col in range(4):
            entry = np.int64(jumps[cell, col])
            total += entry if entry > 0 else -entry - 1
    return total / (4 * cells) if cells else 0.0


@njit(nogil=True, cache=True, inline="always")
def room(passable, unit, cell):
    """A unit of size ``unit`` fits on padded ``cell`` (its clearance is at least ``unit``)."""
    return passable[cell] >= unit


@njit(nogil=True, cache=True, inline="always")
def _extend(entry):
    """The entry one step further back along the same line."""
    return entry + 1 if entry > 0 else entry - 1


@njit(nogil=True, cache=True, inline="always")
def forced(passable, unit, cell, step, side):
    """Arriving at open ``cell`` by ``step`` (``side``: the perpendicular offset), does a
    side cell need this one: open, with the cell behind it blocked (a forced neighbour)?"""
    return (room(passable, unit, cell + side) and not room(passable, unit, cell + side - step)) or (
        room(passable, unit, cell - side) and not room(passable, unit, cell - side - step)
    )


@njit(nogil=True, cache=True, inline="always")
def _straight_entry(passable, unit, ahead, step, side, entry_ahead):
    """A straight entry from the cell ``ahead`` of it (reached by ``step``) and that
    cell's own entry: a wall, a jump point (a forced neighbour), or one step more."""
    if not room(passable, unit, ahead):
        return -1
    if forced(passable, unit, ahead, step, side):
        return 1
    return _extend(entry_ahead)


@njit(nogil=True, cache=True)
def build_jump_distances(passable, stride, unit):
    """The JPS+ jump distances of a padded grid: ``(cells, 8)`` int16 (see the column comment).
    Rows of blocked cells hold values no search reads."""
    n = passable.shape[0]
    rows = n // stride
    jumps = np.zeros((n, 8), dtype=np.int16)
    # Straight lines: each entry from its neighbour ahead, so sweep against the direction.
    for y in range(1, rows - 1):
        base = y * stride
        for x in range(stride - 2, 0, -1):  # east
            cell = base + x
            ahead = cell + 1
            # fmt: off
            jumps[cell, JUMP_EAST] = _straight_entry(passable, unit, ahead, 1, stride,
                                                 jumps[ahead, JUMP_EAST])
            # fmt: on
        for x in range(1, stride - 1):  # west
            cell = base + x
            ahead = cell - 1
            # fmt: off
            jumps[cell, JUMP_WEST] = _straight_entry(passable, unit, ahead, -1, stride,
                                                 jumps[ahead, JUMP_WEST])
            # fmt: on
    for y in range(1, rows - 1):  # north: the row above first
        for x in range(1, stride - 1):
            cell = y * stride + x
            ahead = cell - stride
            # fmt: off
            jumps[cell, JUMP_NORTH] = _straight_entry(passable, unit, ahead, -stride, 1,
                                                 jumps[ahead, JUMP_NORTH])
            # fmt: on
    for y in range(rows - 2, 0, -1):  # south: the row below first
        for x in range(1, stride - 1):
            cell = y * stride + x
            ahead = cell + stride
            # fmt: off
            jumps[cell, JUMP_SOUTH] = _straight_entry(passable, unit, ahead, stride, 1,
                                                 jumps[ahead, JUMP_SOUTH])
            # fmt: on
    # Diagonals: a cell is a jump point if a straight jump from it finds one.
    for k in range(4):
        if k == 0:
            step_x, step_y, col, col_x, col_y = 1, -stride, JUMP_NE, JUMP_EAST, JUMP_NORTH
        elif k == 1:
            step_x, step_y, col, col_x, col_y = 1, stride, JUMP_SE, JUMP_EAST, JUMP_SOUTH
        elif k == 2:
            step_x, step_y, col, col_x, col_y = -1, stride, JUMP_SW, JUMP_WEST, JUMP_SOUTH
        else:
            step_x, step_y, col, col_x, col_y = -1, -stride, JUMP_NW, JUMP_WEST, JUMP_NORTH
        for i in range(1, rows - 1):
            y = i if step_y < 0 else rows - 1 - i  # the row ahead is done first
            for x in range(1, stride - 1):
                cell = y * stride + x
                ahead = cell + step_x + step_y
                if not (
                    room(passable, unit, cell + step_x)
                    and room(passable, unit, cell + step_y)
                    and room(passable, unit, ahead)
                ):
                    jumps[cell, col] = -1
                elif jumps[ahead, col_x] > 0 or jumps[ahead, col_y] > 0:
                    jumps[cell, col] = 1
                else:
                    jumps[cell, col] = _extend(jumps[ahead, col])
    return jumps
