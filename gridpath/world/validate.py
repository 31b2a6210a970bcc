"""``validate_world_path``: check a claimed path through a world (cells mode).

A step ``p[i-1] -> p[i]`` is the traversal of a link when an enabled link not excluded by
the request joins the two places in that direction (the cheapest such, when several do);
otherwise, between neighbouring cells of one map, it is a move, checked with the rest of
its run of moves by the single-map validator (:func:`gridpath.search.validate.validate_path`,
so every cell and move rule is the single-map one, and every cell is checked once, in its
run). Any other step is a jump, reported with its index: ``link_disabled`` (a link joins
the places that way but is disabled or excluded for this request), ``link_one_way`` (a
link joins them only the other way) or ``link_missing`` (no link does). A link whose end
cell is blocked is reported by the cell's own violation (``blocked_cell``). ``cost`` is the
runs' costs plus the links' costs.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from gridpath.errors import ServiceError
from gridpath.search.cost import reported_cost
from gridpath.search.options import DEFAULT_OPTIONS, Algorithm, CostModel, SearchOptions
from gridpath.search.validate import ValidationResult, Violation, validate_path
from gridpath.world.model import Place, WorldMaps
from gridpath.world.overlay import NO_FILTER, LinkFilter, grid_of, leg_options, usable_ways
from gridpath.world.search import WorldQuery, find_world_path

Cell = tuple[int, int]


def validate_world_path(
    maps: WorldMaps,
    path: Sequence[Place],
    options: SearchOptions = DEFAULT_OPTIONS,
    links: LinkFilter = NO_FILTER,
    start: Place | None = None,
    goal: Place | None = None,
    max_cost: float | None = None,
    compare_optimal: bool = False,
    blocked: Mapping[str, Iterable[Cell]] | None = None,
) -> ValidationResult:
    """Validate ``path`` (see the module docstring); ``map_not_found`` for a place on a map
    that is not the world's."""
    began = time.perf_counter_ns()
    for place in path:
        grid_of(maps, place.map)
    blocked = dict(blocked or {})
    allowed = {}  # (entrance, exit) -> the cheapest allowed way's cost
    for way in usable_ways(maps, links, None, 0):
        key = (way.entrance, way.exit)
        allowed[key] = min(allowed.get(key, way.cost), way.cost)
    violations: list[Violation] = []
    total, run_start, link_cost = 0.0, 0, 0.0
    for i in range(1, len(path) + 1):
        if i < len(path):
            a, b = path[i - 1], path[i]
            if (a, b) not in allowed and a.map == b.map and _neighbours(a.cell, b.cell):
                continue  # a move: checked with its run
        run_cost, found = _run(maps, path, run_start, i, options, blocked)
        total += run_cost
        violations += found
        if i < len(path):
            if (a, b) in allowed:
                link_cost += allowed[(a, b)]
            else:
                violations.append(_jump(maps, links, a, b, i))
            run_start = i
    integer = options.cost_model == CostModel.INTEGER
    cost = total + link_cost
    cost = int(round(cost)) if integer and float(cost).is_integer() else reported_cost(cost, False)
    violations += _ends(path, start, goal)
    n = len(path)
    if max_cost is not None and cost > max_cost + 1e-9 * max(1.0, abs(max_cost)):
        message = f"the path costs {cost}, over the budget of {max_cost}"
        violations.append(Violation(max(n - 1, 0), "over_budget", message))
    optimal = _optimal(maps, path, options, links, blocked) if compare_optimal and n else None
    violations.sort(key=lambda v: v.index)
    search_us = (time.perf_counter_ns() - began) / 1000
    return ValidationResult(not violations, cost, n, violations, optimal, search_us)


def _neighbours(a: Cell, b: Cell) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


def _run(maps, path, first: int, end: int, options, blocked) -> tuple[float, list[Violation]]:
    """Cells ``first..end-1`` (one map, moves between them) by the single-map validator."""
    if end <= first:
        return 0.0, []
    name = path[first].map
    grid = maps.grids[name]
    cells = [place.cell for place in path[first:end]]
    result = validate_path(grid, cells, options=leg_options(options, grid),
                           blocked=tuple(blocked.get(name, ())))  # fmt: skip
    found = [replace(v, index=v.index + first) for v in result.violations]
    return float(result.cost), found


def _jump(maps: WorldMaps, links: LinkFilter, a: Place, b: Place, i: int) -> Violation:
    where = f"{a.map} {list(a.cell)} -> {b.map} {list(b.cell)}"
    for link in maps.world.links:
        ways = link.ways()
        if (a, b) in ways:
            why = "disabled" if not link.enabled else "excluded by the request"
            return Violation(i, "link_disabled", f"{where}: link {link.id!r} is {why}")
    for link in maps.world.links:
        if (link.target, link.source) == (a, b):
            message = f"{where}: link {link.id!r} goes the other way only"
            return Violation(i, "link_one_way", message)
    return Violation(i, "link_missing", f"{where} is no move and no link makes it")


def _ends(path: Sequence[Place], start: Place | None, goal: Place | None) -> list[Violation]:
    n = len(path)
    if n == 0:
        return [Violation(0, "not_adjacent", "the path is empty")]
    wrong = []
    if start is not None and path[0] != start:
        wrong.append(Violation(0, "wrong_start", f"the path starts at {path[0].document()}, "
                               f"not at {start.document()}"))  # fmt: skip
    if goal is not None and path[-1] != goal:
        wrong.append(Violation(n - 1, "wrong_goal", f"the path ends at {path[-1].document()}, "
                               f"not at {goal.document()}"))  # fmt: skip
    return wrong


def _optimal(maps, path, options: SearchOptions, links, blocked) -> float | int | None:
    """The world-optimal cost between the path's ends (None: an end cannot be stood on)."""
    optimal = replace(
        options, algorithm=Algorithm.ASTAR, heuristic=None, heuristic_weight=1.0,
        max_cost=None, closest=False, turn_penalty=0.0, max_expanded=None,
    )  # fmt: skip
    query = WorldQuery(maps, path[0], path[-1], optimal, links, blocked, waypoints=False)
    try:
        return find_world_path(query).cost
    except ServiceError:  # an end is blocked: the violations say so already
        return None
