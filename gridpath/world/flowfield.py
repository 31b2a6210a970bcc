"""``world_flowfield``: a flow field through a world, one field per map of the world.

Each cell gets its world-optimal cost to the goal through the usable links
(:func:`gridpath.world.overlay.usable_ways`, the one definition), the direction code of its
first step when that step is a move (``next``, as :mod:`gridpath.search.flowfield`), and the
index in ``world.links`` of the link to take from it when the first step is a link
(``link``; -1 where it is a move or there is none). One-way links are followed only in
their direction: the search runs from the goal and relaxes each way backwards, offering the
way's entrance at the way's cost plus its exit's cost. Moves win ties with links (a unit
takes a link only where it is strictly cheaper than walking); the kernel and its rules are
in :mod:`gridpath.world._flood`.

The work is bounded: every cell of the world is settled at most once (the caller caps the
world's cells), and ``max_expanded``, when given, stops the search early (cells not
reached then are -1, ``limit_reached`` says so). As the single-map flow field, the
algorithm and heuristic options do not apply, and ``turn_penalty`` is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from gridpath.errors import InvalidOption
from gridpath.search._frontier import BLOCKED, GOAL
from gridpath.search.find import check_cell
from gridpath.search.options import DEFAULT_OPTIONS, DIAGONAL_CODES, SearchOptions
from gridpath.search.plan import terrain_prices
from gridpath.search.scratch import SearchScratch, thread_scratch
from gridpath.search.warming import require as require_warm
from gridpath.world import _flood
from gridpath.world.model import Place, WorldMaps
from gridpath.world.overlay import (
    NO_CELLS,
    NO_FILTER,
    LinkFilter,
    Way,
    blocked_by_map,
    check_terrain_names,
    grid_of,
    leg_options,
    usable_ways,
)

Cell = tuple[int, int]
_ONE = np.ones(1, dtype=np.float64)  # the cell costs of a world whose every map is uniform


@dataclass(frozen=True)
class MapFlow:
    """One map's part of a world flow field."""

    cost: np.ndarray  # (height, width) float64 cost to the goal; -1 unreachable or blocked
    next: np.ndarray  # (height, width) int8 direction code of a first move; -1 for none
    link: np.ndarray  # (height, width) int32 index in world.links of a first link; -1 none

    @property
    def reachable(self) -> int:
        return int((self.cost >= 0).sum())


@dataclass(frozen=True)
class WorldFlow:
    fields: dict[str, MapFlow]  # per map of the world, in the world's order
    expanded: int
    limit_reached: bool


def world_flowfield(
    maps: WorldMaps,
    goal: Place,
    options: SearchOptions = DEFAULT_OPTIONS,
    links: LinkFilter = NO_FILTER,
    blocked: Mapping[str, Iterable[Cell]] | None = None,
    scratch: SearchScratch | None = None,
) -> WorldFlow:
    """The world's flow field to ``goal`` (module docstring); ``map_not_found`` for a place
    on a map that is not the world's, ``out_of_bounds`` / ``goal_blocked`` for the goal."""
    require_warm("worlds")
    if options.turn_penalty > 0:
        raise InvalidOption("turn_penalty", "flow fields do not support turn_penalty")
    check_terrain_names(maps, options)
    walls = blocked_by_map(maps, blocked or {})
    options = options.resolved()
    goal_grid = grid_of(maps, goal.map)
    check_cell(goal_grid, goal.cell, "goal", walls.get(goal.map, NO_CELLS), options.clearance)
    names = maps.world.maps
    grids = [maps.grids[name] for name in names]
    offsets = np.cumsum([0] + [grid.flat.size for grid in grids]).astype(np.int64)
    scratch = scratch or thread_scratch()
    generation = scratch.begin(int(offsets[-1]))
    for m, name in enumerate(names):
        cells = sorted(walls.get(name, NO_CELLS))
        index = [offsets[m] + grids[m].index(x, y) for x, y in cells]
        scratch.marks[np.array(index, dtype=np.int64), BLOCKED] = generation
    ways = _ways(usable_ways(maps, links, walls, options.clearance), names, grids, offsets)
    scratch.marks[ways[0], GOAL] = generation  # the ways' exits
    orth_w, diag_w = options.step_weights
    max_expanded = options.max_expanded or int(offsets[-1]) + 1
    rules = (options.clearance, DIAGONAL_CODES[options.diagonal], float(orth_w), float(diag_w),
             int(max_expanded))  # fmt: skip
    world = _stack(grids, options, offsets)
    start = int(offsets[names.index(goal.map)]) + goal_grid.index(*goal.cell)
    expanded, limited = _flood.flood(world, rules, ways, scratch.record(generation, costs=True),
                                     start)  # fmt: skip
    fields = {}
    for m, (name, grid) in enumerate(zip(names, grids, strict=True)):
        cost = np.empty((grid.height, grid.width), dtype=np.float64)
        step = np.empty((grid.height, grid.width), dtype=np.int8)
        link = np.empty((grid.height, grid.width), dtype=np.int32)
        _flood.extract(scratch.nodes, scratch.g_cost, generation, int(offsets[m]), grid.stride,
                       cost, step, link)  # fmt: skip
        fields[name] = MapFlow(cost, step, link)
    return WorldFlow(fields, int(expanded), bool(limited))


def _stack(grids, options: SearchOptions, offsets: np.ndarray) -> tuple:
    """The kernel's world record: the maps' padded clearance end to end, their cell costs
    (each map's classes priced by its own terrain costs) unless every map is uniform, the
    maps' offsets and padded row lengths."""
    passable = np.concatenate([grid.flat for grid in grids])
    prices = [terrain_prices(grid, leg_options(options, grid).resolved()) for grid in grids]
    uniform = all(price[1] for price in prices)
    if uniform:
        cell_cost = _ONE
    else:
        cell_cost = np.concatenate(
            [price[0][grid.terrain_flat] for price, grid in zip(prices, grids, strict=True)]
        )
    strides = np.array([grid.stride for grid in grids], dtype=np.int64)
    return (passable, cell_cost, bool(uniform), offsets[:-1].copy(), strides)


def _ways(ways: tuple[Way, ...], names, grids, offsets: np.ndarray) -> tuple:
    """The kernel's ways record, sorted by exit (stable: the world's way order within)."""
    map_no = {name: m for m, name in enumerate(names)}

    def node(place: Place) -> int:
        m = map_no[place.map]
        return int(offsets[m]) + grids[m].index(*place.cell)

    exits = np.array([node(way.exit) for way in ways], dtype=np.int64)
    order = np.argsort(exits, kind="stable")
    entrances = np.array([node(way.entrance) for way in ways], dtype=np.int64)
    costs = np.array([way.cost for way in ways], dtype=np.float64)
    link = np.array([way.index for way in ways], dtype=np.int64)
    return (exits[order], entrances[order], costs[order], link[order])


__all__ = ["MapFlow", "WorldFlow", "world_flowfield"]
