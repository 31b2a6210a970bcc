"""Block-based jump point search: JPS without jump distances, scanning the map 64 cells at a time.

Harabor and Grastien, "Improving Jump Point Search" (ICAPS 2014): the map is kept as
bitsets, rows for the horizontal scans and the transposed grid (columns) for the vertical
ones, and a straight jump finds the next wall or jump point among 64 cells with one
count-trailing-zeros (count-leading-zeros going west or north). Intermediate jump points
are pruned as with JPS+ jump distances (:func:`gridpath.search._jps._offer_diagonal`): a diagonal
walk offers the end points of the straight jumps from each of its cells, linked to the
node being expanded, and goes on. The search offers the same nodes in the same order as
JPS+ does with its jump distances and keeps the same frontier order, so it expands the same jump
points and returns the same path: which of the two served a query never shows in the
answer.

The block record is ``(bits, row_stride, column_stride, column_base)``: ``bits`` one flat
uint64 array, row ``y`` of the padded grid from ``y * row_stride`` on, column ``x`` from
``column_base + x * column_stride`` on. A line is a run of word triples: blocked cells,
jump points arriving forwards (east, or south for a column), jump points arriving
backwards (west, north). Cell ``i`` of a line is bit
``MARGIN + i``; the margin word before a line and the words after it hold no cell, and the
padded grid's border is blocked, so a scan never leaves its line. A jump point arriving
eastwards is an open cell with an open cell above (below) whose west neighbour is blocked
(a forced neighbour); the other directions alike. Each bit depends on a 3 x 3
neighbourhood only, so an edit updates the bits of the cells around the cells it changed
(:func:`edit_block_bits`), with no jump distances to rebuild.

The kernel's helpers are closures over its arrays (numba inlines them and keeps the arrays
in registers); module-level ``inline="always"`` helpers that take arrays made numba emit
reference-count calls in the scan and heap loops, measured at about twice the time.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from gridpath.search._frontier import (
    CAME_FROM,
    CELL,
    COST_DIAG,
    COST_ORTH,
    FOUND,
    HEAP_POS,
    LIMIT_REACHED,
    NO_PARENT,
    STATE,
    UNREACHABLE,
    F,
    G,
)
from gridpath.search._jps import successor_directions

MARGIN = 64  # bit position of a line's cell 0: one word without cells before it
BLOCKED, FORWARD, BACKWARD = 0, 1, 2  # the words of a triple
_ONE = np.uint64(1)
_THREE = np.uint64(3)
_63 = np.uint64(63)


def _line_words(length: int) -> int:
    """Words per line of ``length`` cells: the margin, the cells, one word to spare."""
    return (MARGIN + length + 63) // 64 + 1


def block_bytes(width: int, height: int) -> int:
    """The bytes of a block record's bitsets for a ``width`` x ``height`` map."""
    rows, cols = height + 2, width + 2
    return 24 * (rows * _line_words(cols) + cols * _line_words(rows))


def block_bits(passable: np.ndarray, stride: int) -> tuple:
    """The block record of a padded flat grid (walkable: ``passable != 0``; units of size
    1). A vectorised pass over the map: a few ms for a million cells."""
    open_cells = passable.reshape(-1, stride) != 0
    rows, cols = open_cells.shape
    row_words, col_words = _line_words(cols), _line_words(rows)
    bits = np.zeros(rows * row_words * 3 + cols * col_words * 3, dtype=np.uint64)
    rows_view = bits[: rows * row_words * 3].reshape(rows, row_words, 3)
    cols_view = bits[rows * row_words * 3 :].reshape(cols, col_words, 3)
    east, west, south, north = (np.zeros_like(open_cells) for _ in range(4))
    inner = np.s_[1:-1, 1:-1]
    for side in (-1, 1):  # the row above (the column left), then below (right)
        beside = open_cells[1 + side : rows - 1 + side, 1:-1]
        east[inner] |= beside & ~open_cells[1 + side : rows - 1 + side, :-2]
        west[inner] |= beside & ~open_cells[1 + side : rows - 1 + side, 2:]
        beside = open_cells[1:-1, 1 + side : cols - 1 + side]
        south[inner] |= beside & ~open_cells[:-2, 1 + side : cols - 1 + side]
        north[inner] |= beside & ~open_cells[2:, 1 + side : cols - 1 + side]
    for view, words, planes in (
        (rows_view, row_words, (~open_cells, east & open_cells, west & open_cells)),
        (cols_view, col_words, (~open_cells.T, (south & open_cells).T, (north & open_cells).T)),
    ):
        for plane, cells in enumerate(planes):
            padded = np.zeros((cells.shape[0], words * 64), dtype=bool)
            padded[:, MARGIN : MARGIN + cells.shape[1]] = cells
            view[:, :, plane] = np.packbits(padded, axis=1, bitorder="little").view("<u8")
    bits.flags.writeable = False
    return (bits, row_words * 3, col_words * 3, rows * row_words * 3)


def edit_block_bits(record: tuple, passable: np.ndarray, stride: int, changed: np.ndarray) -> tuple:
    """The block record after an edit: ``record`` (the earlier revision's, not modified)
    with the bits of the padded cells ``changed`` (whose walkability changed) and of their
    eight neighbours recomputed from the new ``passable``. A copy of the bitsets (under a
    byte per cell) and O(cells changed) work."""
    bits = record[0].copy()
    _edit_bits(bits, record[1], record[2], record[3], passable, stride, changed)
    bits.flags.writeable = False
    return (bits, *record[1:])


@njit(nogil=True, cache=True)
def _edit_bits(bits, row_len, col_len, col_base, passable, stride, changed):
    rows = passable.shape[0] // stride
    for centre in changed:
        cx, cy = centre % stride, centre // stride
        for y in range(max(1, cy - 1), min(rows - 1, cy + 2)):
            for x in range(max(1, cx - 1), min(stride - 1, cx + 2)):
                c = y * stride + x
                is_open = passable[c] != 0
                up, down = passable[c - stride] != 0, passable[c + stride] != 0
                left, right = passable[c - 1] != 0, passable[c + 1] != 0
                planes = (
                    not is_open,
                    is_open
                    and (
                        (up and passable[c - stride - 1] == 0)
                        or (down and passable[c + stride - 1] == 0)
                    ),
                    is_open
                    and (
                        (up and passable[c - stride + 1] == 0)
                        or (down and passable[c + stride + 1] == 0)
                    ),
                )
                for plane in range(3):
                    _set_bit(bits, y * row_len, x, plane, planes[plane])
                planes = (
                    not is_open,
                    is_open
                    and (
                        (left and passable[c - stride - 1] == 0)
                        or (right and passable[c - stride + 1] == 0)
                    ),
                    is_open
                    and (
                        (left and passable[c + stride - 1] == 0)
                        or (right and passable[c + stride + 1] == 0)
                    ),
                )
                for plane in range(3):
                    _set_bit(bits, col_base + x * col_len, y, plane, planes[plane])


@njit(nogil=True, cache=True, inline="always")
def _set_bit(bits, base, pos, plane, value):
    p = pos + MARGIN
    word = base + 3 * (p >> 6) + plane
    bit = _ONE << np.uint64(p & 63)
    if value:
        bits[word] |= bit
    else:
        bits[word] &= ~bit


@njit(nogil=True, cache=True)
def jps_blocks(grid, rules, scratch, blocks, start, goal):
    """Jump point search with block scans from ``start`` to ``goal``: the records and
    returns of :func:`gridpath.search._jps.jps` (``came_from`` links jump points: expand them
    with :func:`gridpath.search._jps.expand_jumps`), units of size 1."""
    passable, stride, _terrain = grid
    _unit, _diagonal, orth_w, diag_w, _costs, _uniform, max_expanded, _max_cost, _turn = rules
    nodes, frontier, _g_cost, _marks, generation = scratch
    bits, row_len, col_len, col_base = blocks
    open_mark = np.int32(2 * generation)
    closed_mark = np.int32(2 * generation + 1)
    goal_x = goal % stride
    goal_y = goal // stride

    def before(f_a, g_a, n_a, f_b, g_b, n_b):  # the frontier order (gridpath.search._frontier)
        if f_a != f_b:
            return f_a < f_b
        if g_a != g_b:
            return g_a > g_b
        return n_a < n_b

    def relax(size, cell, x, y, a, d, parent):
        """Offer ``parent -> cell`` at cost ``(a, d)`` (as :func:`gridpath.search._astar.relax`)."""
        row = np.uint64(cell)  # unsigned indices throughout: see word()
        s = nodes[row, STATE]
        if s == closed_mark:
            return size
        g = a * orth_w + d * diag_w
        if s == open_mark:
            if not g < nodes[row, COST_ORTH] * orth_w + nodes[row, COST_DIAG] * diag_w:
                return size
            i = np.uint64(nodes[row, HEAP_POS])
        else:
            nodes[row, STATE] = open_mark
            i = np.uint64(size)
            size += 1
        nodes[row, COST_ORTH] = a
        nodes[row, COST_DIAG] = d
        nodes[row, CAME_FROM] = parent
        far, near = abs(x - goal_x), abs(y - goal_y)
        if far < near:
            far, near = near, far
        f = (a + far - near) * orth_w + (d + near) * diag_w
        index = np.float64(cell)
        while i > 0:  # sift up
            p = (i - _ONE) >> _ONE
            pf, pg, pc = frontier[p, F], frontier[p, G], frontier[p, CELL]
            if not before(f, g, index, pf, pg, pc):
                break
            frontier[i, F], frontier[i, G], frontier[i, CELL] = pf, pg, pc
            nodes[np.uint64(pc), HEAP_POS] = i
            i = p
        frontier[i, F], frontier[i, G], frontier[i, CELL] = f, g, index
        nodes[row, HEAP_POS] = i
        return size

    def pop(size):
        current = int(frontier[0, CELL])
        size -= 1
        if size > 0:
            last = np.uint64(size)
            f, g, index = frontier[last, F], frontier[last, G], frontier[last, CELL]
            i = np.uint64(0)
            end = np.uint64(size)
            while True:  # sift down
                c = i + i + _ONE
                if c >= end:
                    break
                r = c + _ONE
                if r < end and before(
                    frontier[r, F], frontier[r, G], frontier[r, CELL],
                    frontier[c, F], frontier[c, G], frontier[c, CELL],
                ):  # fmt: skip
                    c = r
                cf, cg, cc = frontier[c, F], frontier[c, G], frontier[c, CELL]
                if not before(cf, cg, cc, f, g, index):
                    break
                frontier[i, F], frontier[i, G], frontier[i, CELL] = cf, cg, cc
                nodes[np.uint64(cc), HEAP_POS] = i
                i = c
            frontier[i, F], frontier[i, G], frontier[i, CELL] = f, g, index
            nodes[np.uint64(index), HEAP_POS] = i
        return current, size

    def word(base, p):
        """The index of the triple holding bit ``p`` of the line at ``base``, unsigned: numba
        adds a negative-index fix-up to every read with a signed index (measured 5-10 %
        of the search time in the scans)."""
        return np.uint64(base + 3 * (p >> 6))

    def onward(o, k, plane, ahead):
        """The words after the triple at ``o`` (before it unless ``ahead``) up to the first
        with a stop: ``(k, blocked word, jump word)``, ``k`` (the steps to that word's
        nearest cell) grown by 64 a word. ``ahead`` is a constant at each call, so the
        compiler drops the test."""
        while True:
            o = o + _THREE if ahead else o - _THREE
            w = bits[o]
            j = bits[o + np.uint64(plane)]
            if (w | j) != 0:
                return k, w, j
            k += 64

    def forward(base, pos, plane):
        """From ``pos`` of the line at ``base``, the first stop at a higher position:
        ``(steps, whether it is a jump point rather than a wall)``."""
        p = pos + MARGIN + 1
        o = word(base, p)
        s = np.uint64(p & 63)
        w = bits[o] >> s
        j = bits[o + np.uint64(plane)] >> s
        k = 1
        if (w | j) == 0:
            k, w, j = onward(o, 65 - (p & 63), plane, True)
        t = np.int64(trailing_zeros(w | j))
        return k + t, (j >> np.uint64(t)) & _ONE != 0

    def backward(base, pos, plane):
        """:func:`forward` towards lower positions."""
        p = pos + MARGIN - 1
        o = word(base, p)
        s = np.uint64(63 - (p & 63))
        w = bits[o] << s
        j = bits[o + np.uint64(plane)] << s
        k = 1
        if (w | j) == 0:
            k, w, j = onward(o, 2 + (p & 63), plane, False)
        t = np.int64(leading_zeros(w | j))
        return k + t, (j << np.uint64(t)) >> _63 != 0

    def here_forward(base, pos, plane):
        """Whether the cell at ``pos`` is blocked, and :func:`forward` from it, reading the
        word under the cell first (a diagonal walk's step)."""
        p = pos + MARGIN
        o = word(base, p)
        s = np.uint64(p & 63)
        w = bits[o] >> s
        if w & _ONE:
            return True, 0, False
        w >>= _ONE
        j = (bits[o + np.uint64(plane)] >> s) >> _ONE
        k = 1
        if (w | j) == 0:
            k, w, j = onward(o, 64 - (p & 63), plane, True)
        t = np.int64(trailing_zeros(w | j))
        return False, k + t, (j >> np.uint64(t)) & _ONE != 0

    def here_backward(base, pos, plane):
        """:func:`here_forward` towards lower positions."""
        p = pos + MARGIN
        o = word(base, p)
        s = np.uint64(63 - (p & 63))
        w = bits[o] << s
        if w >> _63:
            return True, 0, False
        w <<= _ONE
        j = (bits[o + np.uint64(plane)] << s) << _ONE
        k = 1
        if (w | j) == 0:
            k, w, j = onward(o, 1 + (p & 63), plane, False)
        t = np.int64(leading_zeros(w | j))
        return False, k + t, (j << np.uint64(t)) >> _63 != 0

    def straight(x, y, dx, dy):
        """Steps from ``(x, y)`` to the next jump point in straight direction (dx, dy), the
        goal if it lies on the way first; -1: a wall first (the JPS+ lookup's answer)."""
        if dx > 0:
            k, jump = forward(y * row_len, x, FORWARD)
            on, ahead = goal_y == y, goal_x - x
        elif dx < 0:
            k, jump = backward(y * row_len, x, BACKWARD)
            on, ahead = goal_y == y, x - goal_x
        elif dy > 0:
            k, jump = forward(col_base + x * col_len, y, FORWARD)
            on, ahead = goal_x == x, goal_y - y
        else:
            k, jump = backward(col_base + x * col_len, y, BACKWARD)
            on, ahead = goal_x == x, y - goal_y
        if on and 1 <= ahead < k + jump:  # a wall k steps away leaves k - 1 open cells
            return ahead
        return k if jump else -1

    def diagonal(size, current, x, y, dx, dy, a, d):
        """Walk diagonal (dx, dy) from the node ``current`` at ``(x, y)``, cost ``(a, d)``,
        offering the jump points its two straight branches meet (and the goal)."""
        cell, cx, cy, steps = current, x, y, 0
        while True:
            cell += dx + dy * stride
            cx += dx
            cy += dy
            steps += 1
            if dx > 0:
                blocked, k_x, jump_x = here_forward(cy * row_len, cx, FORWARD)
            else:
                blocked, k_x, jump_x = here_backward(cy * row_len, cx, BACKWARD)
            if blocked:
                return size
            if cell == goal:
                return relax(size, cell, cx, cy, a, d + steps, current)
            if dy > 0:
                _, k_y, jump_y = here_forward(col_base + cx * col_len, cy, FORWARD)
            else:
                _, k_y, jump_y = here_backward(col_base + cx * col_len, cy, BACKWARD)
            k = k_x if jump_x else -1
            if cy == goal_y and 1 <= (goal_x - cx) * dx < k_x + jump_x:
                k = (goal_x - cx) * dx
            if k > 0:
                size = relax(size, cell + k * dx, cx + k * dx, cy, a + k, d + steps, current)
            k = k_y if jump_y else -1
            if cx == goal_x and 1 <= (goal_y - cy) * dy < k_y + jump_y:
                k = (goal_y - cy) * dy
            if k > 0:
                cell_y = cell + k * dy * stride
                size = relax(size, cell_y, cx, cy + k * dy, a + k, d + steps, current)
            if (k_x == 1 and not jump_x) or (k_y == 1 and not jump_y):
                return size  # a wall beside: the next diagonal step would cut its corner

    nodes[start, STATE] = open_mark
    nodes[start, COST_ORTH] = 0
    nodes[start, COST_DIAG] = 0
    nodes[start, CAME_FROM] = NO_PARENT
    nodes[start, HEAP_POS] = 0
    far, near = abs(start % stride - goal_x), abs(start // stride - goal_y)
    if far < near:
        far, near = near, far
    frontier[0, F] = (far - near) * orth_w + near * diag_w
    frontier[0, G] = 0.0
    frontier[0, CELL] = start
    size = 1
    expanded = 0
    dirs = np.empty((8, 2), dtype=np.int64)  # (dx, dy) to try from the node expanded

    while size > 0:
        current, size = pop(size)
        nodes[current, STATE] = closed_mark
        expanded += 1
        if current == goal:
            return FOUND, expanded
        if expanded >= max_expanded:
            return LIMIT_REACHED, expanded
        x = current % stride
        y = current // stride
        n = successor_directions(passable, 1, stride, current, nodes[current, CAME_FROM], dirs)

        a = nodes[current, COST_ORTH]
        d = nodes[current, COST_DIAG]
        for i in range(n):
            dx, dy = dirs[i, 0], dirs[i, 1]
            if dx == 0 or dy == 0:
                k = straight(x, y, dx, dy)
                if k > 0:
                    cell = current + k * (dx + dy * stride)
                    size = relax(size, cell, x + k * dx, y + k * dy, a + k, d, current)
                continue
            # The diagonal walk: at each cell, the straight jumps along dx and dy (their
            # end points offered, linked to current); the walk stops at a blocked cell or
            # where the next step would cut a corner. Written out here, not as a closure:
            # a closure calling relax made numba count references in the loop.
            if passable[current + dx] == 0 or passable[current + dy * stride] == 0:
                continue
            size = diagonal(size, current, x, y, dx, dy, a, d)
    return UNREACHABLE, expanded
