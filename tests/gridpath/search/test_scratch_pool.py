"""The scratch pool: at most ``size`` scratches lent at once, each to one borrower; a
blocking borrow wakes when one comes back; ``try_borrow`` never blocks."""

from __future__ import annotations

import threading
import time

from gridpath.search.scratch import ScratchPool


def test_try_borrow_gives_none_at_once_when_all_are_lent():
    pool = ScratchPool(2)
    with pool.try_borrow() as a, pool.try_borrow() as b:
        assert a is not None and b is not None and a is not b
        began = time.monotonic()
        with pool.try_borrow() as c:
            assert c is None
        assert time.monotonic() - began < 0.5
    with pool.try_borrow() as again:
        assert again in (a, b)


def test_a_blocked_borrow_wakes_when_a_scratch_comes_back():
    pool = ScratchPool(1)
    got: list = []
    with pool.borrow() as held:
        waiter = threading.Thread(target=lambda: got.append(pool.borrow().__enter__()))
        waiter.start()
        waiter.join(0.2)
        assert waiter.is_alive() and not got  # waits while the only scratch is lent
    waiter.join(5)
    assert got == [held]


def test_every_scratch_has_one_borrower_at_a_time_under_contention():
    pool = ScratchPool(2)
    in_use: set[int] = set()
    lock = threading.Lock()
    errors: list[str] = []
    done = threading.Event()

    def use(scratch) -> None:
        with lock:
            if id(scratch) in in_use:
                errors.append("lent twice")
            in_use.add(id(scratch))
        time.sleep(0)
        with lock:
            in_use.discard(id(scratch))

    def borrower() -> None:
        for _ in range(2000):
            with pool.borrow() as scratch:
                use(scratch)

    def inline() -> None:  # the event loop's try_borrow, racing the threads
        while not done.is_set():
            with pool.try_borrow() as scratch:
                if scratch is not None:
                    use(scratch)

    threads = [threading.Thread(target=borrower) for _ in range(4)]
    racer = threading.Thread(target=inline)
    racer.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    done.set()
    racer.join(10)
    assert not any(t.is_alive() for t in threads), "a borrower never woke"
    assert errors == []
    with pool.try_borrow() as a, pool.try_borrow() as b:
        assert a is not None and b is not None  # both came back
