"""Exact Euclidean shortest paths on a navigation mesh: Polyanya.

Cui, Harabor and Grastien, "Compromise-free Pathfinding on a Navigation Mesh" (IJCAI
2017). A search node is a *root* (the start or an obstacle corner the path turns at),
an *interval* ``[left, right]`` of a mesh edge that is visible from the root, and the
polygon beyond that edge. ``g`` is the length of the path to the root; ``f`` adds the
exact length from the root through the interval to the goal (the goal mirrored in the
interval's line when it is on the root's side), which never overestimates. Expanding
a node projects the interval through the polygon onto its other edges: the parts seen
from the root are *observable* successors (same root); when an interval end is a mesh
vertex, the parts of the polygon hidden from the root are seen from that vertex and
become *non-observable* successors rooted there. The search is A*; the first goal node
taken from the queue is optimal. Pruning as in the paper: dead ends (a polygon entered
through its only walkable edge that does not hold the goal) and root level (a root
reached again at a larger ``g`` than its best is dropped).

Determinism: the queue is ordered by ``(f, sequence number)`` and successors are made
in a fixed order (polygon edges counter-clockwise), so the same query on the same mesh
gives the same path. Orientation tests are exact (:func:`gridpath.nav.geometry.orient`).

Vertices where two rings touch (pinch points, :attr:`NavMesh.fans`) join otherwise
separate parts of the mesh: a path turning there may go on into any triangle around it.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from gridpath.nav.geometry import Point, dist, line_intersection, orient, reflect
from gridpath.nav.mesh import NavMesh

# Root-level pruning drops a node whose root was reached more cheaply before; ``g``
# values within this relative slack are treated as ties (both kept), so rounding in
# sums of square roots never prunes a shortest path.
ROOT_SLACK = 1e-9


@dataclass(frozen=True)
class NavPath:
    found: bool
    points: list[Point]
    cost: float | None
    expanded: int
    reason: str | None = None


def _h(r: Point, a: Point, b: Point, goal: Point) -> tuple[float, Point | None]:
    """Shortest length from r through the interval [a (left), b (right)] to goal, and the
    interval end the path turns at (None when straight)."""
    if r == a or r == b:
        return dist(r, goal), None
    side_r = orient(b, a, r)
    if side_r != 0 and side_r == orient(b, a, goal):
        goal = reflect(goal, a, b)
    if orient(r, a, goal) > 0:
        return dist(r, a) + dist(a, goal), a
    if orient(r, b, goal) < 0:
        return dist(r, b) + dist(b, goal), b
    return dist(r, goal), None


def find_path(
    mesh: NavMesh,
    start: Point,
    goal: Point,
    *,
    max_expanded: int = 0,
) -> NavPath:
    """The shortest path from ``start`` to ``goal`` (both must be in the walkable area)."""
    start_polys = mesh.locate(start)
    goal_polys = set(mesh.locate(goal))
    if not start_polys or not goal_polys:
        return NavPath(False, [], None, 0, "not_walkable")
    if start == goal or goal_polys.intersection(start_polys):
        return NavPath(True, [start, goal], dist(start, goal), 0)

    verts = mesh.vertices
    polys = mesh.polygons
    nbrs = mesh.neighbours
    fans = mesh.fans
    dead_ends = mesh.dead_ends
    root_g: dict[int, float] = {}
    heap: list = []
    pending: list = []  # successors of the node being expanded, not yet queued
    goal_queued = False
    seq = 0
    # An entry: (f, seq, g, root, root_vertex, left, right, left_ray, right_ray, left_v,
    # right_v, poly, chain). The interval's ends are where its boundary rays meet the edge;
    # each ray is kept as two exact points on its line, (root or an earlier root, a vertex),
    # so that ends found by rounding never steer the next projection (no drift) and a vertex
    # exactly on a ray is recognised exactly. chain is the linked list (point, parent) of the
    # path's turns. A goal entry has poly == -1 and carries the finished chain.

    def push(g, root, rv, left, right, lray, rray, lv, rvx, poly, chain):
        if poly < 0:
            return
        if poly in dead_ends and poly not in goal_polys:
            return  # entered through its only walkable edge, no pinch vertex: nothing beyond
        pending.append((g, root, rv, left, right, lray, rray, lv, rvx, poly, chain))

    def flush() -> None:
        nonlocal seq
        for node in pending:
            g, root, _, left, right = node[:5]
            h, _ = _h(root, left, right, goal)
            seq += 1
            heapq.heappush(heap, (g + h, seq, *node))
        pending.clear()

    def push_edge(g, p, pv, u, w, poly, chain):
        """The whole edge u-w (w on the left seen from p) into poly, seen from vertex p."""
        pu, pw = verts[u], verts[w]
        push(g, p, pv, pw, pu, (p, pw), (p, pu), w, u, poly, chain)

    def turn_at(v: int, g: float) -> bool:
        """Record reaching corner v at cost g; False when it was reached more cheaply."""
        best = root_g.get(v)
        if best is not None and g > best + ROOT_SLACK * max(1.0, best):
            return False
        if best is None or g < best:
            root_g[v] = g
        return True

    def push_fan_successors(v: int, g: float, chain) -> None:
        """From corner v, everything in the triangles around it is visible."""
        p = verts[v]
        for fan in fans.get(v, ()):
            for t in fan:
                if t in goal_polys:
                    seq_goal(g + dist(p, goal), (goal, chain))
                tri = polys[t]
                for k in range(3):
                    u, w = tri[k], tri[(k + 1) % 3]
                    if v not in (u, w):
                        push_edge(g, p, v, u, w, nbrs[t][k], chain)
                pinches_seen_from(p, v, g, chain, tri)

    def pinches_seen_from(p: Point, pv: int, g: float, chain, tri) -> None:
        """p is a vertex of triangle tri: its pinch vertices are seen from p."""
        for v in tri:
            if v != pv and v in fans:
                g2 = g + dist(p, verts[v])
                if turn_at(v, g2):
                    push_fan_successors(v, g2, (verts[v], chain))

    def seq_goal(f: float, chain) -> None:
        nonlocal seq, goal_queued
        goal_queued = True
        seq += 1
        heapq.heappush(heap, (f, seq, f, goal, -1, goal, goal, None, None, -1, -1, -1, chain))

    def push_visible(g, r, rv, lray, rray, corners, ids, n0, n1, chain):
        """Queue what the root r sees of the far chain c0 .. c2 between its rays; returns
        the rays' sides of c1 and where the rays leave the triangle."""
        c0, c1, c2 = corners
        i0, i1, i2 = ids
        side_r = orient(*rray, c1)  # > 0: c1 strictly left of the right ray
        side_l = orient(*lray, c1)  # < 0: c1 strictly right of the left ray
        if side_r <= 0:
            # Both rays leave through E1 = (c1, c2).
            right_hit = c1 if side_r == 0 else _hit(rray, c1, c2)
            left_hit = c2 if orient(*lray, c2) == 0 else _hit(lray, c1, c2)
            if left_hit != right_hit:
                push(g, r, rv, left_hit, right_hit, lray, rray, i2, i1, n1, chain)
        elif side_l >= 0:
            # Both rays leave through E0 = (c0, c1).
            right_hit = c0 if orient(*rray, c0) == 0 else _hit(rray, c0, c1)
            left_hit = c1 if side_l == 0 else _hit(lray, c0, c1)
            if left_hit != right_hit:
                push(g, r, rv, left_hit, right_hit, lray, rray, i1, i0, n0, chain)
        else:
            # c1 is seen: the right ray leaves through E0, the left one through E1.
            right_hit = c0 if orient(*rray, c0) == 0 else _hit(rray, c0, c1)
            left_hit = c2 if orient(*lray, c2) == 0 else _hit(lray, c1, c2)
            push(g, r, rv, c1, right_hit, (r, c1), rray, i1, i0, n0, chain)
            push(g, r, rv, left_hit, c1, lray, (r, c1), i2, i1, n1, chain)
        return side_r, side_l, right_hit, left_hit

    def expand(g, r, rv, a, b, lray, rray, lv, rvx, poly, chain) -> None:
        """Queue the successors of one node (into pending; goal entries straight to the heap)."""
        tri = polys[poly]
        nb = nbrs[poly]
        if tri[0] == lv and tri[1] == rvx:
            k = 0
        elif tri[1] == lv and tri[2] == rvx:
            k = 1
        else:
            k = 2
        # The far chain c0 (right end of the entry edge) .. c2 (its left end), with the
        # edges E0 = (c0, c1) and E1 = (c1, c2) and the triangles beyond them.
        i0, i1, i2 = tri[(k + 1) % 3], tri[(k + 2) % 3], tri[k]
        c0, c1, c2 = verts[i0], verts[i1], verts[i2]
        n0, n1 = nb[(k + 1) % 3], nb[(k + 2) % 3]
        collinear = r == a or r == b  # the root is a vertex of this triangle

        if poly in goal_polys:
            length, via = _h(r, a, b, goal)
            seq_goal(g + length, (goal, chain if via is None else (via, chain)))

        if fans:
            # A pinch vertex of this triangle seen from r: the path may pass through it
            # into the other triangles around it (whose shared edges are often walls).
            for v, c, seen in (
                (i0, c0, collinear or b == c0),
                (i1, c1, collinear or (orient(*rray, c1) >= 0 and orient(*lray, c1) <= 0)),
                (i2, c2, collinear or a == c2),
            ):
                if seen and v in fans and c != r:
                    g2 = g + dist(r, c)
                    if turn_at(v, g2):
                        push_fan_successors(v, g2, (c, chain))

        if collinear:
            # All of the triangle is visible.
            push_edge(g, r, rv, i0, i1, n0, chain)
            push_edge(g, r, rv, i1, i2, n1, chain)
            return

        side_r, side_l, right_hit, left_hit = push_visible(
            g, r, rv, lray, rray, (c0, c1, c2), (i0, i1, i2), n0, n1, chain
        )
        if b == c0:
            # Turn right around corner c0: the part of the triangle right of the ray,
            # bounded on its left by the ray's continuation beyond c0.
            g2 = g + dist(r, b)
            if turn_at(i0, g2):
                chain2 = (b, chain)
                if side_r <= 0:
                    push_edge(g2, b, i0, i0, i1, n0, chain2)
                    if right_hit != c1:
                        push(g2, b, i0, right_hit, c1, rray, (b, c1), i2, i1, n1, chain2)
                elif right_hit != c0:
                    push(g2, b, i0, right_hit, c0, rray, (b, c0), i1, i0, n0, chain2)
                if fans:
                    pinches_seen_from(b, i0, g2, chain2, tri)
        if a == c2:
            # Turn left around corner c2, likewise.
            g2 = g + dist(r, a)
            if turn_at(i2, g2):
                chain2 = (a, chain)
                if side_l >= 0 and side_r > 0:
                    push_edge(g2, a, i2, i1, i2, n1, chain2)
                    if left_hit != c1:
                        push(g2, a, i2, c1, left_hit, (a, c1), lray, i1, i0, n0, chain2)
                elif left_hit != c2:
                    push(g2, a, i2, c2, left_hit, (a, c2), lray, i2, i1, n1, chain2)
                if fans:
                    pinches_seen_from(a, i2, g2, chain2, tri)

    def seed() -> None:
        """The start's successors: its triangles' edges and the pinch vertices it sees."""
        start_chain = (start, None)
        for t in start_polys:
            tri = polys[t]
            for v in tri:
                if v in fans and verts[v] != start:
                    g2 = dist(start, verts[v])
                    if turn_at(v, g2):
                        push_fan_successors(v, g2, (verts[v], start_chain))
            for k in range(3):
                u, w = tri[k], tri[(k + 1) % 3]
                if orient(verts[u], verts[w], start) == 0:
                    continue  # start on this edge: the triangle beyond holds it too
                push_edge(0.0, start, -1, u, w, nbrs[t][k], start_chain)
        flush()

    seed()

    expanded = 0
    while heap:
        f, _, g, r, rv, a, b, lray, rray, lv, rvx, poly, chain = heapq.heappop(heap)
        if poly == -1:
            return NavPath(True, _chain_points(chain), f, expanded)
        node = (g, r, rv, a, b, lray, rray, lv, rvx, poly, chain)
        while True:
            g, r, rv = node[0], node[1], node[2]
            if rv >= 0 and g > root_g.get(rv, g) + ROOT_SLACK * max(1.0, g):
                break
            expanded += 1
            if max_expanded and expanded > max_expanded:
                return NavPath(False, [], None, expanded, "limit_reached")
            goal_queued = False
            expand(*node)
            # Intermediate pruning (as in the paper): a lone successor with the same root,
            # and no goal entry made, is expanded at once instead of going through the queue.
            if len(pending) == 1 and pending[0][1] is r and not goal_queued:
                node = pending.pop()
                continue
            flush()
            break
    return NavPath(False, [], None, expanded, "unreachable")


def _chain_points(chain) -> list[Point]:
    """The points of a chain of turns ``(point, parent)``, from the start."""
    points = []
    while chain is not None:
        points.append(chain[0])
        chain = chain[1]
    points.reverse()
    return points


def _hit(ray: tuple[Point, Point], p: Point, q: Point) -> Point:
    return line_intersection(ray[0], ray[1], p, q)


def path_length(points: list[Point]) -> float:
    return math.fsum(dist(p, q) for p, q in zip(points, points[1:]))
