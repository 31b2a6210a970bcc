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

JPS+ (Rabin's "jump point search plus"): the map's jump distances
(:mod:`gridpath.search._jumps`)
holds, per cell and direction, how far a jump goes before it meets a jump point or a
wall, ignoring the goal. With it a jump is a lookup plus an O(1) test of whether the goal
lies on the way. Pass ``jumps=None`` to scan.

With jump distances the search also prunes intermediate jump points (Harabor and Grastien,
"Improving Jump Point Search", 2014): a diagonal jump does not stop at a cell whose only
role is to turn into a straight jump; it offers the straight jumps' end points directly
(each linked to the node being expanded, by a route that runs diagonally first, then
straight) and goes on along the diagonal. On the Dragon Age maps this expands fewer
nodes in less time. Scanning keeps the lazy rule (stop at the first intermediate point),
because there going on along the diagonal means scanning rows eagerly, slower on open maps
(both measured: bench/README.md, "Figures behind decisions in the code"). Both are
optimal; among equal-cost paths they may choose differently, so a map's paths depend on
whether it has long runs (block JPS) or not (the byte scan), which is fixed per revision
by the map.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._astar import open_start, pair_search, relax
from gridpath.search._frontier import (
    CAME_FROM,
    COST_DIAG,
    COST_ORTH,
    FOUND,
    LIMIT_REACHED,
    STATE,
    UNREACHABLE,
    pop,
)
from gridpath.search._jumps import (
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
from gridpath.search._jumps import room as _room
from gridpath.search._prefetch import prefetch

# Every jump is given the cell, its coordinates and a direction (dx, dy), and returns
# how many steps away the jump point is (-1: none). Coordinates are carried along rather
# than recovered from the flat index: a division per jump cost more than the jump.


@njit(nogil=True, cache=True)
def _scan_straight(passable, unit, stride, cell, dx, dy, goal):
    """Scan from ``cell`` in the straight direction (dx, dy) to the first jump point (the
    goal, or a cell with a forced neighbour); -1 at a wall."""
    step = dx + dy * stride
    side = stride if dx != 0 else 1
    k = 0
    while True:
        k += 1
        cell += step
        if not _room(passable, unit, cell):
            return -1
        if cell == goal or forced(passable, unit, cell, step, side):
            return k


@njit(nogil=True, cache=True)
def _scan_diagonal(passable, unit, stride, cell, dx, dy, goal):
    """Scan diagonally in (dx, dy) to the first cell from which a straight jump along dx or
    dy finds a jump point (or the goal); -1 when a wall or a corner stops the diagonal."""
    step_y = dy * stride
    k = 0
    while True:
        if not (_room(passable, unit, cell + dx) and _room(passable, unit, cell + step_y)):
            return -1  # the diagonal step would cut a corner
        k += 1
        cell += dx + step_y
        if not _room(passable, unit, cell):
            return -1
        if (
            cell == goal
            or _scan_straight(passable, unit, stride, cell, dx, 0, goal) >= 0
            or _scan_straight(passable, unit, stride, cell, 0, dy, goal) >= 0
        ):
            return k


@njit(nogil=True, cache=True, inline="always")
def _sign(v):
    return (v > 0) - (v < 0)


@njit(nogil=True, cache=True, inline="always")
def _straight_column(dx, dy):
    if dx > 0:
        return JUMP_EAST
    if dx < 0:
        return JUMP_WEST
    return JUMP_SOUTH if dy > 0 else JUMP_NORTH


@njit(nogil=True, cache=True, inline="always")
def _open_ahead(entry):
    """Open cells a jump passes before it stops (the jump point itself included)."""
    return entry if entry > 0 else -entry - 1


@njit(nogil=True, cache=True, inline="always")
def _goal_ahead(jumps, cell, col, distance):
    """Whether a straight jump (jump distances column ``col``) from ``cell`` reaches a goal
    ``distance`` cells ahead on its line (0: the cell is the goal)."""
    return distance == 0 or 1 <= distance <= _open_ahead(np.int64(jumps[cell, col]))


@njit(nogil=True, cache=True, inline="always")
def _lookup_straight(jumps, cell, x, y, dx, dy, gx, gy):
    """:func:`_scan_straight` by lookup: the goal if it lies on the way, else the jump distances'
    jump point."""
    entry = np.int64(jumps[cell, _straight_column(dx, dy)])
    if dx != 0:
        on_line, ahead = gy == y, (gx - x) * dx
    else:
        on_line, ahead = gx == x, (gy - y) * dy
    if on_line and 1 <= ahead <= _open_ahead(entry):
        return ahead
    return entry if entry > 0 else -1


@njit(nogil=True, cache=True, inline="always")
def _lookup_diagonal(jumps, stride, cell, x, y, dx, dy, gx, gy):
    """:func:`_scan_diagonal` by lookup. Without a goal the diagonal stops where the jump distances
    says; the goal can stop it earlier only on the goal's row (a horizontal jump from there
    reaches it) or on the goal's column (a vertical one does)."""
    if dx > 0:
        col = JUMP_SE if dy > 0 else JUMP_NE
    else:
        col = JUMP_SW if dy > 0 else JUMP_NW
    entry = np.int64(jumps[cell, col])
    reach = _open_ahead(entry)  # diagonal steps the jump can take
    best = entry if entry > 0 else reach + 1  # reach + 1: no jump point
    diagonal = dx + dy * stride
    k = (gy - y) * dy  # steps to the goal's row
    if 1 <= k < best and _goal_ahead(
        jumps, cell + k * diagonal, _straight_column(dx, 0), (gx - x - k * dx) * dx
    ):
        best = k
    k = (gx - x) * dx  # steps to the goal's column
    if 1 <= k < best and _goal_ahead(
        jumps, cell + k * diagonal, _straight_column(0, dy), (gy - y - k * dy) * dy
    ):
        best = k
    return best if best <= reach else -1


@njit(nogil=True, cache=True, inline="always")
def _jump(passable, unit, jumps, stride, at, dx, dy, aim):
    """Steps from ``at`` = ``(cell, x, y)`` to the next jump point in direction (dx, dy),
    or -1; ``aim`` is the goal's ``(x, y, cell)``."""
    cell, x, y = at
    gx, gy, goal = aim
    if jumps is None:
        if dx != 0 and dy != 0:
            return _scan_diagonal(passable, unit, stride, cell, dx, dy, goal)
        return _scan_straight(passable, unit, stride, cell, dx, dy, goal)
    if dx != 0 and dy != 0:
        return _lookup_diagonal(jumps, stride, cell, x, y, dx, dy, gx, gy)
    return _lookup_straight(jumps, cell, x, y, dx, dy, gx, gy)


@njit(nogil=True, cache=True, inline="always")
def _arrival(dx, dy):
    """The direction a node was entered by, from its parent's offset ``(dx, dy)``: a link
    runs diagonally first, then straight, so its last step is along the longer axis (or
    diagonal when both are equal)."""
    if abs(dx) > abs(dy):
        return _sign(dx), 0
    if abs(dy) > abs(dx):
        return 0, _sign(dy)
    return _sign(dx), _sign(dy)


@njit(nogil=True, cache=True, inline="always")
def successor_directions(passable, unit, stride, current, parent, dirs):
    """Jump point search's pruning rules (no corner cutting): fill ``dirs`` with the
    ``(dx, dy)`` to try from ``current``, entered from ``parent`` (< 0: the start), in the
    order they are offered; returns how many. The start tries every direction; a node
    entered diagonally its two straight parts and the diagonal; one entered straight each
    open side and the diagonal past it, then straight ahead. Shared by the byte-scanning
    and block kernels (inlined: no call in their loops)."""
    n = 0
    if parent < 0:  # the start: every direction, N E S W NE SE SW NW
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)):
            dirs[n, 0], dirs[n, 1] = dx, dy
            n += 1
        return n
    dx, dy = _arrival(current % stride - parent % stride, current // stride - parent // stride)
    if dx != 0 and dy != 0:  # arrived diagonally: straight x, straight y, diagonal
        dirs[0, 0], dirs[0, 1] = dx, 0
        dirs[1, 0], dirs[1, 1] = 0, dy
        dirs[2, 0], dirs[2, 1] = dx, dy
        return 3
    ahead_open = _room(passable, unit, current + dx + dy * stride)
    for px, py in ((dy, dx), (-dy, -dx)):  # the two perpendicular directions
        if _room(passable, unit, current + px + py * stride):
            dirs[n, 0], dirs[n, 1] = px, py
            n += 1
            if ahead_open:
                dirs[n, 0], dirs[n, 1] = dx + px, dy + py
                n += 1
    if ahead_open:
        dirs[n, 0], dirs[n, 1] = dx, dy
        n += 1
    return n


@njit(nogil=True, cache=True, inline="always")
def _offer_diagonal(search, size, jumps, stride, at, dx, dy, a, d):
    """JPS+ with intermediate points pruned: walk the diagonal (dx, dy) from ``current``
    from one intermediate jump point to the next, and at each offer the goal (if it is
    that point) or the end points of the straight jumps along dx and dy, all linked to
    ``current``, where ``at`` = ``(current, x, y)``. ``search`` is the pair search's tuple
    (:mod:`gridpath.search._astar`). Returns the new frontier size."""
    current, x, y = at
    goal_x, goal_y = search[4], search[5]
    goal = goal_y * stride + goal_x
    cell = current
    steps = 0  # diagonal steps from current
    while True:
        k = _lookup_diagonal(jumps, stride, cell, x, y, dx, dy, goal_x, goal_y)
        if k < 0:
            return size
        cell += k * (dx + dy * stride)
        x += k * dx
        y += k * dy
        steps += k
        prefetch(jumps, cell + dx + dy * stride)  # often the next intermediate point
        if cell == goal:
            return relax(search, size, cell, x, y, a, d + steps, current)
        k = _lookup_straight(jumps, cell, x, y, dx, 0, goal_x, goal_y)
        if k > 0:
            prefetch(jumps, cell + k * dx)  # its row is read when it is expanded
            size = relax(search, size, cell + k * dx, x + k * dx, y, a + k, d + steps, current)
        k = _lookup_straight(jumps, cell, x, y, 0, dy, goal_x, goal_y)
        if k > 0:
            prefetch(jumps, cell + k * dy * stride)
            size = relax(
                search, size, cell + k * dy * stride, x, y + k * dy, a + k, d + steps, current
            )


@njit(nogil=True, cache=True)
def jps(grid, rules, scratch, jumps, start, goal):
    """Jump point search from ``start`` to ``goal``; same records and returns as
    :func:`gridpath.search._astar.astar_octile` (``expanded`` counts jump points; the unit size
    comes from ``rules``). ``came_from`` links jump points: expand them with
    :func:`expand_jumps`. ``jumps``: the map's jump distances for this unit (JPS+), or None to
    scan the grid; both give the same answer."""
    passable, stride, _terrain = grid
    unit, _diagonal, orth_w, diag_w, _costs, _uniform, max_expanded, _max_cost, _turn = rules
    search = pair_search(scratch, goal, stride, orth_w, diag_w)
    nodes, frontier, _open_mark, closed_mark, goal_x, goal_y, _ow, _dw = search
    size = open_start(search, start, stride)
    expanded = 0
    # The directions to try from the node being expanded, in order: (dx, dy) pairs.
    dirs = np.empty((8, 2), dtype=np.int64)

    while size > 0:
        current, size = pop(frontier, nodes, size, 0.0)
        nodes[current, STATE] = closed_mark
        expanded += 1
        if current == goal:
            return FOUND, expanded
        if expanded >= max_expanded:
            return LIMIT_REACHED, expanded

        x = current % stride
        y = current // stride
        n = successor_directions(passable, unit, stride, current, nodes[current, CAME_FROM], dirs)

        a = nodes[current, COST_ORTH]
        d = nodes[current, COST_DIAG]
        for i in range(n):
            dx = dirs[i, 0]
            dy = dirs[i, 1]
            if jumps is not None and dx != 0 and dy != 0:
                size = _offer_diagonal(search, size, jumps, stride, (current, x, y), dx, dy, a, d)
                continue
            k = _jump(
                passable, unit, jumps, stride, (current, x, y), dx, dy, (goal_x, goal_y, goal)
            )
            if k < 0:
                continue
            if dx != 0 and dy != 0:
                a_next, d_next = a, d + k
            else:
                a_next, d_next = a + k, d
            cell = current + k * (dx + dy * stride)
            size = relax(search, size, cell, x + k * dx, y + k * dy, a_next, d_next, current)
    return UNREACHABLE, expanded


@njit(nogil=True, cache=True)
def expand_jumps(nodes, goal, stride):
    """The full cell path from the jump-point chain ending at ``goal``: ``(n, 2)`` int32.
    Each link runs diagonally first, then straight (a pruned intermediate point is where
    it turns)."""
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
        px, py = parent % stride, parent // stride
        while x != px or y != py:  # back along the link: its straight part first
            sx, sy = _arrival(px - x, py - y)
            x += sx
            y += sy
            i -= 1
            path[i, 0] = x - 1
            path[i, 1] = y - 1
        node = parent
    return path
