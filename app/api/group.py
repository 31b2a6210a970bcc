"""The glue between POST /group (and /validate with ``plans``) and :mod:`gridpath.group`:
the move graph of a request, its work budget, and the two searches as domain requests that
``ServiceState.search`` runs on a snapshot (docs/group.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError

from app.api import worlds
from app.api.kinds import require_grid
from app.api.responses import json_response
from app.config import Settings
from app.models.group import (
    GroupRequest,
    GroupRules,
    GroupValidateRequest,
    WorldGroupRequest,
    WorldGroupRules,
    WorldGroupValidateRequest,
)
from app.observability import record_search
from gridpath.errors import GroupTooLarge, InvalidField, MapNotFound, StaleRevision
from gridpath.grid import Grid
from gridpath.group.budget import machine_rate, order_work
from gridpath.group.graph import MoveGraph, build_graph, free_cells
from gridpath.group.solve import GroupResult, make_order, solve_order
from gridpath.group.validate import validate_plans
from gridpath.group.world import WorldGraph, validate_world_plans, world_graph, world_order
from gridpath.search.options import DIAGONAL_CODES
from gridpath.search.scratch import SearchScratch
from gridpath.world import Place, WorldMaps
from gridpath.world.overlay import LinkFilter

ALGORITHM = "lacam*+pibt+lns"


def move_graph(grid: Grid, rules: GroupRules, settings: Settings) -> MoveGraph:
    """The request's cells and moves: clearance, extra walls, 4 or 8 moves."""
    if len(rules.blocked) > settings.max_blocked:
        raise InvalidField("blocked", f"over {settings.max_blocked} blocked cells (MAX_BLOCKED)")
    free = free_cells(grid.passable, rules.clearance, [tuple(c) for c in rules.blocked])
    return build_graph(free, rules.connectivity, DIAGONAL_CODES[rules.diagonal])


def link_filter(rules: WorldGroupRules) -> LinkFilter:
    return LinkFilter(frozenset(rules.links.exclude_ids), frozenset(rules.links.exclude_tags))


def world_move_graph(maps: WorldMaps, rules: WorldGroupRules, settings: Settings) -> WorldGraph:
    """A world request's cells and moves: the maps' (clearance, extra walls, 4 or 8 moves)
    and the link ways it may take (:mod:`gridpath.group.world`)."""
    if len(rules.blocked) > settings.max_blocked:
        raise InvalidField("blocked", f"over {settings.max_blocked} blocked cells (MAX_BLOCKED)")
    blocked: dict[str, list[tuple[int, int]]] = {}
    for i, place in enumerate(rules.blocked):
        if place.map not in maps.world.maps:
            raise MapNotFound(
                f"blocked[{i}] is on map {place.map!r}, not a map of world {maps.world.name!r}"
            )
        blocked.setdefault(place.map, []).append((place.cell[0], place.cell[1]))
    diagonal = DIAGONAL_CODES[rules.diagonal]
    return world_graph(
        maps, rules.clearance, blocked, rules.connectivity, diagonal, link_filter(rules)
    )


async def world_at(state, name: str, revision: int | None) -> WorldMaps:
    """The world view a whole request runs on: revision ``revision`` when named (waited for,
    then 409 if it is not the current one), else the newest."""
    maps = await worlds.world_maps(state, name, revision)
    if revision is not None and revision != maps.world.revision:
        raise StaleRevision(f"world {name!r} is at revision {maps.world.revision}, not {revision}")
    return maps


def _maps_body(maps: WorldMaps) -> dict[str, Any]:
    revisions = maps.revisions()
    return {
        "world": maps.world.name,
        "world_revision": maps.world.revision,
        "maps": [{"name": name, "revision": revisions[name]} for name in maps.world.maps],
    }


def budget_ms(request: GroupRequest | WorldGroupRequest, settings: Settings) -> int:
    return min(request.time_budget_ms or settings.group_budget_ms, settings.max_group_budget_ms)


def work_rate(settings: Settings) -> int:
    """Work units per ms of budget: ``GROUP_WORK_PER_MS``, else this machine's measured rate
    (:mod:`gridpath.group.budget`)."""
    return settings.group_work_per_ms or machine_rate()


def work_budget(request: GroupRequest | WorldGroupRequest, settings: Settings) -> int:
    """The most work the request may spend (its admission cost): its budget at the rate."""
    return budget_ms(request, settings) * work_rate(settings)


def order_budget(request, settings: Settings, graph: MoveGraph) -> int:
    """The work of the request's budget for its order's size (:func:`order_work`)."""
    ms, rate = budget_ms(request, settings), work_rate(settings)
    return order_work(ms, rate, len(request.units), graph.vertex_count)


def _cell(graph: MoveGraph, v: int) -> tuple[int, int]:
    return int(graph.xs[v]), int(graph.ys[v])


def _check_size(units: int, graph: MoveGraph, settings: Settings) -> None:
    if units * graph.vertex_count > settings.max_group_table_cells:
        raise GroupTooLarge(
            f"{units} units x {graph.vertex_count} free cells is over "
            f"MAX_GROUP_TABLE_CELLS ({settings.max_group_table_cells})"
        )


def _result_body(result: GroupResult, goal_of, plans, began: float) -> tuple[dict, float]:
    us = (time.perf_counter() - began) * 1e6
    record_search("group", result.expanded, us, result.reason)
    body = {
        "found": result.found,
        "reason": result.reason,
        "unreachable_units": list(result.unreachable),
        "makespan": result.makespan,
        "sum_of_costs": result.sum_of_costs,
        "lower_bound": result.lower_bound,
        "plans": plans,
        "goal_index": None if goal_of is None else goal_of.tolist(),
        "algorithm": ALGORITHM,
        "optimal": result.optimal,
        "expanded": result.expanded,
        "work": result.work,
    }
    return body, us


def solve(grid: Grid, request: GroupRequest, settings: Settings) -> tuple[dict, float]:
    """Runs on a search thread: the graph, the order's checks, LaCAM*; the answer's body."""
    began = time.perf_counter()
    graph = move_graph(grid, request, settings)
    _check_size(len(request.units), graph, settings)
    order = make_order(
        graph, [tuple(u.start) for u in request.units], [tuple(u.goal) for u in request.units]
    )
    budget = order_budget(request, settings, graph)
    result, goal_of = solve_order(order, budget, assign=request.assign)
    plans: list | np.ndarray = []
    if result.found:  # (units, ticks, 2), serialised by orjson straight from the array
        xs, ys = graph.xs[result.configs], graph.ys[result.configs]  # (ticks, units)
        plans = np.ascontiguousarray(np.stack((xs.T, ys.T), axis=-1), dtype=np.int64)
    body, us = _result_body(result, goal_of, plans, began)
    return {"map": grid.name, "revision": grid.revision, **body}, us


def solve_world(
    maps: WorldMaps, request: WorldGroupRequest, settings: Settings
) -> tuple[dict, float]:
    """Runs on a search thread: :func:`solve` through a world; each plan entry ``[x, y, m]``."""
    began = time.perf_counter()
    world = world_move_graph(maps, request, settings)
    _check_size(len(request.units), world.graph, settings)
    places = [[Place(p.map, (p.cell[0], p.cell[1])) for p in (u.start, u.goal)]
              for u in request.units]  # fmt: skip
    order = world_order(world, [p[0] for p in places], [p[1] for p in places])
    budget = order_budget(request, settings, world.graph)
    result, goal_of = solve_order(order, budget, assign=request.assign)
    plans = world.plans(result.configs) if result.found else []
    body, us = _result_body(result, goal_of, plans, began)
    return {**_maps_body(maps), **body}, us


def validate(grid: Grid, request: GroupValidateRequest, settings: Settings) -> tuple[dict, float]:
    """Runs on a search thread: every violation of the claimed plans (the first 100)."""
    began = time.perf_counter()
    graph = move_graph(grid, request, settings)
    violations = [
        {"unit": v.unit, "tick": v.tick, "code": v.code, "message": v.message}
        for v in validate_plans(graph, [[tuple(c) for c in p] for p in request.plans])
    ]
    if request.revision is not None and request.revision != grid.revision:
        violations.insert(
            0,
            {
                "unit": -1,
                "tick": -1,
                "code": "stale_revision",
                "message": f"the plans were made on revision {request.revision}; "
                f"map {grid.name!r} is at revision {grid.revision}",
            },
        )
    body = {
        "map": grid.name,
        "revision": grid.revision,
        "valid": not violations,
        "violations": violations,
    }
    return body, (time.perf_counter() - began) * 1e6


def validate_world(
    maps: WorldMaps, request: WorldGroupValidateRequest, settings: Settings
) -> tuple[dict, float]:
    """Runs on a search thread: every violation of plans through a world (the first 100)."""
    began = time.perf_counter()
    world = world_move_graph(maps, request, settings)
    plans = [[tuple(c) for c in p] for p in request.plans]
    found = validate_world_plans(world, maps.world.links, link_filter(request), plans)
    violations = [
        {"unit": v.unit, "tick": v.tick, "code": v.code, "message": v.message} for v in found
    ]
    wanted = request.world_revision
    if wanted is not None and wanted != maps.world.revision:
        message = (
            f"the plans were made on world revision {wanted}; world {maps.world.name!r} is "
            f"at revision {maps.world.revision}"
        )
        violations.insert(0, {"unit": -1, "tick": -1, "code": "stale_revision", "message": message})
    body = {**_maps_body(maps), "valid": not violations, "violations": violations}
    return body, (time.perf_counter() - began) * 1e6


def _parsed(model, raw: dict):
    try:
        return model.model_validate(raw)
    except ValidationError as exc:  # the same invalid_* answer as a declared body's
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
        ) from None


async def validate_group(raw: dict, state, store) -> Response:
    """``POST /validate`` with ``plans``: a claimed group move (docs/group.md), on a map or
    through a world (``"world"``)."""
    world = "world" in raw
    request = _parsed(WorldGroupValidateRequest if world else GroupValidateRequest, raw)
    cells = sum(len(p) for p in request.plans)
    if cells > state.settings.max_validate_cells:
        raise InvalidField(
            "plans",
            f"{cells} cells in the plans, over the limit of "
            f"{state.settings.max_validate_cells} (MAX_VALIDATE_CELLS)",
        )
    if world:
        maps = await worlds.world_maps(state, request.world, None)
        search = GroupSearch(validate_world, request, state.settings, cells)
        body, us = await state.search(maps, search)
        return json_response(body, us)
    grid = require_grid(store.get(request.map), "group plans")
    body, us = await state.search(grid, GroupSearch(validate, request, state.settings, cells))
    return json_response(body, us)


@dataclass(frozen=True)
class GroupSearch:
    """A group request as a search on a snapshot: ``work`` (:func:`solve` for POST /group,
    :func:`validate` for /validate with ``plans``) runs on a search thread, admitted at
    ``cost`` (the work budget, or the plans' cells)."""

    work: Callable[[Any, Any, Settings], tuple[dict, float]]
    request: GroupRequest | GroupValidateRequest | WorldGroupRequest | WorldGroupValidateRequest
    settings: Settings
    cost: int

    def run(self, snapshot: Grid | WorldMaps, scratch: SearchScratch) -> tuple[dict, float]:
        return self.work(snapshot, self.request, self.settings)
