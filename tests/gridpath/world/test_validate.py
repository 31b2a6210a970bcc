"""validate_world_path: find_world_path's answers validate at their cost; jumps get the
link codes; the reference's link rules decide what is legal."""

from __future__ import annotations

import math

from hypothesis import assume, given, settings

from gridpath.search import SearchOptions
from gridpath.world.model import Place
from gridpath.world.overlay import LinkFilter
from gridpath.world.search import WorldQuery, find_world_path
from gridpath.world.validate import validate_world_path
from tests.gridpath.world.scenes import reference_cost, scenes
from tests.gridpath.world.test_search import keep


def places(answer) -> list[Place]:
    out = []
    for leg in answer.legs:
        out += [Place(leg.map, tuple(c)) for c in leg.path.tolist()]
    return out


@settings(max_examples=150, deadline=None)
@given(scene=scenes())
def test_answers_validate_at_their_cost_and_optimal_cost_is_the_reference(scene):
    assume(scene is not None)
    query = WorldQuery(scene.maps, scene.start, scene.goal, scene.options, scene.links,
                       scene.blocked)  # fmt: skip
    answer = find_world_path(query)
    assume(answer.found)
    result = validate_world_path(scene.maps, places(answer), scene.options, scene.links,
                                 scene.start, scene.goal, compare_optimal=True,
                                 blocked=scene.blocked)  # fmt: skip
    assert result.valid, result.violations
    assert math.isclose(result.cost, answer.cost, rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(result.optimal_cost, reference_cost(scene), rel_tol=1e-9, abs_tol=1e-9)


def codes(result):
    return [(v.index, v.code) for v in result.violations]


def test_link_codes():
    maps = keep()
    options = SearchOptions()
    up = [Place("k1", (7, 1)), Place("k1", (7, 0)), Place("k2", (7, 0)), Place("k2", (6, 1))]
    ok = validate_world_path(maps, up, options)
    assert ok.valid and math.isclose(ok.cost, 1 + 2 + math.sqrt(2))
    trap_up = [Place("k1", (0, 2)), Place("k2", (0, 2))]
    assert codes(validate_world_path(maps, trap_up, options)) == [(1, "link_one_way")]
    gate = [Place("k1", (0, 0)), Place("k1", (0, 2))]
    assert codes(validate_world_path(maps, gate, options)) == [(1, "link_disabled")]
    jump = [Place("k1", (2, 0)), Place("k2", (5, 1))]
    assert codes(validate_world_path(maps, jump, options)) == [(1, "link_missing")]
    far = [Place("k2", (0, 0)), Place("k2", (3, 0))]
    assert codes(validate_world_path(maps, far, options)) == [(1, "link_missing")]
    excluded = validate_world_path(maps, up, options, LinkFilter(frozenset({"stairs"})))
    assert codes(excluded) == [(2, "link_disabled")]
    assert codes(validate_world_path(maps, up, options, max_cost=3)) == [(3, "over_budget")]
