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

from app.api.kinds import require_grid
from app.api.responses import json_response
from app.config import Settings
from app.models.group import GroupRequest, GroupRules, GroupValidateRequest
from app.observability import record_search
from gridpath.errors import GroupTooLarge, InvalidField
from gridpath.grid import Grid
from gridpath.group.graph import MoveGraph, build_graph, free_cells
from gridpath.group.solve import WORK_PER_MS, make_order, solve_order
from gridpath.group.validate import validate_plans
from gridpath.search.options import DIAGONAL_CODES
from gridpath.search.scratch import SearchScratch

ALGORITHM = "lacam*+pibt+lns"


def move_graph(grid: Grid, rules: GroupRules, settings: Settings) -> MoveGraph:
    """The request's cells and moves: clearance, extra walls, 4 or 8 moves."""
    if len(rules.blocked) > settings.max_blocked:
        raise InvalidField("blocked", f"over {settings.max_blocked} blocked cells (MAX_BLOCKED)")
    free = free_cells(grid.passable, rules.clearance, [tuple(c) for c in rules.blocked])
    return build_graph(free, rules.connectivity, DIAGONAL_CODES[rules.diagonal])


def work_budget(request: GroupRequest, settings: Settings) -> int:
    ms = request.time_budget_ms or settings.group_budget_ms
    return min(ms, settings.max_group_budget_ms) * WORK_PER_MS


def _cell(graph: MoveGraph, v: int) -> tuple[int, int]:
    return int(graph.xs[v]), int(graph.ys[v])


def solve(grid: Grid, request: GroupRequest, settings: Settings) -> tuple[dict, float]:
    """Runs on a search thread: the graph, the order's checks, LaCAM*; the answer's body."""
    began = time.perf_counter()
    graph = move_graph(grid, request, settings)
    n = len(request.units)
    if n * graph.vertex_count > settings.max_group_table_cells:
        raise GroupTooLarge(
            f"{n} units x {graph.vertex_count} free cells is over "
            f"MAX_GROUP_TABLE_CELLS ({settings.max_group_table_cells})"
        )
    order = make_order(
        graph, [tuple(u.start) for u in request.units], [tuple(u.goal) for u in request.units]
    )
    result, goal_of = solve_order(order, work_budget(request, settings), assign=request.assign)
    plans: list | np.ndarray = []
    if result.found:  # (units, ticks, 2), serialised by orjson straight from the array
        xs, ys = graph.xs[result.configs], graph.ys[result.configs]  # (ticks, units)
        plans = np.ascontiguousarray(np.stack((xs.T, ys.T), axis=-1), dtype=np.int64)
    us = (time.perf_counter() - began) * 1e6
    record_search("group", result.expanded, us, result.reason)
    body = {
        "map": grid.name,
        "revision": grid.revision,
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


async def validate_group(raw: dict, state, store) -> Response:
    """``POST /validate`` with ``plans``: a claimed group move (docs/group.md)."""
    try:
        request = GroupValidateRequest.model_validate(raw)
    except ValidationError as exc:  # the same invalid_* answer as a declared body's
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors()]
        ) from None
    cells = sum(len(p) for p in request.plans)
    if cells > state.settings.max_validate_cells:
        raise InvalidField(
            "plans",
            f"{cells} cells in the plans, over the limit of "
            f"{state.settings.max_validate_cells} (MAX_VALIDATE_CELLS)",
        )
    grid = require_grid(store.get(request.map), "group plans")
    body, us = await state.search(grid, GroupSearch(validate, request, state.settings, cells))
    return json_response(body, us)


@dataclass(frozen=True)
class GroupSearch:
    """A group request as a search on a snapshot: ``work`` (:func:`solve` for POST /group,
    :func:`validate` for /validate with ``plans``) runs on a search thread, admitted at
    ``cost`` (the work budget, or the plans' cells)."""

    work: Callable[[Grid, Any, Settings], tuple[dict, float]]
    request: GroupRequest | GroupValidateRequest
    settings: Settings
    cost: int

    def run(self, grid: Grid, scratch: SearchScratch) -> tuple[dict, float]:
        return self.work(grid, self.request, self.settings)
