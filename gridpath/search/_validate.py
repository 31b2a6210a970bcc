"""The path-validation kernel: one linear pass over a client's path in compiled code."""

from __future__ import annotations

from numba import njit

from gridpath.search._cost import segment_cost
from gridpath.search._general import step_cost
from gridpath.search._records import ALWAYS, DIAGONAL_NEVER, NO_CORNER_CUT, ONE_FREE, is_open
from gridpath.search._sight import line_of_sight

# Violation codes (indices into VIOLATION_CODES).
OUT_OF_BOUNDS = 0
BLOCKED_CELL = 1
NOT_ADJACENT = 2
CORNER_CUT = 3
NO_LINE_OF_SIGHT = 4
VIOLATION_CODES = (
    "out_of_bounds",
    "blocked_cell",
    "not_adjacent",
    "corner_cut",
    "no_line_of_sight",
)


@njit(nogil=True, cache=True, inline="always")
def _note(report, i, code, found):
    """Record violation ``code`` at path index ``i`` in ``report``, the record ``(out_index,
    out_code, first)``: in order while room is left, and always as the first of its kind.
    Returns the new count."""
    out_index, out_code, first = report
    if found < out_index.shape[0]:
        out_index[found] = i
        out_code[found] = code
    if first[code] < 0:
        first[code] = i
    return found + 1


@njit(nogil=True, cache=True)
def validate_cells(grid, rules, marks, block_mark, path, report):
    """Check every step of a cell path; returns ``(cost, n_violations)``.

    Records of :mod:`gridpath.search._records` (``grid``, ``rules``); ``marks``/``block_mark``
    the request's blocked cells (``None``/-1: none). Violations go to ``report``
    (:func:`_note`): ``out_index``/``out_code`` in path order, as many as fit, and the
    index of the first of each kind to ``first`` (-1: none). ``cost`` sums the step cost of
    every step between two cells of the map that are neighbours (legal or not), so an
    illegal path still gets a comparable cost.
    """
    passable, stride, terrain = grid
    unit, diagonal, orth_w, diag_w, class_cost, uniform, _limit, _max_cost, _turn = rules
    width = stride - 2
    height = passable.shape[0] // stride - 2
    n = path.shape[0]
    found = 0
    cost = 0.0
    straight = 0
    diagonals = 0
    for i in range(n):
        x = path[i, 0]
        y = path[i, 1]
        inside = 0 <= x < width and 0 <= y < height
        if not inside:
            found = _note(report, i, OUT_OF_BOUNDS, found)
            continue
        cell = (y + 1) * stride + x + 1
        if not is_open(passable, unit, marks, block_mark, cell):
            found = _note(report, i, BLOCKED_CELL, found)
        if i == 0:
            continue
        px = path[i - 1, 0]
        py = path[i - 1, 1]
        if not (0 <= px < width and 0 <= py < height):
            continue
        dx = x - px
        dy = y - py
        if max(abs(dx), abs(dy)) != 1 or (dx != 0 and dy != 0 and diagonal == DIAGONAL_NEVER):
            found = _note(report, i, NOT_ADJACENT, found)
            continue
        prev = (py + 1) * stride + px + 1
        if dx != 0 and dy != 0:
            side_a = is_open(passable, unit, marks, block_mark, prev + dx)
            side_b = is_open(passable, unit, marks, block_mark, prev + dy * stride)
            ok = True
            if diagonal == NO_CORNER_CUT:
                ok = side_a and side_b
            elif diagonal == ONE_FREE:
                ok = side_a or side_b
            elif diagonal != ALWAYS:
                ok = False
            if not ok:
                found = _note(report, i, CORNER_CUT, found)
            diagonals += 1
            cost += step_cost(terrain, class_cost, uniform, prev, cell, diag_w)
        else:
            straight += 1
            cost += step_cost(terrain, class_cost, uniform, prev, cell, orth_w)
    if uniform:  # exact, and the same arithmetic as find_path's cost
        cost = straight * orth_w + diagonals * diag_w
    return cost, found


@njit(nogil=True, cache=True)
def validate_waypoints(grid, sight, marks, block_mark, path, report, price):
    """Check that consecutive waypoints see each other; returns ``(cost, n_violations)``.

    ``sight`` is ``(unit, corner_rule)``, the line-of-sight rule
    (:func:`gridpath.search._sight.line_of_sight`); ``cost`` is what walking the polyline
    costs under the price record ``price`` (:mod:`gridpath.search._cost`: each segment's
    length inside each cell times that cell's terrain cost), every segment between two
    waypoints on the map priced, in sight or not. Other arguments as in
    :func:`validate_cells`.
    """
    passable, stride, _terrain = grid
    width = stride - 2
    height = passable.shape[0] // stride - 2
    n = path.shape[0]
    found = 0
    cost = 0.0
    for i in range(n):
        x = path[i, 0]
        y = path[i, 1]
        if not (0 <= x < width and 0 <= y < height):
            found = _note(report, i, OUT_OF_BOUNDS, found)
            continue
        if not is_open(passable, sight[0], marks, block_mark, (y + 1) * stride + x + 1):
            found = _note(report, i, BLOCKED_CELL, found)
        if i == 0:
            continue
        px = path[i - 1, 0]
        py = path[i - 1, 1]
        if not (0 <= px < width and 0 <= py < height):
            continue
        cost += segment_cost(price, (px, py), (x, y))
        if not line_of_sight(grid, sight, marks, block_mark, (px, py), (x, y)):
            found = _note(report, i, NO_LINE_OF_SIGHT, found)
    return cost, found
