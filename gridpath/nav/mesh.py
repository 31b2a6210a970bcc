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

from gridpath.nav.geometry import Point, on_segment, orient


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
    corners = np.asarray(vertices, dtype=np.float64)[np.asarray(triangles, dtype=np.int64)]
    tree = shapely.STRtree(shapely.polygons(corners.reshape(-1, 3, 2)))
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
    coords = np.asarray(vertices, dtype=np.float64)
    tree = shapely.STRtree(shapely.points(coords))
    while True:
        directed = {(t[k], t[(k + 1) % 3]) for t in triangles for k in range(3)}
        # Edges without a twin (walls, and T-junction candidates), with their triangles.
        lonely = [
            (i, k)
            for i, t in enumerate(triangles)
            for k in range(3)
            if (t[(k + 1) % 3], t[k]) not in directed
        ]
        if not lonely:
            return triangles
        ends = np.asarray(
            [(triangles[i][k], triangles[i][(k + 1) % 3]) for i, k in lonely], dtype=np.int64
        )
        p, q = coords[ends[:, 0]], coords[ends[:, 1]]
        lo, hi = np.minimum(p, q), np.maximum(p, q)
        edge_ix, vert_ix = tree.query(shapely.box(lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]))
        splits: dict[int, tuple[int, list[int]]] = {}
        for e, w in sorted(zip(edge_ix.tolist(), vert_ix.tolist())):
            u, v = int(ends[e, 0]), int(ends[e, 1])
            if w == u or w == v or not on_segment(vertices[w], vertices[u], vertices[v]):
                continue
            i, k = lonely[e]
            if i in splits and splits[i][0] != k:
                continue  # one edge per triangle and pass; the others in the next pass
            splits.setdefault(i, (k, []))[1].append(w)
        if not splits:
            return triangles
        out: list[tuple[int, ...]] = []
        for i, tri in enumerate(triangles):
            if i not in splits:
                out.append(tri)
                continue
            k, inner = splits[i]
            u, v, c = tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]
            pu = vertices[u]
            inner.sort(key=lambda w: abs(vertices[w][0] - pu[0]) + abs(vertices[w][1] - pu[1]))
            chain = [u, *inner, v]
            out.extend((a, b, c) for a, b in zip(chain, chain[1:]))
        triangles = out


def _bbox(p: Point, q: Point) -> tuple[float, float, float, float]:
    return (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))


def _pinch_fans(mesh: NavMesh) -> dict[int, list[list[int]]]:
    # Every vertex is on the boundary (no vertex is added), so the triangles around a
    # vertex form open fans: fans = triangles - edges through the vertex shared by two.
    tris_at: dict[int, list[int]] = {}
    for t, tri in enumerate(mesh.polygons):
        for v in tri:
            tris_at.setdefault(v, []).append(t)
    shared_at: dict[int, int] = {}
    for t, tri in enumerate(mesh.polygons):
        for k in range(3):
            if mesh.neighbours[t][k] > t:
                for v in (tri[k], tri[(k + 1) % 3]):
                    shared_at[v] = shared_at.get(v, 0) + 1
    pinches: dict[int, list[list[int]]] = {}
    for v, tris in tris_at.items():
        if len(tris) - shared_at.get(v, 0) < 2:
            continue
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
        pinches[v] = sorted(fans)
    return pinches
