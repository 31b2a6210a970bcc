"""The world kernels' warm-up step (:mod:`gridpath.search.warmup` runs it as ``worlds``): a
query through a world, whose overlay heuristic compiles :mod:`gridpath.world.bounds`, and
world flow fields (:mod:`gridpath.world._flood`), on two tiny maps (one uniform, one with
terrain) joined by a zero-cost link both ways. The legs' kernels are the earlier steps'."""

from __future__ import annotations

import numpy as np

from gridpath.grid.model import Grid
from gridpath.grid.terrain import TerrainClass
from gridpath.search.options import SearchOptions
from gridpath.search.scratch import SearchScratch
from gridpath.world.flowfield import world_flowfield
from gridpath.world.model import Place, WorldMaps, parse_world
from gridpath.world.search import WorldQuery, find_world_path


def _world() -> WorldMaps:
    walkable = np.ones((4, 5), dtype=bool)
    walkable[1, 2] = False
    classes = (TerrainClass("ground", 1.0), TerrainClass("sand", 2.0))
    grids = {
        "_warmup": Grid.from_walkable("_warmup", walkable),
        "_warmup_terrain": Grid.from_walkable(
            "_warmup_terrain", walkable, terrain=walkable.astype(np.uint8), terrain_classes=classes
        ),
    }
    ends = {
        "from": {"map": "_warmup", "cell": [0, 0]},
        "to": {"map": "_warmup_terrain", "cell": [0, 3]},
    }
    link = {"id": "stairs", **ends, "cost": 0, "bidirectional": True}
    world = parse_world("_warmup", {"maps": list(grids), "links": [link]}, lambda _: ("grid", 5, 4))
    return WorldMaps(world, grids)


def warm_up(scratch: SearchScratch) -> None:
    maps = _world()
    here, there = Place("_warmup", (4, 3)), Place("_warmup_terrain", (4, 0))
    find_world_path(WorldQuery(maps, here, there, SearchOptions()), scratch)
    world_flowfield(maps, there, blocked={"_warmup": [(1, 1)]}, scratch=scratch)
    world_flowfield(maps, here, scratch=scratch)
