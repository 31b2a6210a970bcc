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
import re
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
import orjson

from gridpath.errors import UnsupportedMapKind
from gridpath.grid.clearance import clearance_map
from gridpath.grid.components import Components, label_components
from gridpath.grid.edits import GridEdit, edit_cells
from gridpath.grid.encoding import Encoding, encode_cells
from gridpath.grid.links import sidecar_form
from gridpath.grid.terrain import GROUND, TERRAIN_COST_RULE, TerrainClass, is_terrain_cost

MAP_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
_MAP_NAME_RE = re.compile(MAP_NAME_PATTERN)


def is_valid_map_name(name: str) -> bool:
    """Map names are 1-64 characters of ``[A-Za-z0-9_-]`` (no dots, no slashes)."""
    return bool(_MAP_NAME_RE.fullmatch(name))


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
    # The same-map links the map declares (gridpath.grid.links: a Tiled map's link objects,
    # a sidecar's "links"), gridpath.world.model.Link on this map; part of its content.
    links: tuple = ()
    flat: np.ndarray = field(init=False, repr=False)  # passable.ravel(), a read-only view
    terrain_flat: np.ndarray = field(init=False, repr=False)
    # A MapSnapshot (gridpath.maps.snapshot), as its sibling gridpath.nav.snapshot.PolygonMap.
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
        search layer keeps per-revision preprocessing here without this package importing
        it (the JPS+ jump distances: :func:`gridpath.search.runners.jps.jump_distances`).
        ``build(grid)`` runs once per key, under the snapshot's lock; arrays it returns
        count in :attr:`nbytes`, and :meth:`derive_like` builds them again for a later
        revision."""
        with self._component_lock:
            if key not in self._derived:
                self._derived[key] = (build(self), build)
            return self._derived[key][0]

    def derive_like(self, earlier: Grid) -> Grid:
        """Build now every value ``earlier`` derived (an edit's new revision gets its data
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

    def derived_count(self) -> int:
        """How many derived values this revision holds: it only grows (a value is never
        dropped), so an unchanged count says nothing was built since it was read."""
        return len(self._derived)

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
    def jump_distances(self) -> np.ndarray | None:
        """The JPS+ jump distances built for this revision, if the search layer built them."""
        with self._component_lock:
            found = (t for k, (t, _) in self._derived.items() if k[0] == "jump_distances")
            return next((t for t in found if t is not None), None)

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
        links: tuple = (),
    ) -> Grid:
        """Build a grid from a ``(height, width)`` boolean-like array (truthy = walkable).

        ``terrain`` optionally gives each cell's class, an index into ``terrain_classes``
        (default: every cell is ``ground``, cost 1); ``links`` the same-map links it
        declares, already checked against it (:mod:`gridpath.grid.links`).
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
        if links:  # a map without links keeps the hash it always had
            digest.update(b"links:" + orjson.dumps(sidecar_form(links)))
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
            links=tuple(links),
        )

    def prepare(self, search_data: Callable[[Grid], object] | None = None) -> Grid:
        """Build the search layer's data of this revision now (``search_data(self)``: this
        package does not import that layer); returns this grid."""
        if search_data is not None:
            search_data(self)
        return self

    def edit(self, change: object, revision: int) -> Grid:
        """Revision ``revision`` with a :class:`GridEdit` applied (its derived data built
        now, as this revision's were); any other change is ``unsupported_map_kind``."""
        if not isinstance(change, GridEdit):
            raise UnsupportedMapKind(
                f"map {self.name!r} is a grid: edit it with 'set' (cells and rectangles); "
                "holes and waypoints are for polygon maps; nothing was changed"
            )
        several = len(self.terrain_classes) > 1  # a one-class map has no terrain to copy
        terrain = np.array(self.terrain[1:-1, 1:-1]) if several else None
        cells = edit_cells(
            self.name, self.walkable.astype(bool), terrain, self.terrain_classes, change.cells
        )
        edited = Grid.from_walkable(
            self.name,
            cells.walkable,
            terrain=cells.terrain,
            terrain_classes=cells.classes,
            source=self.source,
            revision=revision,
            links=self.links,  # they belong to the map: an edit that blocks an end leaves
        )  # the link unusable until the cell is walkable again
        return edited.derive_like(self)

    def encode(self) -> Encoding:
        """The canonical file (:func:`gridpath.grid.encoding.encode_cells`), the declared
        links in its sidecar's ``"links"`` (so a Tiled map's survive being written back as
        a PNG or ``.map``, in the folder and in Redis)."""
        terrain = np.asarray(self.terrain[1:-1, 1:-1])
        suffix, data, sidecar = encode_cells(
            self.walkable.astype(bool), terrain, self.terrain_classes, self.source
        )
        if self.links:
            sidecar = {**(sidecar or {}), "links": sidecar_form(self.links)}
        return suffix, data, sidecar

    def summary(self) -> str:
        terrain = ", ".join(f"{tc.name} {tc.cost:g}" for tc in self.terrain_classes)
        links = f", {len(self.links)} links" if self.links else ""
        cells = f"{self.width}x{self.height}, {self.walkable_count} walkable"
        return f"{cells}, terrain {terrain}{links}"

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
        asked so far), derived data (the jump distances), and terrain classes on a map with
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


FAR = 2**31 - 1  # a coordinate beyond is as far off every map as this one


def as_cells(path, columns: int = 2) -> np.ndarray:
    """A client's claimed cells ``[(x, y), ...]`` (or places ``[(x, y, m), ...]`` with
    ``columns`` 3) as ``(n, columns)`` int64, every value clamped to ``FAR``: any integer a
    client sends stays off the map (or the world) and is checked, and steps between such
    cells cannot overflow."""
    try:
        cells = np.asarray(path, dtype=np.int64).reshape(-1, columns)
    except OverflowError:  # beyond int64
        clamped = [[max(-FAR, min(FAR, v)) for v in cell] for cell in path]
        cells = np.asarray(clamped, dtype=np.int64).reshape(-1, columns)
    return np.clip(cells, -FAR, FAR)
