"""``find_world_path``: a path through a world, by a lazy A* over the link overlay.

The overlay's nodes are the query's start and goal and the ends of every usable link way
(:func:`gridpath.world.overlay.usable_ways`, kept per world revision, maps, filter, blocked
cells and options in :mod:`gridpath.world.graph`); a node is one place, and each has two
states: *arrived by a link* (or the start), which may walk a leg on its map or take a link,
and *arrived by a leg*, which may only take a link (a leg after a leg is one leg: the two
would reset the heading, which only a link does). A leg is the map's own single-map search
(``find_path`` with the request's algorithm and options and the map's blocked cells), run
only when the overlay needs it: from a state settled by a link, each target on its map (the
entrances of ways, and the goal) is queued at ``g + lb + H_leg`` (an estimate), and its leg
is searched when that estimate is popped; the exact arrival is then queued at
``g + leg + H_leg``. A state is settled on an exact pop; the search ends when the goal is
settled. ``lb`` is an admissible bound of a leg (:func:`gridpath.world.overlay.leg_bound`),
``H`` a consistent bound to the goal through the links (:mod:`gridpath.world.bounds`) and
``H_leg`` the bound of a place reached by a leg, which may only take a link (zero for
Dijkstra), so with optimal legs the world cost is optimal.

Many legs at once: with optimal legs (no turn penalty), once a state has searched
:data:`~gridpath.world.flood.FLOOD_AFTER` legs one by one, its remaining targets are costed
by one bounded Dijkstra flood from it (:mod:`gridpath.world.flood`); those within the radius
get their exact arrival, the others an estimate raised to the radius, and the next flood
from that state doubles it, never beyond what could still beat the best goal arrival
queued. Legs to the goal are costed likewise by backward floods from the goal (movement is
symmetric). A flooded leg on the final path is searched again with the request's algorithm
for its cells, so answers are that algorithm's paths; every flood's and search's
expansions count against ``max_expanded``.

Ties break by (exact first, lower bound to the goal, state index, queue order): the nodes
are the ways' ends in the world's link order, then the start and the goal, so answers are
deterministic. A settled state's targets are ordered once and queued one at a time (the
next when the previous is popped), so the queue holds few entries whatever the link count.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from gridpath.search.algorithms import is_optimal
from gridpath.search.find import PathResult, check_cell, find_path
from gridpath.search.options import Algorithm, CostModel, Diagonal, SearchOptions
from gridpath.search.plan import plan_for
from gridpath.search.scratch import SearchScratch, thread_scratch
from gridpath.search.warming import require as require_warm
from gridpath.world.flood import FLOOD_AFTER, MIN_RADIUS_STEPS
from gridpath.world.legs import Limit, Overlay
from gridpath.world.model import Place, WorldMaps
from gridpath.world.overlay import (
    NO_CELLS,
    NO_FILTER,
    LinkFilter,
    blocked_by_map,
    check_terrain_names,
    grid_of,
    leg_options,
    metric,
)

Cell = tuple[int, int]
# The searches that serve ``closest`` themselves; the others' closest leg is searched by A*.
_FLOODS = (Algorithm.ASTAR, Algorithm.DIJKSTRA, Algorithm.BFS, Algorithm.GREEDY)


@dataclass(frozen=True)
class WorldQuery:
    maps: WorldMaps
    start: Place
    goal: Place
    options: SearchOptions
    links: LinkFilter = NO_FILTER
    blocked: Mapping[str, tuple[Cell, ...]] = field(default_factory=dict)
    waypoints: bool = True


@dataclass(frozen=True)
class Leg:
    """A walk on one map; ``link`` is the link taken from its last cell (None on the last)."""

    map: str
    revision: int
    path: np.ndarray  # (n, 2) int32
    waypoints: np.ndarray | None
    cost: float | int
    waypoints_cost: float | int | None
    link: str | None


@dataclass(frozen=True)
class WorldPath:
    found: bool
    reason: str | None
    cost: float | int | None
    legs: tuple[Leg, ...]
    links: tuple[str, ...]
    expanded: int
    algorithm: Algorithm
    optimal: bool
    search_us: float
    partial: bool = False


class _Search:
    """The lazy A* (module docstring). States: ``2 * node`` arrived by a link (or the
    start), ``2 * node + 1`` arrived by a leg."""

    def __init__(self, overlay: Overlay) -> None:
        self.o = overlay
        self.heap: list[tuple] = []
        self.seq = 0
        self.settled: dict[int, tuple[float, float, int, tuple]] = {}  # state: (g, cost, src, how)
        # A settled state's targets: (keys, nodes, version); an estimate of an older version
        # is stale (a flood re-ranked them). Per state: legs searched one by one, last radius.
        self.pending: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}
        self.paired: dict[int, int] = {}
        self.radius: dict[int, float] = {}
        self.goal = -1
        self.to_goal: dict[int, float] = {}  # node: its leg's cost to the goal (inf: none)
        self.goal_paired, self.goal_radius = 0, 0.0
        self.best = math.inf  # the least exact key of a goal arrival queued: an upper bound
        max_cost = overlay.query.options.max_cost
        self.max_cost = math.inf if max_cost is None else max_cost * (1 + 1e-12) + 1e-12

    def push(self, f: float, exact: int, state: int, src: int, payload: tuple) -> None:
        self.seq += 1
        h = float((self.o.h_leg if state & 1 else self.o.h)[state >> 1])
        if exact == 0 and state >> 1 == self.goal:
            self.best = min(self.best, f)
        heapq.heappush(self.heap, (f, exact, h, state, src, self.seq, payload))

    def run(self, goal: int) -> int | None:
        """The settled goal state, or None when the goal is out of reach."""
        start, self.goal = self.o.start, goal
        self.push(float(self.o.h[start]), 0, 2 * start, -1, (0.0, 0.0, ("start",)))
        while self.heap:
            f, kind, _, state, src, _, payload = heapq.heappop(self.heap)
            if not self.o.bfs and f > self.max_cost:
                return None  # every way on costs more than max_cost
            if kind == 1:
                self._estimate(f, state, src, payload)
                continue
            if state in self.settled:
                continue
            g, cost, how = payload
            self.settled[state] = (g, cost, src, how)
            if state >> 1 == goal:
                return state
            self._links(state, g, cost)
            if state % 2 == 0:
                self._targets(state, g)
        return None

    def _links(self, state: int, g: float, cost: float) -> None:
        o = self.o
        for w in o.out.get(state >> 1, ()):
            nxt = 2 * o.index[o.ways[w].exit]
            if nxt not in self.settled and cost + o.ways[w].cost <= self.max_cost:
                g2 = g + o.weight[w]
                self.push(g2 + o.h[nxt >> 1], 0, nxt, state, (g2, cost + o.ways[w].cost,
                                                              ("link", w)))  # fmt: skip

    def _targets(self, state: int, g: float) -> None:
        """Queue the legs from ``state``: its map's targets, ordered by estimate."""
        o, u = self.o, state >> 1
        nodes, h = o.targets[int(o.rows[u, 0])]
        keep = (nodes != u) & np.isfinite(h)
        nodes, h = nodes[keep], h[keep]
        self._rank(state, g + o.lower(u, nodes) + h, nodes, h, 0)

    def _rank(self, state: int, keys, nodes, h, version: int) -> None:
        if nodes.size == 0:
            return
        order = np.lexsort((nodes, h, keys))
        self.pending[state] = (keys[order], nodes[order], version)
        self._next(state, 0)

    def _next(self, state: int, k: int) -> None:
        keys, nodes, version = self.pending[state]
        if k < keys.size:
            self.push(float(keys[k]), 1, 2 * int(nodes[k]) + 1, state, (k, version))

    def _estimate(self, f: float, target: int, state: int, payload: tuple) -> None:
        if payload[0] == "goal":  # a leg to the goal whose bound a goal flood raised
            self._to_goal(f, state, raised=True)
            return
        k, version = payload
        if version != self.pending[state][2]:
            return
        o = self.o
        key = (state >> 1, target >> 1)
        if o.floods and key not in o.legs and target >> 1 == self.goal:
            self._next(state, k + 1)
            self._to_goal(f, state, raised=False)
            return
        if o.floods and key not in o.legs and self.paired.get(state, 0) >= FLOOD_AFTER:
            self._flood(f, state, k)
            return
        self._next(state, k + 1)
        if target in self.settled:
            return
        self.paired[state] = self.paired.get(state, 0) + 1
        result = o.leg(*key)
        if result.found:
            self._arrive(state, target, result.cost, float(result.path.shape[0] - 1))

    def _to_goal(self, f: float, state: int, raised: bool) -> None:
        """The leg from ``state`` to the goal: searched, while few are; then costed by
        backward floods from the goal (movement is symmetric), each reaching the link
        exits and the start on the goal's map within a radius that doubles."""
        o, u, goal = self.o, state >> 1, self.goal
        g = self.settled[state][0]
        if u not in self.to_goal and self.goal_paired < FLOOD_AFTER:
            self.goal_paired += 1
            self.to_goal[u] = o.leg(u, goal).cost if o.leg(u, goal).found else math.inf
        elif u not in self.to_goal and (raised or f - g >= self.goal_radius):
            least = MIN_RADIUS_STEPS * o.bound.orth * o.scale[o.rows[goal, 0]]
            radius = max(f - g, min(2 * max(f - g, least, self.goal_radius), self.best - g))
            if self.goal_radius > 0:  # states of other g ask again: grow by half at least
                radius = max(radius, 1.5 * self.goal_radius)
            if not radius > self.goal_radius:
                radius = math.inf
            fresh = [v not in self.to_goal for v in o.goal_sources.tolist()]
            nodes = np.unique(np.append(o.goal_sources[fresh], u))
            answer = o.flood(goal, nodes, radius)
            self.goal_radius = radius
            for v, c in zip(nodes.tolist(), answer.costs.tolist(), strict=True):
                if math.isfinite(c) or answer.exhausted:
                    self.to_goal[v] = c
        if u in self.to_goal:
            if math.isfinite(self.to_goal[u]):
                self._arrive(state, 2 * goal + 1, self.to_goal[u], 0.0)
        else:  # beyond the radius: its bound is the radius
            self.push(g + max(f - g, self.goal_radius), 1, 2 * goal + 1, state, ("goal",))

    def _arrive(self, state: int, target: int, cost: float | int, steps: float) -> None:
        """Queue the exact arrival at ``target`` by a leg of ``cost`` from ``state``."""
        o = self.o
        g, so_far = self.settled[state][:2]
        if so_far + cost <= self.max_cost:
            g2 = g + (steps if o.bfs else float(cost))
            self.push(g2 + o.h_leg[target >> 1], 0, target, state,
                      (g2, so_far + cost, ("leg", (state >> 1, target >> 1))))  # fmt: skip

    def _flood(self, f: float, state: int, k: int) -> None:
        """Cost the targets of ``state`` from the ``k``-th on by one flood: the exact ones
        are queued as arrivals, the others re-ranked at ``g + max(lb, radius) + H``. The
        radius doubles from flood to flood, and stops where no target beyond it could
        improve on the best goal arrival queued."""
        o, u = self.o, state >> 1
        g = self.settled[state][0]
        keys, nodes, version = self.pending[state]
        todo = np.array([2 * v + 1 not in self.settled for v in nodes[k:].tolist()], dtype=bool)
        keys, nodes = keys[k:][todo], nodes[k:][todo]
        if nodes.size == 0:
            return
        h = o.h_leg[nodes]
        low = o.lower(u, nodes)
        first = float(keys[0] - g - h[0])  # the nearest target's bound (raised by floods)
        least = MIN_RADIUS_STEPS * o.bound.orth * o.scale[o.rows[u, 0]]
        radius = 2 * max(first, least, self.radius.get(state, 0.0))
        radius = max(first, min(radius, self.best - g - float(h.min())))
        if not radius > self.radius.get(state, -1.0):  # no progress (a zero bound): flood all
            radius = math.inf
        self.radius[state] = radius
        answer = o.flood(u, nodes, radius)
        exact = np.isfinite(answer.costs)
        for v, c in zip(nodes[exact].tolist(), answer.costs[exact].tolist(), strict=True):
            self._arrive(state, 2 * v + 1, c, 0.0)
        rest = ~exact if not answer.exhausted else np.zeros(nodes.size, dtype=bool)
        low = np.maximum(low[rest], radius)
        self._rank(state, g + low + h[rest], nodes[rest], h[rest], version + 1)


def find_world_path(query: WorldQuery, scratch: SearchScratch | None = None) -> WorldPath:
    """The path from ``query.start`` to ``query.goal`` through the world's usable links
    (module docstring). Raises as ``find_path`` does for bad endpoints or options, and
    ``map_not_found`` for a place on a map that is not the world's."""
    require_warm("worlds")
    began = time.perf_counter_ns()
    maps, options = query.maps, query.options
    walls = blocked_by_map(maps, query.blocked)
    check_terrain_names(maps, options)
    for place, role in ((query.start, "start"), (query.goal, "goal")):
        grid = grid_of(maps, place.map)
        check_cell(grid, place.cell, role, walls.get(place.map, NO_CELLS), options.clearance)
    start_grid = maps.grids[query.start.map]
    planned = plan_for(start_grid, leg_options(options, start_grid), 0).options.algorithm
    overlay = Overlay(query, walls, scratch or thread_scratch())
    search = _Search(overlay)
    reason = "unreachable"
    try:
        goal_state = search.run(overlay.index[query.goal])
        if goal_state is not None:
            return _answer(overlay, _steps(search, goal_state), True, None, planned, began)
        if options.closest:
            return _closest(overlay, search, planned, began)
    except Limit:
        reason = "limit_reached"
    return _answer(overlay, [], False, reason, planned, began)


def _steps(search: _Search, state: int) -> list[tuple[int, tuple]]:
    """The settled chain to ``state``, start first: (state, how) pairs."""
    chain = []
    while state >= 0:
        _, _, src, how = search.settled[state]
        chain.append((state, how))
        state = src
    return chain[::-1]


def _leg(o: Overlay, result: PathResult | None, node: int, link: str | None) -> Leg:
    place = o.places[node]
    grid = o.query.maps.grids[place.map]
    if result is None:  # a single cell: arrived on a link's exit, leaving by another
        integer = o.query.options.cost_model == CostModel.INTEGER
        zero = 0 if integer else 0.0
        path = np.array([place.cell], dtype=np.int32)
        marks = path.copy() if o.query.waypoints else None
        return Leg(place.map, int(grid.revision), path, marks, zero,
                   zero if o.query.waypoints else None, link)  # fmt: skip
    return Leg(place.map, int(grid.revision), result.path, result.waypoints, result.cost,
               result.waypoints_cost, link)  # fmt: skip


def _answer(o: Overlay, steps, found: bool, reason, planned: Algorithm, began: int,
            tail: PathResult | None = None) -> WorldPath:  # fmt: skip
    """The answer from the settled chain (``tail``: a partial last leg)."""
    legs: list[Leg] = []
    results: list[PathResult] = []
    walk: PathResult | None = None
    node = o.start
    for state, how in steps:
        if how[0] == "leg":
            walk = o.leg(*how[1])  # searched again when a flood costed it
            results.append(walk)
        elif how[0] == "link":
            way = o.ways[how[1]]
            legs.append(_leg(o, walk, o.index[way.entrance], way.link.id))
            walk = None
        node = state >> 1
    if steps:
        if tail is not None:
            walk = tail
            results.append(tail)
        legs.append(_leg(o, walk, node, None))
    used = [o.ways[how[1]] for _, how in steps if how[0] == "link"]
    cost = None
    if legs:
        total = sum(leg.cost for leg in legs) + sum(way.cost for way in used)
        integer = o.query.options.cost_model == CostModel.INTEGER
        cost = int(total) if integer and float(total).is_integer() else float(total)
    reported = {r.options.algorithm for r in results}
    algorithm = reported.pop() if len(reported) == 1 else planned
    return WorldPath(found, reason, cost, tuple(legs), tuple(w.link.id for w in used),
                     o.expanded, algorithm, _optimal(o, results),
                     (time.perf_counter_ns() - began) / 1000, tail is not None)  # fmt: skip


def _optimal(o: Overlay, results: list[PathResult]) -> bool:
    options = o.query.options.resolved()
    if not is_optimal(options):
        return False
    if not all(r.optimal for r in results):
        return False
    if o.bfs:  # fewest steps is cheapest only if a link costs what a step does
        orth = options.step_weights[0]
        return all(way.cost == orth for way in o.ways)
    return True


def _closest(o: Overlay, search: _Search, planned: Algorithm, began: int) -> WorldPath:
    """The goal out of reach with ``closest``: the answer ends at the cell nearest the goal
    on the goal's map among the cells reachable there (one search per connected component
    reached), or is empty when no state on the goal's map was reached."""
    goal = o.query.goal
    grid = o.query.maps.grids[goal.map]
    options = leg_options(o.query.options, grid).resolved()
    algorithm = options.algorithm if options.algorithm in _FLOODS else Algorithm.ASTAR
    options = replace(options, algorithm=algorithm, closest=True)
    components = grid.components(options.clearance, options.diagonal == Diagonal.ALWAYS)
    seen: set[int] = set()
    best = None
    for state, (_, cost, _, _) in sorted(search.settled.items(), key=lambda s: (s[1][0], s[0])):
        place = o.places[state >> 1]
        if state % 2 or place.map != goal.map:
            continue
        label = components.of(grid.index(*place.cell))
        if label in seen:
            continue
        seen.add(label)
        if o.query.options.max_cost is not None:
            options = replace(options, max_cost=max(0.0, o.query.options.max_cost - cost))
        result = find_path(grid, place.cell, goal.cell, options,
                           blocked=o.walls.get(goal.map, NO_CELLS),
                           waypoints=o.query.waypoints, scratch=o.scratch)  # fmt: skip
        o.expanded += result.expanded
        if result.path.shape[0] == 0:
            continue
        end = result.path[-1]
        near = float(metric(o.bound.kind, 1.0, math.sqrt(2), np.array([end[0] - goal.cell[0]]),
                            np.array([end[1] - goal.cell[1]]))[0])  # fmt: skip
        key = (near, cost + result.cost, state)
        if best is None or key < best[0]:
            best = (key, state, result)
    if best is None:
        return _answer(o, [], False, "unreachable", planned, began)
    _, state, result = best
    return _answer(o, _steps(search, state), False, "unreachable", planned, began, tail=result)
