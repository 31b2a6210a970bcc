"""JSON bodies straight from numpy, with the kernel time in a header."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import orjson
from fastapi.responses import Response


def server_timing(search_us: float) -> dict[str, str]:
    return {"Server-Timing": f"search;dur={search_us / 1000:.3f}"}


class SearchResponse(Response):
    """A 200 JSON answer with its ``Server-Timing``: Starlette's ``Response`` with its header
    list built directly (the same headers, in the same order, as ``Response(body,
    media_type="application/json", headers=server_timing(...))`` builds through
    ``init_headers``, which costs more than the rest of the answer's serialisation)."""

    media_type = "application/json"

    def __init__(self, body: bytes, search_us: float) -> None:
        self.status_code = 200
        self.background = None
        self.body = body
        self.raw_headers = [
            (b"server-timing", f"search;dur={search_us / 1000:.3f}".encode()),
            (b"content-length", str(len(body)).encode()),
            (b"content-type", b"application/json"),
        ]


def json_response(body: Any, search_us: float) -> Response:
    """Serialised straight from the numpy arrays, not validated through response_model (far
    slower: bench/README.md, "Figures behind decisions in the code"); the shapes are the
    declared response models. The kernel time goes in a header, so the
    body stays byte-for-byte deterministic."""
    return SearchResponse(orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY), search_us)


def encode_array(array: np.ndarray) -> dict:
    """A numpy array as JSON: little-endian bytes in base64, with its dtype and shape."""
    array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    return {
        "dtype": array.dtype.str,
        "shape": list(array.shape),
        "data": base64.b64encode(array.tobytes()).decode("ascii"),
    }
