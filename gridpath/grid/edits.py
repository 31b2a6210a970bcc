"""Live map edits: the cells of a grid's next revision, from a list of cell changes.

Edits never touch the current :class:`~gridpath.grid.model.Grid` (searches may be reading
it): :meth:`Grid.edit <gridpath.grid.model.Grid.edit>` builds a new snapshot from the cells
:func:`edit_cells` returns (copy-on-write), which the registry swaps in atomically. This
module works on arrays and imports no model, so the model can hold the ``edit`` method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridpath.errors import InvalidField, OutOfBounds
from gridpath.grid.terrain import TERRAIN_COST_RULE, TerrainClass, is_terrain_cost

Value = str | float  # "blocked", "walkable", or a terrain cost > 0


@dataclass(frozen=True)
class Edit:
    """Set ``value`` on ``cells`` (``[(x, y), ...]``) or on the inclusive rectangle
    ``rect = (x0, y0, x1, y1)``."""

    value: Value
    cells: Sequence[tuple[int, int]] = ()
    rect: tuple[int, int, int, int] | None = None


@dataclass(frozen=True)
class GridEdit:
    """A ``PATCH`` of a grid map: its ``set`` edits, applied in order as one revision (the
    sibling of :class:`gridpath.nav.snapshot.PolygonEdit`)."""

    cells: Sequence[Edit]


@dataclass(frozen=True)
class EditedCells:
    """A grid's cells after edits: walkability, each cell's class (None: all class 0, as
    a one-class map that no edit gave a cost) and the classes."""

    walkable: np.ndarray  # bool (height, width)
    terrain: np.ndarray | None  # uint8 (height, width)
    classes: tuple[TerrainClass, ...]


def _mask(name: str, shape: tuple[int, int], edit: Edit, index: int) -> np.ndarray:
    height, width = shape
    mask = np.zeros(shape, dtype=bool)

    def check(x: int, y: int, what: str) -> None:
        if not (0 <= x < width and 0 <= y < height):
            raise OutOfBounds(f"{what} [{x}, {y}] is outside map {name!r} ({width}x{height})")

    if edit.rect is not None:
        x0, y0, x1, y1 = edit.rect
        if x0 > x1 or y0 > y1:
            raise InvalidField(
                "set", f"set[{index}].rect [{x0}, {y0}, {x1}, {y1}] needs x0 <= x1 and y0 <= y1"
            )
        for x, y in ((x0, y0), (x1, y1)):
            check(x, y, f"set[{index}].rect corner")
        mask[y0 : y1 + 1, x0 : x1 + 1] = True
    for x, y in edit.cells:
        check(x, y, f"set[{index}] cell")
        mask[y, x] = True
    return mask


def edit_cells(
    name: str,
    walkable: np.ndarray,
    terrain: np.ndarray | None,
    classes: Sequence[TerrainClass],
    edits: Sequence[Edit],
) -> EditedCells:
    """The cells of map ``name`` (``walkable``, ``terrain``: copies this function may
    change) with ``edits`` applied in order.

    ``"blocked"`` makes cells walls; ``"walkable"`` opens them, keeping their terrain class
    (a wall opened becomes the map's first class, usually ``ground``); a number opens them
    with that terrain cost (an existing class of that cost, or a new class ``cost_<c>``).
    Raises without changing anything if any edit is out of bounds or has a bad value.
    """
    classes = list(classes)
    for index, edit in enumerate(edits):
        mask = _mask(name, walkable.shape, edit, index)
        value = edit.value
        if value == "blocked":
            walkable[mask] = False
        elif value == "walkable":
            walkable[mask] = True
        elif is_terrain_cost(value):
            class_index = _class_of_cost(classes, float(value))
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
    return EditedCells(walkable, terrain, tuple(classes))


def _class_of_cost(classes: list[TerrainClass], cost: float) -> int:
    """The first class of that cost, or a new class ``cost_<c>`` appended to ``classes``."""
    match = [i for i, tc in enumerate(classes) if tc.cost == cost]
    if match:
        return match[0]
    if len(classes) >= 256:
        raise InvalidField("set", "a map has at most 256 terrain classes")
    classes.append(TerrainClass(f"cost_{cost:g}", cost))
    return len(classes) - 1
