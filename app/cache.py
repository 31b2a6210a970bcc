"""A small thread-safe LRU cache (flow fields are keyed by map revision, goal and options)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRUCache(Generic[V]):
    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compute(self, key: Hashable, compute: Callable[[], V]) -> tuple[V, bool]:
        """The cached value and True, or the newly computed (and stored) value and False.

        ``compute`` runs outside the lock; if it raises, nothing is stored.
        """
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key], True
        value = compute()
        if self.maxsize > 0:
            with self._lock:
                self._items[key] = value
                self._items.move_to_end(key)
                while len(self._items) > self.maxsize:
                    self._items.popitem(last=False)
        return value, False

    def __len__(self) -> int:
        return len(self._items)
