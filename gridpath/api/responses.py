"""JSON bodies straight from numpy, with the kernel time in a header."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import Response


def server_timing(search_us: float) -> dict[str, str]:
    return {"Server-Timing": f"search;dur={search_us / 1000:.3f}"}


def json_response(body: Any, search_us: float) -> Response:
    """Serialised straight from the numpy arrays (bench/serialize.py measures why); the
    shapes are the declared response models. The kernel time goes in a header, so the
    body stays byte-for-byte deterministic."""
    return Response(
        orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY),
        media_type="application/json",
        headers=server_timing(search_us),
    )
