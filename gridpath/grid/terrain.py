"""Terrain: the classes of ground a grid's cells have and their costs per unit of length,
the rule every cost obeys (map files, sidecars, edits, per-request overrides), and the
costs a sidecar (``NAME.json`` next to a map) gives, applied to a map's classes by name.
Shared by the loaders (bitmap, Moving AI, Tiled), the edits and the model."""

from __future__ import annotations

import math
from dataclasses import dataclass

from gridpath.errors import MapLoadError, TerrainCostOutOfRange


@dataclass(frozen=True)
class TerrainClass:
    """A kind of ground: its name (for per-request overrides) and its cost per unit of length."""

    name: str
    cost: float


GROUND = (TerrainClass("ground", 1.0),)

# The largest cost per unit of length a terrain class may have (map sidecars, edits and
# per-request overrides alike): any path cost then stays a finite float64 (a 4096 x 4096
# map's longest path costs under 1e6 x 2**24 x sqrt(2), about 2.4e13).
MAX_TERRAIN_COST = 1_000_000.0
# The smallest: a cost so small that sums lose it (5e-324, a subnormal, adds nothing to a
# path of cost 1) would let a search call a longer path optimal. At 0.001 the dearest and
# cheapest classes are at most 1e9 apart, and every path cost keeps 1e-16 x 2**24 relative
# precision, far below the frontier's tie tolerance and the 1e-9 of the optimality checks.
MIN_TERRAIN_COST = 0.001
TERRAIN_COST_RULE = f"a number >= {MIN_TERRAIN_COST:g} and <= {MAX_TERRAIN_COST:,.0f}"


def is_terrain_cost(value: object) -> bool:
    """Whether ``value`` is a valid terrain cost (:data:`TERRAIN_COST_RULE`; never a bool)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and MIN_TERRAIN_COST <= value <= MAX_TERRAIN_COST
    )


def sidecar_cost(value: object, where: str) -> float:
    """A sidecar's cost for ``where``, checked (:data:`TERRAIN_COST_RULE`)."""
    if not is_terrain_cost(value):
        message = f"sidecar: {where} cost must be {TERRAIN_COST_RULE}, got {value!r}"
        raise TerrainCostOutOfRange(message)
    return float(value)


def apply_costs(classes: tuple[TerrainClass, ...], costs: dict) -> tuple[TerrainClass, ...]:
    """Override class costs by name (a sidecar's ``costs``)."""
    known = {tc.name for tc in classes}
    for name in costs:
        if name not in known:
            raise MapLoadError(
                f"sidecar: 'costs' names unknown terrain class {name!r} "
                f"(classes: {', '.join(sorted(known))})"
            )
    return tuple(
        TerrainClass(tc.name, sidecar_cost(costs[tc.name], repr(tc.name)))
        if tc.name in costs
        else tc
        for tc in classes
    )


def grey_cost(value: int) -> float:
    """Cost of a walkable grey level (128..255): 1 for white, +1 per 32 levels darker."""
    return 1.0 + (255 - value) / 32.0
