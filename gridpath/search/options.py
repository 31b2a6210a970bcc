"""Search options: algorithms, heuristics, movement rules and cost models (no pydantic).

The meanings follow Red Blob Games' introduction to A* and PathFinding.js/Godot naming:

* ``algorithm``: ``auto`` (default: ``jps`` where it applies, else ``astar``), ``jps`` (jump
  point search: uniform cost, 8-connected, no corner cutting; same cost as A*), ``astar``,
  ``dijkstra``, ``bfs`` (breadth-first: fewest steps, every step counts 1, terrain
  ignored), ``greedy`` (greedy best-first: ordered by the heuristic alone; fast, **not**
  optimal), ``theta`` (Lazy Theta*: any-angle segments between cell centres, Euclidean
  length; shorter than grid paths, **not** guaranteed shortest), ``subgoal`` (the
  preprocessed tier, a subgoal graph with a contraction hierarchy built per map revision:
  the default movement rules, optimal; where a revision has none, as ``auto``).
* ``heuristic``: ``octile`` (default with diagonals), ``manhattan`` (default for
  4-connected), ``euclidean``, ``chebyshev``, ``zero`` (A* with a zero heuristic is
  Dijkstra). ``heuristic_weight`` >= 1 gives weighted A*: cost at most weight x optimal.
* ``connectivity`` 4 or 8, and for 8 the ``diagonal`` rule: ``never``, ``no_corner_cut``
  (default: both orthogonal neighbours walkable), ``one_free`` (at least one walkable),
  ``always``.
* ``cost_model``: ``float`` (1 and sqrt(2) per step) or ``integer`` (10 and 14, exact
  integer arithmetic, as many game clients do).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property, lru_cache

from gridpath.errors import InvalidOption
from gridpath.grid.terrain import TERRAIN_COST_RULE, is_terrain_cost
from gridpath.search import _general
from gridpath.search._records import (
    ALWAYS,
    DIAGONAL_NEVER,
    NO_CORNER_CUT,
    ONE_FREE,
    SQRT2,
    rules_record,
)
from gridpath.search._sight import CORNER_BOTH, CORNER_NONE, CORNER_ONE


class Algorithm(str, Enum):
    AUTO = "auto"  # the fastest optimal search that applies: jps, else astar
    JPS = "jps"
    ASTAR = "astar"
    DIJKSTRA = "dijkstra"
    BFS = "bfs"
    GREEDY = "greedy"
    THETA = "theta"  # any-angle (Lazy Theta*): NOT optimal
    SUBGOAL = "subgoal"  # the preprocessed tier (subgoal graph + contraction hierarchy)


class Heuristic(str, Enum):
    OCTILE = "octile"
    MANHATTAN = "manhattan"
    EUCLIDEAN = "euclidean"
    CHEBYSHEV = "chebyshev"
    ZERO = "zero"


class Diagonal(str, Enum):
    NEVER = "never"
    NO_CORNER_CUT = "no_corner_cut"
    ONE_FREE = "one_free"
    ALWAYS = "always"


class CostModel(str, Enum):
    FLOAT = "float"
    INTEGER = "integer"


ALGORITHM_CODES = {
    Algorithm.ASTAR: _general.ASTAR,
    Algorithm.DIJKSTRA: _general.DIJKSTRA,
    Algorithm.BFS: _general.BFS,
    Algorithm.GREEDY: _general.GREEDY,
}
HEURISTIC_CODES = {
    Heuristic.OCTILE: _general.OCTILE,
    Heuristic.MANHATTAN: _general.MANHATTAN,
    Heuristic.EUCLIDEAN: _general.EUCLIDEAN,
    Heuristic.CHEBYSHEV: _general.CHEBYSHEV,
    Heuristic.ZERO: _general.ZERO,
}
DIAGONAL_CODES = {
    Diagonal.NEVER: DIAGONAL_NEVER,
    Diagonal.NO_CORNER_CUT: NO_CORNER_CUT,
    Diagonal.ONE_FREE: ONE_FREE,
    Diagonal.ALWAYS: ALWAYS,
}
# Line of sight at an exact grid corner follows the diagonal rule; 4-connected movement
# (and "never") uses the strict rule, so a sight line never crosses between diagonal walls.
CORNER_RULES = {
    Diagonal.NEVER: CORNER_BOTH,
    Diagonal.NO_CORNER_CUT: CORNER_BOTH,
    Diagonal.ONE_FREE: CORNER_ONE,
    Diagonal.ALWAYS: CORNER_NONE,
}


@dataclass(frozen=True)
class SearchOptions:
    algorithm: Algorithm = Algorithm.AUTO
    heuristic: Heuristic | None = None  # None: octile with diagonals, manhattan without
    heuristic_weight: float = 1.0
    connectivity: int = 8
    diagonal: Diagonal = Diagonal.NO_CORNER_CUT
    cost_model: CostModel = CostModel.FLOAT
    max_expanded: int | None = None
    max_cost: float | None = None
    closest: bool = False
    terrain_costs: tuple[tuple[str, float], ...] = ()  # per-request class cost overrides
    turn_penalty: float = 0.0  # extra cost per change of direction
    clearance: int = 1  # unit size in cells: keeps to cells with clearance >= this
    smooth: bool = False  # waypoints by string pulling (else the turning points)

    def __post_init__(self) -> None:
        if not 1 <= self.clearance <= 255:
            raise InvalidOption(
                "clearance", f"clearance must be 1..255 cells, got {self.clearance}"
            )
        if not (math.isfinite(self.turn_penalty) and self.turn_penalty >= 0):
            raise InvalidOption(
                "turn_penalty",
                f"turn_penalty must be a finite number >= 0, got {self.turn_penalty}",
            )
        if self.cost_model == CostModel.INTEGER and self.turn_penalty != int(self.turn_penalty):
            raise InvalidOption(
                "turn_penalty",
                "the integer cost model needs a whole-number "
                f"turn_penalty, got {self.turn_penalty}",
            )
        for name, cost in self.terrain_costs:
            if not is_terrain_cost(cost):
                raise InvalidOption(
                    "terrain_costs",
                    f"terrain_costs[{name!r}] must be {TERRAIN_COST_RULE}, got {cost}",
                )
        if self.connectivity not in (4, 8):
            raise InvalidOption(
                "connectivity", f"connectivity must be 4 or 8, got {self.connectivity}"
            )
        if not (math.isfinite(self.heuristic_weight) and self.heuristic_weight >= 1):
            raise InvalidOption(
                "heuristic_weight",
                f"heuristic_weight must be a finite number >= 1, got {self.heuristic_weight}",
            )
        if self.max_expanded is not None and self.max_expanded < 1:
            raise InvalidOption(
                "max_expanded", f"max_expanded must be >= 1, got {self.max_expanded}"
            )
        if self.max_cost is not None and not (math.isfinite(self.max_cost) and self.max_cost >= 0):
            raise InvalidOption(
                "max_cost", f"max_cost must be a finite number >= 0, got {self.max_cost}"
            )

    def resolved(self) -> SearchOptions:
        """The effective options: defaults filled in, 4-connected means no diagonals."""
        return self._resolved

    # Derived values are computed once per instance (options are immutable, and find_path
    # asks for them on every query): cached_property stores them beside the fields.
    @cached_property
    def _resolved(self) -> SearchOptions:
        return _resolve(self)

    @cached_property
    def diagonals(self) -> bool:
        return self.connectivity == 8 and self.diagonal != Diagonal.NEVER

    @cached_property
    def step_weights(self) -> tuple[float, float]:
        """Cost of a straight and of a diagonal step on cost-1 terrain."""
        return (10.0, 14.0) if self.cost_model == CostModel.INTEGER else (1.0, SQRT2)

    @cached_property
    def admissible(self) -> bool:
        """The heuristic never overestimates under these movement rules."""
        heuristic = self.resolved().heuristic
        return not (heuristic == Heuristic.MANHATTAN and self.diagonals)


@lru_cache(maxsize=1024)
def _resolve(options: SearchOptions) -> SearchOptions:
    diagonal = Diagonal.NEVER if options.connectivity == 4 else options.diagonal
    heuristic = options.heuristic
    if heuristic is None:
        heuristic = Heuristic.MANHATTAN if diagonal == Diagonal.NEVER else Heuristic.OCTILE
    if diagonal == options.diagonal and heuristic == options.heuristic:
        return options
    return replace(options, diagonal=diagonal, heuristic=heuristic)


DEFAULT_OPTIONS = SearchOptions()


def kernel_rules(
    options: SearchOptions, class_cost, uniform: bool, max_expanded: int, **limits: float
) -> tuple:
    """The kernels' rules record (:mod:`gridpath.search._records`) for resolved ``options`` on
    terrain priced by ``class_cost`` (``limits``: ``max_cost``, ``turn_penalty``)."""
    orth_w, diag_w = options.step_weights
    return rules_record(
        unit=options.clearance,
        diagonal=DIAGONAL_CODES[options.diagonal],
        orth_w=orth_w,
        diag_w=diag_w,
        class_cost=class_cost,
        uniform=uniform,
        max_expanded=max_expanded,
        **limits,
    )
