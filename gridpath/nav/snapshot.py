"""A polygon map as the service serves it: one immutable snapshot per revision.

:class:`PolygonMap` is the sibling of :class:`gridpath.grid.model.Grid`: both are map
snapshots (:class:`gridpath.maps.snapshot.MapSnapshot`: ``name``, ``revision``, ``sha256``,
``source``, ``nbytes``, ``kind``; ``prepare``, ``edit``, ``encode``, ``summary``), and it
holds the engine the searches use (:class:`gridpath.nav.query.NavEngine`). Decisions:

* **Content**: ``data`` is the map's encoding, the ``.nav.json`` bytes as loaded (a file,
  a ``PUT`` body) or, after a ``PATCH``, the canonical encoding of the edited map. It is
  what a store keeps (the folder's file, Redis's ``data`` field), so any process loads it.
* **Content hash**: ``sha256`` is the hash of the canonical encoding (:func:`canonical`), not
  of the bytes: reformatting a file, or the closing vertex written out or not, is not a new
  revision.
* **Prepared before publish**: :meth:`PolygonMap.prepare` builds the navigation mesh and the
  waypoint graph; the registry calls it (``MapRegistry.prepare``) before the revision is
  served, so a revision's first query is as fast as its later ones. A revision made by
  :func:`gridpath.maps.registry.with_revision` shares the engine (same content).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import orjson

from gridpath.errors import InvalidField, MapLoadError, UnsupportedMapKind
from gridpath.nav.model import (
    DEFAULT_MAX_VERTICES,
    DEFAULT_MAX_WAYPOINTS,
    NAV_SUFFIX,
    NavMap,
    load_nav_bytes,
    nav_map_name,
    parse_nav,
    read_nav_file,
)
from gridpath.nav.query import NavEngine


def canonical(nav: NavMap) -> bytes:
    """The map's canonical encoding: compact JSON, rings open, every number a float."""
    return orjson.dumps(nav.to_json())


@dataclass(frozen=True, eq=False)
class PolygonMap:
    name: str
    nav: NavMap = field(repr=False)
    data: bytes = field(repr=False)
    sha256: str
    revision: int = 1
    source: str = ""
    engine: NavEngine = field(init=False, repr=False)
    kind: ClassVar[str] = "polygon"

    def __post_init__(self) -> None:
        object.__setattr__(self, "engine", NavEngine(self.nav))

    def prepare(self, search_data: Callable[..., object] | None = None) -> PolygonMap:
        """Build the mesh and the waypoint graph now (idempotent); returns this map.
        ``search_data`` is a grid's (the protocol's), not called: these are a polygon
        map's search data."""
        _ = self.engine.mesh, self.engine.waypoint_graph
        return self

    def edit(self, change: object, revision: int) -> PolygonMap:
        """Revision ``revision`` with a :class:`PolygonEdit` applied
        (:func:`apply_polygon_edit`); any other change is ``unsupported_map_kind``."""
        if not isinstance(change, PolygonEdit):
            raise UnsupportedMapKind(
                f"map {self.name!r} is a polygon map: edit it with 'holes' and 'waypoints'; "
                "'set' (cells) is for grid maps; nothing was changed"
            )
        return apply_polygon_edit(self, change, revision)

    def encode(self) -> tuple[str, bytes, None]:
        """Its encoding as kept (``data``: a file loads as it was sent), no sidecar."""
        return NAV_SUFFIX, self.data, None

    def summary(self) -> str:
        nav = self.nav
        return (
            f"polygon, {nav.vertex_count} vertices, {len(nav.holes)} holes, "
            f"{len(nav.waypoints)} waypoints, {len(self.engine.mesh.polygons)} triangles"
        )

    @property
    def nbytes(self) -> int:
        """Approximate bytes held: the encoding, the mesh and the waypoint graph's edges."""
        engine = self.engine.__dict__  # what is built (cached_property), nothing built here
        mesh = engine.get("mesh")
        graph = engine.get("waypoint_graph")
        edges = sum(len(e) for e in graph.edges) if graph is not None else 0
        return len(self.data) + (mesh.nbytes if mesh is not None else 0) + 72 * edges


def polygon_map(
    name: str,
    data: bytes,
    *,
    source: str,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    max_waypoints: int = DEFAULT_MAX_WAYPOINTS,
) -> PolygonMap:
    """The polygon map ``data`` (``.nav.json`` bytes) encodes; :class:`MapLoadError` if bad."""
    nav = load_nav_bytes(name, data, max_vertices=max_vertices, max_waypoints=max_waypoints)
    return _snapshot(nav, data, source)


def _snapshot(nav: NavMap, data: bytes, source: str, revision: int = 1) -> PolygonMap:
    digest = hashlib.sha256(canonical(nav)).hexdigest()
    return PolygonMap(nav.name, nav, data, digest, revision=revision, source=source)


def load_polygon_file(path: Path, *, max_bytes: int) -> PolygonMap:
    """Load ``NAME.nav.json`` (the map ``NAME``)."""
    path = Path(path)
    data = read_nav_file(path, max_bytes=max_bytes)
    return polygon_map(nav_map_name(path), data, source=path.name)


def looks_like_polygon_map(data: bytes) -> bool:
    """A JSON object with an ``outline``: what a ``PUT`` body of a polygon map is (a Tiled
    JSON map has ``layers`` and no ``outline``)."""
    head = data.lstrip()[:1]
    if head != b"{":
        return False
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return isinstance(doc, dict) and "outline" in doc


@dataclass(frozen=True)
class HoleEdit:
    """One change to a polygon map's holes: ``add`` a ring, ``replace`` hole ``index`` by
    a ring, or ``remove`` hole ``index``."""

    op: str
    index: int | None = None
    ring: Sequence[Sequence[float]] | None = None


@dataclass(frozen=True)
class PolygonEdit:
    """A ``PATCH`` of a polygon map: hole edits applied in order, then (if given) the
    waypoints replaced. Indices refer to the holes as each edit finds them."""

    holes: Sequence[HoleEdit] = ()
    waypoints: Sequence[Sequence[float]] | None = None


def apply_polygon_edit(current: PolygonMap, edit: PolygonEdit, revision: int) -> PolygonMap:
    """The next revision with ``edit`` applied; raises (changing nothing) if an index is
    out of range (``invalid_holes``) or the result is not a valid map (``invalid_map_data``,
    naming the ring and vertex as a file's errors do)."""
    doc = current.nav.to_json()
    holes = doc["holes"]
    for i, hole_edit in enumerate(edit.holes):
        if hole_edit.op == "add":
            holes.append(_ring_list(hole_edit.ring))
            continue
        index = hole_edit.index
        if index is None or not 0 <= index < len(holes):
            raise InvalidField(
                "holes",
                f"holes[{i}]: {hole_edit.op} needs the index of an existing hole "
                f"(0..{len(holes) - 1}), got {index}; nothing was changed",
            )
        if hole_edit.op == "remove":
            del holes[index]
        else:
            holes[index] = _ring_list(hole_edit.ring)
    if edit.waypoints is not None:
        doc["waypoints"] = [list(p) for p in edit.waypoints]
    try:
        nav = parse_nav(current.name, doc)
    except MapLoadError as exc:
        raise InvalidField("map_data", f"{exc.reason}; nothing was changed") from None
    new = _snapshot(nav, canonical(nav), f"{current.name}{NAV_SUFFIX}", revision)
    return new.prepare()


def _ring_list(ring: Sequence[Sequence[float]] | None) -> list:
    return [list(p) for p in ring or ()]
