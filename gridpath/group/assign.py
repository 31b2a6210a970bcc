"""Anonymous goals (``"assign": true``): which unit takes which goal, minimising first the
longest shortest path (bottleneck) and then the sum of the shortest paths.

The bottleneck is the least distance ``b`` for which a perfect matching exists using only
unit-goal pairs at most ``b`` apart (a binary search over the distinct distances, each a
maximum bipartite matching); among those matchings, the minimum-sum one
(``scipy.optimize.linear_sum_assignment``, pairs over ``b`` forbidden). Ties go to the
lowest-numbered goals in scipy's fixed order: deterministic.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from gridpath.group.distances import distances_from
from gridpath.group.graph import MoveGraph


def distance_matrix(graph: MoveGraph, starts: np.ndarray, goals: np.ndarray) -> np.ndarray:
    """``d[i, k]``: steps from start ``i`` to goal ``k`` (-1: unreachable); one search per
    goal, over the moves taken backwards."""
    d = np.empty((starts.shape[0], goals.shape[0]), dtype=np.int64)
    for k, goal in enumerate(goals):
        d[:, k] = distances_from(graph.reverse, int(goal))[starts]
    return d


def _perfect(d: np.ndarray, bound: int) -> bool:
    allowed = (d >= 0) & (d <= bound)
    match = maximum_bipartite_matching(csr_matrix(allowed), perm_type="column")
    return bool((match >= 0).all())


def assign_goals(graph: MoveGraph, starts: np.ndarray, goals: np.ndarray) -> np.ndarray | None:
    """``goal_of[i]``: the index into ``goals`` unit ``i`` takes, or None when no
    assignment reaches every goal (some goal in another component)."""
    d = distance_matrix(graph, starts, goals)
    values = np.unique(d[d >= 0])
    if values.size == 0 or not _perfect(d, int(values[-1])):
        return None
    lo, hi = 0, values.size - 1
    while lo < hi:  # the least bound that still admits a perfect matching
        mid = (lo + hi) // 2
        if _perfect(d, int(values[mid])):
            hi = mid
        else:
            lo = mid + 1
    bound = int(values[lo])
    cost = np.where((d >= 0) & (d <= bound), d, 1 << 40).astype(np.float64)
    rows, cols = linear_sum_assignment(cost)
    goal_of = np.empty(starts.shape[0], dtype=np.int64)
    goal_of[rows] = cols
    return goal_of
