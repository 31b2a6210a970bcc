"""Queued observations (one process: app/observability/metrics.py applies them in bulk)
expose exactly what observing them one by one exposes, and a scrape sees them all."""

from __future__ import annotations

import math

from prometheus_client import CollectorRegistry, Counter, Histogram

from app.observability import metrics


def _samples(registry: CollectorRegistry, name: str) -> dict[tuple[str, str], float]:
    return {
        (s.name.removeprefix(name), s.labels.get("le", "")): s.value
        for family in registry.collect()
        if family.name == name
        for s in family.samples
    }


def test_queued_observations_expose_as_observed_one_by_one():
    registry = CollectorRegistry()
    one_by_one = Histogram("one", "one", buckets=metrics._LATENCY, registry=registry)
    queued = Histogram("queued", "q", ["route"], buckets=metrics._LATENCY, registry=registry)
    child = queued.labels("/path")
    counted = Counter("counted", "c", registry=registry)
    values = [0.0, 0.0005, 0.00051, 0.0004, 0.01, 0.03, 2.5, 7.0, 10.0, 11.0, 1e9, 0.0005]
    for value in values:
        one_by_one.observe(value)
        metrics._record(counted, ((child, value),))
    metrics.flush()
    assert not metrics._pending
    got, want = _samples(registry, "queued"), _samples(registry, "one")
    assert {k: v for k, v in got.items() if k[0] != "_sum"} == {
        k: v for k, v in want.items() if k[0] != "_sum"
    }
    assert math.isclose(got[("_sum", "")], want[("_sum", "")])
    assert _samples(registry, "counted")[("_total", "")] == len(values)


def test_the_queue_is_applied_past_its_limit_and_before_a_scrape(monkeypatch):
    monkeypatch.setattr(metrics, "PENDING_LIMIT", 3)
    registry = CollectorRegistry()
    counted = Counter("limited", "c", registry=registry)
    metrics.flush()
    metrics._record(counted, ())
    metrics._record(counted, ())
    assert _samples(registry, "limited")[("_total", "")] == 0  # still queued
    metrics._record(counted, ())  # the third: the queue is applied
    assert _samples(registry, "limited")[("_total", "")] == 3
    metrics._record(counted, ())
    metrics.render()  # a scrape of the process's registry applies what waits
    assert _samples(registry, "limited")[("_total", "")] == 4
