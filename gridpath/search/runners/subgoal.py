"""The subgoal runner: a preprocessed tier, subgoal graphs with a contraction hierarchy
(:mod:`gridpath.search._subgoal`), for the default movement rules (uniform cost,
8-connected without corner cutting, octile, float costs, units of size 1).

The hierarchy is built per map revision, off the request path: by :func:`subgoal_graph`,
which the service runs for every map it loads (up to ``SUBGOAL_MAX_CELLS`` cells, by
default every map) and, through the store's ``prepare`` hook and :meth:`Grid.derive_like`,
for every new revision before it is published; an edit's revision repairs the earlier
one's, re-contracting only the parts the edit changed (:mod:`gridpath.search._subgoal.parts`).
A query only reads what the revision already has (:meth:`Grid.built`): a revision without
a hierarchy is refused here and the plan falls through to the next runner. Whether a
revision has one is fixed when it is published, so the same request on the same revision
always gets the same answer.

Among paths of equal cost this tier picks its own (the subgoals the hierarchy meets at,
each piece refined diagonally first where that is legal), which is not the one JPS picks.
``auto`` answers from it where the revision has it and the map has at least
:data:`AUTO_MIN_CELLS` cells (:data:`AUTO_RUNNER`); on smaller maps block JPS is as fast
(bench/README.md, bench-peers), and auto keeps JPS's paths there. Both conditions are
fixed when the revision is published, so auto's answer is too. It is also asked for by
name, ``algorithm: "subgoal"``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gridpath.grid.loader import DEFAULT_MAX_MAP_CELLS
from gridpath.grid.model import Grid
from gridpath.search._frontier import FOUND
from gridpath.search._subgoal import (
    HEAP_COLUMNS,
    NODE_COLUMNS,
    mark_subgoals,
    scratch_rows,
    subgoal_edges,
    subgoal_path,
    subgoal_search,
)
from gridpath.search._subgoal.parts import Failure, Hierarchy, Limits, contract_parts, ranked
from gridpath.search.options import Algorithm, CostModel, Diagonal, Heuristic, SearchOptions
from gridpath.search.runner import Outcome, Query, Runner, WarmUp
from gridpath.search.runners import jps_blocks
from gridpath.search.runners.jps import JUMP_DISTANCES
from gridpath.search.scratch import SearchScratch
from gridpath.search.warmup_grids import walled_square

# ``auto`` uses the tier from this many cells (128 x 128): below it block JPS is as fast.
AUTO_MIN_CELLS = 16_384
NO_TIER = "this map revision has no subgoal graph (SUBGOAL_MAX_CELLS)"  # the only refusal
# that building the tier lifts
KEY = "subgoal_graph"  # its key among a revision's derived data
# Contraction: settled nodes per witness search when contracting and when estimating a
# node's priority (a limit only adds shortcuts), and the build's budget in edges scanned
# by witness searches. A map whose subgoals see many others (open city maps, random
# obstacles) needs far more, and its hierarchy would be slower to query than JPS: past
# the budget the build gives up and the revision has no subgoal tier. The budget is a
# count, not a clock, so every process decides alike.
WITNESS_LIMIT = 200
ESTIMATE_LIMIT = 10
BUILD_BUDGET = 100_000_000
LIMITS = Limits(WITNESS_LIMIT, ESTIMATE_LIMIT, BUILD_BUDGET)
# Subgoals that see this many others on average (open city maps) always run over the
# budget: such a map gives up before the contraction, not after seconds of it; so does one
# with a part of more than ``Limits.part_nodes`` subgoals (random obstacles, long edges
# across the parts' lines: bench/README.md, bench.tiers).
MAX_MEAN_DEGREE = 14


@dataclass(frozen=True, eq=False)
class SubgoalGraph:
    """A revision's subgoal graph and hierarchy (read-only arrays): the exploration's bit
    planes (open and walkable cells by rows and by columns, subgoals counted); the
    subgoals' ids in cell order (an id is the node's place in the hierarchy from the top:
    :func:`~gridpath.search._subgoal.by_rank`); each id's cell; the upward edges in CSR
    form (``first``; ``up_edges``: 16-byte records of the cost, the node reached and the
    node a shortcut bypasses)."""

    bits: np.ndarray = field(repr=False)
    sorted_ids: np.ndarray = field(repr=False)
    cells: np.ndarray = field(repr=False)
    first: np.ndarray = field(repr=False)
    up_edges: np.ndarray = field(repr=False)
    links: np.ndarray = field(repr=False)  # up_edges' int32 view: the nodes each names
    edges: int  # of the subgoal graph, before contraction
    build_seconds: float
    hierarchy: Hierarchy = field(repr=False)  # its parts, which the next revision reuses

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self.bits, self.sorted_ids, self.cells, self.first,
            self.up_edges,
        )  # fmt: skip

    @property
    def nbytes(self) -> int:
        """What it holds: the query's arrays and the parts a repair reuses."""
        return sum(a.nbytes for a in self.arrays) + self.hierarchy.nbytes

    @property
    def scratch_rows(self) -> int:
        return scratch_rows(self.cells.size, self.up_edges.shape[0])


def build_subgoal_graph(
    grid: Grid, earlier: SubgoalGraph | Failure | None = None, limits: Limits = LIMITS
) -> SubgoalGraph | Failure | None:
    """The subgoal graph and hierarchy of a uniform-cost revision, re-contracting only the
    parts whose input differs from ``earlier``'s (an earlier revision of the map, or its
    failed build: the result is the same either way). None when its subgoals see more
    than :data:`MAX_MEAN_DEGREE` others on average or a part is too large to contract;
    a :class:`Failure` when the contraction runs over :data:`BUILD_BUDGET`."""
    began = time.perf_counter()
    bits, sorted_cells = mark_subgoals(grid.flat, grid.stride)
    eu, ev, _, es = subgoal_edges(bits, sorted_cells)
    if 2 * eu.size > MAX_MEAN_DEGREE * sorted_cells.size:
        return None
    reuse = earlier.hierarchy if isinstance(earlier, SubgoalGraph) else earlier
    hierarchy = contract_parts(grid.stride, sorted_cells, eu, ev, es, limits, reuse)
    if not isinstance(hierarchy, Hierarchy):
        return hierarchy
    cells, sorted_ids, first, up_edges = ranked(hierarchy, sorted_cells)
    graph = SubgoalGraph(
        bits, sorted_ids, cells, first, up_edges, up_edges.view(np.int32), int(eu.size),
        time.perf_counter() - began, hierarchy,
    )  # fmt: skip
    for a in (*graph.arrays, graph.links):
        a.flags.writeable = False
    return graph


class _Build:
    """Builds a revision's hierarchy (:func:`build_subgoal_graph`) up to ``max_cells``;
    for an edit's revision (``Grid.derive_like``) it re-contracts only the parts the
    edit changed. It is handed from revision to revision of a map and keeps the last
    build that ran over the budget, so the next gives up without trying again."""

    def __init__(self, max_cells: int) -> None:
        self.max_cells = max_cells
        self.failure: Failure | None = None  # a map's edits come one at a time

    def __call__(self, grid: Grid) -> SubgoalGraph | None:
        return self.update(grid, None, None)

    def update(
        self, grid: Grid, earlier: Grid | None, value: SubgoalGraph | None
    ) -> SubgoalGraph | None:
        if not grid.uniform or grid.cell_count > self.max_cells:
            return None
        same_shape = earlier is not None and earlier.flat.shape == grid.flat.shape
        made = build_subgoal_graph(grid, (value or self.failure) if same_shape else None)
        if isinstance(made, Failure):
            self.failure = made
            return None
        return made


def subgoal_graph(grid: Grid, max_cells: int = DEFAULT_MAX_MAP_CELLS) -> SubgoalGraph | None:
    """This revision's hierarchy, built now if it has none yet (kept with the revision;
    :meth:`Grid.derive_like` repairs it for the next), or None: terrain with costs, a
    map over ``max_cells`` (0: never; by default every map the service loads, as
    ``SUBGOAL_MAX_CELLS`` unset) or too costly to contract."""
    max_cells = max(0, int(max_cells))
    return grid.derived((KEY, max_cells), _Build(max_cells))


def tiers(grid: Grid) -> dict[str, int]:
    """The preprocessing this revision has, by the algorithm that reads it, with its bytes
    (``GET /maps``): ``jps`` (block JPS's bitsets, the JPS+ jump distances), ``subgoal``."""
    preprocessing = {"jps": (jps_blocks.KEY, JUMP_DISTANCES), "subgoal": (KEY,)}  # bitsets, JPS+
    sizes = {
        tier: sum(int(t.nbytes) for t in map(grid.built, keys) if t is not None)
        for tier, keys in preprocessing.items()
    }
    return {tier: size for tier, size in sizes.items() if size}


def refuses(query: Query) -> str | None:
    """Why the subgoal tier cannot serve this query (None: it can)."""
    o = query.options
    if not (o.connectivity == 8 and o.diagonal == Diagonal.NO_CORNER_CUT):
        return "it needs 8-connected movement without corner cutting (diagonal no_corner_cut)"
    if o.heuristic != Heuristic.OCTILE or o.heuristic_weight != 1:
        return "it uses the octile heuristic with weight 1"
    if o.cost_model != CostModel.FLOAT or o.turn_penalty or o.clearance != 1:
        return "it runs with float costs, no turn penalty, units of size 1"
    if not query.uniform or query.blocked:
        return "it needs uniform terrain and no per-request blocked cells"
    if len(query.goals) != 1 or o.closest or o.max_cost is not None:
        return "it searches for a single goal, without closest or max_cost"
    if query.explored_limit > 0:
        return "it does not report explored cells"
    if query.grid.built(KEY) is None:
        return NO_TIER
    return None


class _Scratch:
    """The tier's query arrays (:mod:`gridpath.search._subgoal`), kept with a
    :class:`SearchScratch` (one search at a time) and stamped by generation like it."""

    def __init__(self, subgoals: int, rows: int) -> None:
        self.nodes = np.zeros((subgoals, NODE_COLUMNS), dtype=np.float64)
        self.heap = np.empty((rows, HEAP_COLUMNS), dtype=np.float64)
        self.found = np.empty((subgoals + 1, 3), dtype=np.int64)
        self.generation = 0

    def begin(self) -> int:
        self.generation += 1
        return self.generation


def _scratch_for(scratch: SearchScratch, graph: SubgoalGraph) -> _Scratch:
    """The arrays kept with ``scratch``, grown to the largest hierarchy it has served."""
    mine = scratch.__dict__.get("subgoal")
    subgoals, rows = graph.cells.size, graph.scratch_rows
    if mine is None or mine.nodes.shape[0] < subgoals or mine.heap.shape[0] < rows:
        if mine is not None:
            subgoals = max(subgoals, mine.nodes.shape[0])
            rows = max(rows, mine.heap.shape[0])
        mine = scratch.__dict__["subgoal"] = _Scratch(subgoals, rows)
    return mine


def run(query: Query, scratch: SearchScratch) -> Outcome:
    graph: SubgoalGraph = query.grid.built(KEY)
    grid = query.grid
    mine = _scratch_for(scratch, graph)
    start, goal = grid.index(*query.start), grid.index(*query.goals[0])
    hierarchy = (graph.bits, graph.sorted_ids, graph.first, graph.up_edges, graph.links)
    arrays = (mine.nodes, mine.heap, mine.found, mine.begin())
    began = time.perf_counter_ns()
    status, settled, meet = subgoal_search(hierarchy, arrays, start, goal, query.max_expanded)
    search_us = (time.perf_counter_ns() - began) / 1000
    if status != FOUND:
        return Outcome(int(status), int(settled), search_us)
    path, n_orth, n_diag = subgoal_path(
        grid.flat, grid.stride, graph.cells, graph.first, graph.links, mine.nodes, start,
        goal, meet,
    )  # fmt: skip
    orth_w, diag_w = query.options.step_weights
    return Outcome(FOUND, int(settled), search_us, path, n_orth * orth_w + n_diag * diag_w, 0)


_SUBGOAL = SearchOptions(algorithm=Algorithm.SUBGOAL)
WARM_UPS = (
    WarmUp(walled_square, (0, 4), (8, 4), _SUBGOAL, prepare=subgoal_graph),  # the hierarchy
    WarmUp(walled_square, (0, 0), (8, 1), _SUBGOAL, prepare=subgoal_graph),  # a direct move
)
RUNNER = Runner.plain("subgoal", refuses, run, WARM_UPS, late_preprocessing=(KEY,))


def refuses_for_auto(query: Query) -> str | None:
    """Why ``auto`` does not answer this query from the tier (None: it does)."""
    if query.grid.cell_count < AUTO_MIN_CELLS:
        return f"the map has under {AUTO_MIN_CELLS} cells (block JPS is as fast)"
    return refuses(query)


# The tier as ``auto``'s first choice (reported as ``subgoal``); its kernels are
# :data:`RUNNER`'s (the warm-up compiles them in one step).
AUTO_RUNNER = Runner.plain(
    "subgoal_auto", refuses_for_auto, run, late_preprocessing=(KEY,), kernels_of=RUNNER
)
