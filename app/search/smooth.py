"""Path post-processing: line of sight, string-pulled waypoints, turning points."""

from __future__ import annotations

import numpy as np

from app.grid.model import Grid
from app.search import _kernels


def line_of_sight(grid: Grid, a: tuple[int, int], b: tuple[int, int]) -> bool:
    """True if the straight segment between the centres of cells ``a`` and ``b`` touches
    only walkable cells, including all four cells at any grid corner it passes through.

    Cells outside the map count as blocked.
    """
    if not (grid.in_bounds(*a) and grid.in_bounds(*b)):
        return False
    return bool(_kernels.line_of_sight(grid.flat, grid.stride, int(a[0]), int(a[1]),
                                       int(b[0]), int(b[1])))


def smooth(grid: Grid, path: np.ndarray) -> np.ndarray:
    """Waypoints of ``path`` by forward string pulling (a subsequence of ``path`` whose
    consecutive pairs have line of sight). ``path`` must be a legal cell path on ``grid``."""
    path = np.ascontiguousarray(path, dtype=np.int32)
    if path.shape[0] == 0:
        return path
    return path[_kernels.smooth_path(grid.flat, grid.stride, path)]


def turning_points(path: np.ndarray) -> np.ndarray:
    """The start, each cell where the direction changes, and the goal."""
    path = np.ascontiguousarray(path, dtype=np.int32)
    if path.shape[0] == 0:
        return path
    return path[_kernels.turning_points(path)]
