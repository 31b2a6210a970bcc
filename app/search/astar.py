"""``find_path``: check the query, run the A* kernel, rebuild the path from the parent chain."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.errors import GoalBlocked, OutOfBounds, StartBlocked
from app.grid.model import Grid
from app.search import _kernels
from app.search.scratch import SearchScratch, thread_scratch

Cell = tuple[int, int]

_REASONS = {_kernels.UNREACHABLE: "unreachable", _kernels.LIMIT_REACHED: "limit_reached"}


@dataclass(frozen=True)
class PathResult:
    """The outcome of one search.

    ``path`` is an ``(n, 2)`` int32 array of ``[x, y]`` cells from start to goal inclusive
    (empty when not found); ``cost`` is its length (1 per straight step, sqrt(2) per
    diagonal step), ``None`` when not found; ``reason`` says why not found.
    """

    found: bool
    path: np.ndarray
    cost: float | None
    expanded: int
    reason: str | None = None


def check_cell(grid: Grid, cell: Cell, role: str) -> None:
    """Raise the domain error for a start/goal outside the map or on a blocked cell."""
    x, y = cell
    if not grid.in_bounds(x, y):
        raise OutOfBounds(
            f"{role} [{x}, {y}] is outside map {grid.name!r} "
            f"(x must be in 0..{grid.width - 1}, y in 0..{grid.height - 1})"
        )
    if not grid.is_walkable(x, y):
        error = StartBlocked if role == "start" else GoalBlocked
        raise error(f"{role} [{x}, {y}] is a blocked cell on map {grid.name!r}")


def find_path(
    grid: Grid,
    start: Cell,
    goal: Cell,
    *,
    max_expanded: int | None = None,
    scratch: SearchScratch | None = None,
) -> PathResult:
    """Shortest 8-connected path from ``start`` to ``goal`` without corner cutting (A*, octile).

    ``max_expanded`` bounds the work: when that many nodes have been expanded without
    reaching the goal, the result is ``found=False, reason="limit_reached"``.
    """
    check_cell(grid, start, "start")
    check_cell(grid, goal, "goal")
    if scratch is None:
        scratch = thread_scratch()
    limit = grid.cell_count if max_expanded is None else max(1, int(max_expanded))
    generation = scratch.begin(grid.flat.size)
    start_i = grid.index(*start)
    goal_i = grid.index(*goal)
    status, expanded = _kernels.astar_octile(
        grid.flat, grid.stride, start_i, goal_i, limit, 1.0, _kernels.SQRT2,
        scratch.nodes, scratch.frontier, generation,
    )
    if status != _kernels.FOUND:
        return PathResult(False, np.empty((0, 2), dtype=np.int32), None, int(expanded),
                          _REASONS[int(status)])
    path = _kernels.reconstruct_path(scratch.nodes, goal_i, grid.stride)
    straight, diagonal = scratch.nodes[goal_i, _kernels.COST_ORTH], scratch.nodes[goal_i, _kernels.COST_DIAG]
    cost = int(straight) + int(diagonal) * _kernels.SQRT2
    return PathResult(True, path, cost, int(expanded))
