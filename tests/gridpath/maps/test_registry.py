"""The registry installs a revision made elsewhere (another process, the folder) from the
revision it holds: its search data repaired, equal to a fresh build."""

from __future__ import annotations

import numpy as np

from gridpath.grid import Grid
from gridpath.maps import MapRegistry
from gridpath.search import subgoal_graph
from gridpath.search.runners import subgoal


def rooms(height: int, width: int, seed: int) -> np.ndarray:
    """Rooms of 9 x 9 cells, a door at a random place in each wall."""
    rng = np.random.default_rng(seed)
    walkable = np.ones((height, width), dtype=bool)
    walkable[::10, :] = walkable[:, ::10] = False
    for y in range(0, height, 10):
        for x in range(0, width, 10):
            walkable[y, min(width - 1, x + rng.integers(1, 10))] = True  # the wall above
            walkable[min(height - 1, y + rng.integers(1, 10)), x] = True  # the wall left
    return walkable


def test_a_revision_from_elsewhere_repairs_the_held_revisions_tier():
    walkable = rooms(150, 140, 3)
    registry = MapRegistry()
    registry.prepare = subgoal_graph  # as the service's: the tier before publishing
    registry.apply("cave", Grid.from_walkable("cave", walkable), 1)
    walkable[70, 60] = False  # as another process's edit arrives: a new decode of the map
    arrived = Grid.from_walkable("cave", walkable)
    assert registry.apply("cave", arrived, 2)
    served = registry.find("cave").built(subgoal.KEY)
    fresh = subgoal.build_subgoal_graph(Grid.from_walkable("cave", walkable))
    assert all(a.tobytes() == b.tobytes() for a, b in zip(served.arrays, fresh.arrays))
    assert served.hierarchy.contracted_parts < fresh.hierarchy.contracted_parts
