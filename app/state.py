"""The running service's state: settings, the map store, the scratch pool, readiness.

Start-up (loading every map and compiling the kernels) runs in a background thread,
so the port opens at once and ``GET /health`` answers 503 until the service is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import ctypes
import ctypes.util
import gc
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import Any, Protocol, TypeVar

from app.authority import MapAuthority, ReloadReport, open_authorities
from app.cache import LRUCache
from app.config import Settings
from app.observability import metrics
from app.scheduler import SearchScheduler, on_short_lane
from gridpath.errors import NotReady
from gridpath.grid import Grid
from gridpath.maps import MapRegistry
from gridpath.maps.snapshot import MapSnapshot
from gridpath.search import ScratchPool, SearchScratch, prepare_jps, subgoal_graph
from gridpath.search.runners import subgoal as subgoal_tier
from gridpath.search.staged import StagedWarmUp
from gridpath.world import WorldNotFound

log = logging.getLogger(__name__)
# The fewest requests with run_many in a chunk of search_all (but a smaller batch): each
# chunk has a fixed cost (its options, a compiled call, a future, a loop wake-up, a hand-off
# of the GIL) and under load every search thread is busy with some request anyway, so a
# batch of up to 100 short queries runs as one chunk (measured: 25 per chunk cost more CPU
# per query than 50, 50 about as much as 100 or a little more; bench/README.md,
# "bench-ratios").
MANY_PER_CHUNK = 100
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class SearchRequest(Protocol[T_co]):
    """One request's work on one map snapshot, parsed and capped before it is scheduled:
    ``cost`` is its worst case in expansions (its place in the queue and its lane), ``run``
    does it with a search scratch (on a search thread, or inline)."""

    cost: int

    def run(self, snapshot: Any, scratch: SearchScratch) -> T_co: ...


class ServiceState:
    def __init__(self, settings: Settings) -> None:
        release_large_frees()
        self.settings = settings
        # SEARCH_THREADS threads run the searches (in parallel: the kernels release the GIL),
        # SHORT_SEARCH_THREADS more the short ones only; at most SEARCH_QUEUE wait, past that
        # (or past SEARCH_QUEUE_WAIT_MS) requests are refused (app/scheduler.py).
        self.scheduler = SearchScheduler(
            settings.search_threads,
            settings.search_queue,
            settings.short_search_expansions,
            short_threads=settings.short_search_threads,
        )
        self.pool = ScratchPool(settings.search_threads + self.scheduler.short_threads)
        self.flowfields = LRUCache(settings.flowfield_cache, settings.flowfield_cache_bytes)
        self.registry = MapRegistry()  # the registry: the snapshots searches read, never I/O
        # The worlds (maps joined by links: gridpath.world), revisions as maps have.
        self.worlds = MapRegistry(not_found=WorldNotFound, what="world")
        # Who loads and changes the maps and the worlds: the MAPS_DIR folder, or MAP_STORE
        # (app/authority); the worlds' authority is of the same store, loaded after the maps'.
        self.authority: MapAuthority
        self.world_authority: MapAuthority
        self.authority, self.world_authority = open_authorities(
            settings, self.registry, self.worlds
        )
        self.ready = threading.Event()
        self.startup_error: str | None = None
        # Extra conditions of GET /health/ready, by name: each returns None when fine, else
        # why not (e.g. the shared store: "unreachable"). Called on the event loop: they
        # must answer at once (report a state kept up to date elsewhere, do no I/O).
        self.readiness_checks: dict[str, Callable[[], str | None]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        # The kernels: what the first queries need before ready, the rest compiled by
        # WARMUP_PROCESSES worker processes after (their queries: 503 warming_up till then).
        # Without the subgoal tier (SUBGOAL_MAX_CELLS=0) no query reaches its kernels: they
        # compile after the others instead of before ready.
        later = () if settings.subgoal_cells > 0 else (subgoal_tier.RUNNER.name,)
        self.warmup = StagedWarmUp(settings.warmup_processes, log=log.info, later=later)

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> threading.Thread:
        """Load maps and warm the kernels in a background thread; then, on ``loop``, the
        authority follows changes made elsewhere."""
        self._loop = loop
        thread = threading.Thread(target=self._start, name="gridpath-startup", daemon=True)
        thread.start()
        return thread

    def _start(self) -> None:
        began = time.perf_counter()
        try:
            self.warmup.begin()  # the workers compile while the maps load
            self.registry.prepare = self.prepare
            self.authority.load()
            self.world_authority.load()  # worlds are checked against the maps
            for snapshot in self.registry.all():  # search data at load, not on a query
                self.prepare(snapshot)
            if self._loop is not None:
                for authority in (self.authority, self.world_authority):
                    asyncio.run_coroutine_threadsafe(authority.start(), self._loop).result()
            compile_s = self.warmup.serving()
        except Exception as exc:  # never leave the service hanging in "starting"
            log.exception("start-up failed")
            self.startup_error = f"start-up failed: {exc}"
            return
        # Start-up leaves many long-lived objects (numba, pydantic, FastAPI); moving them out
        # of the collector's sight keeps full collections (during which the worker answers
        # nothing) out of request latencies (see bench/README.md, 'bench-http').
        gc.freeze()
        self.refresh_gauges()
        self.ready.set()
        log.info(
            "ready in %.2f s: %d maps loaded, %d failed, first kernels warm at %.2f s",
            time.perf_counter() - began,
            len(self.registry),
            len(self.registry.errors),
            compile_s,
        )
        try:
            self.warmup.finish()
        except Exception:  # the gated queries stay 503 warming_up; the rest serve on
            log.exception("kernel warm-up failed")
        gc.freeze()  # what the background warm-up loaded, too

    def prepare(self, snapshot: MapSnapshot) -> None:
        """A revision's search data, built before it is served (``MapSnapshot.prepare``):
        a polygon map's navigation mesh and waypoint graph, a grid's from the search layer
        (:meth:`grid_search_data`). Readers keep the previous revision until then."""
        snapshot.prepare(self.grid_search_data)

    def grid_search_data(self, grid: Grid) -> None:
        """A grid revision's block JPS bitsets (``prepare_jps``) and subgoal tier."""
        prepare_jps(grid)
        subgoal_graph(grid, self.settings.subgoal_cells)

    async def search(self, snapshot: Any, request: SearchRequest[T]) -> T:
        """``request`` run on ``snapshot``: admitted by the scheduler at its cost, with a
        scratch of the pool (the one way every route runs a search)."""
        return await self.run_search(self._with_scratch, request, snapshot, cost=request.cost)

    async def search_all(self, snapshot: Any, requests: Sequence[SearchRequest[T]]) -> list[T]:
        """A batch's requests on one snapshot, admitted as one request (all share the cost
        of the first: a batch's queries have the same caps), spread over the search threads
        in at most ``2 x SEARCH_THREADS`` chunks, each one scheduled job of its requests'
        summed cost (``SearchScheduler.submit_all``): a job per request would cost the
        event loop a wake-up per request, more than a short search (bench/README.md,
        'bench-http'). A chunk runs on one scratch, through its requests' ``run_many``
        where their type has one (``run_many(requests, snapshot, scratch)``: the answers
        in order; a ``/paths`` batch's common queries in one compiled call), else one by
        one; a chunk of such requests holds ``MANY_PER_CHUNK`` or more."""
        cost = requests[0].cost if requests else 0
        count = 2 * self.scheduler.threads
        if requests and hasattr(type(requests[0]), "run_many"):
            count = min(count, -(-len(requests) // MANY_PER_CHUNK))
        chunks = _chunks(list(requests), count)
        jobs = [(chunk, snapshot) for chunk in chunks]  # admitted together, or refused together
        futures = self.scheduler.submit_all(self._run_chunk, jobs, cost * len(chunks[0]))
        results = await self._awaited(futures)
        return [result for chunk in results for result in chunk]

    def _run_chunk(self, requests: list[SearchRequest[T]], snapshot: Any) -> list[T]:
        with self.search_scratch() as scratch:
            run_many = getattr(type(requests[0]), "run_many", None) if requests else None
            if run_many is not None:
                return run_many(requests, snapshot, scratch)
            return [request.run(snapshot, scratch) for request in requests]

    def _with_scratch(self, request: SearchRequest[T], snapshot: Any) -> T:
        with self.search_scratch() as scratch:
            return request.run(snapshot, scratch)

    def search_scratch(self) -> contextlib.AbstractContextManager[SearchScratch]:
        """A scratch for one search, on a thread whose CPU priority is ``SEARCH_NICE`` below
        the event loop's (but the short lane's); in an inline search (``run_search``), the
        scratch it borrowed (a plain context, no generator)."""
        inline = _inline_scratch.get()
        if inline is not None:
            return contextlib.nullcontext(inline)
        return self._pooled_scratch()

    @contextlib.contextmanager
    def _pooled_scratch(self) -> Iterator[SearchScratch]:
        if not on_short_lane():
            lower_thread_priority(self.settings.search_nice)
        with self.pool.borrow() as scratch:
            yield scratch

    async def run_search(self, work: Callable[..., T], *args: Any, cost: int | None = None) -> T:
        """``work(*args)`` on a search thread, awaited from the event loop. The service's
        own threads, not the framework's: they are the searches' (``SEARCH_THREADS``, each
        with a scratch to borrow), and the hop costs less than ``anyio.to_thread`` (see
        bench/README.md, 'bench-http'). ``cost`` is the search's worst case in expansions
        (cheapest waits least; None: not known, scheduled as 0); raises ``Overloaded`` at
        once when the queue is full, or after ``SEARCH_QUEUE_WAIT_MS`` without a thread.

        A search whose worst case is at most ``INLINE_SEARCH_EXPANSIONS`` runs right here, on
        the event loop, when it would have started at once on a thread (one idle, none
        waiting): the hop to the thread and back costs more than such a search
        (bench/README.md, 'bench-http'). Admission is unchanged (a busy scheduler gets the
        search, or refuses it), at most ``SEARCH_THREADS`` searches still run at once, and
        it takes no memory of its own: it borrows an idle thread's scratch. Its answer is the
        same: a search reads one map snapshot and its scratch, wherever it runs."""
        if (
            cost is not None
            and cost <= self.settings.inline_search_expansions
            and self.scheduler.idle()
        ):
            with self.pool.try_borrow() as scratch:
                if scratch is not None:
                    metrics.observe_queue_wait(0.0)  # it waited for no thread
                    token = _inline_scratch.set(scratch)
                    try:
                        return work(*args)
                    finally:
                        _inline_scratch.reset(token)
        future = self.scheduler.submit(work, *args, cost=cost or 0)
        (result,) = await self._awaited([future])
        return result

    async def _awaited(self, futures: list[Future]) -> list[Any]:
        """The results of ``futures``; if none has started after ``SEARCH_QUEUE_WAIT_MS``,
        they leave the queue and the request gets 503 ``overloaded`` (``Retry-After``)."""
        wait_ms = self.settings.search_queue_wait_ms
        why = f"it waited over SEARCH_QUEUE_WAIT_MS={wait_ms} ms for a search thread"
        timer = asyncio.get_running_loop().call_later(
            wait_ms / 1000, self.scheduler.expire, futures, why
        )
        try:
            if len(futures) == 1:
                return [await asyncio.wrap_future(futures[0])]
            return list(await asyncio.gather(*(asyncio.wrap_future(f) for f in futures)))
        finally:
            timer.cancel()

    def readiness(self) -> dict[str, str]:
        """Why the service is not ready to serve, by check; empty when it is."""
        problems = {}
        if not self.ready.is_set():
            problems["maps"] = self.startup_error or self.warmup.describe()
        for name, check in self.readiness_checks.items():
            try:
                problem = check()
            except Exception as exc:  # a broken check is a failing check, never a 500
                problem = f"check failed: {exc}"
            if problem:
                problems[name] = problem
        return problems

    def refresh_gauges(self) -> None:
        """The gauges read from state (maps, search queue), brought up to date: at start-up
        and at each scrape."""
        metrics.set_maps((g.name, g.revision, g.nbytes) for g in self.registry.all())
        metrics.set_store_state(self.authority.status().state)
        self.scheduler.sample_gauges()

    async def reload(self) -> ReloadReport:
        """Catch up with the store now (``POST /maps/reload``, ``SIGHUP``): the maps, then
        the worlds (checked against them); the report's changes are the maps', its errors
        the files of both that did not load."""
        report = await self.authority.reload()
        worlds = await self.world_authority.reload()
        known = set(report.errors)
        report.errors.extend(e for e in worlds.errors if e not in known)
        return report

    def close(self) -> None:
        self.warmup.stop()
        self.scheduler.close()

    async def aclose(self) -> None:
        await self.world_authority.close()
        await self.authority.close()
        self.close()

    def require_ready(self) -> MapRegistry:
        if not self.ready.is_set():
            # a fixed text: an answer depends on nothing but the request (GET /health says more)
            raise NotReady("the service is starting: maps are loading and kernels compiling")
        return self.registry


def _chunks(calls: list, count: int) -> list[list]:
    """``calls`` in at most ``count`` contiguous chunks of near-equal length, in order."""
    count = max(1, min(count, len(calls)))
    size, extra = divmod(len(calls), count)
    bounds = [i * size + min(i, extra) for i in range(count + 1)]
    return [calls[bounds[i] : bounds[i + 1]] for i in range(count)]


def reload_on_sighup(state: ServiceState) -> None:
    """``SIGHUP`` reloads the maps as ``POST /maps/reload`` does. Installed where the event
    loop runs in the main thread (uvicorn's worker processes); not elsewhere (tests)."""
    loop = asyncio.get_running_loop()

    async def reload() -> None:
        try:
            report = await state.reload()
            log.info("SIGHUP: maps reloaded, %d changed", len(report.changes))
        except Exception as exc:
            log.error("SIGHUP: map reload failed: %s", exc)

    def on_sighup() -> None:
        if state.ready.is_set():
            loop.create_task(reload())

    with contextlib.suppress(ValueError, RuntimeError, NotImplementedError, AttributeError):
        loop.add_signal_handler(signal.SIGHUP, on_sighup)


# The scratch of the inline search running in this context (run_search), else None.
_inline_scratch: contextvars.ContextVar[SearchScratch | None] = contextvars.ContextVar(
    "gridpath_inline_scratch", default=None
)
_lowered = threading.local()


def lower_thread_priority(nice: int) -> None:
    """Raise the calling thread's nice value by ``nice`` (once per thread; Linux threads
    have their own). Searches then yield the CPU to the event loop thread, so ``/health``
    and request parsing stay prompt while long searches saturate every core."""
    if nice <= 0 or getattr(_lowered, "done", False):
        return
    _lowered.done = True
    with contextlib.suppress(AttributeError, OSError):  # not on Linux: keep the priority
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + nice)


_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def release_large_frees(threshold: int = 1 << 20) -> bool:
    """Have glibc serve every allocation of ``threshold`` bytes or more with a mapping of
    its own, returned to the OS when freed. By default glibc raises that threshold up to
    32 MiB as large blocks are freed, and then keeps freed map-sized temporaries (those of
    loading or editing a map) in the process's heap (``tests/app/test_state.py`` shows
    both behaviours; bench/README.md, 'bench.memory', has the figures). Returns False
    where the C library has no ``mallopt`` (not glibc): nothing changes there."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, threshold))
    return False
