"""Jump point search (Harabor and Grastien), in the variant that forbids corner cutting.

On a uniform-cost 8-connected grid where a diagonal step needs both orthogonal
neighbours open, JPS expands only "jump points" and returns paths of exactly the A*
cost. It shares the fast kernel's machinery: padded grid, exact (straight, diagonal)
cost pairs, the same frontier order, generation-stamped scratch.

Pruning rules for this variant (as in PathFinding.js's "only when no obstacles" finder):

* Arriving straight (say east): continue east; where a side cell is open and the cell
  behind it (west of it) is blocked, that side cell can only be reached well through the
  current cell, so the current cell is a jump point (a forced neighbour).
* Arriving diagonally (say north-east): the cell is a jump point if a straight jump east
  or north from it finds one; the diagonal continues only if both orthogonal neighbours
  in its direction are open.

JPS+ (Rabin's "jump point search plus"): the map's jump table (:mod:`app.grid.jumps`)
holds, per cell and direction, how far a jump goes before it meets a jump point or a
wall, ignoring the goal. With it a jump is a lookup plus an O(1) test of whether the goal
lies on the way, and the search expands exactly the same jump points in the same order
as the scanning search: same path, same ``expanded``. Pass ``table=None`` to scan.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from app.grid.jumps import (
    JUMP_EAST,
    JUMP_NE,
    JUMP_NORTH,
    JUMP_NW,
    JUMP_SE,
    JUMP_SOUTH,
    JUMP_SW,
    JUMP_WEST,
    forced,
)
from app.grid.jumps import room as _room
from app.search._kernels import (
    CAME_FROM,
    CELL,
    COST_DIAG,
    COST_ORTH,
    FOUND,
    HEAP_POS,
    LIMIT_REACHED,
    STATE,
    UNREACHABLE,
    F,
    G,
    _octile_pair,
    _pop,
    _relax,
)


@njit(nogil=True, cache=True)
def _jump_straight(passable, unit, cell, step, side, goal):
    """From ``cell`` move by ``step`` (+-1 or +-stride); ``side`` is the perpendicular offset.
    Returns the first jump point, or -1 at a wall."""
    while True:
        cell += step
        if not _room(passable, unit, cell):
            return -1
        if cell == goal or forced(passable, unit, cell, step, side):
            return cell


@njit(nogil=True, cache=True)
def _jump_diagonal(passable, unit, cell, step_x, step_y, stride, goal):
    """From ``cell`` move diagonally by (``step_x``, ``step_y`` rows); returns the first jump
    point, or -1 when a wall or a corner stops the diagonal."""
    while True:
        if not (_room(passable, unit, cell + step_x) and _room(passable, unit, cell + step_y)):
            return -1  # the diagonal step would cut a corner
        cell += step_x + step_y
        if not _room(passable, unit, cell):
            return -1
        if cell == goal:
            return cell
        if (
            _jump_straight(passable, unit, cell, step_x, stride, goal) >= 0
            or _jump_straight(passable, unit, cell, step_y, 1, goal) >= 0
        ):
            return cell


@njit(nogil=True, cache=True, inline="always")
def _sign(v):
    return (v > 0) - (v < 0)


@njit(nogil=True, cache=True, inline="always")
def _open_ahead(entry):
    """Open cells a jump passes before it stops (the jump point itself included)."""
    return entry if entry > 0 else -entry - 1


@njit(nogil=True, cache=True)
def _table_straight(table, stride, cell, step, goal):
    """:func:`_jump_straight` by lookup: the goal, if it lies on the way, else the table's
    jump point, else -1."""
    if step == 1:
        col, on_line, ahead = JUMP_EAST, goal // stride == cell // stride, goal - cell
    elif step == -1:
        col, on_line, ahead = JUMP_WEST, goal // stride == cell // stride, cell - goal
    elif step > 0:
        col, on_line, ahead = JUMP_SOUTH, goal % stride == cell % stride, (goal - cell) // stride
    else:
        col, on_line, ahead = JUMP_NORTH, goal % stride == cell % stride, (cell - goal) // stride
    entry = np.int64(table[cell, col])
    if on_line and 1 <= ahead <= _open_ahead(entry):
        return goal
    return cell + entry * step if entry > 0 else -1


@njit(nogil=True, cache=True, inline="always")
def _goal_beside(table, col, entry_cell, distance):
    """Whether a straight jump (column ``col``) from ``entry_cell`` reaches a goal
    ``distance`` cells ahead (0: the cell is the goal)."""
    return distance == 0 or (1 <= distance <= _open_ahead(np.int64(table[entry_cell, col])))


@njit(nogil=True, cache=True)
def _table_diagonal(table, stride, cell, step_x, step_y, goal):
    """:func:`_jump_diagonal` by lookup. Without a goal the diagonal stops where the table
    says; the goal can stop it earlier only on the goal's row (a horizontal jump reaches
    it) or the goal's column (a vertical one does)."""
    dy = 1 if step_y > 0 else -1
    if step_x > 0:
        col, col_x, col_y = (
            (JUMP_SE, JUMP_EAST, JUMP_SOUTH) if dy > 0 else (JUMP_NE, JUMP_EAST, JUMP_NORTH)
        )
    else:
        col, col_x, col_y = (
            (JUMP_SW, JUMP_WEST, JUMP_SOUTH) if dy > 0 else (JUMP_NW, JUMP_WEST, JUMP_NORTH)
        )
    entry = np.int64(table[cell, col])
    reach = _open_ahead(entry)  # diagonal steps possible before the jump stops
    best = entry if entry > 0 else reach + 1  # reach + 1: nothing found
    x = cell % stride
    y = cell // stride
    gx = goal % stride
    gy = goal // stride
    diag = step_x + step_y
    k = (gy - y) * dy  # steps to the goal's row
    if 1 <= k < best and _goal_beside(
        table, col_x, cell + k * diag, (gx - x - k * step_x) * step_x
    ):
        best = k
    k = (gx - x) * step_x  # steps to the goal's column
    if 1 <= k < best and _goal_beside(table, col_y, cell + k * diag, (gy - y - k * dy) * dy):
        best = k
    return cell + best * diag if best <= reach else -1


@njit(nogil=True, cache=True)
def _straight(passable, unit, table, stride, cell, step, side, goal):
    if table is None:
        return _jump_straight(passable, unit, cell, step, side, goal)
    return _table_straight(table, stride, cell, step, goal)


@njit(nogil=True, cache=True)
def _diagonal(passable, unit, table, stride, cell, step_x, step_y, goal):
    if table is None:
        return _jump_diagonal(passable, unit, cell, step_x, step_y, stride, goal)
    return _table_diagonal(table, stride, cell, step_x, step_y, goal)


@njit(nogil=True, cache=True)
def jps(
    passable,
    stride,
    unit,
    table,
    start,
    goal,
    max_expanded,
    orth_w,
    diag_w,
    nodes,
    frontier,
    generation,
):
    """Jump point search from ``start`` to ``goal``; same returns as ``astar_octile``
    (``expanded`` counts jump points). ``came_from`` links jump points: expand them with
    :func:`expand_jumps`. ``table``: the map's jump table for this ``unit`` (JPS+), or
    None to scan the grid; both give the same answer."""
    open_mark = np.int32(2 * generation)
    closed_mark = np.int32(2 * generation + 1)
    goal_x = goal % stride
    goal_y = goal // stride
    nodes[start, STATE] = open_mark
    nodes[start, COST_ORTH] = 0
    nodes[start, COST_DIAG] = 0
    nodes[start, CAME_FROM] = -1
    nodes[start, HEAP_POS] = 0
    ha, hd = _octile_pair(start % stride, start // stride, goal_x, goal_y)
    frontier[0, F] = ha * orth_w + hd * diag_w
    frontier[0, G] = 0.0
    frontier[0, CELL] = start
    size = 1
    expanded = 0
    candidates = np.empty(8, dtype=np.int64)

    while size > 0:
        current, size = _pop(frontier, nodes, size, 0.0)
        nodes[current, STATE] = closed_mark
        expanded += 1
        if current == goal:
            return FOUND, expanded
        if expanded >= max_expanded:
            return LIMIT_REACHED, expanded

        x = current % stride
        y = current // stride
        parent = nodes[current, CAME_FROM]
        n = 0
        if parent < 0:  # the start: every direction, N E S W NE SE SW NW
            for k in range(8):
                if k == 0:
                    jp = _straight(passable, unit, table, stride, current, -stride, 1, goal)
                elif k == 1:
                    jp = _straight(passable, unit, table, stride, current, 1, stride, goal)
                elif k == 2:
                    jp = _straight(passable, unit, table, stride, current, stride, 1, goal)
                elif k == 3:
                    jp = _straight(passable, unit, table, stride, current, -1, stride, goal)
                elif k == 4:
                    jp = _diagonal(passable, unit, table, stride, current, 1, -stride, goal)
                elif k == 5:
                    jp = _diagonal(passable, unit, table, stride, current, 1, stride, goal)
                elif k == 6:
                    jp = _diagonal(passable, unit, table, stride, current, -1, stride, goal)
                else:
                    jp = _diagonal(passable, unit, table, stride, current, -1, -stride, goal)
                if jp >= 0:
                    candidates[n] = jp
                    n += 1
        else:
            dx = _sign(x - parent % stride)
            dy = _sign(y - parent // stride)
            if dx != 0 and dy != 0:  # arrived diagonally: straight x, straight y, diagonal
                jp = _straight(passable, unit, table, stride, current, dx, stride, goal)
                if jp >= 0:
                    candidates[n] = jp
                    n += 1
                jp = _straight(passable, unit, table, stride, current, dy * stride, 1, goal)
                if jp >= 0:
                    candidates[n] = jp
                    n += 1
                jp = _diagonal(passable, unit, table, stride, current, dx, dy * stride, goal)
                if jp >= 0:
                    candidates[n] = jp
                    n += 1
            else:  # arrived straight: ahead, the sides, and the diagonals ahead
                if dx != 0:
                    ahead = dx
                    side = stride
                else:
                    ahead = dy * stride
                    side = 1
                ahead_open = _room(passable, unit, current + ahead)
                for s in (side, -side):
                    if _room(passable, unit, current + s):
                        across = ahead if ahead > 0 else -ahead
                        jp = _straight(passable, unit, table, stride, current, s, across, goal)
                        if jp >= 0:
                            candidates[n] = jp
                            n += 1
                        if ahead_open:
                            step_x, step_y = (ahead, s) if dx != 0 else (s, ahead)
                            jp = _diagonal(
                                passable, unit, table, stride, current, step_x, step_y, goal
                            )
                            if jp >= 0:
                                candidates[n] = jp
                                n += 1
                if ahead_open:
                    jp = _straight(passable, unit, table, stride, current, ahead, side, goal)
                    if jp >= 0:
                        candidates[n] = jp
                        n += 1

        a = nodes[current, COST_ORTH]
        d = nodes[current, COST_DIAG]
        for i in range(n):
            jp = candidates[i]
            jx = jp % stride
            jy = jp // stride
            ddx = abs(jx - x)
            ddy = abs(jy - y)
            lo = min(ddx, ddy)
            # fmt: off
            size = _relax(jp, jx, jy, a + max(ddx, ddy) - lo, d + lo, current, goal_x, goal_y,
                          orth_w, diag_w, nodes, frontier, size, open_mark, closed_mark)
            # fmt: on
    return UNREACHABLE, expanded


@njit(nogil=True, cache=True)
def expand_jumps(nodes, goal, stride):
    """The full cell path from the jump-point chain ending at ``goal``: ``(n, 2)`` int32."""
    cells = 1
    node = goal
    while nodes[node, CAME_FROM] >= 0:
        parent = nodes[node, CAME_FROM]
        cells += max(abs(node % stride - parent % stride), abs(node // stride - parent // stride))
        node = parent
    path = np.empty((cells, 2), dtype=np.int32)
    i = cells - 1
    node = goal
    path[i, 0] = node % stride - 1
    path[i, 1] = node // stride - 1
    while nodes[node, CAME_FROM] >= 0:
        parent = nodes[node, CAME_FROM]
        x, y = node % stride, node // stride
        sx = _sign(parent % stride - x)
        sy = _sign(parent // stride - y)
        while x != parent % stride or y != parent // stride:
            x += sx if x != parent % stride else 0
            y += sy if y != parent // stride else 0
            i -= 1
            path[i, 0] = x - 1
            path[i, 1] = y - 1
        node = parent
    return path
