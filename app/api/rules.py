"""From request models to the search layer's :class:`SearchOptions`, with the server's caps."""

from __future__ import annotations

from typing import Any

from app.config import Settings
from app.errors import InvalidField
from app.schemas import MovementRules
from app.search import SearchOptions


def search_options(rules: MovementRules, settings: Settings, **search: Any) -> SearchOptions:
    """The movement rules of a request (plus any ``search`` options) as ``SearchOptions``.

    Raises ``invalid_<field>`` errors for a ``blocked`` list over ``MAX_BLOCKED`` (and the
    search layer raises :class:`~app.errors.InvalidOption`, an ``invalid_<field>`` error,
    for values it refuses).
    """
    if len(rules.blocked) > settings.max_blocked:
        raise InvalidField(
            "blocked",
            f"blocked lists {len(rules.blocked)} cells, over the limit of {settings.max_blocked}",
        )
    return SearchOptions(
        connectivity=rules.connectivity,
        diagonal=rules.diagonal,
        cost_model=rules.cost_model,
        clearance=rules.clearance,
        terrain_costs=tuple(sorted(rules.terrain_costs.items())),
        **search,
    )
