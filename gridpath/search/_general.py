"""The option-rich grid search kernel: every algorithm, heuristic, movement rule and cost
model of ``POST /path`` in one compiled loop.

Same conventions as :mod:`gridpath.search._astar` (padded flat grid, generation-stamped
scratch, the same frontier order and neighbour order; the records of
:mod:`gridpath.search._records`). Differences from the default fast kernel: ``g`` is a
float64 per cell (terrain costs and weights make costs non-integral), per-request
blocked cells and goal cells are stamped into ``marks``, and several goals may be
searched at once.

:func:`search_grid` (records of :mod:`gridpath.search._records`: ``grid``, ``rules``,
``scratch``) searches from ``start`` to the nearest of the goals stamped in
``marks[:, GOAL]``. ``goal_xy`` holds the goals' padded ``(x, y)`` for the heuristic (it may
be empty: Dijkstra needs none). The search stops once ``settle`` goal cells are settled (1:
at the nearest goal; more: a cost table's many targets, whose costs are then read from
``g_cost``); a settled goal's stamp is cleared, so a cell counts once even when it is
reached under several headings. ``h_factor`` scales the heuristic (minimum terrain cost x
weight). ``terrain`` gives each cell's class and ``class_cost`` each class's cost (ignored
when ``uniform``). BFS counts steps (every step costs 1) and ignores terrain. Cells blocked
for this search are stamped in ``marks[:, BLOCKED]``; a unit of size ``unit`` > 1 keeps to
cells whose clearance is at least ``unit``. Expanded cells are written to ``explored`` in
order, as many as fit.

With ``turn_penalty`` > 0 the search runs over (cell, heading) states: node ``cell * 9 +
heading``, heading 0-7 the direction of the step that entered the cell (N, E, S, W, NE, SE,
SW, NW) and 8 none (the start); each change of heading costs ``turn_penalty``. Otherwise a
node is a cell.

The kernel is hot: its helpers are ``inline="always"`` (numba inlines them into its IR, so
the split costs no call); the neighbour loop stays in :func:`search_grid` itself, as a
split of it measured slower on Dijkstra (bench/README.md, "Figures behind decisions in the
code").

What another kernel may reuse (public, ``inline="always"``: inlined into the caller's
compiled loop as into this one; Lazy Theta* and path validation do): :func:`neighbour` (the
eight neighbours in the shared order under a diagonal rule), :func:`open_sides` (which of
N, E, S, W are open for a search: walls, unit size, per-request blocked cells),
:func:`step_cost` (a step's cost on terrain), :func:`open_origin` and :func:`offer` (the
frontier's first node, and the one rule for offering a route: closed nodes, ``max_cost``,
the tie rule, A*/greedy/Dijkstra priorities), and :func:`distance` (the heuristics). The
rest is this kernel's own.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gridpath.search._frontier import (
    CAME_FROM,
    CELL,
    FOUND,
    GOAL,
    HEAP_POS,
    LIMIT_REACHED,
    STATE,
    TIE_REL,
    UNREACHABLE,
    F,
    G,
    pop,
    sift_up,
)
from gridpath.search._records import (
    DIAGONAL_NEVER,
    NO_CORNER_CUT,
    ONE_FREE,
    SQRT2,
    is_open,
)

# Algorithms.
ASTAR = 0
DIJKSTRA = 1
BFS = 2
GREEDY = 3

# Heuristics.
OCTILE = 0
MANHATTAN = 1
EUCLIDEAN = 2
CHEBYSHEV = 3
ZERO = 4


@njit(nogil=True, cache=True, inline="always")
def distance(kind, dx, dy, orth_w, diag_w):
    """Heuristic distance for offsets ``dx, dy >= 0``, never above the open-grid cost.

    Octile is the exact open-grid cost with diagonals; Euclidean and Chebyshev are scaled
    by the cheapest cost per unit of distance, so they stay admissible under both cost
    models (with 10/14 a diagonal costs less than 10 * sqrt(2)).
    """
    if kind == OCTILE:
        lo = min(dx, dy)
        return (max(dx, dy) - lo) * orth_w + lo * diag_w
    if kind == MANHATTAN:
        return (dx + dy) * orth_w
    if kind == EUCLIDEAN:
        return math.sqrt(dx * dx + dy * dy) * min(orth_w, diag_w / SQRT2)
    if kind == CHEBYSHEV:
        return max(dx, dy) * min(orth_w, diag_w)
    return 0.0


@njit(nogil=True, cache=True, inline="always")
def _nearest_goal(kind, x, y, goal_xy, orth_w, diag_w):
    best = np.inf
    for k in range(goal_xy.shape[0]):
        h = distance(kind, abs(x - goal_xy[k, 0]), abs(y - goal_xy[k, 1]), orth_w, diag_w)
        if h < best:
            best = h
    return best


@njit(nogil=True, cache=True, inline="always")
def step_cost(terrain, class_cost, uniform, a, b, length):
    """A step costs its length times the mean cost of the two cells it joins."""
    if uniform:
        return length
    return length * 0.5 * (class_cost[terrain[a]] + class_cost[terrain[b]])


@njit(nogil=True, cache=True, inline="always")
def offer(search, size, node, x, y, g, current):
    """Offer the route ``current -> node`` (search states) of cost ``g``, the node lying at
    cell ``(x, y)``; returns (new size, pruned). ``search`` is the working set, one tuple:
    ``(nodes, g_cost, frontier, open_mark, closed_mark, algorithm, heuristic, h_factor,
    goal_xy, orth_w, diag_w, max_cost)``."""
    (nodes, g_cost, frontier, open_mark, closed_mark, algorithm, heuristic, h_factor, goal_xy,
     orth_w, diag_w, max_cost) = search  # fmt: skip
    s = nodes[node, STATE]
    if s == closed_mark:
        return size, False
    if g > max_cost:
        return size, True
    if s == open_mark:
        # Strictly cheaper beyond rounding noise (the frontier's own tie rule): the same
        # route summed in another order must not change the parent, as in the pair kernels.
        old = g_cost[node]
        if not g < old - TIE_REL * (g + old):
            return size, False
        i = nodes[node, HEAP_POS]
    else:
        nodes[node, STATE] = open_mark
        i = size
        size += 1
    g_cost[node] = g
    nodes[node, CAME_FROM] = current
    if algorithm == ASTAR:
        f = g + h_factor * _nearest_goal(heuristic, x, y, goal_xy, orth_w, diag_w)
    elif algorithm == GREEDY:
        f = _nearest_goal(heuristic, x, y, goal_xy, orth_w, diag_w)
    else:
        f = g
    frontier[i, F] = f
    frontier[i, G] = g
    frontier[i, CELL] = node
    sift_up(frontier, nodes, i, TIE_REL)
    return size, False


@njit(nogil=True, cache=True, inline="always")
def open_origin(search, origin):
    """Put the search's first node alone on the frontier; returns the heap size."""
    nodes, g_cost, frontier, open_mark = search[0], search[1], search[2], search[3]
    nodes[origin, STATE] = open_mark
    nodes[origin, CAME_FROM] = -1
    nodes[origin, HEAP_POS] = 0
    g_cost[origin] = 0.0
    frontier[0, F] = 0.0
    frontier[0, G] = 0.0
    frontier[0, CELL] = origin
    return 1


@njit(nogil=True, cache=True, inline="always")
def neighbour(k, here, x, y, stride, sides, diagonal):
    """Neighbour ``k`` (N, E, S, W, NE, SE, SW, NW) of padded cell ``here`` at ``(x, y)``:
    ``(allowed so far, cell, its x, its y)``. ``sides`` says which of N, E, S, W are open;
    a straight step is allowed when its cell is, a diagonal one when the ``diagonal`` rule
    allows it by its two sides (the caller still checks the diagonal cell itself)."""
    n_ok, e_ok, s_ok, w_ok = sides
    if k == 0:
        return n_ok, here - stride, x, y - 1
    if k == 1:
        return e_ok, here + 1, x + 1, y
    if k == 2:
        return s_ok, here + stride, x, y + 1
    if k == 3:
        return w_ok, here - 1, x - 1, y
    if k == 4:
        side_a, side_b, cell, nx, ny = n_ok, e_ok, here - stride + 1, x + 1, y - 1
    elif k == 5:
        side_a, side_b, cell, nx, ny = s_ok, e_ok, here + stride + 1, x + 1, y + 1
    elif k == 6:
        side_a, side_b, cell, nx, ny = s_ok, w_ok, here + stride - 1, x - 1, y + 1
    else:
        side_a, side_b, cell, nx, ny = n_ok, w_ok, here - stride - 1, x - 1, y - 1
    if diagonal == NO_CORNER_CUT:
        return side_a and side_b, cell, nx, ny
    if diagonal == ONE_FREE:
        return side_a or side_b, cell, nx, ny
    return True, cell, nx, ny


@njit(nogil=True, cache=True, inline="always")
def _node_cell(node, dirs):
    """The cell and heading of a search node (heading 8, none, when headings are not
    tracked: a node is then its cell)."""
    if dirs == 1:
        return node, 8
    cell = node // 9
    return cell, node - cell * 9


@njit(nogil=True, cache=True, inline="always")
def open_sides(passable, unit, marks, generation, here, stride):
    """Which of the N, E, S, W neighbours of padded cell ``here`` are open for this search."""
    return (
        is_open(passable, unit, marks, generation, here - stride),
        is_open(passable, unit, marks, generation, here + 1),
        is_open(passable, unit, marks, generation, here + stride),
        is_open(passable, unit, marks, generation, here - 1),
    )


@njit(nogil=True, cache=True, inline="always")
def _closer(h, g, node, best_h, best_g, best):
    """Whether ``node`` (distance ``h`` to a goal, cost ``g``) beats the closest so far:
    smaller distance, then smaller g, then smaller index (deterministic partial paths)."""
    return h < best_h or (h == best_h and (g < best_g or (g == best_g and node < best)))


@njit(nogil=True, cache=True)
def search_grid(grid, rules, strategy, scratch, query):
    """Search from ``start`` to the nearest of the goals stamped in ``marks[:, GOAL]``.

    Records: see the module docstring; ``strategy`` is ``(algorithm, heuristic, h_factor,
    closest_kind)`` and ``query`` is ``(start, goal_xy, explored, settle)``.
    Returns ``(status, expanded, reached, closest, n_explored)``: ``reached`` is the goal
    node found (or -1); ``closest`` the expanded node nearest a goal by ``closest_kind``
    distance (ties: smaller g, then smaller index), for partial paths.
    """
    passable, stride, terrain = grid
    unit, diagonal, orth_w, diag_w, class_cost, uniform, max_expanded, max_cost, turn_penalty = (
        rules
    )
    algorithm, heuristic, h_factor, closest_kind = strategy
    nodes, frontier, g_cost, marks, generation = scratch
    start, goal_xy, explored, settle = query
    dirs = 9 if turn_penalty > 0 else 1
    open_mark = np.int32(2 * generation)
    closed_mark = np.int32(2 * generation + 1)
    search = (nodes, g_cost, frontier, open_mark, closed_mark, algorithm, heuristic, h_factor,
              goal_xy, orth_w, diag_w, max_cost)  # fmt: skip
    # BFS counts steps: every step has length 1.
    orth_len = 1.0 if algorithm == BFS else orth_w
    diag_len = 1.0 if algorithm == BFS else diag_w

    origin = start * dirs + (dirs - 1)  # heading "none" (8) when tracking headings
    size = open_origin(search, origin)
    expanded, n_explored, settled, pruned = 0, 0, 0, False
    closest, closest_h, closest_g = origin, np.inf, 0.0

    while size > 0:
        current, size = pop(frontier, nodes, size, TIE_REL)
        nodes[current, STATE] = closed_mark
        expanded += 1
        here, heading = _node_cell(current, dirs)
        if n_explored < explored.shape[0]:
            explored[n_explored] = here
            n_explored += 1
        x = here % stride
        y = here // stride
        g = g_cost[current]
        hc = _nearest_goal(closest_kind, x, y, goal_xy, orth_w, diag_w)
        if _closer(hc, g, current, closest_h, closest_g, closest):
            closest, closest_h, closest_g = current, hc, g
        if marks[here, GOAL] == generation:
            marks[here, GOAL] = -1  # never a generation: settled
            settled += 1
            if settled >= settle:
                return FOUND, expanded, current, closest, n_explored
        if expanded >= max_expanded:
            return LIMIT_REACHED, expanded, -1, closest, n_explored

        sides = open_sides(passable, unit, marks, generation, here, stride)
        # N, E, S, W, then NE, SE, SW, NW.
        for k in range(8 if diagonal != DIAGONAL_NEVER else 4):
            ok, cell, nx, ny = neighbour(k, here, x, y, stride, sides, diagonal)
            length = orth_len
            if k >= 4:
                ok = ok and is_open(passable, unit, marks, generation, cell)
                length = diag_len
            if not ok:
                continue
            if algorithm == BFS:
                step = length
            else:
                step = step_cost(terrain, class_cost, uniform, here, cell, length)
            if dirs == 1:
                node = cell
            else:
                node = cell * 9 + k
                if heading != 8 and heading != k:
                    step += turn_penalty
            size, cut = offer(search, size, node, nx, ny, g + step, current)
            pruned = pruned or cut
    if pruned:
        return LIMIT_REACHED, expanded, -1, closest, n_explored
    return UNREACHABLE, expanded, -1, closest, n_explored


@njit(nogil=True, cache=True)
def path_cost(terrain, class_cost, uniform, stride, path, orth_w, diag_w):
    """Cost of a cell path under the step-cost rule.

    On uniform terrain: ``straight * orth_w + diagonal * diag_w`` from the step counts
    (exact, and equal to the default kernel's cost bit for bit); otherwise summed step by
    step from the start, as the search accumulates ``g``.
    """
    straight = 0
    diagonal = 0
    total = 0.0
    for k in range(1, path.shape[0]):
        is_diagonal = path[k, 0] != path[k - 1, 0] and path[k, 1] != path[k - 1, 1]
        if is_diagonal:
            diagonal += 1
        else:
            straight += 1
        if not uniform:
            a = (path[k - 1, 1] + 1) * stride + path[k - 1, 0] + 1
            b = (path[k, 1] + 1) * stride + path[k, 0] + 1
            total += step_cost(
                terrain, class_cost, uniform, a, b, diag_w if is_diagonal else orth_w
            )
    if uniform:
        return straight * orth_w + diagonal * diag_w
    return total
