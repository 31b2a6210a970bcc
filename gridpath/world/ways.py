"""Which link ways a query may take: the one definition of a *usable* link way.

A link way (from -> to, and to -> from when bidirectional) is usable when the link is
enabled, not excluded by id or tag, and both its end cells are cells where the unit can
stand for this query (on its map now, walkable for its clearance, not one of the request's
blocked cells). The group moves (:mod:`gridpath.group.world`) read it; it is written to
match ``gridpath.world.search``'s (branch worlds-search) signature, so one replaces the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gridpath.world.model import Link, Place, WorldMaps

Cell = tuple[int, int]
NO_CELLS: frozenset[Cell] = frozenset()


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


def standable(grid, cell: Cell, blocked: frozenset[Cell], clearance: int) -> bool:
    """The unit can stand on ``cell`` of ``grid`` (a ``Grid``) for this query."""
    x, y = cell
    return grid.in_bounds(x, y) and grid.clearance_at(x, y) >= clearance and cell not in blocked


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
