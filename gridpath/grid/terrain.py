"""Terrain costs given by a sidecar (``NAME.json`` next to a map): checked, and applied to
a map's terrain classes by name. Shared by the bitmap/Moving AI loader and the Tiled one."""

from __future__ import annotations

from gridpath.errors import MapLoadError, TerrainCostOutOfRange
from gridpath.grid.model import TERRAIN_COST_RULE, TerrainClass, is_terrain_cost


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
