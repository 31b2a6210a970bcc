"""Block-based jumps: JPS's straight scans a machine word (64 cells) at a time.

Harabor and Grastien, "Improving Jump Point Search" (ICAPS 2014), section "block-based
symmetry breaking". The walkable cells of a map revision are kept as bitsets: one per
row of the padded grid (``rows``) and one per column (``columns``, the transposed grid),
each line padded with blocked cells (a whole blocked word before the map's border and
at least one after), so a 64-cell window never needs a bounds test. A straight jump
reads three windows (its own line and the lines on either side, shifted by one cell for
the cells behind), finds the first wall or forced neighbour among 64 cells with one
count-trailing-zeros (count-leading-zeros going west or north), and moves 64 cells on
when there is none.

The scans answer exactly what a JPS+ jump table entry holds (:mod:`gridpath.search._jumps`:
``k > 0`` a jump point ``k`` steps away, ``k < 0`` a wall ``-k`` steps away, the goal
ignored), so the JPS kernel (:mod:`gridpath.search._jps`) reads a :data:`Blocks` record
through the same ``entry`` call as a table and finds the same jump points in the same
order: the same paths as JPS+, computed without a table. A diagonal entry steps along
the diagonal and runs the two straight scans at each cell (the paper's online JPS).

The record ``(rows, columns, passable, stride)`` is built per map revision by
:func:`jump_blocks` with ``np.packbits`` (a vectorised pass over the map; an edit makes a
new revision, whose bitsets are built the same way).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from gridpath.search._jumps import (
    JUMP_EAST,
    JUMP_NE,
    JUMP_NORTH,
    JUMP_SE,
    JUMP_SOUTH,
    JUMP_SW,
    JUMP_WEST,
    forced,
    room,
)
from gridpath.search._prefetch import prefetch

MARGIN = 64  # bit position of a line's cell 0: one blocked word before the padded line
_ONE = np.uint64(1)
_63 = np.uint64(63)


def line_bits(open_cells: np.ndarray) -> np.ndarray:
    """``(lines, n)`` booleans as ``(lines, words)`` uint64 bitsets: cell ``i`` of a line is
    bit ``MARGIN + i``; every bit outside the ``n`` cells is 0 (blocked)."""
    lines, n = open_cells.shape
    words = (MARGIN + n + 63) // 64 + 2  # room for a window read one word past the end
    padded = np.zeros((lines, words * 64), dtype=bool)
    padded[:, MARGIN : MARGIN + n] = open_cells
    bits = np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64)
    bits.flags.writeable = False
    return bits


def jump_blocks(passable: np.ndarray, stride: int, unit: int = 1, prune: bool = True) -> tuple:
    """The :data:`Blocks` record of a padded flat grid for units of size ``unit``;
    ``prune``: the search prunes intermediate jump points (as with a JPS+ table) or stops
    at them (as the byte scan does)."""
    grid = passable.reshape(-1, stride) >= unit
    blocked = ~grid
    east = blocked.copy()  # a wall, or a forced neighbour arriving eastwards
    west = blocked.copy()
    south = blocked.copy()
    north = blocked.copy()
    inner = np.s_[1:-1, 1:-1]
    for side in (-1, 1):  # the line above (left) and below (right)
        beside = grid[1 + side : grid.shape[0] - 1 + side, 1:-1]
        east[inner] |= beside & ~grid[1 + side : grid.shape[0] - 1 + side, :-2]
        west[inner] |= beside & ~grid[1 + side : grid.shape[0] - 1 + side, 2:]
        beside = grid[1:-1, 1 + side : grid.shape[1] - 1 + side]
        south[inner] |= beside & ~grid[:-2, 1 + side : grid.shape[1] - 1 + side]
        north[inner] |= beside & ~grid[2:, 1 + side : grid.shape[1] - 1 + side]
    flags = jump_flags(passable, stride, unit)
    flags.flags.writeable = False
    return (
        line_bits(east), line_bits(west), line_bits(south.T), line_bits(north.T),
        flags, passable, int(stride), bool(prune),
    )  # fmt: skip


# Bits of a cell's byte in the flags array: the straight jump in that direction finds a
# jump point (not a wall), and the diagonal step in that direction is legal (the cell
# ahead and both cells beside the step are open).
FINDS = (1, 2, 4, 8)  # N E S W (the table's column order)
STEPS = (16, 32, 64, 128)  # NE SE SW NW


@njit(nogil=True, cache=True)
def jump_flags(passable, stride, unit):
    """One byte per padded cell: :data:`FINDS` and :data:`STEPS` bits. One sweep per
    direction, each cell's straight bit from the cell ahead (as the jump table's entries)."""
    n = passable.shape[0]
    flags = np.zeros(n, dtype=np.uint8)
    sweeps = ((JUMP_NORTH, -stride, 1), (JUMP_EAST, 1, stride),
              (JUMP_SOUTH, stride, 1), (JUMP_WEST, -1, stride))  # fmt: skip
    for col, step, side in sweeps:
        bit = np.uint8(1 << col)
        for i in range(stride, n - stride):
            cell = n - 1 - i if step > 0 else i  # the cell ahead first
            ahead = cell + step
            if room(passable, unit, ahead) and (
                forced(passable, unit, ahead, step, side) or flags[ahead] & bit
            ):
                flags[cell] |= bit
    for d in range(4):
        dx = 1 if d < 2 else -1
        dy = -stride if d == 0 or d == 3 else stride
        bit = np.uint8(16 << d)
        for cell in range(stride, n - stride):
            if (
                room(passable, unit, cell + dx)
                and room(passable, unit, cell + dy)
                and room(passable, unit, cell + dx + dy)
            ):
                flags[cell] |= bit
    return flags


@njit(nogil=True, cache=True, inline="always")
def _window(bits, line, pos):
    """The 64 cells of ``line`` from ``pos`` on (bit ``i``: cell ``pos + i``);
    ``pos >= -MARGIN``."""
    p = pos + MARGIN
    o = p >> 6
    s = np.uint64(p & 63)
    # (w << 1) << (63 - s): the high word's part without a shift by 64 when s == 0
    return (bits[line, o] >> s) | ((bits[line, o + 1] << _ONE) << (_63 - s))


@njit(nogil=True, cache=True)
def stop_forward(stops, line, pos):
    """Cells from ``pos`` to the first stop (a wall or a jump point) of ``line`` towards
    higher positions. The border's blocked cells end every line."""
    k = 1
    while True:
        window = _window(stops, line, pos + k)
        if window != 0:
            return k + np.int64(trailing_zeros(window))
        k += 64


@njit(nogil=True, cache=True)
def stop_backward(stops, line, pos):
    """:func:`stop_forward` towards lower positions."""
    k = 1
    while True:
        window = _window(stops, line, pos - k - 63)  # bit 63: cell pos - k
        if window != 0:
            return k + np.int64(leading_zeros(window))
        k += 64


@njit(nogil=True, cache=True, inline="always")
def _straight(blocks, x, y, col):
    east, west, south, north, _flags, passable, stride, _prune = blocks
    if col == JUMP_EAST:
        k = stop_forward(east, y, x)
        cell = y * stride + x + k
    elif col == JUMP_WEST:
        k = stop_backward(west, y, x)
        cell = y * stride + x - k
    elif col == JUMP_SOUTH:
        k = stop_forward(south, x, y)
        cell = (y + k) * stride + x
    else:
        k = stop_backward(north, x, y)
        cell = (y - k) * stride + x
    return k if passable[cell] != 0 else -k


@njit(nogil=True, cache=True, inline="always")
def _diagonal(blocks, cell, col):
    """The diagonal entry: diagonal steps to the first cell from which a straight jump
    along either component finds a jump point (``k``), or to a wall or cut corner
    (``-k``), from the flags (one byte per step)."""
    flags, stride = blocks[4], blocks[6]
    if col == JUMP_NE:
        step, finds = 1 - stride, FINDS[JUMP_EAST] | FINDS[JUMP_NORTH]
    elif col == JUMP_SE:
        step, finds = 1 + stride, FINDS[JUMP_EAST] | FINDS[JUMP_SOUTH]
    elif col == JUMP_SW:
        step, finds = stride - 1, FINDS[JUMP_WEST] | FINDS[JUMP_SOUTH]
    else:
        step, finds = -1 - stride, FINDS[JUMP_WEST] | FINDS[JUMP_NORTH]
    legal = STEPS[col - 4]
    k = 0
    while True:
        k += 1
        if not flags[cell] & legal:
            return -k
        cell += step
        if flags[cell] & finds:
            return k


@njit(nogil=True, cache=True, inline="always")
def entry(source, cell, x, y, col):
    """A jump's entry (see :mod:`gridpath.search._jumps`) from a JPS+ table (a lookup) or a
    :data:`Blocks` record (a scan). Which one is settled when the kernel compiles."""
    if isinstance(source, tuple):
        if col < 4:
            return _straight(source, x, y, col)
        return _diagonal(source, cell, col)
    return np.int64(source[cell, col])


@njit(nogil=True, cache=True, inline="always")
def prunes(source):
    """Whether the search prunes intermediate jump points: always with a JPS+ table, as the
    record says with a :data:`Blocks` record."""
    if isinstance(source, tuple):
        return source[7]
    return True


@njit(nogil=True, cache=True, inline="always")
def warm(source, cell):
    """Prefetch the table row a jump will read (nothing for a :data:`Blocks` record)."""
    if not isinstance(source, tuple):
        prefetch(source, cell)
