"""Live map edits: build the next revision of a map from a list of cell changes.

Edits never touch the current :class:`Grid` (searches may be reading it): they build a
new snapshot (copy-on-write), which the store swaps in atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridpath.errors import InvalidField, OutOfBounds
from gridpath.grid.model import TERRAIN_COST_RULE, Grid, TerrainClass, is_terrain_cost

Value = str | float  # "blocked", "walkable", or a terrain cost > 0


@dataclass(frozen=True)
class Edit:
    """Set ``value`` on ``cells`` (``[(x, y), ...]``) or on the inclusive rectangle
    ``rect = (x0, y0, x1, y1)``."""

    value: Value
    cells: Sequence[tuple[int, int]] = ()
    rect: tuple[int, int, int, int] | None = None


def _mask(grid: Grid, edit: Edit, index: int) -> np.ndarray:
    mask = np.zeros((grid.height, grid.width), dtype=bool)
    if edit.rect is not None:
        x0, y0, x1, y1 = edit.rect
        if x0 > x1 or y0 > y1:
            raise InvalidField(
                "set", f"set[{index}].rect [{x0}, {y0}, {x1}, {y1}] needs x0 <= x1 and y0 <= y1"
            )
        for x, y in ((x0, y0), (x1, y1)):
            if not grid.in_bounds(x, y):
                raise OutOfBounds(
                    f"set[{index}].rect corner [{x}, {y}] is outside map "
                    f"{grid.name!r} ({grid.width}x{grid.height})"
                )
        mask[y0 : y1 + 1, x0 : x1 + 1] = True
    for x, y in edit.cells:
        if not grid.in_bounds(x, y):
            raise OutOfBounds(
                f"set[{index}] cell [{x}, {y}] is outside map {grid.name!r} "
                f"({grid.width}x{grid.height})"
            )
        mask[y, x] = True
    return mask


def apply_edits(grid: Grid, edits: Sequence[Edit], revision: int) -> Grid:
    """The map with ``edits`` applied in order, as revision ``revision``.

    ``"blocked"`` makes cells walls; ``"walkable"`` opens them, keeping their terrain class
    (a wall opened becomes the map's first class, usually ``ground``); a number opens them
    with that terrain cost (an existing class of that cost, or a new class ``cost_<c>``).
    Raises without changing anything if any edit is out of bounds or has a bad value.
    """
    walkable = grid.walkable.astype(bool)
    # A one-class map has no terrain to copy until an edit sets a cost.
    terrain = np.array(grid.terrain[1:-1, 1:-1]) if len(grid.terrain_classes) > 1 else None
    classes = list(grid.terrain_classes)
    for index, edit in enumerate(edits):
        mask = _mask(grid, edit, index)
        value = edit.value
        if value == "blocked":
            walkable[mask] = False
        elif value == "walkable":
            walkable[mask] = True
        elif is_terrain_cost(value):
            cost = float(value)
            match = [i for i, tc in enumerate(classes) if tc.cost == cost]
            if match:
                class_index = match[0]
            else:
                if len(classes) >= 256:
                    raise InvalidField("set", "a map has at most 256 terrain classes")
                classes.append(TerrainClass(f"cost_{cost:g}", cost))
                class_index = len(classes) - 1
            walkable[mask] = True
            if terrain is None:
                terrain = np.zeros(walkable.shape, dtype=np.uint8)
            terrain[mask] = class_index
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            message = f"set[{index}].value: a cost must be {TERRAIN_COST_RULE}, got {value!r}"
            raise InvalidField("terrain_costs", message)
        else:
            raise InvalidField(
                "set",
                f'set[{index}].value must be "blocked", "walkable" or a cost '
                f"({TERRAIN_COST_RULE}), got {value!r}",
            )
    edited = Grid.from_walkable(
        grid.name,
        walkable,
        terrain=terrain,
        terrain_classes=tuple(classes),
        source=grid.source,
        revision=revision,
    )
    return edited.derive_like(grid)  # its tables (JPS+) rebuilt now, as the map's were
