"""The LRU cache behind POST /flowfield."""

from __future__ import annotations

import pytest

from app.cache import LRUCache


def test_lru_evicts_least_recently_used_and_never_stores_failures():
    cache: LRUCache[int] = LRUCache(2)
    assert cache.get_or_compute("a", lambda: 1) == (1, False)
    assert cache.get_or_compute("b", lambda: 2) == (2, False)
    assert cache.get_or_compute("a", lambda: 99) == (1, True)  # a is now most recent
    cache.get_or_compute("c", lambda: 3)  # evicts b
    assert cache.get_or_compute("b", lambda: 4) == (4, False)
    with pytest.raises(ValueError):
        cache.get_or_compute("bad", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert cache.get_or_compute("bad", lambda: 5) == (5, False)
    assert len(cache) == 2
