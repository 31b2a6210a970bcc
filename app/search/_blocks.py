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

The scans answer exactly what a JPS+ jump table entry holds (:mod:`app.search._jumps`:
``k > 0`` a jump point ``k`` steps away, ``k < 0`` a wall ``-k`` steps away, the goal
ignored), so the JPS kernel (:mod:`app.search._jps`) reads a :data:`Blocks` record
through the same ``entry`` call as a table and finds the same jump points in the same
order: the same paths as JPS+, computed without a table. A diagonal entry steps along
the diagonal and runs the two straight scans at each cell (the paper's online JPS).

The record ``(rows, columns, passable, stride)`` is built per map revision by
:func:`jump_blocks` with ``np.packbits`` (a vectorised pass over the map; an edit makes a
new revision, whose bitsets are built the same way).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import overload

from app.search._jumps import (
    JUMP_EAST,
    JUMP_NE,
    JUMP_NORTH,
    JUMP_NW,
    JUMP_SE,
    JUMP_SOUTH,
    JUMP_SW,
    JUMP_WEST,
)
from app.search._prefetch import prefetch

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


def jump_blocks(passable: np.ndarray, stride: int, unit: int = 1) -> tuple:
    """The :data:`Blocks` record of a padded flat grid for units of size ``unit``."""
    open_cells = passable.reshape(-1, stride) >= unit
    rows = line_bits(open_cells)
    columns = line_bits(np.ascontiguousarray(open_cells.T))
    return (rows, columns, passable, int(stride))


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
def scan_forward(bits, line, pos):
    """The straight entry from cell ``pos`` of ``line`` towards higher positions: ``k > 0``
    a forced neighbour (from the lines on either side) ``k`` cells on, ``-k`` a wall."""
    k = 0
    while True:
        here = _window(bits, line, pos + 1)
        before = _window(bits, line - 1, pos + 1) & ~_window(bits, line - 1, pos)
        after = _window(bits, line + 1, pos + 1) & ~_window(bits, line + 1, pos)
        stop = ~here | before | after
        if stop != 0:
            i = np.int64(trailing_zeros(stop))
            return k + i + 1 if (here >> np.uint64(i)) & _ONE else -(k + i + 1)
        pos += 64
        k += 64


@njit(nogil=True, cache=True)
def scan_backward(bits, line, pos):
    """:func:`scan_forward` towards lower positions."""
    k = 0
    while True:
        low = pos - 64  # the window holds cells pos-64 .. pos-1 (bit 63: pos - 1)
        here = _window(bits, line, low)
        before = _window(bits, line - 1, low) & ~_window(bits, line - 1, low + 1)
        after = _window(bits, line + 1, low) & ~_window(bits, line + 1, low + 1)
        stop = ~here | before | after
        if stop != 0:
            i = 63 - np.int64(leading_zeros(stop))
            return k + 64 - i if (here >> np.uint64(i)) & _ONE else -(k + 64 - i)
        pos -= 64
        k += 64


@njit(nogil=True, cache=True, inline="always")
def _straight(blocks, x, y, col):
    rows, columns, _passable, _stride = blocks
    if col == JUMP_EAST:
        return scan_forward(rows, y, x)
    if col == JUMP_WEST:
        return scan_backward(rows, y, x)
    if col == JUMP_SOUTH:
        return scan_forward(columns, x, y)
    return scan_backward(columns, x, y)


@njit(nogil=True, cache=True)
def _diagonal(blocks, cell, x, y, col):
    """The diagonal entry: diagonal steps to the first cell from which a straight jump
    along either component finds a jump point (``k``), or to a wall or cut corner
    (``-k``)."""
    _rows, _columns, passable, stride = blocks
    if col == JUMP_NE:
        dx, dy, col_x, col_y = 1, -1, JUMP_EAST, JUMP_NORTH
    elif col == JUMP_SE:
        dx, dy, col_x, col_y = 1, 1, JUMP_EAST, JUMP_SOUTH
    elif col == JUMP_SW:
        dx, dy, col_x, col_y = -1, 1, JUMP_WEST, JUMP_SOUTH
    else:
        dx, dy, col_x, col_y = -1, -1, JUMP_WEST, JUMP_NORTH
    step_y = dy * stride
    k = 0
    while True:
        k += 1
        if passable[cell + dx] == 0 or passable[cell + step_y] == 0:
            return -k
        cell += dx + step_y
        if passable[cell] == 0:
            return -k
        x += dx
        y += dy
        if _straight(blocks, x, y, col_x) > 0 or _straight(blocks, x, y, col_y) > 0:
            return k


def entry(source, cell, x, y, col):
    """A jump's entry (see :mod:`app.search._jumps`) from a table or a :data:`Blocks`
    record: compiled code only (the overloads below)."""
    raise NotImplementedError


@overload(entry)
def _entry(source, cell, x, y, col):
    if isinstance(source, types.Array):  # a JPS+ table

        def lookup(source, cell, x, y, col):
            return np.int64(source[cell, col])

        return lookup
    if isinstance(source, types.BaseTuple):  # a Blocks record

        def scan(source, cell, x, y, col):
            if col < 4:
                return _straight(source, x, y, col)
            return _diagonal(source, cell, x, y, col)

        return scan
    return None


def warm(source, cell):
    """Prefetch the table row a jump will read (nothing for a Blocks record)."""
    raise NotImplementedError


@overload(warm)
def _warm(source, cell):
    if isinstance(source, types.Array):

        def hint(source, cell):
            prefetch(source, cell)

        return hint
    if isinstance(source, types.BaseTuple):

        def nothing(source, cell):
            pass

        return nothing
    return None
