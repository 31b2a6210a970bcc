"""Worlds over HTTP: what ``/path``, ``/paths`` and ``/validate`` do with ``"world"`` (the
sibling of :mod:`app.api.grid_kind`; :mod:`app.api.kinds` dispatches to it by the view's
``kind``, ``"world"``).

A world request takes the road every request takes (docs/architecture.md): its snapshot is
a :class:`gridpath.world.WorldMaps` (the world revision and its maps' snapshots, one
consistent view), its domain request carries its worst case in expansions, and
``state.search`` runs it on a search thread; the library (:mod:`gridpath.world`) searches.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.api.echo import path_options, terrain_echo
from app.api.path_body import capped_options
from app.api.rules import expansion_budget, search_options
from app.config import Settings
from app.models.places import LinkChoice, WorldPlace
from app.models.world_paths import WorldPathQuery, WorldValidateRequest
from app.observability import record_search
from gridpath.errors import InvalidField, MapNotFound, StaleRevision, UnsupportedMapKind
from gridpath.search import SearchOptions
from gridpath.search.scratch import SearchScratch
from gridpath.world import Place, WorldMaps
from gridpath.world.search import LinkFilter, WorldPath, WorldQuery, find_world_path
from gridpath.world.validate import validate_world_path

Cell = tuple[int, int]


def require_world_revision(maps: WorldMaps, wanted: int | None) -> None:
    """A request naming ``world_revision`` is answered on that revision only (409)."""
    if wanted is not None and wanted != maps.revision:
        raise StaleRevision(f"world {maps.name!r} is at revision {maps.revision}, not {wanted}")


def place(maps: WorldMaps, value: WorldPlace, what: str) -> Place:
    """A request's place, on a map of the world (else 404 ``map_not_found``)."""
    if value.map not in maps.grids:
        raise MapNotFound(f"{what} is on map {value.map!r}, which is not in world {maps.name!r}")
    return Place(value.map, (value.cell[0], value.cell[1]))


def blocked_by_map(maps: WorldMaps, places: Iterable[WorldPlace]) -> dict[str, tuple[Cell, ...]]:
    """A request's ``blocked`` places, per map (each map's cells sorted, once each)."""
    cells: dict[str, set[Cell]] = {}
    for i, value in enumerate(places):
        found = place(maps, value, f"blocked[{i}]")
        cells.setdefault(found.map, set()).add(found.cell)
    return {name: tuple(sorted(cells[name])) for name in sorted(cells)}


def link_filter(choice: LinkChoice) -> LinkFilter:
    return LinkFilter(frozenset(choice.exclude_ids), frozenset(choice.exclude_tags))


def world_cells(maps: WorldMaps) -> int:
    """Cells of every map of the world: the bound of a search through it."""
    return sum(int(maps.grids[name].cell_count) for name in maps.world.maps)


def world_options(
    query: WorldPathQuery, maps: WorldMaps, settings: Settings, expansion_cap: int | None
) -> SearchOptions:
    """A world query's search options, the server's caps applied (as a map query's:
    ``max_expanded`` bounds the expansions of every leg together)."""
    largest = max(int(maps.grids[name].cell_count) for name in maps.world.maps)
    where = f"a map of world {maps.name!r}"
    return capped_options(query, settings, largest, where, expansion_cap)


def legs_hash(legs: Sequence[Any]) -> str:
    """SHA-256 over the legs in order: each leg's map name (UTF-8), a NUL byte, its cell
    count (little-endian uint32), its cells (little-endian int32 ``x, y`` pairs), its link
    id (UTF-8; nothing on the last leg) and a NUL byte. Names hold no NUL, so the encoding
    is unambiguous; equal routes hash equal in any process."""
    digest = hashlib.sha256()
    for leg in legs:
        cells = np.ascontiguousarray(leg.path, dtype="<i4").reshape(-1, 2)
        digest.update(leg.map.encode() + b"\0" + struct.pack("<I", len(cells)))
        digest.update(cells.tobytes())
        digest.update((leg.link or "").encode() + b"\0")
    return digest.hexdigest()


def options_echo(maps: WorldMaps, options: SearchOptions, choice: LinkChoice) -> dict:
    """``options`` of a world answer: ``/path``'s, with each map's terrain costs, and the
    links the request excluded."""
    grids = [maps.grids[name] for name in maps.world.maps]
    echo = dict(path_options(grids[0], options))
    echo["terrain_costs"] = {grid.name: terrain_echo(grid, options) for grid in grids}
    echo["links"] = {"exclude_ids": list(choice.exclude_ids), "exclude_tags": choice.exclude_tags}
    return echo


def leg_body(leg: Any, include: set[str]) -> dict[str, Any]:
    body: dict[str, Any] = {"map": leg.map, "revision": leg.revision}
    if "path" in include:
        body["path"] = leg.path
    if "waypoints" in include:
        body["waypoints"] = leg.waypoints
    body["cost"] = leg.cost
    if "waypoints" in include:
        body["waypoints_cost"] = leg.waypoints_cost
    body["link"] = leg.link
    return body


def world_path_body(
    maps: WorldMaps, query: WorldPathQuery, options: SearchOptions, result: WorldPath
) -> dict[str, Any]:
    """The ``WorldPathResponse`` body of a search through a world."""
    include = set(query.include)
    body: dict[str, Any] = {
        "world": maps.name,
        "world_revision": maps.revision,
        "found": result.found,
        "reason": result.reason,
        "partial": result.partial,
        "cost": result.cost,
        "legs": [leg_body(leg, include) for leg in result.legs],
        "links": list(result.links),
        "path_hash": legs_hash(result.legs),
        "expanded": result.expanded,
    }
    if "timing" in include:
        body["search_us"] = round(result.search_us, 1)
    body["algorithm"] = result.algorithm.value
    body["optimal"] = result.optimal
    body["options"] = options_echo(maps, options.resolved(), query.links)
    return body


@dataclass(frozen=True)
class WorldPathSearch:
    """One query through a world with its options (the server's caps applied)."""

    query: WorldPathQuery
    options: SearchOptions
    cost: int  # its worst case in expansions: the world's cells, capped

    def run(self, maps: WorldMaps, scratch: SearchScratch) -> tuple[dict, float]:
        query = self.query
        search = WorldQuery(
            maps,
            place(maps, query.start, "start"),
            place(maps, query.goal, "goal"),
            self.options,
            links=link_filter(query.links),
            blocked=blocked_by_map(maps, query.blocked),
            waypoints="waypoints" in query.include,
        )
        result = find_world_path(search, scratch)
        record_search(
            f"world_{result.algorithm.value}", result.expanded, result.search_us, result.reason
        )
        return world_path_body(maps, query, self.options, result), result.search_us


@dataclass(frozen=True)
class WorldValidation:
    query: WorldValidateRequest
    options: SearchOptions
    cost: int  # the path's cells, and the world's if the optimal cost is searched for

    def run(self, maps: WorldMaps, scratch: SearchScratch) -> tuple[dict, float]:
        request = self.query
        ends = [None if p is None else place(maps, p, w) for p, w in _ends(request)]
        result = validate_world_path(
            maps,
            [place(maps, p, f"path[{i}]") for i, p in enumerate(request.path)],
            self.options,
            link_filter(request.links),
            blocked=blocked_by_map(maps, request.blocked),
            start=ends[0],
            goal=ends[1],
            max_cost=request.max_cost,
            compare_optimal=request.compare_optimal,
        )
        body = {
            "world": maps.name,
            "world_revision": maps.revision,
            "valid": not result.violations,
            "cost": result.cost,
            "checked": result.checked,
            "violations": [
                {"index": v.index, "code": v.code, "message": v.message} for v in result.violations
            ],
        }
        if request.compare_optimal:
            body["optimal_cost"] = result.optimal_cost
        if request.timing:
            body["search_us"] = round(result.search_us, 1)
        return body, result.search_us


def _ends(request: WorldValidateRequest) -> list[tuple[WorldPlace | None, str]]:
    return [(request.start, "start"), (request.goal, "goal")]


class WorldKind:
    """A world's answers (:class:`app.api.kinds.MapKind`): the map routes never see one."""

    noun = "a world"
    rival = None  # a field a world request does not take is unknown, as any other

    def info(self, maps: WorldMaps) -> Any:
        raise UnsupportedMapKind(f"{maps.name!r} is a world, not a map")

    def require_grid(self, maps: WorldMaps, what: str) -> Any:
        raise UnsupportedMapKind(f"{what} takes a map; {maps.name!r} is a world")

    def path_request(
        self, query: WorldPathQuery, maps: WorldMaps, settings: Settings, cap: int | None
    ) -> WorldPathSearch:
        require_world_revision(maps, getattr(query, "world_revision", None))
        options = world_options(query, maps, settings, cap)
        return WorldPathSearch(query, options, min(world_cells(maps), options.max_expanded))

    def batch_budget(self, maps: WorldMaps, settings: Settings, count: int) -> tuple[int, int]:
        """``(share, cost)`` of each of ``count`` queries: ``MAX_BATCH_EXPANDED`` shared."""
        share = max(1, settings.max_batch_expanded // count)
        cost = min(world_cells(maps), settings.max_expanded, expansion_budget(settings), share)
        return share, cost

    def answer_chunk(self, queries: Any, maps: WorldMaps, scratch: SearchScratch) -> list:
        return [query.run(maps, scratch) for query in queries]

    def validation(
        self, query: WorldValidateRequest, maps: WorldMaps, settings: Settings
    ) -> WorldValidation:
        require_world_revision(maps, query.world_revision)
        if len(query.path) > settings.max_validate_cells:
            raise InvalidField(
                "path",
                f"path has {len(query.path)} entries, over the limit of "
                f"{settings.max_validate_cells}",
            )
        options = search_options(query, settings)
        cost = len(query.path) + (world_cells(maps) if query.compare_optimal else 0)
        return WorldValidation(query, options, cost)
