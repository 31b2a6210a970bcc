"""Option echoes: the effective options a response repeats back (defaults filled in)."""

from __future__ import annotations

from functools import lru_cache

from gridpath.grid import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.search import SearchOptions


def terrain_echo(grid: Grid, options: SearchOptions) -> dict[str, float]:
    """Every terrain class's cost for this search: the map's, then the request's overrides."""
    return {**grid.terrain_costs, **dict(options.terrain_costs)}


def path_options(grid: Grid, options: SearchOptions) -> dict:
    """``options`` of a ``/path`` answer (``EffectiveOptions``): one dict per map terrain
    and options, shared by the answers (serialised, never changed). The cost types are
    part of the key: a class costing ``2`` echoes ``2``, one costing ``2.0`` echoes ``2.0``."""
    global _last_echo
    last = _last_echo
    if last[0] is grid and last[1] is options:  # a batch's answers: one map, one options
        return last[2]
    classes = grid.terrain_classes
    echo = _path_options(classes, tuple(type(tc.cost) for tc in classes), options)
    _last_echo = (grid, options, echo)  # one tuple, swapped whole: thread-safe
    return echo


# The last (map revision, options, echo) path_options gave, checked by identity: a map
# revision's terrain classes and a SearchOptions never change.
_last_echo: tuple = (None, None, None)


@lru_cache(maxsize=1024)
def _path_options(
    terrain_classes: tuple[TerrainClass, ...], cost_types: tuple[type, ...], options: SearchOptions
) -> dict:
    terrain = {tc.name: tc.cost for tc in terrain_classes}
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
        "terrain_costs": {**terrain, **dict(options.terrain_costs)},  # as terrain_echo
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
