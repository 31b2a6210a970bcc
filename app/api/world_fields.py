"""``/table`` and ``/flowfield`` through a world: their domain requests (run by
``state.search`` on a :class:`gridpath.world.WorldMaps`) and their answers."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import orjson

from app.api.echo import flow_field_options
from app.api.responses import encode_array
from app.api.rules import search_options
from app.api.world_kind import (
    blocked_by_map,
    link_filter,
    place,
    require_world_revision,
    world_cells,
)
from app.cache import LRUCache
from app.config import Settings
from app.models.world_paths import WorldFlowFieldRequest, WorldTableRequest
from app.observability import record_search
from gridpath.errors import InvalidRequest, TableTooLarge
from gridpath.search import SearchOptions
from gridpath.search.flowfield import DIRECTIONS
from gridpath.search.scratch import SearchScratch
from gridpath.world import WorldMaps
from gridpath.world.flowfield import world_flowfield
from gridpath.world.table import world_table


def rules_echo(maps: WorldMaps, options: SearchOptions, blocked: dict, links: Any) -> dict:
    """``options`` of a world's table or flow field: the movement rules, each map's terrain
    costs and blocked cells, and the links excluded."""
    echoes = {
        name: flow_field_options(maps.grids[name], options, blocked.get(name, ()))
        for name in maps.world.maps
    }
    first = echoes[maps.world.maps[0]]
    echo = {k: v for k, v in first.items() if k not in ("terrain_costs", "blocked")}
    echo["terrain_costs"] = {name: e["terrain_costs"] for name, e in echoes.items()}
    echo["blocked"] = {name: e["blocked"] for name, e in echoes.items() if e["blocked"]}
    echo["links"] = {"exclude_ids": list(links.exclude_ids), "exclude_tags": links.exclude_tags}
    return echo


@dataclass(frozen=True)
class WorldTable:
    """A table through a world: each entry the world-optimal cost."""

    request: WorldTableRequest
    options: SearchOptions
    cost: int  # its worst case: MAX_BATCH_EXPANDED, as a map's table shares it

    def run(self, maps: WorldMaps, scratch: SearchScratch) -> tuple[dict, float]:
        request = self.request
        blocked = blocked_by_map(maps, request.blocked)
        table = world_table(
            maps,
            [place(maps, p, f"sources[{i}]") for i, p in enumerate(request.sources)],
            [place(maps, p, f"targets[{i}]") for i, p in enumerate(request.targets)],
            self.options,
            link_filter(request.links),
            blocked,
            # the pairs' searches share the table's budget (MAX_BATCH_EXPANDED), so its
            # work is bounded whatever its size, as a map's table
            max_expanded_total=self.options.max_expanded,
        )
        record_search("world_table", table.expanded, table.search_us, None)
        body = {
            "world": maps.name,
            "world_revision": maps.revision,
            "revisions": maps.revisions(),
            "costs": table.costs,
            "limit_reached": table.not_computed,
            "blocked_sources": list(table.blocked_sources),
            "blocked_targets": list(table.blocked_targets),
            "expanded": table.expanded,
            "options": rules_echo(maps, self.options.resolved(), blocked, request.links),
        }
        return body, table.search_us


def world_table_request(
    request: WorldTableRequest, maps: WorldMaps, settings: Settings
) -> WorldTable:
    require_world_revision(maps, request.world_revision)
    cells = len(request.sources) * len(request.targets)
    if cells > settings.max_table_cells:
        raise TableTooLarge(
            f"{len(request.sources)} sources x {len(request.targets)} targets = {cells} "
            f"entries, over the limit of {settings.max_table_cells} (MAX_TABLE_CELLS)"
        )
    # The table's searches share MAX_BATCH_EXPANDED, as a map's table and a /paths batch do.
    options = search_options(request, settings, max_expanded=settings.max_batch_expanded)
    cost = min(world_cells(maps) * len(request.sources), settings.max_batch_expanded)
    return WorldTable(request, options, cost)


@dataclass(frozen=True)
class WorldFlowField:
    """One flow field through a world (one field per map), cached per world revision, its
    maps' revisions, goal, options, blocked cells and links excluded."""

    request: WorldFlowFieldRequest
    options: SearchOptions
    cache: LRUCache
    cost: int  # a flow field expands every reachable cell of every map

    def run(self, maps: WorldMaps, scratch: SearchScratch) -> tuple[bytes, bool]:
        request = self.request
        links = (
            tuple(sorted(request.links.exclude_ids)),
            tuple(sorted(request.links.exclude_tags)),
        )
        maps_key = tuple((g.name, g.revision, g.sha256) for g in maps.grids.values())
        blocked = blocked_by_map(maps, request.blocked)
        key = ("world", maps.name, maps.revision, maps.world.sha256, maps_key,
               request.goal.map, tuple(request.goal.cell), self.options,
               tuple(blocked.items()), links)  # fmt: skip
        return self.cache.get_or_compute(key, lambda: self._compute(maps, blocked, scratch))

    def _compute(self, maps: WorldMaps, blocked: dict, scratch: SearchScratch) -> bytes:
        request, options = self.request, self.options
        began = time.perf_counter_ns()
        goal = place(maps, request.goal, "goal")
        result = world_flowfield(maps, goal, options, link_filter(request.links), blocked, scratch)
        search_us = (time.perf_counter_ns() - began) / 1000
        record_search("world_flowfield", result.expanded, search_us, None)
        fields = []
        for name in maps.world.maps:
            grid, field = maps.grids[name], result.fields[name]
            fields.append({
                "map": name, "revision": grid.revision, "width": grid.width,
                "height": grid.height, "reachable": field.reachable,
                "cost": encode_array(field.cost), "next": encode_array(field.next),
                "link": encode_array(field.link),
            })  # fmt: skip
        return orjson.dumps({
            "world": maps.name, "world_revision": maps.revision, "goal": goal.document(),
            "expanded": result.expanded, "fields": fields, "directions": list(DIRECTIONS),
            "options": rules_echo(maps, options.resolved(), blocked, request.links),
        })  # fmt: skip


def world_flowfield_request(
    request: WorldFlowFieldRequest, maps: WorldMaps, settings: Settings, cache: LRUCache
) -> WorldFlowField:
    require_world_revision(maps, request.world_revision)
    cells = world_cells(maps)
    if cells > settings.max_flowfield_cells:
        raise InvalidRequest(
            f"world {maps.name!r} has {cells} cells, over the flow-field limit of "
            f"{settings.max_flowfield_cells}",
        )
    return WorldFlowField(request, search_options(request, settings), cache, cells)
