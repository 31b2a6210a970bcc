"""The continuous cost of a polyline on a grid (see :mod:`gridpath.search._cost` for the
definition): what walking a path's ``waypoints`` costs, priced by the same rule for the
smoothing that makes them, ``/validate``'s ``waypoints`` mode and Lazy Theta*."""

from __future__ import annotations

import numpy as np

from gridpath.grid.model import Grid
from gridpath.search import _cost
from gridpath.search.options import CostModel, SearchOptions


def price_record(grid: Grid, options: SearchOptions, class_cost: np.ndarray, uniform: bool):
    """The kernels' price record for ``options`` on ``grid`` priced by ``class_cost``
    (:func:`gridpath.search.find.terrain_prices`'s prices and its ``uniform`` flag)."""
    orth_w, diag_w = options.step_weights
    integer = options.cost_model == CostModel.INTEGER
    return (
        grid.terrain_flat, class_cost, bool(uniform), int(grid.stride), float(orth_w),
        float(diag_w), integer,
    )  # fmt: skip


def polyline_cost(price: tuple, vertices: np.ndarray) -> float:
    """The cost of walking the polyline through the centres of ``vertices`` (``(n, 2)``
    ``[x, y]`` cells on the map) under the price record :func:`price_record` gives."""
    if not (isinstance(vertices, np.ndarray) and vertices.dtype in (np.int32, np.int64)):
        vertices = np.asarray(vertices, dtype=np.int64)  # the answers' own are int32 already
    return float(_cost.polyline_cost(price, vertices.reshape(-1, 2)))


def walked_cost(
    grid: Grid,
    options: SearchOptions,
    class_cost: np.ndarray,
    uniform: bool,
    waypoints: np.ndarray | None,
) -> float | int | None:
    """What walking ``waypoints`` costs (``options`` resolved, terrain priced by
    ``class_cost``): a whole number under the integer model, None without waypoints."""
    if waypoints is None or waypoints.shape[0] == 0:
        return None
    cost = polyline_cost(price_record(grid, options, class_cost, uniform), waypoints)
    return reported_walk(cost, options.cost_model == CostModel.INTEGER)


def reported_cost(cost: float, integer: bool) -> int | float:
    """A path's cost as the answers report it: rounded to a whole number under the integer
    cost model (``/path``, ``/table``, ``/validate`` alike)."""
    return int(round(cost)) if integer else float(cost)


def reported_walk(walked: float, integer: bool) -> int | float:
    """What walking waypoints costs, as the answers report it: its whole part under the
    integer cost model."""
    return int(walked) if integer else walked
