"""world_table: each entry the independent world Dijkstra's cost (None where unreachable
or where an end cannot be stood on)."""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gridpath.world.model import Place
from gridpath.world.table import world_table
from tests.gridpath.world.scenes import reference_cost, scenes


@settings(max_examples=60, deadline=None)
@given(scene=scenes(max_side=6, max_links=5), data=st.data())
def test_entries_are_the_world_dijkstra(scene, data):
    assume(scene is not None)
    names = list(scene.maps.world.maps)

    def place():
        name = data.draw(st.sampled_from(names))
        g = scene.maps.grids[name]
        return Place(name, (data.draw(st.integers(0, g.width - 1)),
                            data.draw(st.integers(0, g.height - 1))))  # fmt: skip

    sources = [place() for _ in range(data.draw(st.integers(1, 3)))]
    targets = [place() for _ in range(data.draw(st.integers(1, 3)))]
    table = world_table(scene.maps, sources, targets, scene.options, scene.links, scene.blocked)
    for i, s in enumerate(sources):
        for j, t in enumerate(targets):
            open_ = all(scene.walkable[p.map][p.cell[1], p.cell[0]] for p in (s, t))
            want = reference_cost(replace(scene, start=s, goal=t)) if open_ else math.inf
            got = table.costs[i][j]
            assert (got is None) == (not math.isfinite(want)), (got, want)
            if got is not None:
                assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9)
