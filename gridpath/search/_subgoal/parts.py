"""The hierarchy contracted part by part, so that an edit re-contracts only the parts it
changed (:mod:`gridpath.search._subgoal`).

Parts
    A fixed quadtree over the map's cells, independent of its content: leaf parts of
    ``2 ** LEAF_BITS`` cells a side, each level up a part of four. An edge of the subgoal
    graph belongs to the lowest part holding both its ends; a subgoal is contracted in
    the part of its highest edge (level 1 at least), so when a part's turn comes every
    edge of the nodes it contracts lies inside it, and what is left of it (its kept
    nodes and the edges between them, shortcuts included) is its parent's input.

Contraction
    Levels from the leaves up, parts in cell order; a part's input is its nodes, which of
    them it keeps, the original edges of its level inside it and what its children left.
    :func:`~gridpath.search._subgoal.contract.contract_part` confines its witness searches
    to the part, so a part's output is a function of its input alone.

Repair
    A revision keeps each part's input digest and output. The next revision computes its
    subgoal graph afresh (a function of the cells), then walks the parts again and
    re-contracts only a part whose input digest changed: an edit re-contracts the leaves
    around it and the parts above them whose input changed, and everything else is
    reused. The result is the one a fresh build of the edited map gives, byte for byte
    (every part's output depends on its input alone), so every process serves the same
    answer whatever revision it started from.

Order
    Parts contract in (level, cell) order and their nodes in their own order; the node
    contracted last is the top. A node's upward edges are its edges to the nodes left
    when it was contracted.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from gridpath.search._subgoal.contract import by_rank, contract_part

LEAF_BITS = 6  # leaf parts are 64 x 64 cells


@dataclass(frozen=True, eq=False)
class Part:
    """One part's contraction: its input's digest, the cells it contracted in order, their
    upward edges and the edges it left between kept nodes (rows ``(u, v, steps, mid)``
    in cells; ``mid`` -1 or the bypassed node's cell), and the work it spent."""

    digest: bytes
    order: np.ndarray = field(repr=False)
    up: np.ndarray = field(repr=False)
    kept: np.ndarray = field(repr=False)
    work: int


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """The parts a hierarchy was made of (what the next revision's repair reuses; the
    query's arrays are derived from them: :func:`ranked`), and what building it cost: the
    work of every part and how many parts were contracted now (the others were reused)."""

    parts: dict = field(repr=False)  # (level, key) -> Part
    work: int
    contracted_parts: int

    @property
    def nbytes(self) -> int:
        """The bytes its parts hold (kept for the next revision's repair)."""
        return sum(p.order.nbytes + p.up.nbytes + p.kept.nbytes for p in self.parts.values())


@dataclass(frozen=True, eq=False)
class Failure:
    """A build that ran over the budget: the parts contracted before, and the part that
    ran over it (its input digest and the budget it had left). The next revision's build
    gives up at once when it comes to the same part with no more budget left, and reuses
    the parts before: a map too costly to contract costs an edit no second attempt.
    ``contracted``: how many parts this build contracted (the others were reused)."""

    parts: dict = field(repr=False)
    digest: bytes
    budget: int
    contracted: int


@dataclass(frozen=True)
class Limits:
    """Witness searches' settle limits (contracting, estimating), the build's budget in
    edges scanned (a part over it, or all of them together: no hierarchy) and the side
    of a leaf part (``2 ** leaf_bits`` cells); a part of more than ``part_nodes`` nodes
    (long edges across the quadtree's lines: open maps) gives up before contracting."""

    witness: int
    estimate: int
    budget: int
    part_nodes: int = 1000
    leaf_bits: int = LEAF_BITS


def contract_parts(
    stride: int,
    cells: np.ndarray,
    eu: np.ndarray,
    ev: np.ndarray,
    es: np.ndarray,
    limits: Limits,
    earlier: Hierarchy | Failure | None = None,
) -> Hierarchy | Failure | None:
    """The hierarchy of the subgoal graph ``(cells, eu, ev, es)`` (subgoals' padded cells
    in cell order; edges as :func:`subgoal_edges` gives them), reusing the parts of
    ``earlier`` (a previous revision's) whose input is unchanged; a :class:`Failure` when
    over the budget, None when a part is too large to try."""
    cells = cells.astype(np.int64)  # keys shift a row by 32 bits
    x, y = cells % stride, cells // stride
    leaf = limits.leaf_bits
    edge_level = _level(x[eu] ^ x[ev] | y[eu] ^ y[ev], leaf)
    node_level = np.ones(cells.size, dtype=np.int64)
    np.maximum.at(node_level, eu, edge_level)
    np.maximum.at(node_level, ev, edge_level)
    top = int(_level(np.array([max(stride, int(y.max(initial=0)) + 1)]), leaf)[0])
    if _largest_part(stride, cells, node_level, top, leaf) > limits.part_nodes:
        return None  # its contraction would take seconds, and so would every edit's
    original = np.stack([cells[eu], cells[ev], es, np.full(eu.size, -1)], axis=1)
    build = _Walk(limits, earlier)
    left = np.empty((0, 4), dtype=np.int64)
    for level in range(1, top + 1):
        edges = np.concatenate([left, original[edge_level == level]])
        alive = np.flatnonzero(node_level >= level)
        kept = node_level > level
        leftovers = []
        for key, *part_input in _inputs(stride, leaf + level - 1, cells, alive, kept, edges):
            part = build.part(level, key, *part_input)
            if part is None:
                budget = limits.budget - build.work
                return Failure(build.parts, build.failed, budget, build.contracted)
            leftovers.append(part.kept)
        left = _joined(leftovers, (0, 4))
    return Hierarchy(build.parts, build.work, build.contracted)


class _Walk:
    """The parts of one build as they come, each reused from ``earlier`` when its input
    digest is unchanged, else contracted on the budget left (a part that runs over it
    ends the build: what it would give is the same with any budget it fits in)."""

    def __init__(self, limits: Limits, earlier: Hierarchy | Failure | None) -> None:
        self.limits, self.earlier = limits, earlier
        self.reuse = earlier.parts if earlier is not None else {}
        self.parts: dict = {}
        self.work = self.contracted = 0
        self.failed = b""

    def part(self, level: int, key: int, nodes, keep, rows) -> Part | None:
        digest, budget = _digest(nodes, keep, rows), self.limits.budget - self.work
        part = self.reuse.get((level, key))
        if part is None or part.digest != digest:
            failed = self.earlier if isinstance(self.earlier, Failure) else None
            if failed is not None and failed.digest == digest and budget <= failed.budget:
                part = None  # it ran over a budget at least as large before
            else:
                part = _contract(digest, nodes, keep, rows, self.limits, budget)
                self.contracted += 1
            if part is None:
                self.failed = digest
                return None
        self.parts[(level, key)] = part
        self.work += part.work
        return part


def _level(diff: np.ndarray, leaf_bits: int) -> np.ndarray:
    """The lowest level whose parts hold two cells whose coordinates differ in the bits
    ``diff`` (1: the same leaf)."""
    bits = np.ceil(np.log2(diff.astype(np.float64) + 1.0)).astype(np.int64)  # bit length
    return np.maximum(1, bits - leaf_bits + 1)


def _largest_part(stride, cells, node_level, top, leaf) -> int:
    """The most nodes any part holds when its turn comes."""
    largest = 0
    for level in range(1, top + 1):
        keys = _keys(cells[node_level >= level], stride, leaf + level - 1)
        if keys.size:
            largest = max(largest, int(np.unique(keys, return_counts=True)[1].max()))
    return largest


def _inputs(stride, shift, cells, alive, kept, edges):
    """Each part's input at the level of ``shift`` in cell order of the part: its key, its
    nodes' cells (sorted), which it keeps, and its edges sorted by their ends' cells."""
    node_cells = cells[alive]
    node_keys = _keys(node_cells, stride, shift)
    by_node = np.argsort(node_keys, kind="stable")  # cells are sorted within a part
    node_cells, node_keys, keep = node_cells[by_node], node_keys[by_node], kept[alive][by_node]
    edge_keys = _keys(edges[:, 0], stride, shift)
    by_edge = np.lexsort((edges[:, 1], edges[:, 0], edge_keys))
    edges, edge_keys = edges[by_edge], edge_keys[by_edge]
    keys, node_first = np.unique(node_keys, return_index=True)
    node_bounds = np.append(node_first, node_keys.size)
    edge_bounds = np.searchsorted(edge_keys, np.append(keys, np.iinfo(np.int64).max))
    for i, key in enumerate(keys.tolist()):
        a, b = node_bounds[i], node_bounds[i + 1]
        yield key, node_cells[a:b], keep[a:b], edges[edge_bounds[i] : edge_bounds[i + 1]]


def _keys(cell: np.ndarray, stride: int, shift: int) -> np.ndarray:
    """The key of the part holding each cell at the level of ``shift`` (row-major)."""
    return ((cell // stride) >> shift) << 32 | ((cell % stride) >> shift)


def _digest(nodes: np.ndarray, keep: np.ndarray, rows: np.ndarray) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for a in (nodes, keep, rows):
        h.update(np.ascontiguousarray(a).tobytes())
        h.update(a.size.to_bytes(8, "little"))
    return h.digest()


def _contract(digest, nodes, keep, rows, limits: Limits, budget: int) -> Part | None:
    eu = np.searchsorted(nodes, rows[:, 0])
    ev = np.searchsorted(nodes, rows[:, 1])
    order, up, kept, work = contract_part(
        nodes.size, eu, ev, rows[:, 2].copy(), rows[:, 3].copy(), keep, nodes,
        limits.witness, limits.estimate, budget,
    )  # fmt: skip
    if order.size < nodes.size - int(keep.sum()):
        return None  # over the budget
    up[:, 0], up[:, 1] = nodes[up[:, 0]], nodes[up[:, 1]]
    kept[:, 0], kept[:, 1] = nodes[kept[:, 0]], nodes[kept[:, 1]]
    return Part(digest, nodes[order], up, kept, int(work))


def _joined(arrays: list, empty: tuple) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.empty(empty, dtype=np.int64)


def ranked(hierarchy: Hierarchy, cells: np.ndarray):
    """The arrays a query reads (:func:`by_rank`), from the parts' outputs in the
    subgoals' ids: ranks in (level, part, own) order, the upward edges in CSR form (a
    node's in the order its part recorded them)."""
    ordered = [hierarchy.parts[k] for k in sorted(hierarchy.parts)]
    order = _joined([p.order for p in ordered], (0,))
    rank = np.empty(cells.size, dtype=np.int64)
    rank[np.searchsorted(cells, order)] = np.arange(order.size)
    up = _joined([p.up for p in ordered], (0, 4))
    source = np.searchsorted(cells, up[:, 0])
    by_source = np.argsort(source, kind="stable")
    up, source = up[by_source], source[by_source]
    start = np.zeros(cells.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(source, minlength=cells.size), out=start[1:])
    to = np.searchsorted(cells, up[:, 1]).astype(np.int32)
    mid = np.where(up[:, 3] >= 0, np.searchsorted(cells, up[:, 3]), -1).astype(np.int32)
    return by_rank(rank, cells, start, to, up[:, 2].copy(), mid)
