"""What the kernels receive: a few records instead of long argument lists.

A record is a plain tuple (numba types a plain tuple in C on each call; a named tuple
takes the dispatcher's slow Python path, which costs more than a short search). Each
kernel unpacks the records it takes in its first lines, so the names stay readable.

* grid record ``(passable, stride, terrain)``: the padded flat clearance, the padded row
  length and the padded terrain classes of one map revision (see :mod:`gridpath.grid.model`).
* rules record ``(unit, diagonal, orth_w, diag_w, class_cost, uniform, max_expanded,
  max_cost, turn_penalty)``: the movement rules and limits of one search: unit size,
  diagonal rule (``DIAGONAL_*``), step weights, per-class terrain costs (ignored when
  ``uniform``), expansion and cost limits, cost per change of direction.
* scratch record ``(nodes, frontier, g_cost, marks, generation)``: see
  :class:`gridpath.search.scratch.SearchScratch`.

Python builds the records with the functions below, always with the same Python types
(int, float, bool), so each kernel compiles once.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from gridpath.search._frontier import BLOCKED

SQRT2 = math.sqrt(2.0)

# Diagonal rules (connectivity 4 is DIAGONAL_NEVER).
DIAGONAL_NEVER = 0
NO_CORNER_CUT = 1
ONE_FREE = 2
ALWAYS = 3

# Never written, yet writeable: the same numba array type as the per-request tables, so a
# kernel compiles once for both (a read-only array is another type).
UNIFORM_COSTS = np.ones(256, dtype=np.float64)


def grid_record(grid) -> tuple:
    """The grid record of a :class:`~gridpath.grid.model.Grid`."""
    return (grid.flat, grid.stride, grid.terrain_flat)


def rules_record(
    *,
    unit: int = 1,
    diagonal: int = NO_CORNER_CUT,
    orth_w: float = 1.0,
    diag_w: float = SQRT2,
    class_cost: np.ndarray = UNIFORM_COSTS,
    uniform: bool = True,
    max_expanded: int,
    max_cost: float = math.inf,
    turn_penalty: float = 0.0,
) -> tuple:
    """The rules record (see the module docstring)."""
    return (
        int(unit),
        int(diagonal),
        float(orth_w),
        float(diag_w),
        class_cost,
        bool(uniform),
        int(max_expanded),
        float(max_cost),
        float(turn_penalty),
    )


@njit(nogil=True, cache=True, inline="always")
def is_open(passable, unit, marks, block_mark, i):
    """Room for a unit ``unit`` cells wide (clearance >= unit; 1: walkable) and not blocked
    for this search. ``marks=None`` (no per-request overlay) compiles a separate
    specialisation that never touches the overlay: ten times faster line-of-sight walks."""
    if marks is None:
        return passable[i] >= unit
    return passable[i] >= unit and marks[i, BLOCKED] != block_mark
