"""Observability: Prometheus metrics, request records and logs, build information.

Search figures are recorded with :func:`record_search`, once per search, where the
service turns a search result into a response; it feeds both the metrics and the request's
log line.
"""

from __future__ import annotations

from app.observability import metrics
from app.observability.metrics import set_store_state
from app.observability.requests import current, note_error, note_map

__all__ = [
    "metrics", "note_error", "note_map", "record_search", "record_searches", "set_store_state",
]  # fmt: skip


def record_search(algorithm: str, expanded: int, search_us: float, reason: str | None) -> None:
    """One search's figures: ``reason`` None when the goal was found."""
    metrics.observe_search(algorithm, search_us, expanded, reason or "found")
    record = current()
    if record is not None:
        record.search(algorithm, expanded, search_us)


def record_searches(algorithm: str, searches: list[tuple[int, float, str | None]]) -> None:
    """:func:`record_search` for each ``(expanded, search_us, reason)`` of ``searches``
    (a batch's, on one algorithm): the request's record locked once."""
    metrics.observe_searches(algorithm, searches)
    record = current()
    if record is not None:
        record.add_searches(algorithm, searches)
