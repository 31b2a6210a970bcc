"""The LRU cache behind POST /flowfield."""

from __future__ import annotations

import pytest

from app.cache import LRUCache


def test_lru_evicts_least_recently_used_and_never_stores_failures():
    cache = LRUCache(2)
    assert cache.get_or_compute("a", lambda: b"1") == (b"1", False)
    assert cache.get_or_compute("b", lambda: b"2") == (b"2", False)
    assert cache.get_or_compute("a", lambda: b"99") == (b"1", True)  # a is now most recent
    cache.get_or_compute("c", lambda: b"3")  # evicts b
    assert cache.get_or_compute("b", lambda: b"4") == (b"4", False)
    with pytest.raises(ValueError):
        cache.get_or_compute("bad", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert cache.get_or_compute("bad", lambda: b"5") == (b"5", False)
    assert len(cache) == 2


def test_lru_is_bounded_by_bytes():
    cache = LRUCache(100, max_bytes=10)
    cache.get_or_compute("a", lambda: b"x" * 6)
    cache.get_or_compute("b", lambda: b"y" * 6)  # 12 bytes: a goes
    assert len(cache) == 1 and cache.nbytes == 6
    assert cache.get_or_compute("huge", lambda: b"z" * 11) == (b"z" * 11, False)
    assert len(cache) == 1 and cache.get_or_compute("b", lambda: b"")[1] is True
