"""The small grids the warm-up's queries run on (:class:`~gridpath.search.runner.WarmUp`,
:mod:`gridpath.search.warmup`), one copy each: a kernel is compiled per argument types, not
per map, so a few cells serve; each grid is made anew per call (a revision's preprocessing
is kept with its grid)."""

from __future__ import annotations

import numpy as np

from gridpath.grid.model import Grid
from gridpath.grid.terrain import TerrainClass


def _room_walkable() -> np.ndarray:
    walkable = np.ones((4, 5), dtype=bool)
    walkable[1, 2] = False
    return walkable


def room() -> Grid:
    """4 x 5 cells, one of them a wall: every movement rule has a detour to make."""
    return Grid.from_walkable("_warmup", _room_walkable())


def terrain_room() -> Grid:
    """:func:`room` with two terrain classes of different costs (the costly-terrain kernels)."""
    walkable = _room_walkable()
    return Grid.from_walkable(
        "_warmup_terrain",
        walkable,
        terrain=walkable.astype(np.uint8),
        terrain_classes=(TerrainClass("ground", 1.0), TerrainClass("sand", 2.0)),
    )


def corridor() -> Grid:
    """8 x 70 open cells: straight runs long enough for block JPS's bitsets."""
    return Grid.from_walkable("_warmup_blocks", np.ones((8, 70), dtype=bool))


def open_square() -> Grid:
    """8 x 8 open cells: runs long enough for JPS+ jump distances."""
    return Grid.from_walkable("_warmup_open", np.ones((8, 8), dtype=bool))


def walled_square() -> Grid:
    """9 x 9 cells split by a wall with two convex corners on each side: subgoals to connect."""
    walkable = np.ones((9, 9), dtype=bool)
    walkable[2:7, 4] = False
    return Grid.from_walkable("_warmup_subgoal", walkable)
