"""Connected components: which cells can reach which, computed once per map revision.

Under every diagonal rule but ``always``, a legal diagonal step implies a two-step
orthogonal route (through a walkable side cell), so reachability is 4-connectivity of
the walkable cells; with ``always``, diagonal neighbours connect too (8-connectivity). A
unit of size k moves over the cells of clearance >= k, under the same rules. Per-request
``blocked`` cells can only split components, so "different components" stays a sound
"unreachable" answer with them; "same component" then still needs a search. Labels take
one byte per cell (see :func:`label_components` for maps with more than 254 components).
"""

from __future__ import annotations

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


MINOR = 255  # the label shared by every component but the 254 largest


def label_components(
    passable_flat: np.ndarray, stride: int, unit: int = 1, diagonals: bool = False
) -> np.ndarray:
    """Component label of every padded cell, one byte per cell (0: blocked or too narrow
    for ``unit``).

    Labels 1..254 name the 254 largest components (by size, then by first cell); every
    smaller component shares :data:`MINOR`. So different labels always mean different
    components (unreachable, no search), and equal labels mean "search": the same
    component, or two minor ones, where the search floods at most the start's component,
    which is no larger than the 254th largest.
    """
    labels = np.zeros(passable_flat.size, dtype=np.int32)
    queue = np.empty(passable_flat.size, dtype=np.int32)
    count = _label(passable_flat, stride, unit, diagonals, labels, queue)
    del queue
    rename = np.arange(count + 1, dtype=np.int32)
    if count >= MINOR:
        sizes = np.bincount(labels, minlength=count + 1)[1:]
        order = np.argsort(-sizes, kind="stable")  # largest first; ties: first found first
        rename[1:] = MINOR
        rename[order[: MINOR - 1] + 1] = np.arange(1, MINOR, dtype=np.int32)
    small = rename.astype(np.uint8)[labels]
    small.flags.writeable = False
    return small
