"""The ``/path`` answer: one query on one map snapshot, to the body ``PathResponse``
documents (built here only; used by ``/path`` and ``/paths``)."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from app.api.echo import path_options
from app.api.rules import expansion_budget, search_options
from app.config import Settings
from app.models import PathQuery
from app.observability import record_search
from gridpath.errors import InvalidField, InvalidRequest, require_revision
from gridpath.grid import Grid
from gridpath.search import PathResult, SearchOptions, find_path
from gridpath.search.overlay import blocked_cells
from gridpath.search.scratch import SearchScratch
from gridpath.search.snap import Snapped, snap_ends

# The fields of a query that its search options do not read: a query that sets no other
# field searches under the defaults' options, which depend only on the caps below.
_NOT_OPTIONS = frozenset({"map", "start", "goal", "snap", "revision", "include"})
# (expansion_cap, MAX_EXPANDED, MAX_SEARCH_MS, SEARCH_EXPANSIONS_PER_MS) -> the defaults'
# options under those caps; bounded (cleared when full).
_DEFAULTS: dict[tuple, SearchOptions] = {}


def query_options(
    query: PathQuery, grid: Grid, settings: Settings, expansion_cap: int | None = None
) -> SearchOptions:
    """A query's search options, with the server's caps applied (``expansion_cap``: a batch's
    share of its total budget). A query that sets only its ends (the common one: every
    query of a typical ``/paths`` batch) gets the defaults' options, made once per caps:
    they read neither the map nor the rest of the query, and no check on them can fail."""
    if query.goal is None or not query.model_fields_set <= _NOT_OPTIONS:
        return _query_options(query, grid, settings, expansion_cap)
    caps = (
        expansion_cap, settings.max_expanded, settings.max_search_ms,
        settings.search_expansions_per_ms,
    )  # fmt: skip
    options = _DEFAULTS.get(caps)
    if options is None:
        options = _query_options(query, grid, settings, expansion_cap)
        if len(_DEFAULTS) >= 64:
            _DEFAULTS.clear()
        _DEFAULTS[caps] = options
    return options


def _query_options(
    query: PathQuery, grid: Grid, settings: Settings, expansion_cap: int | None
) -> SearchOptions:
    if query.goals is not None and len(query.goals) > settings.max_goals:
        raise InvalidField(
            "goals", f"goals lists {len(query.goals)} cells, over the limit of {settings.max_goals}"
        )
    if query.goal is None and query.goals is None:
        raise InvalidRequest("missing field 'goal' (or give 'goals')")
    if query.goal is not None and query.goals is not None:
        raise InvalidField("goals", "give either goal or goals, not both")
    return capped_options(query, settings, grid.cell_count, f"map {grid.name!r}", expansion_cap)


def capped_options(
    query, settings: Settings, cells: int, where: str, expansion_cap: int | None
) -> SearchOptions:
    """A query's search options with the server's caps applied (a map's query, or a world's
    whose largest map has ``cells``; ``where`` names it in the refusal)."""
    if query.turn_penalty > 0 and cells > settings.max_turn_cells:
        raise InvalidField(
            "turn_penalty",
            f"turn_penalty searches 9 states per cell; {where} has "
            f"{cells} cells, over the limit of {settings.max_turn_cells}",
        )
    cap = min(
        settings.max_expanded,
        expansion_cap or settings.max_expanded,
        expansion_budget(settings, query.time_budget_ms),
    )
    return search_options(
        query,
        settings,
        algorithm=query.algorithm,
        heuristic=query.heuristic,
        heuristic_weight=query.heuristic_weight,
        max_expanded=min(query.max_expanded or cap, cap),
        max_cost=query.max_cost,
        closest=query.closest,
        turn_penalty=query.turn_penalty,
        smooth=query.smooth,
    )


def path_hash(path: np.ndarray) -> str:
    """SHA-256 of the cell path as little-endian int32 ``x, y`` pairs (the determinism check)."""
    return hashlib.sha256(np.ascontiguousarray(path, dtype="<i4")).hexdigest()  # its buffer


def path_body(grid: Grid, result: PathResult, include: set[str]) -> dict[str, Any]:
    """The ``PathResponse`` body of a search result (arrays left as numpy for orjson);
    ``include`` names the optional parts (path, waypoints, explored, timing)."""
    body: dict[str, Any] = {
        "map": grid.name,
        "revision": grid.revision,
        "found": result.found,
        "reason": result.reason,
        "partial": result.partial,
        "goal_index": result.goal_index,
        "cost": result.cost,
    }
    if "path" in include:
        body["path"] = result.path
    if "waypoints" in include:
        body["waypoints"] = result.waypoints
        body["waypoints_cost"] = result.waypoints_cost
    body["path_hash"] = path_hash(result.path)
    body["turns"] = result.turns
    body["expanded"] = result.expanded
    if "explored" in include:
        body["explored"] = result.explored
    if "timing" in include:
        body["search_us"] = round(result.search_us, 1)
    body["algorithm"] = result.options.algorithm.value
    body["optimal"] = result.optimal
    body["bounded_suboptimal"] = result.bounded_suboptimal
    body["options"] = path_options(grid, result.options)
    return body


def answer(
    grid: Grid,
    query: PathQuery,
    settings: Settings,
    scratch: SearchScratch,
    expansion_cap: int | None = None,
) -> tuple[dict, float]:
    """Run one query on one map snapshot; the response body and the kernel time in µs."""
    require_revision(grid.name, grid.revision, query.revision)
    options = query_options(query, grid, settings, expansion_cap)
    return answer_with(grid, query, options, settings, scratch)


def answer_with(
    grid: Grid, query: PathQuery, options: SearchOptions, settings: Settings, scratch: SearchScratch
) -> tuple[dict, float]:
    """:func:`answer` with the query's options (its caps applied) made already."""
    include = set(query.include)
    blocked = [tuple(c) for c in query.blocked]
    start, goal, goals, snapped = query.start, query.goal, query.goals, None
    if query.snap:
        snapped = snap_ends(
            grid, start, goals or [goal], options, blocked_cells(grid, blocked),
            settings.snap_radius, skip=goals is not None,
        )  # fmt: skip
        start = snapped.start
        goal, goals = (snapped.goals[0], None) if goals is None else (None, snapped.goals)
    result = find_path(
        grid,
        start,
        goal,
        options,
        goals=goals,
        blocked=blocked,
        explored_limit=settings.max_explored if "explored" in include else 0,
        waypoints="waypoints" in include,
        scratch=scratch,
    )
    record_search(result.options.algorithm.value, result.expanded, result.search_us, result.reason)
    body = path_body(grid, result, include)
    if snapped is not None:
        _say_snapped(body, snapped, query.goals is not None)
    return body, result.search_us


def _say_snapped(body: dict[str, Any], snapped: Snapped, several: bool) -> None:
    """The snap fields (only what moved or was skipped: a query that needed no snapping
    answers exactly as without ``snap``); ``goal_index`` back to the request's goals."""
    if body["goal_index"] is not None:
        body["goal_index"] = snapped.kept[body["goal_index"]]
    if snapped.moved_start is not None:
        body["snapped_start"] = list(snapped.moved_start)
    if snapped.moved_goals and not several:
        body["snapped_goal"] = list(snapped.moved_goals[0])
    elif snapped.moved_goals:
        moved = sorted(snapped.moved_goals.items())
        body["snapped_goals"] = [{"index": i, "cell": list(c)} for i, c in moved]
    if snapped.skipped:
        body["skipped_goals"] = snapped.skipped
