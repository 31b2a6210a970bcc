"""Polygon maps over HTTP: what ``/path``, ``/paths``, ``/validate`` and the map routes do
on a polygon map, and its uploads (the sibling of :mod:`app.api.grid_kind`;
:mod:`app.api.kinds` dispatches to either). The engine is :mod:`gridpath.nav`, the snapshot
:mod:`gridpath.nav.snapshot`. A grid-only route on a polygon map is
``unsupported_map_kind``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from python_multipart.multipart import parse_options_header

from app.config import Settings
from app.models import PolygonMapInfo, PolygonPathQuery, PolygonValidateRequest
from app.observability import record_search
from gridpath.errors import (
    InvalidField,
    MapLoadError,
    TargetNotWalkable,
    UnsupportedMapKind,
    require_revision,
)
from gridpath.grid import Grid
from gridpath.grid.upload import form_parts
from gridpath.nav.model import NAV_SUFFIX
from gridpath.nav.snapshot import PolygonMap, looks_like_polygon_map
from gridpath.search.scratch import SearchScratch


def polygon_upload(body: bytes, content_type: str) -> bytes | None:
    """The ``.nav.json`` bytes of a ``PUT /maps/{name}`` body that is a polygon map (the
    raw body, or a form's ``map`` part named ``*.nav.json`` or holding one), else None (a
    grid: :func:`gridpath.grid.upload.load_upload`). A polygon map takes no sidecar."""
    media_type, params = parse_options_header(content_type or "")
    if media_type != b"multipart/form-data":
        return body if looks_like_polygon_map(body) else None
    parts = form_parts(body, params.get(b"boundary", b""))
    filename, data = parts.get("map", ("", b""))
    if not (filename.endswith(NAV_SUFFIX) or looks_like_polygon_map(data)):
        return None
    if "sidecar" in parts:
        raise MapLoadError("a polygon map has no sidecar: send the .nav.json alone")
    return data


def polygon_map_info(pmap: PolygonMap) -> PolygonMapInfo:
    nav = pmap.nav
    return PolygonMapInfo(
        name=pmap.name,
        kind="polygon",
        bounds=list(nav.bounds),
        vertices=nav.vertex_count,
        holes=len(nav.holes),
        waypoints=len(nav.waypoints),
        triangles=len(pmap.engine.mesh.polygons),
        revision=pmap.revision,
        sha256=pmap.sha256,
        source=pmap.source,
        memory_bytes=pmap.nbytes,
    )


def _point(p: Any) -> tuple[float, float]:
    return (float(p[0]), float(p[1]))


def polygon_path(
    pmap: PolygonMap, query: PolygonPathQuery, settings: Settings, expansion_cap: int | None = None
) -> tuple[dict, float]:
    """One ``/path`` query on a polygon map: the ``PolygonPathResponse`` body and the search
    time in µs. Deterministic: the body depends on the query and the revision only."""
    require_revision(pmap.name, pmap.revision, query.revision)
    engine = pmap.engine
    ends = {"start": _point(query.start), "goal": _point(query.goal)}
    snapped: dict[str, list[float]] = {}
    for end, p in ends.items():
        if engine.contains(p):
            continue
        if not query.snap:
            raise TargetNotWalkable(
                f"{end} [{p[0]:g}, {p[1]:g}] is outside the walkable area of map "
                f"{pmap.name!r}; send snap: true to move it to the nearest walkable point"
            )
        ends[end] = engine.snap(p)
        snapped[f"snapped_{end}"] = list(ends[end])
    cap = min(settings.max_polygon_expanded, expansion_cap or settings.max_polygon_expanded)
    began = time.perf_counter()
    result = engine.path(
        ends["start"],
        ends["goal"],
        mode=query.mode,
        max_expanded=min(query.max_expanded or cap, cap),
    )
    search_us = (time.perf_counter() - began) * 1e6
    record_search(f"polygon_{query.mode}", result.expanded, search_us, result.reason)
    body: dict[str, Any] = {
        "map": pmap.name,
        "revision": pmap.revision,
        "found": result.found,
        "reason": result.reason,
        "cost": result.cost,
        "points": [list(_point(p)) for p in result.points],
        "mode": query.mode,
        "expanded": result.expanded,
        "optimal": result.found and query.mode == "exact",
        **snapped,
    }
    return body, search_us


def polygon_validate(
    pmap: PolygonMap, request: PolygonValidateRequest, settings: Settings
) -> tuple[dict, float]:
    """``/validate`` on a polygon map: the verdict (the grid verdict's shape) and µs taken."""
    if len(request.points) > settings.max_validate_cells:
        raise InvalidField(
            "points",
            f"points has {len(request.points)} entries, over the limit of "
            f"{settings.max_validate_cells}",
        )
    points = [_point(p) for p in request.points]
    began = time.perf_counter()
    check = pmap.engine.validate(points)  # the budget with the grid's tolerance, below
    search_us = (time.perf_counter() - began) * 1e6
    violations = []
    if request.revision is not None and request.revision != pmap.revision:
        violations.append(
            {
                "index": -1,
                "code": "stale_revision",
                "message": f"the polyline was made on revision {request.revision}; "
                f"map {pmap.name!r} is at revision {pmap.revision}",
            }
        )
    if check.reason == "outside":
        i = check.index
        where = (
            f"point 0 {list(points[0])} is"
            if len(points) == 1
            else f"segment {i} from {list(points[i])} to {list(points[i + 1])}"
        )
        violations.append(
            {
                "index": i,
                "code": "outside_area",
                "message": f"{where} leaves the walkable area of map {pmap.name!r}",
            }
        )
    budget = request.max_cost
    if budget is not None and check.length > budget + 1e-9 * max(1.0, abs(budget)):
        violations.append(
            {
                "index": len(points) - 1,
                "code": "over_budget",
                "message": f"the polyline is {check.length} long, over the budget of {budget}",
            }
        )
    for end, expected, index in (
        ("start", request.start, 0),
        ("goal", request.goal, len(points) - 1),
    ):
        if expected is not None and points[index] != _point(expected):
            violations.append(
                {
                    "index": index,
                    "code": f"wrong_{end}",
                    "message": f"the polyline's {end} is {list(points[index])}, "
                    f"not {list(_point(expected))}",
                }
            )
    body = {
        "map": pmap.name,
        "revision": pmap.revision,
        "valid": not violations,
        "cost": check.length,
        "checked": len(points),
        "violations": violations,
    }
    return body, search_us


@dataclass(frozen=True)
class PolygonPath:
    """One polygon-map query with its expansion cap."""

    query: PolygonPathQuery
    settings: Settings
    cap: int
    cost: int

    def run(self, pmap: PolygonMap, scratch: SearchScratch) -> tuple[dict, float]:
        return polygon_path(pmap, self.query, self.settings, self.cap)


@dataclass(frozen=True)
class PolygonValidation:
    query: PolygonValidateRequest
    settings: Settings
    cost: int  # the polyline's points

    def run(self, pmap: PolygonMap, scratch: SearchScratch) -> tuple[dict, float]:
        return polygon_validate(pmap, self.query, self.settings)


class PolygonKind:
    """A polygon map's answers (:class:`app.api.kinds.MapKind`)."""

    noun = "a polygon map"
    rival = "grid"

    def info(self, pmap: PolygonMap) -> PolygonMapInfo:
        return polygon_map_info(pmap)

    def require_grid(self, pmap: PolygonMap, what: str) -> Grid:
        raise UnsupportedMapKind(
            f"{what} is for grid maps; map {pmap.name!r} is {self.noun} "
            "(POST /path and POST /validate serve it)"
        )

    def path_request(
        self, query: PolygonPathQuery, pmap: PolygonMap, settings: Settings, cap: int | None
    ) -> PolygonPath:
        require_revision(pmap.name, pmap.revision, query.revision)
        most = min(settings.max_polygon_expanded, cap or settings.max_polygon_expanded)
        return PolygonPath(query, settings, most, min(query.max_expanded or most, most))

    def batch_budget(self, pmap: PolygonMap, settings: Settings, count: int) -> tuple[int, int]:
        """``(share, cost)`` of each of ``count`` queries: 4 x ``MAX_POLYGON_EXPANDED``
        shared (as a grid batch's budget is 4 x ``MAX_EXPANDED`` by default)."""
        share = max(1, 4 * settings.max_polygon_expanded // count)
        return share, min(share, settings.max_polygon_expanded)

    def answer_chunk(self, queries: Any, pmap: PolygonMap, scratch: SearchScratch) -> list:
        """One by one: a polygon map's searches have no batch loop."""
        return [query.run(pmap, scratch) for query in queries]

    def validation(
        self, query: PolygonValidateRequest, pmap: PolygonMap, settings: Settings
    ) -> PolygonValidation:
        return PolygonValidation(query, settings, len(query.points))
