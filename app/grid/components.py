"""Connected components: which cells can reach which, computed once per map revision.

Under every diagonal rule but ``always``, a legal diagonal step implies a two-step
orthogonal route (through a walkable side cell), so reachability is 4-connectivity of
the walkable cells; with ``always``, diagonal neighbours connect too (8-connectivity). A
unit of size k moves over the cells of clearance >= k, under the same rules. Per-request
``blocked`` cells can only split components, so "different components" stays a sound
"unreachable" answer with them; "same component" then still needs a search.
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


def label_components(
    passable_flat: np.ndarray, stride: int, unit: int = 1, diagonals: bool = False
) -> np.ndarray:
    """Component label of every padded cell (0: blocked or too narrow for ``unit``).

    Kept as uint16 (2 bytes per cell) when there are fewer than 65,536 components, which
    is almost every map, else int32.
    """
    labels = np.zeros(passable_flat.size, dtype=np.int32)
    queue = np.empty(passable_flat.size, dtype=np.int32)
    count = _label(passable_flat, stride, unit, diagonals, labels, queue)
    del queue
    if count < 2**16:
        labels = labels.astype(np.uint16)
    labels.flags.writeable = False
    return labels
