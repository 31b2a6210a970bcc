"""Clearance: for each cell, the size of the largest walkable square whose top-left corner
is that cell (0 for a blocked cell), capped at 255 so it fits in a byte.

A unit ``k`` cells wide stands on the ``k x k`` square whose top-left cell is its position,
so it may stand wherever the clearance is at least ``k``. With the no-corner-cut rule a
diagonal step for such a unit needs both orthogonal neighbours to have clearance ``k`` too,
which is exactly the squares the unit sweeps through: a search for size ``k`` is an
ordinary search over the cells with clearance ``>= k``, at no extra cost per step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

MAX_CLEARANCE = 255


@njit(nogil=True, cache=True)
def _clearance(walkable, out):
    height, width = walkable.shape
    for y in range(height - 1, -1, -1):
        for x in range(width - 1, -1, -1):
            if not walkable[y, x]:
                out[y, x] = 0
            elif y == height - 1 or x == width - 1:
                out[y, x] = 1
            else:
                smallest = min(out[y + 1, x], out[y, x + 1], out[y + 1, x + 1])
                out[y, x] = min(smallest + 1, MAX_CLEARANCE)


def clearance_map(walkable: np.ndarray) -> np.ndarray:
    """``(height, width)`` uint8 clearance of a boolean walkability array."""
    walkable = np.ascontiguousarray(walkable, dtype=np.bool_)
    out = np.zeros(walkable.shape, dtype=np.uint8)
    _clearance(walkable, out)
    return out
