"""Validation of a claimed group move (``POST /validate`` with ``plans``): every step a
move under the request's rules or a wait, and no two units in conflict.

Codes: ``illegal_step`` (not a neighbour, a diagonal the rule forbids, or a cell off the
map), ``blocked_cell``, ``vertex_conflict`` (two units on one cell at one tick),
``edge_conflict`` (two units swapping cells in one tick), ``crossing_conflict`` (with 8
moves, two units crossing one 2x2 square diagonally in one tick). Plans of different
lengths are read as waiting at their last cell. Violations come in (tick, unit, code)
order, at most ``limit`` of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gridpath.grid.model import as_cells
from gridpath.group.graph import MoveGraph


@dataclass(frozen=True)
class Violation:
    unit: int
    tick: int
    code: str
    message: str


def _padded(plans: list[list[tuple[int, int]]]) -> np.ndarray:
    """(ticks, units, 2) cells, each plan held at its last cell to the longest's end."""
    ticks = max(len(p) for p in plans)
    out = np.empty((ticks, len(plans), 2), dtype=np.int64)
    for i, plan in enumerate(plans):
        cells = as_cells(plan)
        out[: len(cells), i] = cells
        out[len(cells) :, i] = cells[-1]
    return out


def _cell_checks(graph: MoveGraph, cells: np.ndarray, out: list) -> np.ndarray:
    """Blocked or off-map cells; returns the vertex id of every (tick, unit), -1 if none."""
    x, y = cells[..., 0], cells[..., 1]
    inside = (x >= 0) & (x < graph.width) & (y >= 0) & (y < graph.height)
    vertex = np.full(x.shape, -1, dtype=np.int64)
    vertex[inside] = graph.vertex_of[y[inside], x[inside]]
    for t, i in zip(*np.nonzero(vertex < 0)):
        where = "outside the map" if not inside[t, i] else "blocked"
        out.append(
            Violation(
                int(i),
                int(t),
                "blocked_cell" if inside[t, i] else "illegal_step",
                f"cell ({x[t, i]}, {y[t, i]}) is {where}",
            )
        )
    return vertex


def _step_checks(graph: MoveGraph, cells: np.ndarray, vertex: np.ndarray, out: list) -> None:
    for t in range(1, cells.shape[0]):
        for i in range(cells.shape[1]):
            a, b = vertex[t - 1, i], vertex[t, i]
            if a < 0 or b < 0 or a == b or b in graph.neighbours[a]:
                continue
            (x0, y0), (x1, y1) = cells[t - 1, i], cells[t, i]
            out.append(
                Violation(
                    i, t, "illegal_step", f"({x0}, {y0}) -> ({x1}, {y1}) is not a move of one tick"
                )
            )


def _show(cell: tuple[int, int]) -> str:
    return f"({cell[0]}, {cell[1]})"


def conflicts(cells: np.ndarray, diagonal: bool, out: list, show=_show) -> None:
    """Vertex, edge (swap) and, with ``diagonal``, crossing conflicts of ``cells`` ((ticks,
    units, 2) cells, or (ticks, units, 3) ``[x, y, m]`` places of a world); ``show`` writes a
    cell for the messages."""
    for t in range(cells.shape[0]):
        seen: dict[tuple[int, ...], int] = {}
        moves: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        for i in range(cells.shape[1]):
            here = tuple(int(v) for v in cells[t, i])
            if here in seen:
                out.append(
                    Violation(
                        i, t, "vertex_conflict", f"units {seen[here]} and {i} both at {show(here)}"
                    )
                )
            else:
                seen[here] = i
            if t == 0:
                continue
            before = tuple(int(v) for v in cells[t - 1, i])
            if before != here:
                moves[(before, here)] = i
        _edge_conflicts(t, moves, diagonal, out, show)


def _edge_conflicts(t: int, moves: dict, diagonal: bool, out: list, show) -> None:
    for (a, b), i in moves.items():
        j = moves.get((b, a))
        if j is not None and i < j:
            out.append(
                Violation(j, t, "edge_conflict", f"units {i} and {j} swap {show(a)} and {show(b)}")
            )
        if diagonal and abs(a[0] - b[0]) == 1 and abs(a[1] - b[1]) == 1 and a[2:] == b[2:]:
            c, d = (b[0], a[1], *a[2:]), (a[0], b[1], *a[2:])
            k = moves.get((c, d), moves.get((d, c)))
            if k is not None and i < k:
                out.append(
                    Violation(
                        k,
                        t,
                        "crossing_conflict",
                        f"units {i} and {k} cross diagonally between {show(a)} and {show(b)}",
                    )
                )


def validate_plans(graph: MoveGraph, plans: list, limit: int = 100) -> list[Violation]:
    """Every violation of the plans (lists of (x, y) per tick, one per unit), in (tick,
    unit) order, at most ``limit``."""
    if not plans:
        return []
    cells = _padded(plans)
    out: list[Violation] = []
    vertex = _cell_checks(graph, cells, out)
    _step_checks(graph, cells, vertex, out)
    conflicts(cells, graph.neighbours.shape[1] > 4, out)
    out.sort(key=lambda v: (v.tick, v.unit, v.code))
    return out[:limit]
