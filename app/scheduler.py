"""The search threads and their bounded queue: overload fails fast instead of queueing.

``SEARCH_THREADS`` threads run searches; at most ``SEARCH_QUEUE`` more wait. A search that
arrives when every thread is busy and the queue is full is refused at once with 503
``overloaded``, unless a waiting search has a larger worst-case cost: that one is refused
instead (its request gets the 503) and the new one takes its place. Waiting searches run
cheapest first (smallest worst-case cost, then arrival order). So under a flood of expensive
queries, cheap ones keep being served, and expensive ones are refused fast rather than
piling up latency. The order in which searches run never changes an answer (each search
reads one map snapshot and its own scratch), so this keeps responses deterministic.

A search's *cost* is its worst-case work, in expansions, given by the caller: a query that
can expand at most a few cells (a small map, a small ``max_expanded`` or
``time_budget_ms``) is cheap whatever the map.

A running search cannot be interrupted, so a cheap search that finds every thread busy with
long ones would wait for one of them to end. The *short lane* takes that wait away:
``SHORT_SEARCH_THREADS`` more threads (1 by default) run only *short* searches (cost at most
``SHORT_SEARCH_EXPANSIONS``), so a short search waits only for the short searches ahead of
it, whatever the long ones do (``SEARCH_THREADS`` threads still run any search, cheapest
first). The lane's work is bounded by construction: each of its searches expands at most
``SHORT_SEARCH_EXPANSIONS`` states.

No search waits without a bound: the caller gives up on a search still waiting after
``SEARCH_QUEUE_WAIT_MS`` (:meth:`SearchScheduler.expire`), and its request gets 503
``overloaded`` with ``Retry-After`` (``app.state.ServiceState.search``).
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from app.observability import metrics
from gridpath.errors import Overloaded


@dataclass(order=True)
class _Job:
    cost: int
    seq: int
    future: Future = field(compare=False)
    work: Callable[..., Any] = field(compare=False)
    args: tuple = field(compare=False)
    context: contextvars.Context = field(compare=False)
    evictable: bool = field(compare=False)
    queued_at: float = field(compare=False)


GAUGE_INTERVAL = 1.0
_thread = threading.local()


def on_short_lane() -> bool:
    """Whether the calling thread is one of the short lane's. Its searches are bounded
    (``SHORT_SEARCH_EXPANSIONS``), so it keeps the event loop's CPU priority: a niced
    lane would wait behind every busy process of the machine."""
    return getattr(_thread, "short_lane", False)


class SearchScheduler:
    def __init__(
        self,
        threads: int,
        queue_size: int,
        short_cost: int = 0,
        name: str = "search",
        short_threads: int = 0,
    ) -> None:
        self.threads = threads
        self.queue_size = queue_size
        self.short_cost = short_cost
        self.short_threads = short_threads if short_cost > 0 else 0
        self._waiting: list[_Job] = []
        self._running = 0
        self._closed = False
        self._cond = threading.Condition()
        self._seq = itertools.count()
        # Daemon threads: after a graceful shutdown has waited for the in-flight requests,
        # a search still running belongs to a request that was given up on; it must not
        # hold the process's exit.
        self._workers = [
            threading.Thread(target=self._serve, args=(False,), name=f"{name}-{i}", daemon=True)
            for i in range(threads)
        ] + [
            threading.Thread(
                target=self._serve, args=(True,), name=f"{name}-short-{i}", daemon=True
            )
            for i in range(self.short_threads)
        ]
        for worker in self._workers:
            worker.start()
        # The queue gauges are sampled (a set per change would cost each search more than
        # the rest of its metrics): every GAUGE_INTERVAL seconds and at each scrape.
        self._closing = threading.Event()
        threading.Thread(target=self._sample, name=f"{name}-gauges", daemon=True).start()

    @property
    def depth(self) -> int:
        """Searches waiting for a thread."""
        return len(self._waiting)

    @property
    def running(self) -> int:
        return self._running

    def idle(self) -> bool:
        """A search submitted now would start at once: a thread free, nothing waiting, not
        closed. Read without the lock: a thread that has just taken a search may still look
        free, which lets one search more run for as long as it takes."""
        return self._running < self.threads and not self._waiting and not self._closed

    def _full(self) -> bool:
        capacity = self.threads + self.short_threads + self.queue_size
        return len(self._waiting) + self._running >= capacity

    def _job(self, work: Callable[..., Any], args: tuple, cost: int, evictable: bool) -> _Job:
        return _Job(
            cost,
            next(self._seq),
            Future(),
            work,
            args,
            contextvars.copy_context(),  # the request's record, seen from the search thread
            evictable,
            time.perf_counter(),
        )

    def submit(self, work: Callable[..., Any], *args: Any, cost: int = 0) -> Future:
        """Queue ``work(*args)``; raises :class:`Overloaded` when there is no room for it."""
        job = self._job(work, args, cost, evictable=True)
        victim = None
        with self._cond:
            self._refuse_if_closed()
            if self._full():
                victim = max((j for j in self._waiting if j.evictable), default=None)
                if victim is None or victim.cost <= cost:
                    raise self._overloaded()
                self._waiting.remove(victim)
                heapq.heapify(self._waiting)
            heapq.heappush(self._waiting, job)
            self._cond.notify_all()  # a lane thread woken for a long search would keep it
        if victim is not None:
            victim.future.set_exception(self._overloaded("a cheaper search took its place"))
        return job.future

    def submit_all(
        self, work: Callable[..., Any], calls: Sequence[tuple], cost: int = 0
    ) -> list[Future]:
        """Queue a batch as one request: admitted whole if there is room for one search when
        it arrives (its searches then wait beyond ``SEARCH_QUEUE``), never evicted."""
        jobs = [self._job(work, args, cost, evictable=False) for args in calls]
        with self._cond:
            self._refuse_if_closed()
            if self._full():
                raise self._overloaded()
            for job in jobs:
                heapq.heappush(self._waiting, job)
            self._cond.notify_all()
        return [job.future for job in jobs]

    def expire(self, futures: Sequence[Future], why: str) -> bool:
        """Take the searches of ``futures`` out of the queue, each failing with
        :class:`Overloaded` (``why``), if none of them has started; False (nothing done)
        once one has: the caller then waits for them all."""
        with self._cond:
            ids = {id(f) for f in futures}
            jobs = [j for j in self._waiting if id(j.future) in ids]
            if len(jobs) < len(futures):
                return False
            self._waiting = [j for j in self._waiting if id(j.future) not in ids]
            heapq.heapify(self._waiting)
        for job in jobs:
            job.future.set_exception(self._overloaded(why))
        return True

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise Overloaded("the service is shutting down")

    def _overloaded(self, why: str = "") -> Overloaded:
        return Overloaded(
            f"{self._running} searches running and {len(self._waiting)} waiting "
            f"(SEARCH_THREADS={self.threads}, SEARCH_QUEUE={self.queue_size})"
            + (f": {why}" if why else "")
            + "; retry later"
        )

    def sample_gauges(self) -> None:
        metrics.set_search_queue(len(self._waiting), self._running)

    def _sample(self) -> None:
        while not self._closing.wait(GAUGE_INTERVAL):
            self.sample_gauges()

    def _serve(self, short_only: bool) -> None:
        _thread.short_lane = short_only
        while True:
            with self._cond:
                while not self._may_start(short_only):
                    if self._closed and not self._waiting:
                        return
                    self._cond.wait()
                job = heapq.heappop(self._waiting)
                self._running += 1
            try:
                if job.future.set_running_or_notify_cancel():
                    metrics.observe_queue_wait(time.perf_counter() - job.queued_at)
                    try:
                        result = job.context.run(job.work, *job.args)
                    except BaseException as exc:  # handed to the awaiting request
                        job.future.set_exception(exc)
                    else:
                        job.future.set_result(result)
            finally:
                with self._cond:
                    self._running -= 1

    def _may_start(self, short_only: bool) -> bool:  # holding the lock
        if not self._waiting:
            return False
        # The cheapest waiting search is at the head: if it is long, all are.
        return not short_only or self._waiting[0].cost <= self.short_cost

    def close(self) -> None:
        """Refuse new searches and cancel the waiting ones; running ones finish."""
        with self._cond:
            self._closed = True
            waiting, self._waiting = self._waiting, []
            self._cond.notify_all()
        self._closing.set()
        self.sample_gauges()
        for job in waiting:
            job.future.cancel()
