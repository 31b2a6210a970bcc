"""The application's own check of the request head (app.api.limits.RequestHeadLimits): what
reaches it under a server without the limits (plain uvicorn) gets 414 / 431 as the envelope.
The parser of ``python -m app`` is tested on real processes (tests/system/test_request_head.py)."""

from __future__ import annotations


def test_a_target_over_max_url_bytes_is_414(client):
    assert client.get("/maps/arena", params={"pad": "a" * 7000}).status_code == 200
    answer = client.get("/maps/arena", params={"pad": "a" * 9000})
    assert answer.status_code == 414
    assert answer.json()["error"]["code"] == "uri_too_long"


def test_headers_over_max_header_bytes_are_431(client):
    assert client.get("/maps/arena", headers={"x-pad": "a" * 20_000}).status_code == 200
    answer = client.get("/maps/arena", headers={"x-pad": "a" * 40_000})
    assert answer.status_code == 431
    assert answer.json()["error"]["code"] == "headers_too_large"
    many = {f"x-{i}": "a" * 10 for i in range(3000)}
    assert client.get("/maps/arena", headers=many).json()["error"]["code"] == "headers_too_large"
