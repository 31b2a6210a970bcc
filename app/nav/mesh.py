"""The navigation mesh of a polygon map: a triangulation of its walkable area.

Each connected part of the walkable area (a polygon with holes, from shapely) is
triangulated with ``mapbox-earcut``; no vertex is added, so every mesh vertex is a
vertex of the outline or of a hole (an obstacle corner, where a shortest path may
turn). Vertices are identified by their coordinates, which also joins the two sides of
the "bridges" earcut cuts from a hole to the outline (they are not walls). Triangles
are stored counter-clockwise; ``neighbours[t][k]`` is the triangle across edge
``(t[k], t[k+1])`` or -1 for a wall. Zero-area triangles (earcut emits them where rings
touch) are kept: they carry adjacency across the touching point.

Point location uses a shapely STRtree over the triangles, then exact orientation tests;
a point on an edge or a vertex is in every triangle that touches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mapbox_earcut
import numpy as np
import shapely
from shapely.geometry import Polygon

from app.nav.geometry import Point, on_segment, orient


@dataclass(eq=False)
class NavMesh:
    vertices: list[Point]
    polygons: list[tuple[int, ...]]
    neighbours: list[tuple[int, ...]]
    tree: shapely.STRtree = field(repr=False)
    # For each vertex, the triangles around it grouped into fans: triangles joined by an
    # edge through the vertex. A vertex with two or more fans is a pinch point (two
    # rings touch there); a path may pass through it from one fan to another.
    fans: dict[int, list[list[int]]] = field(default_factory=dict, repr=False)
    # Triangles with at most one walkable edge and no pinch vertex: a search entering one
    # can only turn back, so it need not enter unless the goal is there.
    dead_ends: frozenset[int] = frozenset()

    def locate(self, p: Point) -> list[int]:
        """Ids of the triangles that contain ``p`` (boundary included), ascending."""
        found = []
        for t in sorted(self.tree.query(shapely.points(p)).tolist()):
            a, b, c = (self.vertices[v] for v in self.polygons[t])
            if orient(a, b, p) >= 0 and orient(b, c, p) >= 0 and orient(c, a, p) >= 0:
                found.append(t)
        return found

    @property
    def nbytes(self) -> int:
        """Approximate memory held by the mesh's own arrays (Python objects estimated)."""
        return 64 * len(self.vertices) + 2 * 88 * len(self.polygons)


def build_mesh(area: shapely.Geometry) -> NavMesh:
    """Triangulate a (multi)polygon with holes into a :class:`NavMesh`."""
    ids: dict[Point, int] = {}
    vertices: list[Point] = []
    triangles: list[tuple[int, ...]] = []
    for poly in getattr(area, "geoms", [area]):
        if poly.is_empty:
            continue
        rings = [poly.exterior, *poly.interiors]
        coords = [np.asarray(r.coords, dtype=np.float64)[:-1] for r in rings]
        flat = np.concatenate(coords)
        ends = np.cumsum([len(c) for c in coords]).astype(np.uint32)
        tri = mapbox_earcut.triangulate_float64(flat, ends).reshape(-1, 3)
        local = []
        for x, y in flat.tolist():
            p = (x, y)
            if p not in ids:
                ids[p] = len(vertices)
                vertices.append(p)
            local.append(ids[p])
        for i, j, k in tri.tolist():
            a, b, c = local[i], local[j], local[k]
            if a == b or b == c or a == c:
                continue
            if orient(vertices[a], vertices[b], vertices[c]) < 0:
                b, c = c, b
            triangles.append((a, b, c))
    triangles = _split_t_junctions(vertices, triangles)
    edge_owner: dict[tuple[int, int], tuple[int, int]] = {}
    neighbours = [[-1, -1, -1] for _ in triangles]
    for t, tri in enumerate(triangles):
        for k in range(3):
            u, v = tri[k], tri[(k + 1) % 3]
            other = edge_owner.pop((v, u), None)
            if other is not None:
                neighbours[t][k] = other[0]
                neighbours[other[0]][other[1]] = t
            else:
                edge_owner[(u, v)] = (t, k)
    tree = shapely.STRtree([Polygon([vertices[v] for v in tri]) for tri in triangles])
    mesh = NavMesh(
        vertices=vertices,
        polygons=triangles,
        neighbours=[tuple(n) for n in neighbours],
        tree=tree,
    )
    mesh.fans = _pinch_fans(mesh)
    mesh.dead_ends = frozenset(
        t
        for t, (tri, n) in enumerate(zip(triangles, mesh.neighbours))
        if sum(x >= 0 for x in n) <= 1 and not any(v in mesh.fans for v in tri)
    )
    return mesh


def _split_t_junctions(vertices: list[Point], triangles: list[tuple[int, ...]]) -> list:
    """Make the triangulation edge-to-edge.

    Where rings have collinear edges, earcut can emit a triangle whose edge runs through
    other vertices (a T-junction): the triangles on either side then share no edge and
    the mesh would be cut there. Each such triangle is split into a fan from its opposite
    vertex at every vertex lying on that edge (exact test), until no edge without a twin
    holds a vertex.
    """
    tree = shapely.STRtree(shapely.points(np.asarray(vertices, dtype=np.float64)))
    while True:
        directed = {(t[k], t[(k + 1) % 3]) for t in triangles for k in range(3)}
        out: list[tuple[int, ...]] = []
        changed = False
        for tri in triangles:
            split = None
            for k in range(3):
                u, v = tri[k], tri[(k + 1) % 3]
                if (v, u) in directed:
                    continue
                box = shapely.box(*_bbox(vertices[u], vertices[v]))
                inner = [
                    w
                    for w in sorted(tree.query(box).tolist())
                    if w != u and w != v and on_segment(vertices[w], vertices[u], vertices[v])
                ]
                if inner:
                    split = (k, inner)
                    break
            if split is None:
                out.append(tri)
                continue
            changed = True
            k, inner = split
            u, v, c = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
            pu = vertices[u]
            inner.sort(key=lambda w: (abs(vertices[w][0] - pu[0]) + abs(vertices[w][1] - pu[1])))
            chain = [u, *inner, v]
            out.extend((p, q, c) for p, q in zip(chain, chain[1:]))
        triangles = out
        if not changed:
            return triangles


def _bbox(p: Point, q: Point) -> tuple[float, float, float, float]:
    return (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))


def _pinch_fans(mesh: NavMesh) -> dict[int, list[list[int]]]:
    around: dict[int, list[int]] = {}
    for t, tri in enumerate(mesh.polygons):
        for v in tri:
            around.setdefault(v, []).append(t)
    pinches: dict[int, list[list[int]]] = {}
    for v, tris in around.items():
        members = set(tris)
        seen: set[int] = set()
        fans = []
        for t in tris:
            if t in seen:
                continue
            fan, stack = [], [t]
            seen.add(t)
            while stack:
                u = stack.pop()
                fan.append(u)
                tri = mesh.polygons[u]
                for k in range(3):
                    n = mesh.neighbours[u][k]
                    if v in (tri[k], tri[(k + 1) % 3]) and n in members and n not in seen:
                        seen.add(n)
                        stack.append(n)
            fans.append(sorted(fan))
        if len(fans) > 1:
            pinches[v] = sorted(fans)
    return pinches
