"""Observability: Prometheus metrics, request records and logs, build information.

Search figures are recorded with :func:`record_search`, once per search, where the
service turns a search result into a response; it feeds both the metrics and the request's
log line.
"""

from __future__ import annotations

from app.observability import metrics
from app.observability.metrics import set_store_state
from app.observability.requests import current, note_error, note_map

__all__ = ["metrics", "note_error", "note_map", "record_search", "set_store_state"]


def record_search(algorithm: str, expanded: int, search_us: float, reason: str | None) -> None:
    """One search's figures: ``reason`` None when the goal was found."""
    metrics.observe_search(algorithm, search_us, expanded, reason or "found")
    record = current()
    if record is not None:
        record.search(algorithm, expanded, search_us)
