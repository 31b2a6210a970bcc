"""Polygon maps: the ``NAME.nav.json`` format, its validation and its loader.

A polygon map is ``{"outline": [[x, y], ...], "holes": [[[x, y], ...], ...],
"waypoints": [[x, y], ...]}`` in continuous coordinates (JSON numbers). The walkable area
is the outline's interior minus the holes' interiors, boundary included: a path may touch
the outline or a hole, run along an edge and pass the point where two holes touch.

Rules (each failure raises :class:`~gridpath.errors.MapLoadError` naming the ring and vertex):

* ``outline`` is a simple ring of at least 3 distinct vertices with a non-zero area; the
  closing vertex may be repeated or left out; consecutive repeated vertices are refused.
* every hole is such a ring too, lies inside the outline (touching it allowed) and does not
  overlap another hole (touching at vertices or along edges allowed);
* every waypoint lies in the walkable area (boundary included);
* at most ``max_vertices`` vertices in all rings and ``max_waypoints`` waypoints;
* every coordinate within ±:data:`MAX_COORDINATE`.

Rings may run either way round; they are stored as given (the mesh orients its own).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import shapely
from shapely.geometry import LinearRing, MultiPoint, Point, Polygon
from shapely.ops import unary_union

from gridpath.errors import MapLoadError

NAV_SUFFIX = ".nav.json"
# The largest coordinate (in absolute value) of a vertex, waypoint or query point: squared
# distances and path lengths then stay finite floats (GEOS and the length sums overflow near
# 1e154 and 1e308), far beyond any game world's units.
MAX_COORDINATE = 1e15
DEFAULT_MAX_VERTICES = 200_000
DEFAULT_MAX_WAYPOINTS = 1024

Coord = tuple[float, float]
Ring = tuple[Coord, ...]


@dataclass(frozen=True, eq=False)
class NavMap:
    """A validated polygon map. ``area`` is the walkable area (shapely, boundary included)."""

    name: str
    outline: Ring
    holes: tuple[Ring, ...]
    waypoints: tuple[Coord, ...]
    area: shapely.Geometry = field(repr=False)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(min_x, min_y, max_x, max_y) of the outline."""
        xs = [p[0] for p in self.outline]
        ys = [p[1] for p in self.outline]
        return (min(xs), min(ys), max(xs), max(ys))

    @property
    def vertex_count(self) -> int:
        return len(self.outline) + sum(len(h) for h in self.holes)

    def to_json(self) -> dict:
        return {
            "outline": [list(p) for p in self.outline],
            "holes": [[list(p) for p in h] for h in self.holes],
            "waypoints": [list(p) for p in self.waypoints],
        }


def is_nav_file(path: Path) -> bool:
    return path.is_file() and not path.name.startswith(".") and path.name.endswith(NAV_SUFFIX)


def nav_map_name(path: Path) -> str:
    """``maps/hall.nav.json`` is the map ``hall``."""
    return path.name[: -len(NAV_SUFFIX)]


def load_nav_file(
    path: Path,
    *,
    max_bytes: int,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    max_waypoints: int = DEFAULT_MAX_WAYPOINTS,
) -> NavMap:
    path = Path(path)
    return load_nav_bytes(
        nav_map_name(path),
        read_nav_file(path, max_bytes=max_bytes),
        max_vertices=max_vertices,
        max_waypoints=max_waypoints,
    )


def read_nav_file(path: Path, *, max_bytes: int) -> bytes:
    """A ``.nav.json`` file's bytes; :class:`MapLoadError` if unreadable or over ``max_bytes``."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise MapLoadError(f"file is {size} bytes, over the limit of {max_bytes} bytes")
        return path.read_bytes()
    except OSError as exc:
        raise MapLoadError(f"cannot read file: {exc.strerror or exc}") from exc


def load_nav_bytes(
    name: str,
    data: bytes,
    *,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    max_waypoints: int = DEFAULT_MAX_WAYPOINTS,
) -> NavMap:
    if not data:
        raise MapLoadError("file is empty (0 bytes)")
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise MapLoadError(f"not valid JSON: {exc}") from exc
    return parse_nav(name, doc, max_vertices=max_vertices, max_waypoints=max_waypoints)


def parse_nav(
    name: str,
    doc: object,
    *,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    max_waypoints: int = DEFAULT_MAX_WAYPOINTS,
) -> NavMap:
    """Validate a decoded ``.nav.json`` document into a :class:`NavMap`."""
    if not isinstance(doc, dict):
        raise MapLoadError("a polygon map is a JSON object with 'outline', 'holes', 'waypoints'")
    unknown = sorted(set(doc) - {"outline", "holes", "waypoints"})
    if unknown:
        raise MapLoadError(f"unknown field {unknown[0]!r} (expected outline, holes, waypoints)")
    if "outline" not in doc:
        raise MapLoadError("missing field 'outline'")
    holes_doc = doc.get("holes", [])
    waypoints_doc = doc.get("waypoints", [])
    if not isinstance(holes_doc, list):
        raise MapLoadError("'holes' must be a list of rings")
    if not isinstance(waypoints_doc, list):
        raise MapLoadError("'waypoints' must be a list of [x, y] points")
    if len(waypoints_doc) > max_waypoints:
        raise MapLoadError(f"{len(waypoints_doc)} waypoints, over the limit of {max_waypoints}")
    total = (len(doc["outline"]) if isinstance(doc["outline"], list) else 0) + sum(
        len(h) for h in holes_doc if isinstance(h, list)
    )
    if total > max_vertices:
        raise MapLoadError(f"{total} vertices, over the limit of {max_vertices}")

    outline = _ring("outline", doc["outline"])
    holes = tuple(_ring(f"holes[{i}]", h) for i, h in enumerate(holes_doc))
    waypoints = tuple(_point(f"waypoints[{i}]", p) for i, p in enumerate(waypoints_doc))

    outline_poly = Polygon(outline)
    hole_polys = [Polygon(h) for h in holes]
    for i, hole in enumerate(hole_polys):
        if not outline_poly.covers(hole):
            j = _first_vertex_outside(outline_poly, holes[i])
            raise MapLoadError(
                f"holes[{i}] is not inside the outline: vertex {j} {_fmt(holes[i][j])}"
                if j is not None
                else f"holes[{i}] is not inside the outline (it crosses the outline)"
            )
    _check_holes_disjoint(holes, hole_polys)
    area = shapely.normalize(outline_poly.difference(unary_union(hole_polys)))
    if area.is_empty or area.area <= 0.0:
        raise MapLoadError("the holes cover the whole outline: nothing is walkable")
    shapely.prepare(area)
    for i, p in enumerate(waypoints):
        if not area.covers(Point(p)):
            raise MapLoadError(f"waypoints[{i}] {_fmt(p)} is not in the walkable area")
    return NavMap(name=name, outline=outline, holes=holes, waypoints=waypoints, area=area)


def _fmt(p: Coord) -> str:
    return f"({p[0]:g}, {p[1]:g})"


def _point(where: str, value: object) -> Coord:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in value)
    ):
        raise MapLoadError(f"{where} must be an [x, y] pair of numbers")
    x, y = float(value[0]), float(value[1])
    if not (math.isfinite(x) and math.isfinite(y)):
        raise MapLoadError(f"{where} is not a finite point")
    if max(abs(x), abs(y)) > MAX_COORDINATE:
        raise MapLoadError(f"{where} {_fmt((x, y))} has a coordinate beyond ±{MAX_COORDINATE:g}")
    return (x, y)


def _ring(where: str, value: object) -> Ring:
    if not isinstance(value, list):
        raise MapLoadError(f"{where} must be a list of [x, y] points")
    points = [_point(f"{where} vertex {i}", p) for i, p in enumerate(value)]
    if len(points) > 1 and points[0] == points[-1]:
        points.pop()  # an explicitly closed ring
    for i in range(1, len(points)):
        if points[i] == points[i - 1]:
            raise MapLoadError(f"{where} vertex {i} repeats vertex {i - 1} {_fmt(points[i])}")
    if len(points) < 3:
        raise MapLoadError(f"{where} needs at least 3 distinct vertices, has {len(points)}")
    if MultiPoint(points).convex_hull.area <= 0.0:
        raise MapLoadError(f"{where} encloses no area (its vertices are collinear)")
    if not LinearRing(points).is_simple:
        at = _self_intersection(points)
        raise MapLoadError(f"{where} is not a simple ring: it crosses itself {at}")
    return tuple(points)


def _self_intersection(points: list[Coord]) -> str:
    """Name where a ring crosses itself: the vertex nearest GEOS's reported location."""
    reason = shapely.is_valid_reason(Polygon(points))
    location = None
    if "[" in reason:
        try:
            x, y = (float(t) for t in reason[reason.index("[") + 1 : reason.index("]")].split())
            location = (x, y)
        except ValueError:
            location = None
    if location is None:
        return "(location unknown)"
    nearest = min(
        range(len(points)),
        key=lambda i: (math.dist(points[i], location), i),
    )
    return f"at {_fmt(location)}, near vertex {nearest} {_fmt(points[nearest])}"


def _first_vertex_outside(poly: Polygon, ring: Ring) -> int | None:
    inside = shapely.covers(poly, shapely.points(ring))
    for j, ok in enumerate(inside):
        if not ok:
            return j
    return None


def _check_holes_disjoint(holes: tuple[Ring, ...], polys: list[Polygon]) -> None:
    if len(polys) < 2:
        return
    tree = shapely.STRtree(polys)
    left, right = tree.query(polys, predicate="intersects")
    for i, j in sorted(zip(left.tolist(), right.tolist())):
        if i >= j:
            continue
        # Interiors must not meet: touching at points or along edges is allowed.
        if shapely.relate_pattern(polys[i], polys[j], "T********"):
            overlap = polys[i].intersection(polys[j]).representative_point()
            p = (overlap.x, overlap.y)
            k = min(range(len(holes[j])), key=lambda v: (math.dist(holes[j][v], p), v))
            raise MapLoadError(
                f"holes[{i}] overlaps holes[{j}] near {_fmt(p)} "
                f"(holes[{j}] vertex {k} {_fmt(holes[j][k])})"
            )
