"""Subgoal graphs with a contraction hierarchy (Uras and Koenig's SUB-CH), for uniform cost,
8-connected movement without corner cutting.

Subgoals
    A walkable cell is a subgoal when it lies diagonally next to a convex corner of an
    obstacle: for some diagonal (dx, dy) the cell ``(x + dx, y + dy)`` is blocked while
    ``(x + dx, y)`` and ``(x, y + dy)`` are open. Every shortest path can be taut around
    such corners, so it can be cut into pieces between subgoals (and the two endpoints)
    whose length is the octile distance ("h-reachable" pieces).

Edges
    Between subgoals that are directly h-reachable (an octile-length path joins them and no
    other subgoal lies on such a path), found by the clearance-based exploration of
    Uras, Koenig and Hernandez (ICAPS 2013): the straight rays, then along each diagonal
    the two straight rays from every diagonal cell, each bounded by the rays of the
    previous diagonal cell and cut short at a subgoal. Every cell the exploration reaches
    is reached diagonally first, then straight, so that move is a legal path of octile
    length: the canonical refinement of an edge is "diagonal first, then straight" from
    the end that found it, tried from the path's first end first (see
    :func:`_append_segment`).

Hierarchy
    Subgoals are contracted part by part over a fixed quadtree of the cells, each in the
    smallest part that holds all its edges (:mod:`gridpath.search._subgoal.parts`: what an
    edit re-contracts), and inside a part one at a time in order of a lazily updated
    priority (edge difference plus contracted neighbours plus level), adding a shortcut
    between two neighbours when a bounded witness search (confined to the part) finds no
    path as short without the node. A settle limit on a witness search can only add
    shortcuts, never lose a distance. The result is kept as upward edges (to a
    later-contracted node) in CSR form, the nodes renumbered from the top of the
    hierarchy down (the nodes every search reaches share cache lines); a shortcut
    remembers the node it bypasses, so a path unpacks recursively.

Query
    A start (goal) that is not a subgoal is joined to the subgoals the same exploration
    reaches from it; when the start's exploration reaches the goal itself the answer is
    the octile move. Otherwise a bidirectional Dijkstra over the upward edges from both
    sets, stopping when neither frontier can improve the best meeting; the meeting's
    two parent chains unpack to subgoals and refine to cells.

Costs are float sums of ``orth + diag * sqrt 2`` on the graph (distinct path costs on
these maps differ by far more than the rounding of such sums: a witness counts when it is
no longer than the route through the node, within ``_EPS``); the reported cost comes from
the refined path's exact step counts, as for the other exact kernels. Everything is
deterministic: the build visits nodes in index order and breaks heap ties by node index.
"""

from gridpath.search._subgoal.contract import by_rank, contract_part
from gridpath.search._subgoal.graph import (
    BEFORE,
    COST,
    HEADER_ROWS,
    MID,
    OPEN_BITS,
    SQRT2,
    TO,
    WALK_BITS,
    explore,
    mark_subgoals,
    subgoal_edges,
    subgoal_id,
)
from gridpath.search._subgoal.query import (
    HEAP_COLUMNS,
    NODE_COLUMNS,
    scratch_rows,
    subgoal_search,
)
from gridpath.search._subgoal.unpack import subgoal_path

__all__ = [
    "BEFORE",
    "COST",
    "HEADER_ROWS",
    "HEAP_COLUMNS",
    "MID",
    "NODE_COLUMNS",
    "OPEN_BITS",
    "SQRT2",
    "TO",
    "WALK_BITS",
    "by_rank",
    "contract_part",
    "explore",
    "mark_subgoals",
    "scratch_rows",
    "subgoal_edges",
    "subgoal_id",
    "subgoal_path",
    "subgoal_search",
]
