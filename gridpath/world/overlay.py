"""The link overlay of a query: which link ways are usable now, each map's options, and the
lower bound of a leg (what the overlay search and its heuristic measure legs by).

One definition of "usable", shared by the world's search, table, flow field and validator:
a link way (from -> to, and to -> from when bidirectional) is usable when the link is
enabled, not excluded by id or tag, and both its end cells are cells where the unit can
stand for this query (on its map now, walkable, clearance at least the unit's, not a
request's blocked cell).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from gridpath.errors import InvalidOption, MapNotFound
from gridpath.grid.model import Grid
from gridpath.search.options import Algorithm, SearchOptions
from gridpath.search.overlay import blocked_cells
from gridpath.search.plan import terrain_prices
from gridpath.world.model import Link, Place, WorldMaps

Cell = tuple[int, int]
NO_CELLS: frozenset[Cell] = frozenset()

# Lower-bound metrics of a leg (|dx|, |dy| -> a distance; see bounds.metric).
MANHATTAN, OCTILE, CHEBYSHEV, EUCLIDEAN = 0, 1, 2, 3
# A lower bound computed in floating point may exceed a path's summed cost by an ulp on a
# straight run: shrinking it by this factor keeps it a bound, so no optimal leg is pruned.
SHRINK = 1.0 - 1e-12


@dataclass(frozen=True)
class LinkFilter:
    """Links a query may not take (a unit that cannot climb: ``exclude_tags={"ladder"}``)."""

    exclude_ids: frozenset[str] = frozenset()
    exclude_tags: frozenset[str] = frozenset()

    def allows(self, link: Link) -> bool:
        if link.id in self.exclude_ids:
            return False
        return not (self.exclude_tags and self.exclude_tags.intersection(link.tags))


NO_FILTER = LinkFilter()


@dataclass(frozen=True, slots=True)
class Way:
    """One usable traversal of a link: ``entrance`` -> ``exit`` costing ``cost``."""

    index: int  # the link's place in world.links
    link: Link
    entrance: Place
    exit: Place
    cost: float
    forward: bool  # from -> to (False: a bidirectional link taken backwards)


def standable(grid: Grid, cell: Cell, blocked: frozenset[Cell], clearance: int) -> bool:
    """The unit can stand on ``cell`` of ``grid`` for this query."""
    x, y = cell
    return grid.in_bounds(x, y) and grid.clearance_at(x, y) >= clearance and cell not in blocked


def blocked_by_map(
    maps: WorldMaps, blocked: Mapping[str, Iterable[Cell]]
) -> dict[str, frozenset[Cell]]:
    """The request's blocked cells per map, checked (``map_not_found``, ``out_of_bounds``)."""
    out: dict[str, frozenset[Cell]] = {}
    for name, cells in blocked.items():
        out[name] = blocked_cells(grid_of(maps, name), cells)
    return out


def grid_of(maps: WorldMaps, name: str) -> Grid:
    if name not in maps.grids or name not in maps.world.maps:
        raise MapNotFound(f"map {name!r} is not a map of world {maps.world.name!r}")
    return maps.grids[name]


def usable_ways(
    maps: WorldMaps,
    links: LinkFilter = NO_FILTER,
    blocked: Mapping[str, Iterable[Cell]] | None = None,
    clearance: int = 1,
) -> tuple[Way, ...]:
    """The link ways usable now, in the world's link order (forward before backward)."""
    walls = {name: frozenset(cells) for name, cells in (blocked or {}).items()}
    ways: list[Way] = []
    for index, link in enumerate(maps.world.links):
        if not link.enabled or not links.allows(link):
            continue
        ends_open = all(
            place.map in maps.grids
            and standable(
                maps.grids[place.map], place.cell, walls.get(place.map, NO_CELLS), clearance
            )  # fmt: skip
            for place in (link.source, link.target)
        )
        if ends_open:
            for k, (entrance, exit_) in enumerate(link.ways()):
                ways.append(Way(index, link, entrance, exit_, link.cost, k == 0))
    return tuple(ways)


def check_terrain_names(maps: WorldMaps, options: SearchOptions) -> None:
    """A ``terrain_costs`` class must be a class of at least one map of the world."""
    names = {tc.name for grid in maps.grids.values() for tc in grid.terrain_classes}
    for name, _ in options.terrain_costs:
        if name not in names:
            raise InvalidOption(
                "terrain_costs", f"no map of world {maps.world.name!r} has terrain class {name!r}"
            )


def leg_options(options: SearchOptions, grid: Grid) -> SearchOptions:
    """The options a leg on ``grid`` is searched with: the request's, its terrain overrides
    kept to the map's own classes, without ``closest`` and ``max_cost`` (the world's search
    applies those to the whole path)."""
    return _leg_options(options, tuple(tc.name for tc in grid.terrain_classes))


@lru_cache(maxsize=1024)
def _leg_options(options: SearchOptions, classes: tuple[str, ...]) -> SearchOptions:
    terrain = tuple((n, c) for n, c in options.terrain_costs if n in classes)
    return replace(options, terrain_costs=terrain, closest=False, max_cost=None)


@dataclass(frozen=True)
class LegBound:
    """An admissible lower bound of a leg's overlay weight: ``metric(|dx|, |dy|)`` with step
    weights ``(orth, diag)`` times the map's ``scale`` (its cheapest terrain cost)."""

    kind: int
    orth: float
    diag: float
    scale: dict[str, float]  # per map


def leg_bound(maps: WorldMaps, options: SearchOptions) -> LegBound:
    """Legs are measured by cost, bounded by the movement's own distance times the map's
    cheapest class; BFS legs are measured in steps; Theta* legs are any-angle, bounded by
    the Euclidean distance. Whatever the request's heuristic: the bound must be admissible."""
    resolved = options.resolved()
    orth, diag = resolved.step_weights
    if resolved.algorithm == Algorithm.BFS:
        kind = CHEBYSHEV if resolved.diagonals else MANHATTAN
        return LegBound(kind, 1.0, 1.0, {name: SHRINK for name in maps.world.maps})
    if resolved.algorithm == Algorithm.THETA:
        kind = EUCLIDEAN
    else:
        kind = OCTILE if resolved.diagonals else MANHATTAN
    scale = {}
    for name in maps.world.maps:
        grid = maps.grids[name]
        _, _, min_cost = terrain_prices(grid, leg_options(resolved, grid).resolved())
        scale[name] = min_cost * SHRINK
    return LegBound(kind, float(orth), float(diag), scale)


def metric(kind: int, orth: float, diag: float, dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The lower-bound distance for offsets ``dx``, ``dy`` (numpy, any shape)."""
    ax, ay = np.abs(dx).astype(np.float64), np.abs(dy).astype(np.float64)
    if kind == MANHATTAN:
        return (ax + ay) * orth
    if kind == OCTILE:
        low = np.minimum(ax, ay)
        return (ax + ay - 2 * low) * orth + low * diag
    if kind == CHEBYSHEV:
        return np.maximum(ax, ay) * orth
    return np.hypot(ax, ay) * orth
