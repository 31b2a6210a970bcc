"""Waypoint mode: the original design's route over hand-placed waypoints.

Nodes are the map's waypoints plus the start and the goal; two nodes are joined when
the segment between them stays in the walkable area (touching the boundary allowed,
decided by GEOS's robust ``covers``). The route is the shortest over that graph
(Dijkstra, ties broken by node number: start, waypoints in file order, goal), then
smoothed by skip-ahead: walking the route, a waypoint is skipped as soon as the one
after it is visible from the last kept point (V-T-S-P-Q becomes V-W-Z-A1-Q). Smoothing
only removes points, and each removal replaces two sides of a triangle by the third, so
the smoothed route is never longer.

The same graph search over all the outline's and holes' vertices
(:func:`visibility_shortest_path`) is the brute-force reference the tests check the
exact mode against.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import shapely

from gridpath.nav.geometry import Point, dist


def visible_pairs(area: shapely.Geometry, points: list[Point]) -> np.ndarray:
    """``(n, n)`` bool matrix: segment i-j stays in the walkable area."""
    n = len(points)
    seen = np.zeros((n, n), dtype=bool)
    if n < 2:
        return seen
    i, j = np.triu_indices(n, k=1)
    coords = np.asarray(points, dtype=np.float64)
    lines = shapely.linestrings(np.stack([coords[i], coords[j]], axis=1))
    ok = shapely.covers(area, lines)
    seen[i, j] = ok
    seen[j, i] = ok
    return seen


def visible_from(area: shapely.Geometry, p: Point, points: list[Point]) -> np.ndarray:
    """Bool per point: the segment from p to it stays in the walkable area."""
    if not points:
        return np.zeros(0, dtype=bool)
    coords = np.asarray(points, dtype=np.float64)
    origin = np.broadcast_to(np.asarray(p, dtype=np.float64), coords.shape)
    return shapely.covers(area, shapely.linestrings(np.stack([origin, coords], axis=1)))


def is_visible(area: shapely.Geometry, p: Point, q: Point) -> bool:
    if p == q:
        return bool(area.covers(shapely.points(p)))
    return bool(area.covers(shapely.linestrings([p, q])))


class WaypointGraph:
    """The visibility graph over a fixed set of points, built once per map revision."""

    def __init__(self, area: shapely.Geometry, points: list[Point]) -> None:
        self.area = area
        self.points = list(points)
        seen = visible_pairs(area, self.points)
        self.edges: list[list[tuple[float, int]]] = [
            [(dist(p, self.points[j]), j) for j in np.flatnonzero(seen[i]).tolist()]
            for i, p in enumerate(self.points)
        ]

    def route(self, start: Point, goal: Point) -> tuple[list[Point], int] | None:
        """The shortest route start -> waypoints -> goal, and the nodes expanded."""
        n = len(self.points)
        s, t = n, n + 1  # node numbers of the start and the goal
        nodes = [*self.points, start, goal]
        from_start = visible_from(self.area, start, self.points)
        to_goal = visible_from(self.area, goal, self.points)
        best = [math.inf] * (n + 2)
        parent = [-1] * (n + 2)
        best[s] = 0.0
        heap = [(0.0, s)]
        expanded = 0
        settled = [False] * (n + 2)
        while heap:
            d, u = heapq.heappop(heap)
            if d > best[u] or settled[u]:
                continue
            settled[u] = True
            expanded += 1
            if u == t:
                break
            if u == s:
                out = [(dist(start, self.points[j]), j) for j in np.flatnonzero(from_start)]
                if is_visible(self.area, start, goal):
                    out.append((dist(start, goal), t))
            else:
                out = list(self.edges[u])
                if to_goal[u]:
                    out.append((dist(self.points[u], goal), t))
            for w, v in out:
                nd = d + w
                # A settled node keeps its parent: two waypoints at one spot (an edge of
                # length 0) would otherwise make each the other's parent, a loop in the route.
                if settled[v]:
                    continue
                if nd < best[v] or (nd == best[v] and u < parent[v]):
                    best[v] = nd
                    parent[v] = u
                    heapq.heappush(heap, (nd, v))
        if best[t] == math.inf:
            return None
        route, u = [], t
        while u != -1:
            route.append(nodes[u])
            u = parent[u]
        route.reverse()
        return route, expanded


def skip_ahead(area: shapely.Geometry, route: list[Point]) -> list[Point]:
    """Drop each point as soon as the one after it is visible from the last kept point."""
    if len(route) <= 2:
        return list(route)
    kept = [route[0]]
    for i in range(1, len(route) - 1):
        if not is_visible(area, kept[-1], route[i + 1]):
            kept.append(route[i])
    kept.append(route[-1])
    return kept


def visibility_shortest_path(
    area: shapely.Geometry, corners: list[Point], start: Point, goal: Point
) -> tuple[list[Point], float] | None:
    """Shortest path over the visibility graph of ``corners`` plus start and goal."""
    found = WaypointGraph(area, corners).route(start, goal)
    if found is None:
        return None
    route = found[0]
    return route, math.fsum(dist(p, q) for p, q in zip(route, route[1:]))
