"""Per-request blocked cells: checked once, stamped into a search's own scratch.

The shared map is never copied or written: each blocked cell gets the search's
generation in ``marks[:, BLOCKED]`` (O(k) for k cells), and stamps of other searches
never match.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from gridpath.errors import OutOfBounds
from gridpath.grid.model import Grid
from gridpath.search._frontier import BLOCKED

Cell = tuple[int, int]


def blocked_cells(grid: Grid, blocked: Iterable[Cell]) -> frozenset[Cell]:
    """The distinct blocked cells; :class:`OutOfBounds` for one outside the map."""
    cells = frozenset((int(x), int(y)) for x, y in blocked)
    for x, y in cells:
        if not grid.in_bounds(x, y):
            raise OutOfBounds(
                f"blocked cell [{x}, {y}] is outside map {grid.name!r} "
                f"(x must be in 0..{grid.width - 1}, y in 0..{grid.height - 1})"
            )
    return cells


def stamp(grid: Grid, cells: Iterable[Cell], marks: np.ndarray, column: int, generation: int):
    """Mark ``cells`` (in-bounds ``(x, y)``) in ``marks[:, column]`` for this generation."""
    index = np.array([grid.index(x, y) for x, y in sorted(cells)], dtype=np.int64)
    if index.size:
        marks[index, column] = generation


def overlay(grid: Grid, blocked: Iterable[Cell], scratch):
    """``(marks, block_mark)`` for the line-of-sight and validation kernels: the blocked
    cells stamped under a fresh generation of ``scratch``, or ``(None, -1)`` when there are
    none (the kernels' faster specialisation without an overlay)."""
    cells = blocked_cells(grid, blocked)
    if not cells:
        return None, -1
    generation = scratch.begin(grid.flat.size)
    stamp(grid, cells, scratch.marks, BLOCKED, generation)
    return scratch.marks, generation
