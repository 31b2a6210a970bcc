"""Queries on a polygon map: containment, snapping, paths in both modes, polyline checks."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import shapely
from shapely.ops import nearest_points

from gridpath.nav.geometry import Point, polyline_length
from gridpath.nav.mesh import NavMesh, build_mesh
from gridpath.nav.model import NavMap
from gridpath.nav.polyanya import NavPath, find_path
from gridpath.nav.waypoints import WaypointGraph, is_visible, skip_ahead

MODES = ("exact", "waypoints")


class NavEngine:
    """A polygon map with its search structures (built on first use, then shared)."""

    def __init__(self, nav: NavMap) -> None:
        self.nav = nav

    @cached_property
    def mesh(self) -> NavMesh:
        return build_mesh(self.nav.area)

    @cached_property
    def waypoint_graph(self) -> WaypointGraph:
        return WaypointGraph(self.nav.area, list(self.nav.waypoints))

    def contains(self, p: Point) -> bool:
        """True when p is in the walkable area (boundary included)."""
        return bool(self.mesh.locate(p))

    def snap(self, p: Point) -> Point:
        """The walkable point nearest p (p itself when walkable).

        The nearest boundary point is rounded to floats and may land a hair outside; it
        is then moved towards the inside of the nearest triangle in doubling steps until
        it is walkable (deterministic, and at most a few ulps away).
        """
        if self.contains(p):
            return p
        q = nearest_points(self.nav.area, shapely.points(p))[0]
        cand = (q.x, q.y)
        if self.contains(cand):
            return cand
        mesh = self.mesh
        t = int(mesh.tree.nearest(shapely.points(cand)))
        cx = sum(mesh.vertices[v][0] for v in mesh.polygons[t]) / 3.0
        cy = sum(mesh.vertices[v][1] for v in mesh.polygons[t]) / 3.0
        step = 2.0**-40
        while step < 1.0:
            moved = (cand[0] + (cx - cand[0]) * step, cand[1] + (cy - cand[1]) * step)
            if self.contains(moved):
                return moved
            step *= 2.0
        return (cx, cy)

    def path(
        self, start: Point, goal: Point, *, mode: str = "exact", max_expanded: int = 0
    ) -> NavPath:
        if mode == "exact":
            return find_path(self.mesh, start, goal, max_expanded=max_expanded)
        if mode != "waypoints":
            raise ValueError(f"unknown mode {mode!r}")
        if not (self.contains(start) and self.contains(goal)):
            return NavPath(False, [], None, 0, "not_walkable")
        found = self.waypoint_graph.route(start, goal)
        if found is None:
            return NavPath(False, [], None, len(self.nav.waypoints) + 2, "unreachable")
        route, expanded = found
        points = skip_ahead(self.nav.area, route)
        return NavPath(True, points, polyline_length(points), expanded)

    def validate(self, points: list[Point], max_cost: float | None = None) -> PolylineCheck:
        return check_polyline(self.nav.area, points, max_cost)


@dataclass(frozen=True)
class PolylineCheck:
    valid: bool
    length: float
    reason: str | None = None  # "outside" | "too_long"
    index: int | None = None  # the first segment (or point) that leaves the area


def check_polyline(
    area: shapely.Geometry, points: list[Point], max_cost: float | None = None
) -> PolylineCheck:
    """Every segment stays in the walkable area (touching allowed) and length <= max_cost."""
    if not points:
        return PolylineCheck(False, 0.0, "empty", None)
    if len(points) == 1:
        ok = is_visible(area, points[0], points[0])
        return PolylineCheck(ok, 0.0, None if ok else "outside", None if ok else 0)
    segments = shapely.linestrings([[p, q] for p, q in zip(points, points[1:])])
    inside = shapely.covers(area, segments)
    for i, ok in enumerate(inside.tolist()):
        if not ok:
            return PolylineCheck(False, polyline_length(points), "outside", i)
    length = polyline_length(points)
    if max_cost is not None and length > max_cost:
        return PolylineCheck(False, length, "too_long", None)
    return PolylineCheck(True, length)
