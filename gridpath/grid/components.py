"""Connected components: which cells can reach which, computed once per map revision.

Under every diagonal rule but ``always``, a legal diagonal step implies a two-step
orthogonal route (through a walkable side cell), so reachability is 4-connectivity of
the walkable cells; with ``always``, diagonal neighbours connect too (8-connectivity). A
unit of size k moves over the cells of clearance >= k, under the same rules. Per-request
``blocked`` cells can only split components, so "different components" stays a sound
"unreachable" answer with them; "same component" then still needs a search. Labels take
one byte per cell on almost every map (see :class:`Components`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def _label(passable, stride, unit, diagonals, labels, queue):
    """Flood-fill components of the cells with ``passable >= unit``; labels start at 1."""
    n = passable.shape[0]
    count = 0
    for seed in range(n):
        if passable[seed] < unit or labels[seed] != 0:
            continue
        count += 1
        labels[seed] = count
        head = 0
        tail = 0
        queue[tail] = seed
        tail += 1
        while head < tail:
            cell = queue[head]
            head += 1
            for k in range(8 if diagonals else 4):
                if k == 0:
                    other = cell - stride
                elif k == 1:
                    other = cell + 1
                elif k == 2:
                    other = cell + stride
                elif k == 3:
                    other = cell - 1
                elif k == 4:
                    other = cell - stride + 1
                elif k == 5:
                    other = cell + stride + 1
                elif k == 6:
                    other = cell + stride - 1
                else:
                    other = cell - stride - 1
                if passable[other] >= unit and labels[other] == 0:
                    labels[other] = count
                    queue[tail] = other
                    tail += 1
    return count


MINOR = 255  # the one-byte label shared by the components too small to have their own
NAMED = MINOR - 1  # components that get their own one-byte label: the largest ones
_MINOR_SHARE = 16  # keep minor cells apart only while at most 1 cell in 16 is one


@dataclass(frozen=True, eq=False)
class Components:
    """Which cells can reach which, for one movement rule and unit size.

    ``labels`` holds a component label per padded cell (0: blocked or too narrow). Most
    maps have fewer than 255 components and it is all there is: one byte per cell. On a
    map with more, the :data:`NAMED` largest components keep labels 1..254, the others
    share :data:`MINOR`, and those cells are listed apart (``minor_cells``, sorted, with
    their ``minor_ids``), which costs little while they are few. Where minor cells are
    more than 1 in 16, ``labels`` holds every component's own id instead (uint16 or
    int32) and nothing is listed apart. Either way :meth:`of` tells components apart
    exactly.
    """

    labels: np.ndarray
    minor_cells: np.ndarray | None = None  # int32 padded indices, ascending
    minor_ids: np.ndarray | None = None  # int32 component ids, aligned with minor_cells

    def of(self, cell: int) -> int:
        """The component of padded ``cell`` (0: none), unique per component."""
        label = int(self.labels[cell])
        if label == MINOR and self.minor_cells is not None:
            i = int(np.searchsorted(self.minor_cells, cell))
            return MINOR + int(self.minor_ids[i])
        return label

    def of_many(self, cells: np.ndarray) -> np.ndarray:
        """:meth:`of` of each padded cell of ``cells`` (int64), in one numpy pass."""
        ids = self.labels[cells].astype(np.int64)
        if self.minor_cells is not None:
            minor = ids == MINOR
            if minor.any():
                found = np.searchsorted(self.minor_cells, cells[minor])
                ids[minor] = MINOR + self.minor_ids[found].astype(np.int64)
        return ids

    @property
    def nbytes(self) -> int:
        extra = 0 if self.minor_cells is None else self.minor_cells.nbytes + self.minor_ids.nbytes
        return self.labels.nbytes + extra


def label_components(
    passable_flat: np.ndarray, stride: int, unit: int = 1, diagonals: bool = False
) -> Components:
    """The connected components of the cells with room for ``unit`` (see
    :class:`Components` for how they are stored)."""
    ids = np.zeros(passable_flat.size, dtype=np.int32)
    queue = np.empty(passable_flat.size, dtype=np.int32)
    count = _label(passable_flat, stride, unit, diagonals, ids, queue)
    del queue
    if count <= NAMED:
        return _read_only(Components(ids.astype(np.uint8)))
    # Compiled passes without map-sized temporaries (freed temporaries of this size tend to
    # stay in the process's heap, counted in its memory).
    sizes = _sizes(ids, count)[1:]
    order = np.argsort(-sizes, kind="stable")  # largest first; ties: first found first
    rename = np.full(count + 1, MINOR, dtype=np.uint8)
    rename[0] = 0
    rename[order[:NAMED] + 1] = np.arange(1, NAMED + 1, dtype=np.uint8)
    labels = np.empty(ids.size, dtype=np.uint8)
    minor = _relabel(ids, rename, labels)
    if minor * _MINOR_SHARE <= ids.size:
        minor_cells = np.empty(minor, dtype=np.int32)
        minor_ids = np.empty(minor, dtype=np.int32)
        _list_minor(labels, ids, minor_cells, minor_ids)
        return _read_only(Components(labels, minor_cells, minor_ids))
    del labels
    return _read_only(Components(ids.astype(np.uint16 if count < 2**16 else np.int32)))


@njit(nogil=True, cache=True)
def _sizes(ids, count):
    sizes = np.zeros(count + 1, dtype=np.int64)
    for i in range(ids.size):
        sizes[ids[i]] += 1
    return sizes


@njit(nogil=True, cache=True)
def _relabel(ids, rename, labels):
    """``labels[i] = rename[ids[i]]``; returns how many cells got :data:`MINOR`."""
    minor = 0
    for i in range(ids.size):
        label = rename[ids[i]]
        labels[i] = label
        minor += label == MINOR
    return minor


@njit(nogil=True, cache=True)
def _list_minor(labels, ids, cells, cell_ids):
    n = 0
    for i in range(labels.size):
        if labels[i] == MINOR:
            cells[n] = i
            cell_ids[n] = ids[i]
            n += 1


def _read_only(components: Components) -> Components:
    for array in (components.labels, components.minor_cells, components.minor_ids):
        if array is not None:
            array.flags.writeable = False
    return components
