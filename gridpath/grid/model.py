"""The map as data: an immutable walkability grid shared by every search.

Coordinates are ``(x, y)``: ``x`` is the column, ``y`` the row, origin at the top-left
cell as stored in the file. Arrays are indexed ``[y, x]``.

Internally the grid is stored with a one-cell blocked border (``passable`` has shape
``(height + 2, width + 2)``), so the search kernels never test bounds: a neighbour
outside the map is simply a blocked cell. The padded array holds each cell's clearance
(0: blocked; see :mod:`gridpath.grid.clearance`). The padded flat index of ``(x, y)`` is
``(y + 1) * stride + (x + 1)`` with ``stride = width + 2``; it orders cells exactly
like the unpadded row-major index ``y * width + x``.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from gridpath.grid.clearance import clearance_map
from gridpath.grid.components import Components, label_components

MAP_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
_MAP_NAME_RE = re.compile(MAP_NAME_PATTERN)


def is_valid_map_name(name: str) -> bool:
    """Map names are 1-64 characters of ``[A-Za-z0-9_-]`` (no dots, no slashes)."""
    return bool(_MAP_NAME_RE.fullmatch(name))


@dataclass(frozen=True)
class TerrainClass:
    """A kind of ground: its name (for per-request overrides) and its cost per unit of length."""

    name: str
    cost: float


GROUND = (TerrainClass("ground", 1.0),)

# The largest cost per unit of length a terrain class may have (map sidecars, edits and
# per-request overrides alike): any path cost then stays a finite float64 (a 4096 x 4096
# map's longest path costs under 1e6 x 2**24 x sqrt(2), about 2.4e13).
MAX_TERRAIN_COST = 1_000_000.0
# The smallest: a cost so small that sums lose it (5e-324, a subnormal, adds nothing to a
# path of cost 1) would let a search call a longer path optimal. At 0.001 the dearest and
# cheapest classes are at most 1e9 apart, and every path cost keeps 1e-16 x 2**24 relative
# precision, far below the frontier's tie tolerance and the 1e-9 of the optimality checks.
MIN_TERRAIN_COST = 0.001
TERRAIN_COST_RULE = f"a number >= {MIN_TERRAIN_COST:g} and <= {MAX_TERRAIN_COST:,.0f}"


def is_terrain_cost(value: object) -> bool:
    """Whether ``value`` is a valid terrain cost (:data:`TERRAIN_COST_RULE`; never a bool)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and MIN_TERRAIN_COST <= value <= MAX_TERRAIN_COST
    )


@dataclass(frozen=True, eq=False)
class Grid:
    """A named, read-only walkability grid.

    Build one with :meth:`Grid.from_walkable`; never mutate its arrays (they are
    flagged non-writeable). Searches keep their scratch state elsewhere, so one
    ``Grid`` serves any number of concurrent searches.
    """

    name: str
    width: int
    height: int
    passable: np.ndarray  # uint8 (height + 2, width + 2): clearance, 0 = blocked; border is 0
    walkable_count: int
    sha256: str
    terrain: np.ndarray = field(repr=False, default=None)  # uint8 padded: class per cell
    terrain_classes: tuple[TerrainClass, ...] = GROUND
    revision: int = 1
    source: str = ""
    flat: np.ndarray = field(init=False, repr=False)  # passable.ravel(), a read-only view
    terrain_flat: np.ndarray = field(init=False, repr=False)
    # The registry also holds polygon maps (gridpath.nav.snapshot.PolygonMap, kind "polygon").
    kind: ClassVar[str] = "grid"

    def __post_init__(self) -> None:
        object.__setattr__(self, "flat", self.passable.reshape(-1))
        object.__setattr__(self, "_component_cache", {})
        object.__setattr__(self, "_component_lock", threading.RLock())
        # the common labels, at load/edit time rather than on a query
        object.__setattr__(self, "_components", label_components(self.flat, self.stride))
        object.__setattr__(self, "terrain_flat", self.terrain.reshape(-1))
        object.__setattr__(self, "_derived", {})

    def derived(self, key: Hashable, build: Callable[[Grid], Any]) -> Any:
        """A value computed from this revision by another layer, built on first use and
        kept with the snapshot (like the component labels): the hook through which the
        search layer keeps per-revision tables here without this package importing it
        (the JPS+ jump table: :func:`gridpath.search.runners.jps.jump_table`). ``build(grid)``
        runs once per key, under the snapshot's lock; arrays it returns count in
        :attr:`nbytes`, and :meth:`derive_like` builds them again for a later revision."""
        with self._component_lock:
            if key not in self._derived:
                self._derived[key] = (build(self), build)
            return self._derived[key][0]

    def derive_like(self, earlier: Grid) -> Grid:
        """Build now every value ``earlier`` derived (an edit's new revision gets its tables
        when it is made, not on its first query); returns this grid."""
        with earlier._component_lock:
            builders = [(key, value, build) for key, (value, build) in earlier._derived.items()]
        for key, value, build in builders:
            # A builder with an ``update(grid, earlier, value)`` method derives this
            # revision's value from the earlier one (the block bitsets: only around the
            # cells that changed); any other builds it afresh.
            update = getattr(build, "update", None)
            with self._component_lock:
                if key not in self._derived:
                    made = build(self) if update is None else update(self, earlier, value)
                    self._derived[key] = (made, build)
        return self

    def built(self, name: str) -> Any | None:
        """The value derived under the key ``name`` (or a tuple key starting with it) if one
        was built and is not None, else None; never builds (a query asks what the revision
        has)."""
        with self._component_lock:
            for key, (value, _) in self._derived.items():
                named = key == name or (isinstance(key, tuple) and key[0] == name)
                if named and value is not None:
                    return value
        return None

    @property
    def jump_table(self) -> np.ndarray | None:
        """The JPS+ jump table built for this revision, if the search layer built one."""
        with self._component_lock:
            tables = (t for k, (t, _) in self._derived.items() if k[0] == "jump_table")
            return next((t for t in tables if t is not None), None)

    @classmethod
    def from_walkable(
        cls,
        name: str,
        walkable: np.ndarray,
        *,
        terrain: np.ndarray | None = None,
        terrain_classes: tuple[TerrainClass, ...] = GROUND,
        source: str = "",
        revision: int = 1,
    ) -> Grid:
        """Build a grid from a ``(height, width)`` boolean-like array (truthy = walkable).

        ``terrain`` optionally gives each cell's class, an index into ``terrain_classes``
        (default: every cell is ``ground``, cost 1).
        """
        walkable = np.asarray(walkable)
        if walkable.ndim != 2 or walkable.shape[0] < 1 or walkable.shape[1] < 1:
            raise ValueError(f"walkable must be a non-empty 2-D array, got shape {walkable.shape}")
        height, width = walkable.shape
        if not 1 <= len(terrain_classes) <= 256:
            raise ValueError("between 1 and 256 terrain classes")
        for tc in terrain_classes:
            if not is_terrain_cost(tc.cost):
                raise ValueError(f"terrain class {tc.name!r} cost must be {TERRAIN_COST_RULE}")
        walkable = walkable.astype(bool)
        padded = np.zeros((height + 2, width + 2), dtype=np.uint8)
        padded[1:-1, 1:-1] = clearance_map(walkable)
        padded.flags.writeable = False
        # Zero-filled by the OS and, on a map that is all class 0, never written: such a
        # map's terrain array takes no memory (the kernels read it only on costly terrain).
        classes = np.zeros((height + 2, width + 2), dtype=np.uint8)
        if terrain is not None:
            terrain = np.asarray(terrain)
            if terrain.shape != walkable.shape or terrain.max(initial=0) >= len(terrain_classes):
                raise ValueError("terrain must match the map's shape and index terrain_classes")
            if terrain.any():
                classes[1:-1, 1:-1] = terrain
                classes[padded == 0] = 0
        classes.flags.writeable = False
        inner = walkable.astype(np.uint8)
        digest = hashlib.sha256()
        digest.update(np.array([width, height], dtype="<u4").tobytes())
        digest.update(inner.tobytes())
        if len(terrain_classes) > 1 or terrain_classes[0].cost != 1.0:
            digest.update(np.ascontiguousarray(classes[1:-1, 1:-1]).tobytes())
            for tc in terrain_classes:
                digest.update(f"{tc.name}={tc.cost!r};".encode())
        return cls(
            name=name,
            width=int(width),
            height=int(height),
            passable=padded,
            walkable_count=int(inner.sum(dtype=np.int64)),
            sha256=digest.hexdigest(),
            terrain=classes,
            terrain_classes=tuple(terrain_classes),
            revision=revision,
            source=source,
        )

    @property
    def terrain_costs(self) -> dict[str, float]:
        return {tc.name: tc.cost for tc in self.terrain_classes}

    def components(self, unit: int = 1, diagonals: bool = False) -> Components:
        """The connected components for units of size ``unit`` (see
        :mod:`gridpath.grid.components`); computed on first use per (unit, diagonals) and kept
        with this snapshot."""
        if unit == 1 and not diagonals:
            return self._components  # the common labels, computed at construction
        key = (unit, diagonals)
        with self._component_lock:
            labels = self._component_cache.get(key)
            if labels is None:
                labels = label_components(self.flat, self.stride, unit, diagonals)
                self._component_cache[key] = labels
            return labels

    @property
    def nbytes(self) -> int:
        """Bytes this snapshot holds: clearance, component labels (every rule and unit size
        asked so far), derived tables (the jump table), and terrain classes on a map with
        several (a one-class map's terrain array is never written, so it takes no memory)."""
        with self._component_lock:
            labels = sum(c.nbytes for c in self._component_cache.values())
            labels += sum(t.nbytes for t, _ in self._derived.values() if t is not None)
        total = self.passable.nbytes + self._components.nbytes + labels
        if len(self.terrain_classes) > 1:
            total += self.terrain.nbytes
        return total

    @cached_property
    def present_classes(self) -> tuple[int, ...]:
        """Indices of the terrain classes some walkable cell has."""
        return tuple(int(c) for c in np.unique(self.terrain[self.passable != 0]))

    @property
    def uniform(self) -> bool:
        """Every walkable cell costs 1 (the exact fast kernel applies)."""
        return all(tc.cost == 1.0 for tc in self.terrain_classes)

    @property
    def stride(self) -> int:
        """Row length of the padded array."""
        return self.width + 2

    @property
    def walkable(self) -> np.ndarray:
        """``(height, width)`` uint8 array: 1 walkable, 0 blocked (a new array)."""
        return (self.passable[1:-1, 1:-1] != 0).astype(np.uint8)

    @property
    def clearance(self) -> np.ndarray:
        """Read-only ``(height, width)`` view of the clearance
        (see :mod:`gridpath.grid.clearance`)."""
        return self.passable[1:-1, 1:-1]

    def clearance_at(self, x: int, y: int) -> int:
        return int(self.passable[y + 1, x + 1]) if self.in_bounds(x, y) else 0

    @property
    def cell_count(self) -> int:
        return self.width * self.height

    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def is_walkable(self, x: int, y: int) -> bool:
        """True if ``(x, y)`` is inside the map and walkable."""
        return self.in_bounds(x, y) and bool(self.passable[y + 1, x + 1])

    def index(self, x: int, y: int) -> int:
        """Padded flat index of an in-bounds cell."""
        return (y + 1) * self.stride + (x + 1)
