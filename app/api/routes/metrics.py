"""GET /metrics: Prometheus text exposition (app/observability/metrics.py lists the series).

Guarded like every other endpoint by ``API_TOKEN`` when it is set (Prometheus:
``authorization: {credentials: <API_TOKEN>}`` in the scrape config); not served at all
with ``METRICS_ENABLED=false``.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from app.api.deps import StateDep
from app.observability import metrics

router = APIRouter(tags=["health"])


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {metrics.CONTENT_TYPE: {}}, "description": "Prometheus text."}},
)
def get_metrics(state: StateDep) -> Response:
    """The service's metrics in Prometheus text format. A plain ``def``: reading every
    worker's files (multiprocess mode) runs off the event loop."""
    state.refresh_gauges()
    return Response(metrics.render(), media_type=metrics.CONTENT_TYPE)
