"""POST /table: optimal costs from many sources to many targets (:mod:`gridpath.search.table`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import RegistryDep, StateDep, snapshot_at
from app.api.echo import flow_field_options
from app.api.kinds import map_or_world, require_grid
from app.api.responses import json_response
from app.api.rules import search_options, worst_case_expansions
from app.api.world_fields import world_table_request
from app.api.worlds import world_maps
from app.config import Settings
from app.models import (
    STALE_REVISION_RESPONSE,
    AnyTableRequest,
    ErrorResponse,
    TableRequest,
    TableResponse,
)
from app.models.world_paths import WorldTableRequest, WorldTableResponse
from app.observability import record_search
from gridpath.errors import TableTooLarge
from gridpath.grid import Grid
from gridpath.search.scratch import SearchScratch
from gridpath.search.table import TableLine, TablePlan, assemble, plan_table, search_line

router = APIRouter(tags=["paths"])

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {
        "model": ErrorResponse,
        "description": "Unknown map (`map_not_found`, also a place on a map not in the "
        "world), unknown world (`world_not_found`).",
    },
    409: STALE_REVISION_RESPONSE,
    422: {
        "model": ErrorResponse,
        "description": "`invalid_request`, `invalid_<option>`, `out_of_bounds` (a source or "
        "target outside the map, named by its index), `table_too_large`.",
    },
    503: {"model": ErrorResponse, "description": "`not_ready` or `overloaded`."},
}


@dataclass(frozen=True)
class TablePlanning:
    """Which searches a table needs (the sources and targets checked, the budget shared)."""

    request: TableRequest
    settings: Settings
    cost: int  # the sources and targets

    def run(self, grid: Grid, scratch: SearchScratch) -> TablePlan:
        request, settings = self.request, self.settings
        return plan_table(
            grid,
            request.sources,
            request.targets,
            search_options(request, settings),
            blocked=[tuple(c) for c in request.blocked],
            max_expanded=settings.max_expanded,
            # The table's searches share the batch budget evenly, like a /paths batch.
            max_expanded_total=settings.max_batch_expanded,
        )


@dataclass(frozen=True)
class TableLineSearch:
    """The searches of one line of the table (one source, or one target)."""

    index: int
    cost: int  # its share of the budget, capped by the map

    def run(self, plan: TablePlan, scratch: SearchScratch) -> TableLine:
        line = search_line(plan, self.index, scratch)
        kind = "table_jps" if plan.pairwise else "table_flood"
        record_search(kind, line.expanded, line.search_us, None)
        return line


@dataclass(frozen=True)
class TableAssembly:
    """The lines as one table: O(entries), so off the event loop."""

    lines: list[TableLine]
    cost: int  # the entries

    def run(self, plan: TablePlan, scratch: SearchScratch) -> Any:
        return assemble(plan, self.lines)


@router.post("/table", response_model=TableResponse | WorldTableResponse, responses=_ERRORS)
async def post_table(body: AnyTableRequest, state: StateDep, store: RegistryDep) -> Response:
    """Optimal cost from every source to every target (`null`: no path): one Dijkstra flood
    per source, or per target when fewer, or one jump point search per pair where it
    applies (see the README). Through a world (``world``, sources and targets as places):
    each entry the world-optimal cost through its links."""
    request = map_or_world(body, TableRequest, WorldTableRequest)
    if isinstance(request, WorldTableRequest):
        maps = await world_maps(state, request.world, request.world_revision)
        table = world_table_request(request, maps, state.settings)
        return json_response(*await state.search(maps, table))
    cells = len(request.sources) * len(request.targets)
    if cells > state.settings.max_table_cells:
        raise TableTooLarge(
            f"{len(request.sources)} sources x {len(request.targets)} targets = {cells} "
            f"entries, over the limit of {state.settings.max_table_cells} (MAX_TABLE_CELLS)"
        )
    grid = await snapshot_at(state, store, request.map, request.revision)  # one for the whole table
    require_grid(grid, "POST /table")
    settings = state.settings
    planning = TablePlanning(request, settings, len(request.sources) + len(request.targets))
    plan = await state.search(grid, planning)
    # Admitted as one request, like a /paths batch: each search's worst case is its share.
    cost = worst_case_expansions(grid.cell_count, settings, plan.max_expanded, None)
    searches = [TableLineSearch(k, cost) for k in range(len(plan.origins))]
    lines = await state.search_all(plan, searches)
    table = await state.search(plan, TableAssembly(lines, cells))
    body = {
        "map": grid.name,
        "revision": grid.revision,
        "costs": table.costs,
        "limit_reached": table.not_computed,
        "blocked_sources": list(table.blocked_sources),
        "blocked_targets": list(table.blocked_targets),
        "searched_from": "targets" if table.reverse else "sources",
        "searches": table.searches,
        "expanded": table.expanded,
        "options": flow_field_options(grid, plan.options, sorted(plan.blocked)),
    }
    return json_response(body, table.search_us)
