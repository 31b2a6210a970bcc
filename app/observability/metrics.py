"""Prometheus metrics (``GET /metrics``), recorded in a few places only: the request
middleware (requests, latency, rejections), the search scheduler (queue depth and wait), the
``observe_*`` calls where a search result is turned into a response, and a refresh of the
map gauges when ``/metrics`` is scraped.

Several worker processes (``uvicorn --workers N``): set ``PROMETHEUS_MULTIPROC_DIR`` to an
empty folder writable by the service, in the environment of the process that starts the
workers (prometheus-client reads it at import). Each worker writes its figures there and a
scrape, answered by any worker, sums them. Gauges count live workers only: the files a dead
worker left are removed (``mark_process_dead``) at start-up and on every scrape; counters and
histograms keep a dead worker's counts, so totals never go backwards. Empty the folder
before starting the server (the Dockerfile's entry does).

With ``METRICS_ENABLED=false`` every ``observe_*`` is a no-op and ``/metrics`` is not served.

One process (no ``PROMETHEUS_MULTIPROC_DIR``, the default): the per-request observations
(``observe_request``, ``observe_search``, ``observe_queue_wait``) are queued, a deque append
each (thread-safe, no lock), and applied to the series in bulk, added up per series and
bucket, before every scrape (:func:`render`) and whenever ``PENDING_LIMIT`` are waiting:
updating the series one observation at a time cost a short ``/path`` request more than its
search (bench/README.md, 'bench-http'). A scrape sees every observation made before it.
Several processes: applied at once (another worker may answer the scrape, and a worker
killed must leave its counts on disk).
"""

from __future__ import annotations

import contextlib
import os
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)

# No ``*_created`` series next to every counter and histogram: they double the exposition
# for a figure Prometheus does not need (a reset shows as a counter going down).
disable_created_metrics()

MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None
CONTENT_TYPE = CONTENT_TYPE_LATEST

_LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_EXPANSIONS = (10, 100, 1_000, 10_000, 100_000, 1_000_000, 4_000_000, 16_000_000, 64_000_000)

REQUESTS = Counter(
    "gridpath_http_requests_total",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS = Histogram(
    "gridpath_http_request_duration_seconds",
    "Time from a request's arrival to the end of its response, by route template and status.",
    ["method", "route", "status"],
    buckets=_LATENCY,
)
REJECTED = Counter(
    "gridpath_rejected_requests_total",
    "Requests answered with an error, by error code (overloaded, payload_too_large, "
    "unauthorized, invalid_request, map_not_found, ...).",
    ["reason"],
)
SEARCH_SECONDS = Histogram(
    "gridpath_search_kernel_seconds",
    "Time spent in the search kernel, by algorithm (path rebuilding excluded).",
    ["algorithm"],
    buckets=_LATENCY,
)
SEARCH_EXPANDED = Histogram(
    "gridpath_search_expanded",
    "Nodes expanded per search, by algorithm.",
    ["algorithm"],
    buckets=_EXPANSIONS,
)
SEARCH_OUTCOMES = Counter(
    "gridpath_search_outcomes_total",
    "Searches by algorithm and outcome: found, unreachable, limit_reached.",
    ["algorithm", "outcome"],
)
VALIDATE_VERDICTS = Counter(
    "gridpath_validate_verdicts_total", "POST /validate verdicts: valid or invalid.", ["verdict"]
)
VALIDATE_VIOLATIONS = Counter(
    "gridpath_validate_violations_total",
    "Violations POST /validate reported, by violation code.",
    ["code"],
)
FLOWFIELD_CACHE = Counter(
    "gridpath_flowfield_cache_total", "Flow-field cache lookups: hit or miss.", ["result"]
)
QUEUE_DEPTH = Gauge(
    "gridpath_search_queue_depth",
    "Searches waiting for a search thread.",
    multiprocess_mode="livesum",
)
SEARCHES_RUNNING = Gauge(
    "gridpath_searches_running", "Searches running now.", multiprocess_mode="livesum"
)
QUEUE_WAIT = Histogram(
    "gridpath_search_queue_wait_seconds",
    "Time a search waited for a search thread.",
    buckets=_LATENCY,
)
MAPS_LOADED = Gauge("gridpath_maps_loaded", "Maps being served.", multiprocess_mode="livemax")
MAP_REVISION = Gauge(
    "gridpath_map_revision", "Current revision of each map.", ["map"], multiprocess_mode="livemax"
)
MAP_MEMORY = Gauge(
    "gridpath_map_memory_bytes",
    "Memory each map's current revision holds.",
    ["map"],
    multiprocess_mode="livemax",
)
STORE_STATE = Gauge(
    "gridpath_store_state",
    "1 for the map store's current state (label state), 0 for the states it left.",
    ["state"],
    multiprocess_mode="livemax",
)
BUILD_INFO = Gauge(
    "gridpath_build_info",
    "Always 1; the labels carry the version and the git commit.",
    ["version", "commit"],
    multiprocess_mode="livemax",
)

_enabled = True
_store_states: set[str] = set()
_maps_seen: set[str] = set()
# Labelled children, looked up once per label combination: ``labels()`` costs more than the
# update itself, and this is the per-request path. The combinations are bounded (route
# templates, known methods, statuses, algorithms, outcomes).
_request_children: dict[tuple[str, str, int], tuple[Any, Any]] = {}
_search_children: dict[tuple[str, str], tuple[Any, Any, Any]] = {}
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def configure(enabled: bool, version: str, commit: str) -> None:
    global _enabled
    _enabled = enabled
    if enabled:
        BUILD_INFO.labels(version, commit).set(1)
        remove_dead_workers()


def enabled() -> bool:
    return _enabled


# Observations waiting to be applied (one process only; see the module docstring): each is
# (a counter child to add 1 to, or None; ((histogram child, value), ...)).
PENDING_LIMIT = 1024
_pending: deque[tuple[Any, tuple[tuple[Any, float], ...]]] = deque()
_deferred = MULTIPROC_DIR is None


def _record(counter: Any, observations: tuple[tuple[Any, float], ...]) -> None:
    if not _deferred:
        if counter is not None:
            counter.inc()
        for histogram, value in observations:
            histogram.observe(value)
        return
    _pending.append((counter, observations))
    if len(_pending) >= PENDING_LIMIT:
        flush()


def _buckets_of(histogram: Any) -> tuple[Any, list, list] | None:
    """A histogram child's sum, buckets and bounds, to add many observations at once (None
    where prometheus-client keeps them otherwise: then one ``observe`` each)."""
    parts = (getattr(histogram, name, None) for name in ("_sum", "_buckets", "_upper_bounds"))
    found = tuple(parts)
    return None if any(part is None for part in found) else found  # type: ignore[return-value]


def flush() -> None:
    """Apply the queued observations to the series: per counter one ``inc``, per histogram
    one addition to its sum and one per bucket that received observations."""
    counts: dict[Any, int] = {}
    sums: dict[Any, list] = {}  # histogram -> [sum, count in bucket 0, 1, ...]
    take = _pending.popleft
    while True:
        try:
            counter, observations = take()
        except IndexError:
            break
        if counter is not None:
            counts[counter] = counts.get(counter, 0) + 1
        for histogram, value in observations:
            tally = sums.get(histogram)
            if tally is None:
                tally = sums[histogram] = [0.0]
            tally.append(value)
    for counter, n in counts.items():
        counter.inc(n)
    for histogram, (total, *values) in sums.items():
        parts = _buckets_of(histogram)
        if parts is None:
            for value in values:
                histogram.observe(value)
            continue
        sum_value, buckets, bounds = parts
        sum_value.inc(sum(values, total))
        per_bucket: dict[int, int] = {}
        for value in values:  # the first bucket whose bound is >= value, as observe finds it
            i = bisect_left(bounds, value)
            per_bucket[i] = per_bucket.get(i, 0) + 1
        for i, n in per_bucket.items():
            buckets[i].inc(n)


def observe_request(method: str, route: str, status: int, seconds: float, error: str | None):
    if not _enabled:
        return
    key = (method, route, status)
    children = _request_children.get(key)
    if children is None:
        label = method if method in _METHODS else "other"  # a client chooses the method
        code = str(status)
        children = (
            REQUESTS.labels(label, route, code),
            REQUEST_SECONDS.labels(label, route, code),
        )
        _request_children[key] = children
    _record(children[0], ((children[1], seconds),))
    if error is not None:
        REJECTED.labels(error).inc()


def observe_search(algorithm: str, search_us: float, expanded: int, outcome: str) -> None:
    """One search's figures (``outcome``: ``found`` or the result's ``reason``)."""
    if not _enabled:
        return
    children = _search_children.get((algorithm, outcome))
    if children is None:
        children = (
            SEARCH_SECONDS.labels(algorithm),
            SEARCH_EXPANDED.labels(algorithm),
            SEARCH_OUTCOMES.labels(algorithm, outcome),
        )
        _search_children[(algorithm, outcome)] = children
    _record(children[2], ((children[0], search_us / 1e6), (children[1], expanded)))


def observe_searches(algorithm: str, searches: list[tuple[int, float, str | None]]) -> None:
    """:func:`observe_search` for each ``(expanded, search_us, reason)`` of ``searches``."""
    if not _enabled:
        return
    for expanded, search_us, reason in searches:
        children = _search_children.get((algorithm, reason or "found"))
        if children is None:
            observe_search(algorithm, search_us, expanded, reason or "found")
        else:
            _record(children[2], ((children[0], search_us / 1e6), (children[1], expanded)))


def observe_verdict(violation_codes: Iterable[str]) -> None:
    if not _enabled:
        return
    codes = list(violation_codes)
    VALIDATE_VERDICTS.labels("invalid" if codes else "valid").inc()
    for code in codes:
        VALIDATE_VIOLATIONS.labels(code).inc()


def observe_flowfield_cache(hit: bool) -> None:
    if _enabled:
        FLOWFIELD_CACHE.labels("hit" if hit else "miss").inc()


def set_search_queue(depth: int, running: int) -> None:
    if _enabled:
        QUEUE_DEPTH.set(depth)
        SEARCHES_RUNNING.set(running)


def observe_queue_wait(seconds: float) -> None:
    if _enabled:
        _record(None, ((QUEUE_WAIT, seconds),))


def set_store_state(state: str) -> None:
    """The shared map store's state (e.g. ``local``, ``connected``, ``unreachable``): the
    gauge ``gridpath_store_state{state=...}`` is 1 for it and 0 for every state set before.
    Called by the store whenever its state changes; thread-safe."""
    if not _enabled:
        return
    _store_states.add(state)
    for known in list(_store_states):
        STORE_STATE.labels(known).set(1 if known == state else 0)


def set_maps(maps: Iterable[tuple[str, int, int]]) -> None:
    """The served maps as ``(name, revision, memory_bytes)``; maps gone since drop out."""
    if not _enabled:
        return
    current = set()
    for name, revision, memory in maps:
        current.add(name)
        MAP_REVISION.labels(name).set(revision)
        MAP_MEMORY.labels(name).set(memory)
    for gone in _maps_seen - current:
        with contextlib.suppress(KeyError):
            MAP_REVISION.remove(gone)
            MAP_MEMORY.remove(gone)
    _maps_seen.clear()
    _maps_seen.update(current)
    MAPS_LOADED.set(len(current))


def remove_dead_workers() -> None:
    """Remove the live-gauge files of worker processes that no longer exist."""
    if MULTIPROC_DIR is None:
        return
    pids = set()
    with contextlib.suppress(OSError):
        for entry in os.scandir(MULTIPROC_DIR):
            stem = entry.name.rsplit(".", 1)[0]
            pid = stem.rsplit("_", 1)[-1]
            if pid.isdigit():
                pids.add(int(pid))
    for pid in pids:
        if not _alive(pid):
            multiprocess.mark_process_dead(pid, MULTIPROC_DIR)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def render() -> bytes:
    """The exposition text: this process's registry, or every worker's in multiprocess mode."""
    if MULTIPROC_DIR is None:
        from prometheus_client import REGISTRY

        flush()
        return generate_latest(REGISTRY)
    remove_dead_workers()
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, MULTIPROC_DIR)
    return generate_latest(registry)
