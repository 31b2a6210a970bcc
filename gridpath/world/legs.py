"""The overlay of one world query: its places (the link graph's, then the start and the
goal), the bounds to the goal, and its legs: searched one by one with the request's
algorithm (kept for the rest of the query), or costed many at once by a bounded flood
(:mod:`gridpath.world.flood`). Every expansion counts against ``max_expanded``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gridpath.search.find import PathResult, find_path
from gridpath.search.options import Algorithm, SearchOptions
from gridpath.world.flood import Flood, flood, floods
from gridpath.world.graph import heuristics, link_graph, with_ends
from gridpath.world.overlay import NO_CELLS, leg_options, metric

Cell = tuple[int, int]


class Limit(Exception):
    """The legs' expansions reached ``max_expanded``."""


class Overlay:
    """The overlay of one query: its places, usable ways, bounds and leg searches."""

    def __init__(self, query, walls: dict[str, frozenset[Cell]], scratch) -> None:
        self.query, self.walls, self.scratch = query, walls, scratch
        options = query.options
        self.bfs = options.algorithm == Algorithm.BFS
        graph = link_graph(query.maps, query.links, walls, options)
        self.ways, self.out, self.weight = graph.ways, graph.out, graph.weight.tolist()
        self.bound, self.scale = graph.bound, graph.scale
        self.index, self.rows = with_ends(graph, query.start, query.goal)
        self.places = list(self.index)
        self.start, goal = self.index[query.start], self.index[query.goal]
        dijkstra = options.algorithm == Algorithm.DIJKSTRA
        self.h, self.h_leg = heuristics(graph, self.rows, goal, dijkstra)
        self.targets = {}
        for m, entrances in enumerate(graph.entrances):
            nodes = entrances
            if self.rows[goal, 0] == m and goal not in graph.out:
                nodes = np.sort(np.append(entrances, goal))
            self.targets[m] = (nodes, self.h_leg[nodes])
        # The places that may walk a leg to the goal: link exits and the start on its map.
        walkers = np.unique(np.append(graph.exit, self.start))
        on_goal_map = self.rows[walkers, 0] == self.rows[goal, 0]
        self.goal_sources = walkers[on_goal_map & (walkers != goal)]
        self.legs: dict[tuple[int, int], PathResult] = {}
        self.floods = floods(options)
        self.expanded = 0
        self.budget = options.max_expanded

    def lower(self, u: int, nodes: np.ndarray) -> np.ndarray:
        """``lb`` of the legs from node ``u`` to ``nodes`` (on its map)."""
        d = self.rows[nodes, 1:] - self.rows[u, 1:]
        b = self.bound
        return metric(b.kind, b.orth, b.diag, d[:, 0], d[:, 1]) * self.scale[self.rows[u, 0]]

    def leg(self, u: int, v: int) -> PathResult:
        """The leg from node ``u`` to node ``v`` (same map), searched once per query."""
        key = (u, v)
        if key in self.legs:
            return self.legs[key]
        a, b = self.places[u], self.places[v]
        grid = self.query.maps.grids[a.map]
        options = leg_options(self.query.options, grid)
        if self.budget is not None:
            left = self.budget - self.expanded
            if left <= 0:
                raise Limit
            options = _capped(options, left)
        result = find_path(grid, a.cell, b.cell, options, blocked=self.walls.get(a.map, NO_CELLS),
                           waypoints=self.query.waypoints, scratch=self.scratch)  # fmt: skip
        self.expanded += result.expanded
        if result.reason == "limit_reached":
            raise Limit
        self.legs[key] = result
        return result

    def flood(self, u: int, nodes: np.ndarray, radius: float) -> Flood:
        """The exact legs from node ``u`` to ``nodes`` within ``radius`` (one flood)."""
        place = self.places[u]
        grid = self.query.maps.grids[place.map]
        left = grid.cell_count + 1 if self.budget is None else self.budget - self.expanded
        if left <= 0:
            raise Limit
        options = leg_options(self.query.options, grid).resolved()
        answer = flood(grid, options, self.walls.get(place.map, NO_CELLS), place.cell,
                       self.rows[nodes, 1:], radius, left, self.scratch)  # fmt: skip
        self.expanded += answer.expanded
        if answer.budget_spent:
            raise Limit
        return answer


def _capped(options: SearchOptions, left: int) -> SearchOptions:
    return replace(options, max_expanded=left)
