"""A small thread-safe LRU cache of byte strings (flow fields keyed by map revision, goal and
options), bounded both by entry count and by total size."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable


class LRUCache:
    def __init__(self, maxsize: int, max_bytes: int | None = None) -> None:
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._items: OrderedDict[Hashable, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: Hashable, compute: Callable[[], bytes]) -> tuple[bytes, bool]:
        """The cached value and True, or the newly computed (and stored) value and False.

        ``compute`` runs outside the lock; if it raises, nothing is stored. A value larger
        than ``max_bytes`` is returned but not stored.
        """
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key], True
        value = compute()
        if self.maxsize > 0 and (self.max_bytes is None or len(value) <= self.max_bytes):
            with self._lock:
                if key not in self._items:
                    self._items[key] = value
                    self.nbytes += len(value)
                self._items.move_to_end(key)
                while len(self._items) > self.maxsize or (
                    self.max_bytes is not None and self.nbytes > self.max_bytes
                ):
                    _, dropped = self._items.popitem(last=False)
                    self.nbytes -= len(dropped)
        return value, False

    def __len__(self) -> int:
        return len(self._items)
