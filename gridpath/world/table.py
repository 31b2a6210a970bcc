"""``world_table``: the world-optimal cost from each source to each target, shaped like
:class:`gridpath.search.table.CostTable` (``None`` where there is no cost; a source or
target where the unit cannot stand gets a row or column of them).

Each entry is one optimal :func:`~gridpath.world.search.find_world_path` (A\\* legs, weight
1; the request's algorithm where it is optimal), and the searches share
``max_expanded_total`` expansions evenly (an entry whose search reached its share is
``NOT_COMPUTED``), so a table's work is bounded whatever its size. Turn penalties are not
offered (as ``/table``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from gridpath.errors import GoalBlocked, InvalidOption, OutOfBounds, StartBlocked
from gridpath.search.algorithms import is_optimal
from gridpath.search.options import Algorithm, SearchOptions
from gridpath.search.table import COMPUTED, NOT_COMPUTED, UNREACHABLE, CostTable
from gridpath.world.model import Place, WorldMaps
from gridpath.world.overlay import NO_FILTER, LinkFilter, blocked_by_map, grid_of, standable
from gridpath.world.search import WorldQuery, find_world_path

Cell = tuple[int, int]


def _open(maps: WorldMaps, place: Place, walls, clearance: int) -> bool:
    grid = grid_of(maps, place.map)  # map_not_found for a map not of the world
    return standable(grid, place.cell, walls.get(place.map, frozenset()), clearance)


def world_table(
    maps: WorldMaps,
    sources: Sequence[Place],
    targets: Sequence[Place],
    options: SearchOptions,
    links: LinkFilter = NO_FILTER,
    blocked: Mapping[str, Iterable[Cell]] | None = None,
    max_expanded_total: int | None = None,
) -> CostTable:
    """The table (module docstring); ``out_of_bounds`` for a place outside its map."""
    if options.turn_penalty > 0:
        raise InvalidOption("turn_penalty", "cost tables do not support turn_penalty")
    walls = blocked_by_map(maps, blocked or {})
    for role, places in (("sources", sources), ("targets", targets)):
        for place in places:
            grid = grid_of(maps, place.map)
            if not grid.in_bounds(*place.cell):
                raise OutOfBounds(f"{role}: {place.document()} is outside map {place.map!r}")
    if not is_optimal(options) or options.algorithm in (Algorithm.BFS, Algorithm.THETA):
        options = replace(options, algorithm=Algorithm.ASTAR, heuristic=None, heuristic_weight=1)
    options = replace(options, closest=False, max_cost=None)
    unit = options.clearance
    open_s = [i for i, p in enumerate(sources) if _open(maps, p, walls, unit)]
    open_t = [j for j, p in enumerate(targets) if _open(maps, p, walls, unit)]
    share = None
    if max_expanded_total is not None:
        share = max(1, max_expanded_total // max(1, len(open_s) * len(open_t)))
    kinds = np.full((len(sources), len(targets)), UNREACHABLE, dtype=np.int8)
    costs: list[list[float | int | None]] = [[None] * len(targets) for _ in sources]
    expanded, searches, search_us = 0, 0, 0.0
    answers: dict[tuple[Place, Place], object] = {}
    for i in open_s:
        for j in open_t:
            pair = (sources[i], targets[j])
            if pair not in answers:
                limited = options if share is None else replace(options, max_expanded=share)
                query = WorldQuery(maps, *pair, limited, links, walls, waypoints=False)
                try:
                    answers[pair] = find_world_path(query)
                except (StartBlocked, GoalBlocked):  # not reached: the ends are open
                    answers[pair] = None
                    continue
                answer = answers[pair]
                expanded, searches = expanded + answer.expanded, searches + 1
                search_us += answer.search_us
            answer = answers[pair]
            if answer is not None and answer.found:
                costs[i][j], kinds[i, j] = answer.cost, COMPUTED
            elif answer is not None and answer.reason == "limit_reached":
                kinds[i, j] = NOT_COMPUTED
    blocked_sources = tuple(i for i in range(len(sources)) if i not in set(open_s))
    blocked_targets = tuple(j for j in range(len(targets)) if j not in set(open_t))
    return CostTable(costs, kinds, expanded, searches, False, search_us, blocked_sources,
                     blocked_targets)  # fmt: skip
