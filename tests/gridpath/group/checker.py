"""An independent checker of group plans, written for the tests from the issue's rules
(not sharing code with gridpath.group): returns a list of problems, empty if the plans are
legal and collision-free."""

from __future__ import annotations

import numpy as np


def _walkable(free: np.ndarray, x: int, y: int) -> bool:
    return 0 <= y < free.shape[0] and 0 <= x < free.shape[1] and bool(free[y, x])


def _legal_step(free, a, b, connectivity, diagonal) -> bool:
    dx, dy = b[0] - a[0], b[1] - a[1]
    if max(abs(dx), abs(dy)) > 1:
        return False
    if abs(dx) + abs(dy) < 2:
        return True
    if connectivity != 8 or diagonal == "never":
        return False
    sides = _walkable(free, a[0] + dx, a[1]) + _walkable(free, a[0], a[1] + dy)
    return sides >= {"no_corner_cut": 2, "one_free": 1, "always": 0}[diagonal]


def check_plans(free, plans, starts, goals, connectivity=4, diagonal="no_corner_cut"):
    """``free`` bool (height, width); ``plans`` lists of (x, y), all of one length."""
    problems = []
    plans = [[tuple(c) for c in p] for p in plans]
    if len({len(p) for p in plans}) > 1:
        problems.append("plans of different lengths")
        return problems
    for i, p in enumerate(plans):
        if p[0] != tuple(starts[i]) or p[-1] != tuple(goals[i]):
            problems.append(f"unit {i} does not go from its start to its goal")
        for t, c in enumerate(p):
            if not _walkable(free, *c):
                problems.append(f"unit {i} on a wall at {t}")
            if t and not _legal_step(free, p[t - 1], c, connectivity, diagonal):
                problems.append(f"unit {i} jumps at {t}")
    ticks = len(plans[0]) if plans else 0
    for t in range(ticks):
        at = [p[t] for p in plans]
        if len(set(at)) != len(at):
            problems.append(f"vertex conflict at {t}")
        if t == 0:
            continue
        moves = {(p[t - 1], p[t]) for p in plans if p[t - 1] != p[t]}
        for a, b in moves:
            if (b, a) in moves:
                problems.append(f"edge conflict at {t}")
            if a[0] != b[0] and a[1] != b[1]:
                c, d = (a[0], b[1]), (b[0], a[1])
                if (c, d) in moves or (d, c) in moves:
                    problems.append(f"crossing conflict at {t}")
    return problems


def sum_of_costs(plans, goals) -> int:
    total = 0
    for p, g in zip(plans, goals):
        t = len(p)
        while t > 0 and tuple(p[t - 1]) == tuple(g):
            t -= 1
        total += t
    return total


def _link_step(frees, links, a, b) -> bool:
    """``a -> b`` (``(x, y, m)``) is the traversal of an enabled link in an allowed
    direction whose two end cells are walkable."""
    for link in links:
        ends = (tuple(link["from"]), tuple(link["to"]))
        if not link.get("enabled", True) or link.get("excluded", False):
            continue
        if not all(_walkable(frees[m], x, y) for x, y, m in ends):
            continue
        if (a, b) == ends or (link.get("bidirectional", False) and (b, a) == ends):
            return True
    return False


def check_world_plans(frees, links, plans, starts, goals, connectivity=4, diagonal="no_corner_cut"):
    """A world's plans: ``frees[m]`` bool (height, width) of map ``m``; ``links`` dicts
    ``{"from": (x, y, m), "to": (x, y, m), "bidirectional", "enabled", "excluded"}``;
    ``plans`` lists of ``(x, y, m)``, all of one length. A step is a wait, a move on one map,
    or one link traversal; no two units on one place at one tick, no two units swapping
    places in one tick (on one map or along links), no diagonal crossing on one map."""
    problems = []
    plans = [[tuple(c) for c in p] for p in plans]
    if len({len(p) for p in plans}) > 1:
        return ["plans of different lengths"]
    for i, p in enumerate(plans):
        if p[0] != tuple(starts[i]) or p[-1] != tuple(goals[i]):
            problems.append(f"unit {i} does not go from its start to its goal")
        for t, (x, y, m) in enumerate(p):
            if not (0 <= m < len(frees) and _walkable(frees[m], x, y)):
                problems.append(f"unit {i} on a wall at {t}")
                continue
            if t == 0 or p[t - 1] == p[t]:
                continue
            a, b = p[t - 1], p[t]
            on_map = a[2] == b[2] and _legal_step(frees[m], a[:2], b[:2], connectivity, diagonal)
            if not on_map and not _link_step(frees, links, a, b):
                problems.append(f"unit {i} jumps at {t}: {a} -> {b}")
    ticks = len(plans[0]) if plans else 0
    for t in range(ticks):
        at = [p[t] for p in plans]
        if len(set(at)) != len(at):
            problems.append(f"vertex conflict at {t}")
        if t == 0:
            continue
        moves = {(p[t - 1], p[t]) for p in plans if p[t - 1] != p[t]}
        for a, b in moves:
            if (b, a) in moves:
                problems.append(f"edge conflict at {t}: {a} <-> {b}")
            diagonal_step = a[2] == b[2] and abs(a[0] - b[0]) == 1 and abs(a[1] - b[1]) == 1
            if connectivity == 8 and diagonal_step:
                c, d = (a[0], b[1], a[2]), (b[0], a[1], a[2])
                if (c, d) in moves or (d, c) in moves:
                    problems.append(f"crossing conflict at {t}")
    return problems
