"""Option echoes: the effective options a response repeats back (defaults filled in)."""

from __future__ import annotations

from gridpath.grid import Grid
from gridpath.search import SearchOptions


def terrain_echo(grid: Grid, options: SearchOptions) -> dict[str, float]:
    """Every terrain class's cost for this search: the map's, then the request's overrides."""
    return {**grid.terrain_costs, **dict(options.terrain_costs)}


def path_options(grid: Grid, options: SearchOptions) -> dict:
    """``options`` of a ``/path`` answer (``EffectiveOptions``)."""
    return {
        "algorithm": options.algorithm.value,
        "heuristic": options.heuristic.value if options.heuristic else None,
        "heuristic_weight": options.heuristic_weight,
        "connectivity": options.connectivity,
        "diagonal": options.diagonal.value,
        "cost_model": options.cost_model.value,
        "max_expanded": options.max_expanded,
        "max_cost": options.max_cost,
        "closest": options.closest,
        "clearance": options.clearance,
        "turn_penalty": options.turn_penalty,
        "terrain_costs": terrain_echo(grid, options),
        "smooth": options.smooth,
    }


def flow_field_options(grid: Grid, options: SearchOptions, blocked) -> dict:
    """``options`` of a ``/flowfield`` answer: the movement rules and the blocked cells."""
    return {
        "connectivity": options.connectivity,
        "diagonal": options.diagonal.value,
        "cost_model": options.cost_model.value,
        "clearance": options.clearance,
        "terrain_costs": terrain_echo(grid, options),
        "blocked": [list(c) for c in blocked],
    }
