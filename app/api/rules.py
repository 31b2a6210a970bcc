"""From request models to the search layer's :class:`SearchOptions`, with the server's caps."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from app.config import Settings
from app.models import MovementRules
from gridpath.errors import InvalidField
from gridpath.search import SearchOptions


def search_options(rules: MovementRules, settings: Settings, **search: Any) -> SearchOptions:
    """The movement rules of a request (plus any ``search`` options) as ``SearchOptions``.

    Raises ``invalid_<field>`` errors for a ``blocked`` list over ``MAX_BLOCKED`` (and the
    search layer raises :class:`~gridpath.errors.InvalidOption`, an ``invalid_<field>`` error,
    for values it refuses).
    """
    if len(rules.blocked) > settings.max_blocked:
        raise InvalidField(
            "blocked",
            f"blocked lists {len(rules.blocked)} cells, over the limit of {settings.max_blocked}",
        )
    terrain_costs = tuple(sorted(rules.terrain_costs.items())) if rules.terrain_costs else ()
    rule_values = (rules.connectivity, rules.diagonal, rules.cost_model, rules.clearance)
    return _options(*rule_values, terrain_costs, tuple(search.items()))


@lru_cache(maxsize=4096)
def _options(
    connectivity: int,
    diagonal: Any,
    cost_model: Any,
    clearance: int,
    terrain_costs: tuple,
    search: tuple[tuple[str, Any], ...],
) -> SearchOptions:
    """``SearchOptions`` (immutable, so shared) made once per distinct request options: its
    checks cost more than the rest of a short query's answer. The validated models give
    each field one type (floats as float, flags as bool), so equal keys make equal options;
    a value it refuses raises each time (exceptions are not cached). ``-0.0`` and ``0.0``
    are equal keys: a float is made ``+ 0.0`` (``-0.0`` becomes ``0.0``, nothing else
    changes), so the options echoed are the same whichever of the two came first."""
    return SearchOptions(
        connectivity=connectivity,
        diagonal=diagonal,
        cost_model=cost_model,
        clearance=clearance,
        terrain_costs=terrain_costs,
        **{k: v + 0.0 if type(v) is float else v for k, v in search},
    )


def expansion_budget(settings: Settings, time_budget_ms: int | None = None) -> int:
    """``MAX_SEARCH_MS`` (or a request's smaller ``time_budget_ms``) as an expansion budget.

    The kernels are numba code that Python cannot interrupt, and a clock read inside them
    would make the answer depend on timing. So the time budget is converted into expansions
    at ``SEARCH_EXPANSIONS_PER_MS`` (a setting, not a measurement at run time): a search cut
    by it ends with ``limit_reached`` exactly like one cut by ``max_expanded``, and the same
    request on the same map revision gets the same body on any machine. The wall-clock time
    it takes follows the machine's speed and the algorithm's cost per expansion.
    """
    ms = settings.max_search_ms if time_budget_ms is None else time_budget_ms
    return min(ms, settings.max_search_ms) * settings.search_expansions_per_ms


def worst_case_expansions(
    cells: int, settings: Settings, max_expanded: int | None, time_budget_ms: int | None
) -> int:
    """The most expansions a search over ``cells`` states may do: its scheduling cost."""
    caps = [cells, settings.max_expanded, expansion_budget(settings, time_budget_ms)]
    if max_expanded is not None:
        caps.append(max_expanded)
    return min(caps)
