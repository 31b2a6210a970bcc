"""Search options: algorithms, heuristics, movement rules and cost models (no pydantic).

The meanings follow Red Blob Games' introduction to A* and PathFinding.js/Godot naming:

* ``algorithm``: ``auto`` (default: ``jps`` where it applies, else ``astar``), ``jps`` (jump
  point search: uniform cost, 8-connected, no corner cutting; same cost as A*), ``astar``,
  ``dijkstra``, ``bfs`` (breadth-first: fewest steps, every step counts 1, terrain
  ignored), ``greedy`` (greedy best-first: ordered by the heuristic alone; fast, **not**
  optimal).
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

from app.grid.model import TERRAIN_COST_RULE, is_terrain_cost
from app.search import _general
from app.search._kernels import CORNER_BOTH, CORNER_NONE, CORNER_ONE, SQRT2


class Algorithm(str, Enum):
    AUTO = "auto"  # the fastest optimal search that applies: jps, else astar
    JPS = "jps"
    ASTAR = "astar"
    DIJKSTRA = "dijkstra"
    BFS = "bfs"
    GREEDY = "greedy"


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
    Diagonal.NEVER: _general.DIAGONAL_NEVER,
    Diagonal.NO_CORNER_CUT: _general.NO_CORNER_CUT,
    Diagonal.ONE_FREE: _general.ONE_FREE,
    Diagonal.ALWAYS: _general.ALWAYS,
}
# Line of sight at an exact grid corner follows the diagonal rule; 4-connected movement
# (and "never") uses the strict rule, so a sight line never crosses between diagonal walls.
CORNER_RULES = {
    Diagonal.NEVER: CORNER_BOTH,
    Diagonal.NO_CORNER_CUT: CORNER_BOTH,
    Diagonal.ONE_FREE: CORNER_ONE,
    Diagonal.ALWAYS: CORNER_NONE,
}


class InvalidOption(ValueError):
    """An option value that cannot be used; ``field`` names the option."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


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

    @cached_property
    def optimal(self) -> bool:
        """The returned cost is the minimum under the cost model."""
        if self.algorithm == Algorithm.DIJKSTRA:
            return True
        if self.algorithm in (Algorithm.ASTAR, Algorithm.AUTO, Algorithm.JPS):
            return self.admissible and self.heuristic_weight == 1
        if self.algorithm == Algorithm.BFS:  # fewest steps is cheapest only if steps cost alike
            return not self.diagonals
        return False

    @cached_property
    def bounded_suboptimal(self) -> bool:
        """Weighted A* with an admissible heuristic: cost <= heuristic_weight x optimal."""
        return (
            self.algorithm in (Algorithm.ASTAR, Algorithm.AUTO)
            and self.admissible
            and self.heuristic_weight > 1
        )

    @cached_property
    def is_fast_path(self) -> bool:
        """Served by the exact default kernel (A*, octile, no corner cutting, weight 1) when
        the terrain is uniform."""
        r = self.resolved()
        return (
            r.algorithm in (Algorithm.ASTAR, Algorithm.AUTO)
            and r.heuristic == Heuristic.OCTILE
            and r.heuristic_weight == 1
            and r.diagonal == Diagonal.NO_CORNER_CUT
            and r.max_cost is None
            and not r.closest
            and r.turn_penalty == 0
            and r.clearance == 1
        )


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


def jps_blocker(
    options: SearchOptions, *, uniform: bool, blocked: bool, goals: int, explored: bool
) -> str | None:
    """Why jump point search cannot serve this query (None: it can)."""
    r = options.resolved()
    if not (r.connectivity == 8 and r.diagonal == Diagonal.NO_CORNER_CUT):
        return "it needs 8-connected movement without corner cutting (diagonal no_corner_cut)"
    if not uniform:
        return "it needs uniform terrain costs"
    if r.turn_penalty:
        return "it does not support turn_penalty"
    if r.heuristic != Heuristic.OCTILE or r.heuristic_weight != 1:
        return "it uses the octile heuristic with weight 1"
    if blocked:
        return "it does not support per-request blocked cells"
    if goals != 1:
        return "it searches for a single goal"
    if r.closest or r.max_cost is not None:
        return "it does not support closest or max_cost"
    if explored:
        return "it does not report explored cells"
    return None
