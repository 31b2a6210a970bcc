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
"""

from __future__ import annotations

import numpy as np
from numba import njit

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


@njit(nogil=True, cache=True, inline="always")
def _room(passable, unit, cell):
    return passable[cell] >= unit


@njit(nogil=True, cache=True)
def _jump_straight(passable, unit, cell, step, side, goal):
    """From ``cell`` move by ``step`` (+-1 or +-stride); ``side`` is the perpendicular offset.
    Returns the first jump point, or -1 at a wall."""
    while True:
        cell += step
        if not _room(passable, unit, cell):
            return -1
        if cell == goal:
            return cell
        if (
            _room(passable, unit, cell + side) and not _room(passable, unit, cell + side - step)
        ) or (_room(passable, unit, cell - side) and not _room(passable, unit, cell - side - step)):
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


@njit(nogil=True, cache=True)
def jps(
    passable, stride, unit, start, goal, max_expanded, orth_w, diag_w, nodes, frontier, generation
):
    """Jump point search from ``start`` to ``goal``; same returns as ``astar_octile``
    (``expanded`` counts jump points). ``came_from`` links jump points: expand them with
    :func:`expand_jumps`."""
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
                    jp = _jump_straight(passable, unit, current, -stride, 1, goal)
                elif k == 1:
                    jp = _jump_straight(passable, unit, current, 1, stride, goal)
                elif k == 2:
                    jp = _jump_straight(passable, unit, current, stride, 1, goal)
                elif k == 3:
                    jp = _jump_straight(passable, unit, current, -1, stride, goal)
                elif k == 4:
                    jp = _jump_diagonal(passable, unit, current, 1, -stride, stride, goal)
                elif k == 5:
                    jp = _jump_diagonal(passable, unit, current, 1, stride, stride, goal)
                elif k == 6:
                    jp = _jump_diagonal(passable, unit, current, -1, stride, stride, goal)
                else:
                    jp = _jump_diagonal(passable, unit, current, -1, -stride, stride, goal)
                if jp >= 0:
                    candidates[n] = jp
                    n += 1
        else:
            dx = _sign(x - parent % stride)
            dy = _sign(y - parent // stride)
            if dx != 0 and dy != 0:  # arrived diagonally: straight x, straight y, diagonal
                jp = _jump_straight(passable, unit, current, dx, stride, goal)
                if jp >= 0:
                    candidates[n] = jp
                    n += 1
                jp = _jump_straight(passable, unit, current, dy * stride, 1, goal)
                if jp >= 0:
                    candidates[n] = jp
                    n += 1
                jp = _jump_diagonal(passable, unit, current, dx, dy * stride, stride, goal)
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
                        jp = _jump_straight(
                            passable, unit, current, s, ahead if ahead > 0 else -ahead, goal
                        )
                        if jp >= 0:
                            candidates[n] = jp
                            n += 1
                        if ahead_open:
                            jp = _jump_diagonal(
                                passable,
                                unit,
                                current,
                                ahead if dx != 0 else s,
                                s if dx != 0 else ahead,
                                stride,
                                goal,
                            )
                            if jp >= 0:
                                candidates[n] = jp
                                n += 1
                if ahead_open:
                    jp = _jump_straight(passable, unit, current, ahead, side, goal)
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
