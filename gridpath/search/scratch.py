"""Per-search scratch memory, reused across searches without clearing.

A :class:`SearchScratch` belongs to one search at a time. It grows to the largest map
it has served and is reused through generation stamps, so starting a search costs
O(1), not O(map). A :class:`ScratchPool` hands scratch out to concurrent searches
(one per running search, bounded), which also caps how many searches run at once.
"""

from __future__ import annotations

import threading

import numpy as np

from gridpath.search._frontier import FRONTIER_COLUMNS, MARK_COLUMNS, NODE_COLUMNS, STATE

_MAX_GENERATION = (2**31 - 2) // 2  # state marks 2*gen and 2*gen+1 must fit in int32
_NO_COSTS = np.empty(0, dtype=np.float64)
_NO_MARKS = np.empty((0, MARK_COLUMNS), dtype=np.int32)


class SearchScratch:
    """The arrays one search needs.

    ``nodes`` holds one int32 row per cell (state mark, cost_so_far as straight and
    diagonal step counts, came_from, heap position); ``frontier`` is the binary heap
    (f, g, cell): 44 bytes per cell of the largest map served. The option-rich search
    also uses ``g_cost`` (float64 cost_so_far) and ``marks`` (per-request blocked and
    goal stamps), 16 more bytes per cell, allocated on first use.
    """

    def __init__(self, cells: int = 0) -> None:
        self.capacity = 0
        self.generation = 0
        self._allocate(max(cells, 16))

    def _allocate(self, cells: int) -> None:
        self.nodes = np.zeros((cells, NODE_COLUMNS), dtype=np.int32)
        self.frontier = np.empty((cells, FRONTIER_COLUMNS), dtype=np.float64)
        self._g_cost: np.ndarray | None = None
        self._marks: np.ndarray | None = None
        self.capacity = cells
        self.generation = 0

    @property
    def g_cost(self) -> np.ndarray:
        if self._g_cost is None:
            self._g_cost = np.empty(self.capacity, dtype=np.float64)
        return self._g_cost

    @property
    def marks(self) -> np.ndarray:
        if self._marks is None:
            self._marks = np.zeros((self.capacity, MARK_COLUMNS), dtype=np.int32)
        return self._marks

    @property
    def nbytes(self) -> int:
        extra = sum(a.nbytes for a in (self._g_cost, self._marks) if a is not None)
        return self.nodes.nbytes + self.frontier.nbytes + extra

    def record(self, generation: int, *, costs: bool = False) -> tuple:
        """The kernels' scratch record ``(nodes, frontier, g_cost, marks, generation)``
        (:mod:`gridpath.search._records`). Without ``costs`` the float costs and the marks, which
        the exact-pair kernels never read, are empty placeholders (not allocated)."""
        if costs:
            return (self.nodes, self.frontier, self.g_cost, self.marks, int(generation))
        return (self.nodes, self.frontier, _NO_COSTS, _NO_MARKS, int(generation))

    def begin(self, cells: int) -> int:
        """Prepare for a search over ``cells`` padded cells; returns its generation."""
        if cells > self.capacity:
            self._allocate(cells)
        self.generation += 1
        if self.generation > _MAX_GENERATION:  # once every ~a billion searches
            self.nodes[:, STATE] = 0
            if self._marks is not None:
                self._marks.fill(0)
            self.generation = 1
        return self.generation

    def begin_many(self, cells: int, count: int) -> int:
        """:meth:`begin` for ``count`` searches run one after the other (a batch in one
        compiled call): the first of ``count`` consecutive generations, all fresh."""
        if cells > self.capacity:
            self._allocate(cells)
        if self.generation + count > _MAX_GENERATION:
            self.nodes[:, STATE] = 0
            if self._marks is not None:
                self._marks.fill(0)
            self.generation = 0
        first = self.generation + 1
        self.generation += count
        return first


class ScratchPool:
    """A bounded pool of :class:`SearchScratch`; ``borrow()`` blocks while all are in use.

    The free scratches are a plain list: ``list.pop`` and ``list.append`` are atomic, so
    ``try_borrow`` (an inline search on the event loop) takes one without a lock; the
    condition only wakes a ``borrow`` waiting for one, and a returned scratch notifies it
    only when someone waits."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"pool size must be >= 1, got {size}")
        self.size = size
        self._free: list[SearchScratch] = [SearchScratch() for _ in range(size)]
        self._returned = threading.Condition(threading.Lock())
        self._waiting = 0

    def _take(self) -> SearchScratch:
        with self._returned:
            # Counted before looking: a scratch given back after the look below sees the
            # count and notifies (under the lock this thread holds until it waits).
            self._waiting += 1
            try:
                while True:
                    try:
                        return self._free.pop()
                    except IndexError:  # all in use (or just taken by a try_borrow)
                        self._returned.wait()
            finally:
                self._waiting -= 1

    def _give_back(self, scratch: SearchScratch) -> None:
        self._free.append(scratch)
        if self._waiting:  # read without the lock: a waiter counted itself before waiting
            with self._returned:
                self._returned.notify()

    def borrow(self) -> _Borrowed:
        return _Borrowed(self, self._take())

    def try_borrow(self) -> _Borrowed:
        """A free scratch, or None at once when all are in use (never blocks)."""
        try:
            scratch = self._free.pop()
        except IndexError:
            scratch = None
        return _Borrowed(self, scratch)


class _Borrowed:
    """The context of one borrowed scratch (a class, not a generator: it is on the path of
    every request); gives it back on exit."""

    __slots__ = ("pool", "scratch")

    def __init__(self, pool: ScratchPool, scratch: SearchScratch | None) -> None:
        self.pool, self.scratch = pool, scratch

    def __enter__(self) -> SearchScratch | None:
        return self.scratch

    def __exit__(self, *exc: object) -> None:
        if self.scratch is not None:
            self.pool._give_back(self.scratch)


_local = threading.local()


def thread_scratch() -> SearchScratch:
    """A scratch private to the calling thread (for library use outside the service)."""
    scratch = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = SearchScratch()
    return scratch
