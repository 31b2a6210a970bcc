"""Per-search scratch memory, reused across searches without clearing.

A :class:`SearchScratch` belongs to one search at a time. It grows to the largest map
it has served and is reused through generation stamps, so starting a search costs
O(1), not O(map). A :class:`ScratchPool` hands scratch out to concurrent searches
(one per running search, bounded), which also caps how many searches run at once.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator

import numpy as np

_MAX_GENERATION = (2**32 - 2) // 2  # state marks 2*gen and 2*gen+1 must fit in uint32


class SearchScratch:
    """The arrays one search needs: ``cost_so_far`` as (straight, diagonal) step counts,
    ``came_from``, per-cell state marks, and the frontier heap."""

    def __init__(self, cells: int = 0) -> None:
        self.capacity = 0
        self.generation = 0
        self._allocate(max(cells, 16))

    def _allocate(self, cells: int) -> None:
        self.cost_orth = np.empty(cells, dtype=np.int32)
        self.cost_diag = np.empty(cells, dtype=np.int32)
        self.came_from = np.empty(cells, dtype=np.int32)
        self.state = np.zeros(cells, dtype=np.uint32)
        self.heap_pos = np.empty(cells, dtype=np.int32)
        self.heap_node = np.empty(cells, dtype=np.int32)
        self.heap_f = np.empty(cells, dtype=np.float64)
        self.heap_g = np.empty(cells, dtype=np.float64)
        self.capacity = cells
        self.generation = 0

    @property
    def nbytes(self) -> int:
        return self.capacity * (4 * 6 + 8 * 2)

    def begin(self, cells: int) -> int:
        """Prepare for a search over ``cells`` padded cells; returns its generation."""
        if cells > self.capacity:
            self._allocate(max(cells, self.capacity * 2 if self.capacity < cells // 2 else cells))
        self.generation += 1
        if self.generation > _MAX_GENERATION:  # once every ~2 billion searches
            self.state.fill(0)
            self.generation = 1
        return self.generation


class ScratchPool:
    """A bounded pool of :class:`SearchScratch`; ``borrow()`` blocks while all are in use."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"pool size must be >= 1, got {size}")
        self.size = size
        self._free: queue.LifoQueue[SearchScratch] = queue.LifoQueue()
        for _ in range(size):
            self._free.put(SearchScratch())

    @contextlib.contextmanager
    def borrow(self) -> Iterator[SearchScratch]:
        scratch = self._free.get()
        try:
            yield scratch
        finally:
            self._free.put(scratch)


_local = threading.local()


def thread_scratch() -> SearchScratch:
    """A scratch private to the calling thread (for library use outside the service)."""
    scratch = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = SearchScratch()
    return scratch
