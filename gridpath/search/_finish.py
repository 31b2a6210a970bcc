"""What an exact-pair run does after its kernel, in one compiled call
(:class:`gridpath.search.runner.PairRun`): the path rebuilt from the nodes, its exact step
counts, its turns and its waypoints (string-pulled or its turning points), as
:func:`gridpath.search.find.finish` would pull them from the path."""

from __future__ import annotations

from numba import njit

from gridpath.search._cost import polyline_cost, string_pull
from gridpath.search._frontier import COST_DIAG, COST_ORTH, reconstruct_path
from gridpath.search._jps import expand_jumps
from gridpath.search._sight import turning_points


@njit(nogil=True, cache=True)
def finish_pair(nodes, goal, stride, jumps, grid, sight, pulled, price):
    """``(path, waypoints, straight steps, diagonal steps, turns, walked)`` of the path found
    to padded cell ``goal``: linked between jump points (``jumps``) or cell by cell; waypoints
    string-pulled under ``sight`` (``(unit, corner_rule)``, no per-request overlay) when
    ``pulled``, else the turning points; ``walked``, what walking the waypoints costs under
    the price record ``price`` (:func:`gridpath.search.cost.price_record`), priced here:
    one compiled call per query, so a search thread gives the GIL up once less."""
    if jumps:
        path = expand_jumps(nodes, goal, stride)
    else:
        path = reconstruct_path(nodes, goal, stride, 1)
    corners = turning_points(path)  # the path is never empty: it holds the goal
    turns = corners.shape[0] - 2 if path.shape[0] >= 3 else 0
    keep = string_pull(grid, sight, None, -1, path, None) if pulled else corners
    waypoints = path[keep]
    walked = polyline_cost(price, waypoints)
    return path, waypoints, nodes[goal, COST_ORTH], nodes[goal, COST_DIAG], turns, walked
