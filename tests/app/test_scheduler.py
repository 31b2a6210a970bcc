"""The search scheduler: bounded, cheapest first, refuses at once when full."""

from __future__ import annotations

import contextvars
import threading
import time

import pytest

from app.scheduler import SearchScheduler
from gridpath.errors import Overloaded


@pytest.fixture
def scheduler_factory():
    made: list[SearchScheduler] = []
    gates: list[threading.Event] = []

    def make(
        threads: int, queue: int, short_cost: int = 0, short_threads: int = 0
    ) -> tuple[SearchScheduler, threading.Event]:
        scheduler = SearchScheduler(
            threads, queue, short_cost, name="test-search", short_threads=short_threads
        )
        gate = threading.Event()
        made.append(scheduler)
        gates.append(gate)
        return scheduler, gate

    yield make
    for gate in gates:
        gate.set()
    for scheduler in made:
        scheduler.close()


def occupy(scheduler: SearchScheduler, gate: threading.Event, count: int) -> list:
    """``count`` searches that hold their threads until ``gate`` opens."""
    started = threading.Barrier(count + 1)

    def hold() -> None:
        started.wait(5)
        gate.wait(10)

    futures = [scheduler.submit(hold, cost=10**9) for _ in range(count)]
    started.wait(5)
    return futures


def test_at_most_threads_run_at_once(scheduler_factory):
    scheduler, _ = scheduler_factory(2, 50)
    running, peak, lock = 0, 0, threading.Lock()
    pair = threading.Barrier(2)  # passes only when two searches run together

    def work() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        pair.wait(10)
        time.sleep(0.002)
        with lock:
            running -= 1

    for future in [scheduler.submit(work) for _ in range(20)]:
        future.result(30)
    assert peak == 2


def test_full_queue_refuses_at_once(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 2)
    occupy(scheduler, gate, 1)
    waiting = [scheduler.submit(lambda: "ok", cost=5) for _ in range(2)]
    assert scheduler.depth == 2 and scheduler.running == 1
    began = time.perf_counter()
    with pytest.raises(Overloaded) as refused:
        scheduler.submit(lambda: "late", cost=5)  # same cost: does not evict
    assert time.perf_counter() - began < 0.05
    assert refused.value.status == 503 and refused.value.headers == {"Retry-After": "1"}
    assert "SEARCH_QUEUE=2" in refused.value.message
    gate.set()
    assert [f.result(10) for f in waiting] == ["ok", "ok"]


def test_a_cheaper_search_takes_the_place_of_the_most_expensive(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 2)
    occupy(scheduler, gate, 1)
    medium = scheduler.submit(lambda: "medium", cost=1_000)
    expensive = scheduler.submit(lambda: "expensive", cost=1_000_000)
    cheap = scheduler.submit(lambda: "cheap", cost=10)
    with pytest.raises(Overloaded):
        expensive.result(1)  # refused at once, while the others still wait
    assert not medium.done() and not cheap.done()
    with pytest.raises(Overloaded):
        scheduler.submit(lambda: "pricey", cost=5_000)  # dearer than everything waiting
    gate.set()
    assert cheap.result(10) == "cheap" and medium.result(10) == "medium"


def test_waiting_searches_run_cheapest_first(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 10)
    occupy(scheduler, gate, 1)
    order: list[int] = []
    futures = [scheduler.submit(order.append, cost, cost=cost) for cost in (30, 10, 20, 10)]
    gate.set()
    for future in futures:
        future.result(10)
    assert order == [10, 10, 20, 30]


def test_a_batch_enters_whole_and_is_never_evicted(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 2)
    occupy(scheduler, gate, 1)
    batch = scheduler.submit_all(lambda i: i, [(i,) for i in range(5)], cost=100)
    assert scheduler.depth == 5  # beyond SEARCH_QUEUE: admitted as one request
    with pytest.raises(Overloaded):
        scheduler.submit(lambda: "cheap", cost=1)  # nothing it may evict
    with pytest.raises(Overloaded):
        scheduler.submit_all(lambda i: i, [(1,)], cost=1)
    gate.set()
    assert [f.result(10) for f in batch] == [0, 1, 2, 3, 4]


def test_errors_reach_the_caller(scheduler_factory):
    scheduler, _ = scheduler_factory(1, 1)

    def fail() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        scheduler.submit(fail).result(10)
    assert scheduler.submit(lambda: 7).result(10) == 7  # the thread survived


def test_the_callers_context_is_seen_in_the_search_thread(scheduler_factory):
    scheduler, _ = scheduler_factory(1, 1)
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    var.set("request-42")
    assert scheduler.submit(var.get).result(10) == "request-42"


def test_close_cancels_the_waiting_and_refuses_new(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 5)
    (running,) = occupy(scheduler, gate, 1)
    waiting = scheduler.submit(lambda: "never")
    scheduler.close()
    assert waiting.cancelled()
    with pytest.raises(Overloaded, match="shutting down"):
        scheduler.submit(lambda: "late")
    gate.set()
    assert running.result(10) is None  # the running one finishes


def test_the_short_lane_serves_short_searches_while_long_ones_hold_every_thread(
    scheduler_factory,
):
    scheduler, gate = scheduler_factory(1, 10, short_cost=100, short_threads=1)
    running = occupy(scheduler, gate, 1)  # the one search thread, held by a long search
    waiting = scheduler.submit(lambda: "long too", cost=1_000_000)
    began = time.perf_counter()
    assert scheduler.submit(lambda: "short", cost=50).result(5) == "short"  # the lane
    assert time.perf_counter() - began < 1.0
    time.sleep(0.05)
    assert not waiting.done()  # the lane never takes a long search
    gate.set()
    assert running[0].result(10) is None and waiting.result(10) == "long too"


def test_without_a_lane_a_short_search_waits_for_a_thread(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 10, short_cost=100, short_threads=0)
    occupy(scheduler, gate, 1)
    short = scheduler.submit(lambda: "short", cost=50)
    time.sleep(0.1)
    assert not short.done()
    gate.set()
    assert short.result(5) == "short"


def test_a_search_still_waiting_expires_with_overloaded(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 10)
    running = occupy(scheduler, gate, 1)
    waiting = scheduler.submit(lambda: "late", cost=5)
    assert scheduler.expire([waiting], "waited too long")
    with pytest.raises(Overloaded, match="waited too long"):
        waiting.result(1)
    assert scheduler.depth == 0
    assert not scheduler.expire(running, "too late: it runs")  # a running one stays
    gate.set()
    assert running[0].result(10) is None


def test_a_batch_expires_only_while_none_of_it_has_started(scheduler_factory):
    scheduler, gate = scheduler_factory(1, 10)
    started = threading.Event()

    def first() -> str:
        started.set()
        gate.wait(10)
        return "first"

    batch = scheduler.submit_all(lambda: "next", [()], 5)
    batch = [scheduler.submit(first, cost=0)] + batch
    assert started.wait(5)
    assert not scheduler.expire(batch, "one has started")
    gate.set()
    assert [f.result(10) for f in batch] == ["first", "next"]


def test_one_thread_serves_everything(scheduler_factory):
    scheduler, _ = scheduler_factory(1, 10, short_cost=100)
    assert scheduler.submit(lambda: "long", cost=1_000_000).result(5) == "long"
