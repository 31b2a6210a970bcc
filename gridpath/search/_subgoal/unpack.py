"""A found path unpacked: shortcuts to subgoals, each piece refined to cells
(:mod:`gridpath.search._subgoal`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from gridpath.search._subgoal.graph import MID, TO
from gridpath.search._subgoal.query import PARENT_B, PARENT_F

# ---------------------------------------------------------------------------------------
# Path: unpack the shortcuts, refine each h-reachable piece to cells.


@njit(nogil=True, cache=True, inline="always")
def _sign(v):
    return (v > 0) - (v < 0)


@njit(nogil=True, cache=True)
def _diagonal_first_open(passable, stride, a, b):
    """Whether the move from ``a`` to ``b`` diagonally first, then straight, is legal."""
    ax, ay, bx, by = a % stride, a // stride, b % stride, b // stride
    sx, sy = _sign(bx - ax), _sign(by - ay)
    n_diag = min(abs(bx - ax), abs(by - ay))
    cell = a
    for _ in range(n_diag):
        if passable[cell + sx] == 0 or passable[cell + sy * stride] == 0:
            return False
        cell += sx + sy * stride
        if passable[cell] == 0:
            return False
    step = sx if abs(bx - ax) > abs(by - ay) else sy * stride
    while cell != b:
        cell += step
        if passable[cell] == 0:
            return False
    return True


@njit(nogil=True, cache=True)
def _append_segment(passable, stride, a, b, out, n):
    """Append the cells after ``a`` up to ``b`` of the canonical octile move: diagonally
    first then straight if that is legal, else straight first then diagonally (the
    exploration proved one of them legal). Returns the new length."""
    if _diagonal_first_open(passable, stride, a, b):
        ax, ay, bx, by = a % stride, a // stride, b % stride, b // stride
        sx, sy = _sign(bx - ax), _sign(by - ay)
        cell = a
        for _ in range(min(abs(bx - ax), abs(by - ay))):
            cell += sx + sy * stride
            out[n] = cell
            n += 1
        step = sx if abs(bx - ax) > abs(by - ay) else sy * stride
        while cell != b:
            cell += step
            out[n] = cell
            n += 1
        return n
    # diagonal first from b, written from a: the straight part first
    bx, by, ax, ay = b % stride, b // stride, a % stride, a // stride
    sx, sy = _sign(ax - bx), _sign(ay - by)
    n_diag = min(abs(ax - bx), abs(ay - by))
    n_straight = max(abs(ax - bx), abs(ay - by)) - n_diag
    step = sx if abs(ax - bx) > abs(ay - by) else sy * stride
    cell = a
    for _ in range(n_straight):
        cell -= step
        out[n] = cell
        n += 1
    for _ in range(n_diag):
        cell -= sx + sy * stride
        out[n] = cell
        n += 1
    return n


@njit(nogil=True, cache=True)
def _edge_mid(first, links, a, b):
    for e in range(first[a], first[a + 1]):
        if links[e, TO] == b:
            return links[e, MID]
    for e in range(first[b], first[b + 1]):
        if links[e, TO] == a:
            return links[e, MID]
    return -2  # not an edge (cannot happen on a chain the search built)


@njit(nogil=True, cache=True)
def _unpack(first, links, a, b, nodes, n, stack):
    """Append the subgoals after ``a`` up to ``b`` of the (possibly shortcut) edge."""
    top = 0
    stack[top, 0], stack[top, 1] = a, b
    top += 1
    while top > 0:
        top -= 1
        x, y = stack[top, 0], stack[top, 1]
        via = _edge_mid(first, links, x, y)
        if via < 0:
            nodes[n] = y
            n += 1
        else:  # x..via first: pushed last
            stack[top, 0], stack[top, 1] = via, y
            stack[top + 1, 0], stack[top + 1, 1] = x, via
            top += 2
    return n


@njit(nogil=True, cache=True)
def subgoal_path(passable, stride, cells, first, links, nodes, start, goal, meet):
    """The cell path ``(n, 2)`` int32 (unpadded x, y) of the search that met at ``meet``
    (-1: the direct move), with its straight and diagonal step counts."""
    par_f, par_b = nodes[:, PARENT_F], nodes[:, PARENT_B]
    count = cells.size
    chain = np.empty(0, dtype=np.int32)
    if meet >= 0:
        # subgoal chain: forward parents reversed, then backward parents
        length = 0
        u = meet
        while u >= 0:
            length += 1
            u = np.int64(par_f[u])
        u = np.int64(par_b[meet])
        while u >= 0:
            length += 1
            u = np.int64(par_b[u])
        top = np.empty(length, dtype=np.int32)
        i = 0
        u = meet
        while u >= 0:
            top[i] = u
            i += 1
            u = np.int64(par_f[u])
        top[:i] = top[:i][::-1]
        u = np.int64(par_b[meet])
        while u >= 0:
            top[i] = u
            i += 1
            u = np.int64(par_b[u])
        # unpack shortcuts
        nodes = np.empty(count + 1, dtype=np.int32)
        stack = np.empty((count + 2, 2), dtype=np.int32)
        nodes[0] = top[0]
        n = 1
        for i in range(length - 1):
            n = _unpack(first, links, top[i], top[i + 1], nodes, n, stack)
        chain = nodes[:n]
    # corners: start, the subgoals, goal (without repeats)
    corners = np.empty(chain.size + 2, dtype=np.int64)
    k = 0
    corners[k] = start
    k += 1
    for i in range(chain.size):
        c = cells[chain[i]]
        if c != corners[k - 1]:
            corners[k] = c
            k += 1
    if goal != corners[k - 1]:
        corners[k] = goal
        k += 1
    total = 1
    for i in range(k - 1):
        a, b = corners[i], corners[i + 1]
        total += max(abs(a % stride - b % stride), abs(a // stride - b // stride))
    flat = np.empty(total, dtype=np.int64)
    flat[0] = start
    n = 1
    for i in range(k - 1):
        n = _append_segment(passable, stride, corners[i], corners[i + 1], flat, n)
    path = np.empty((n, 2), dtype=np.int32)
    n_orth = 0
    n_diag = 0
    for i in range(n):
        path[i, 0] = flat[i] % stride - 1
        path[i, 1] = flat[i] // stride - 1
        if i > 0:
            step = abs(flat[i] - flat[i - 1])
            if step == 1 or step == stride:
                n_orth += 1
            else:
                n_diag += 1
    return path, n_orth, n_diag
