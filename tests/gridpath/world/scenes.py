"""Random small worlds for the property tests, and the independent reference: one Dijkstra
(``scipy.sparse.csgraph``) over the maps' move graphs stacked into one graph, joined by the
usable links' edges, built from the movement rules of :mod:`tests.reference` alone."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from gridpath.grid import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.search import CostModel, Diagonal, SearchOptions
from gridpath.world.model import Place, World, WorldMaps, parse_world
from gridpath.world.overlay import LinkFilter
from tests.reference import step_is_legal

CLASSES = (TerrainClass("ground", 1.0), TerrainClass("mud", 3.0), TerrainClass("road", 0.5))
LINK_COSTS = (0.0, 0.0, 0.5, 1.0, 1.0, 2.5, 7.0)
TAGS = ("door", "ladder")


@dataclass
class Scene:
    maps: WorldMaps
    walkable: dict[str, np.ndarray]  # open cells for the query (blocked cells removed)
    cell_cost: dict[str, np.ndarray | None]
    start: Place
    goal: Place
    options: SearchOptions
    links: LinkFilter
    blocked: dict[str, tuple[tuple[int, int], ...]]


def lookup_of(grids):
    def lookup(name):
        g = grids.get(name)
        return None if g is None else ("grid", g.width, g.height)

    return lookup


@st.composite
def scenes(draw, max_side: int = 8, max_links: int = 7):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    terrain = draw(st.booleans())
    grids, walkable, cell_cost, blocked = {}, {}, {}, {}
    for m in range(draw(st.integers(1, 3))):
        name = f"m{m}"
        w, h = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
        open_ = rng.random((h, w)) >= draw(st.sampled_from([0.0, 0.15, 0.3]))
        if terrain:
            classes = rng.integers(0, 3, size=(h, w)).astype(np.uint8)
            grids[name] = Grid.from_walkable(name, open_, terrain=classes, terrain_classes=CLASSES)
            cell_cost[name] = np.array([c.cost for c in CLASSES])[classes]
        else:
            grids[name] = Grid.from_walkable(name, open_)
            cell_cost[name] = None
        cells = [(int(rng.integers(w)), int(rng.integers(h))) for _ in range(rng.integers(0, 3))]
        blocked[name] = tuple(cells)
        here = open_.copy()
        for x, y in cells:
            here[y, x] = False
        walkable[name] = here
    names = list(grids)

    def place():
        name = names[int(rng.integers(len(names)))]
        g = grids[name]
        return {"map": name, "cell": [int(rng.integers(g.width)), int(rng.integers(g.height))]}

    links = []
    for i in range(draw(st.integers(0, max_links))):
        a, b = place(), place()
        if a == b:
            continue
        links.append({"id": f"l{i}", "from": a, "to": b,
                      "cost": LINK_COSTS[int(rng.integers(len(LINK_COSTS)))],
                      "bidirectional": bool(rng.random() < 0.5),
                      "enabled": bool(rng.random() < 0.85),
                      "tags": [t for t in TAGS if rng.random() < 0.3]})  # fmt: skip
    world = parse_world("w", {"maps": names, "links": links}, lookup_of(grids))
    opens = [(n, (x, y)) for n in names for y, x in zip(*np.nonzero(walkable[n]), strict=True)]
    if not opens:
        return None
    start = Place(*opens[int(rng.integers(len(opens)))])
    goal = Place(*opens[int(rng.integers(len(opens)))])
    filt = LinkFilter(
        frozenset(link["id"] for link in links if rng.random() < 0.15),
        frozenset(t for t in TAGS if rng.random() < 0.2),
    )
    connectivity = draw(st.sampled_from([4, 8]))
    options = SearchOptions(
        connectivity=connectivity,
        diagonal=draw(st.sampled_from(list(Diagonal))),
        cost_model=draw(st.sampled_from(list(CostModel))) if not terrain else CostModel.FLOAT,
    )
    return Scene(WorldMaps(world, grids), walkable, cell_cost, start, goal, options, filt,
                 blocked)  # fmt: skip


def usable(world: World, walkable: dict[str, np.ndarray], links: LinkFilter):
    """(entrance, exit, cost, id) of every link way the rules allow, from the links alone."""
    out = []
    for link in world.links:
        if not link.enabled or link.id in links.exclude_ids:
            continue
        if set(link.tags) & links.exclude_tags:
            continue
        ends = (link.source, link.target)
        if not all(walkable[p.map][p.cell[1], p.cell[0]] for p in ends):
            continue
        out.append((link.source, link.target, link.cost, link.id))
        if link.bidirectional:
            out.append((link.target, link.source, link.cost, link.id))
    return out


def _world_graph(scene: Scene, bfs: bool = False):
    """``(graph, node)``: the stacked move graph joined by the usable links (None: no edge),
    and the node of a place."""
    opts = scene.options.resolved()
    diagonal = opts.diagonal.value
    weights = (1.0, 1.0) if bfs else opts.step_weights
    offset, total = {}, 0
    for name, open_ in scene.walkable.items():
        offset[name] = total
        total += open_.size
    edges: dict[tuple[int, int], float] = {}

    def add(i, j, w):
        edges[(i, j)] = min(edges.get((i, j), math.inf), w)

    for name, open_ in scene.walkable.items():
        h, w = open_.shape
        cost = scene.cell_cost[name]
        for y in range(h):
            for x in range(w):
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        if (dx or dy) and step_is_legal(open_, (x, y), (x + dx, y + dy), diagonal):
                            length = weights[1] if dx and dy else weights[0]
                            if cost is not None and not bfs:
                                length *= 0.5 * (cost[y, x] + cost[y + dy, x + dx])
                            add(offset[name] + y * w + x, offset[name] + (y + dy) * w + x + dx,
                                length)  # fmt: skip

    def node(p: Place) -> int:
        return offset[p.map] + p.cell[1] * scene.walkable[p.map].shape[1] + p.cell[0]

    for a, b, c, _ in usable(scene.maps.world, scene.walkable, scene.links):
        add(node(a), node(b), 1.0 if bfs else c)
    if not edges:
        return None, node
    keys = list(edges)
    # csgraph drops explicit zeros: a zero-cost link weighs the least positive float.
    values = [edges[k] or 5e-324 for k in keys]
    rows, cols = zip(*keys, strict=True)
    return csr_matrix((values, (rows, cols)), shape=(total, total)), node


def reference_cost(scene: Scene, bfs: bool = False) -> float:
    """The world-optimal cost from start to goal (inf: none); ``bfs``: fewest steps."""
    graph, node = _world_graph(scene, bfs)
    if graph is None:
        return 0.0 if scene.start == scene.goal else math.inf
    dist = dijkstra(graph, directed=True, indices=node(scene.start))
    return float(dist[node(scene.goal)])


def reference_costs_to_goal(scene: Scene) -> dict[str, np.ndarray]:
    """Every cell's world-optimal cost to the goal, per map (inf: none): a Dijkstra from
    the goal over the reversed graph (a link is followed only in its direction)."""
    graph, node = _world_graph(scene)
    goal = node(scene.goal)
    total = sum(open_.size for open_ in scene.walkable.values())
    if graph is None:
        dist = np.full(total, math.inf)
        dist[goal] = 0.0
    else:
        dist = dijkstra(graph.T.tocsr(), directed=True, indices=goal)
    out, first = {}, 0
    for name, open_ in scene.walkable.items():
        out[name] = dist[first : first + open_.size].reshape(open_.shape)
        first += open_.size
    return out
