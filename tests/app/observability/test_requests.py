"""Metrics, request ids, request logs and the health endpoints, through the real app."""

from __future__ import annotations

import io
import json
import logging
import threading
import time

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.config import Settings
from app.main import create_app
from app.observability import set_store_state
from app.observability.logs import JsonFormatter
from tests.conftest import MAPS_DIR, wait_ready

PATH = {"map": "field", "start": [2, 2], "goal": [250, 250]}


def served(**settings) -> TestClient:
    return TestClient(create_app(Settings(maps_dir=MAPS_DIR, **settings)))


@pytest.fixture(scope="module")
def app_client():
    with served(search_expansions_per_ms=10) as client:
        wait_ready(client)
        yield client


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            found[(s.name, frozenset(s.labels.items()))] = s.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    """The sample ``name`` with (at least) these labels, summed over the other labels."""
    total, seen = 0.0, False
    for (sample_name, sample_labels), v in samples(text).items():
        if sample_name == name and set(labels.items()) <= sample_labels:
            total, seen = total + v, True
    assert seen, f"no sample {name} {labels}"
    return total


def test_metrics_show_the_traffic(app_client):
    before = app_client.get("/metrics").text
    assert app_client.post("/path", json=PATH).status_code == 200
    assert app_client.post("/path", json={**PATH, "max_expanded": 1}).json()["reason"] == (
        "limit_reached"
    )
    cells = [[2, 2], [30, 30]]  # not adjacent: a `not_adjacent`-style violation
    verdict = app_client.post("/validate", json={"map": "field", "path": cells}).json()
    assert verdict["valid"] is False
    goal = {"map": "arena", "goal": [5, 7], "connectivity": 4}
    assert app_client.post("/flowfield", json=goal).headers["x-cache"] == "miss"
    assert app_client.post("/flowfield", json=goal).headers["x-cache"] == "hit"
    assert app_client.post("/path", json={**PATH, "map": "nowhere"}).status_code == 404
    big = b'{"map": "arena", "pad": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    assert app_client.post("/path", content=big).status_code == 413
    response = app_client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    after = response.text

    def grew(name: str, by: float = 1, **labels: str) -> None:
        try:
            old = value(before, name, **labels)
        except AssertionError:
            old = 0.0
        assert value(after, name, **labels) - old >= by, (name, labels)

    grew("gridpath_http_requests_total", 2, method="POST", route="/path", status="200")
    grew("gridpath_http_request_duration_seconds_count", 2, route="/path", status="200")
    grew("gridpath_http_requests_total", route="/path", status="404")
    grew("gridpath_search_kernel_seconds_count", 2)
    grew("gridpath_search_expanded_count", 2)
    grew("gridpath_search_outcomes_total", outcome="found")
    grew("gridpath_search_outcomes_total", outcome="limit_reached")
    grew("gridpath_validate_verdicts_total", verdict="invalid")
    for violation in verdict["violations"]:
        grew("gridpath_validate_violations_total", code=violation["code"])
    grew("gridpath_flowfield_cache_total", result="miss")
    grew("gridpath_flowfield_cache_total", result="hit")
    grew("gridpath_rejected_requests_total", reason="map_not_found")
    grew("gridpath_rejected_requests_total", reason="payload_too_large")
    grew("gridpath_search_queue_wait_seconds_count", 2)
    assert value(after, "gridpath_search_queue_depth") == 0
    assert value(after, "gridpath_maps_loaded") >= 3
    assert value(after, "gridpath_map_revision", map="arena") == 1
    assert value(after, "gridpath_map_memory_bytes", map="field") > 256 * 256
    assert value(after, "gridpath_build_info") == 1
    # Route templates, never raw paths: a scan of random URLs cannot grow the series.
    assert app_client.get("/no/such/thing").status_code == 404
    text = app_client.get("/metrics").text
    assert 'route="unmatched"' in text and "/no/such/thing" not in text


def test_unreachable_outcome_is_counted(app_client):
    before = app_client.get("/metrics").text
    # A goal enclosed by `blocked` cells.
    ring = [[x, y] for x in range(9, 14) for y in range(9, 14) if (x, y) != (11, 11)]
    body = app_client.post(
        "/path", json={"map": "field", "start": [2, 2], "goal": [11, 11], "blocked": ring}
    ).json()
    assert body["reason"] == "unreachable"
    after = app_client.get("/metrics").text
    old = 0.0
    if 'outcome="unreachable"' in before:
        old = value(before, "gridpath_search_outcomes_total", outcome="unreachable")
    assert value(after, "gridpath_search_outcomes_total", outcome="unreachable") == old + 1


def test_a_batch_counts_each_search(app_client):
    """A /paths batch's common queries, searched in one compiled call, are counted one by
    one in the metrics, with their outcome (30 found, then 40 capped; the query with
    blocked cells is searched alone, by another algorithm)."""
    queries = [{"start": [2, 2], "goal": [3 + i % 20, 5 + i // 20]} for i in range(30)]
    queries += [{"start": [2, 2], "goal": [11, 11], "blocked": [[10, 10]]}]
    capped = {"map": "arena", "queries": [{"start": [2, 2], "goal": [40, 50]}] * 40}
    names = ("gridpath_search_kernel_seconds_count", "gridpath_search_expanded_count")

    def counts(text: str) -> list[float]:
        def read(name: str, **labels: str) -> float:
            try:
                return value(text, name, **labels)
            except AssertionError:  # not observed yet
                return 0.0

        def total(name: str, **labels: str) -> float:  # auto: the tier on field, JPS on arena
            return sum(read(name, algorithm=a, **labels) for a in ("jps", "subgoal"))

        outcome = "gridpath_search_outcomes_total"
        found = total(outcome, outcome="found")
        limit = total(outcome, outcome="limit_reached")
        return [found, limit] + [total(name) for name in names]

    before = counts(app_client.get("/metrics").text)
    answer = app_client.post("/paths", json={"map": "field", "queries": queries})
    assert [r["found"] for r in answer.json()["results"]] == [True] * 31
    settings = app_client.app.state.service.settings
    old, settings.max_batch_expanded = settings.max_batch_expanded, 40 * 3
    try:
        results = app_client.post("/paths", json=capped).json()["results"]
    finally:
        settings.max_batch_expanded = old
    assert {r["reason"] for r in results} == {"limit_reached"}
    after = counts(app_client.get("/metrics").text)
    assert [a - b for a, b in zip(after, before, strict=True)] == [30, 40, 70, 70]


def test_store_state_gauge(app_client):
    set_store_state("degraded")  # a stale state is replaced by the store's own at each scrape
    text = app_client.get("/metrics").text
    assert value(text, "gridpath_store_state", state="ok") == 1
    assert value(text, "gridpath_store_state", state="degraded") == 0


def test_metrics_need_the_api_token_when_one_is_set():
    with served(api_token="s3cret") as client:
        assert client.get("/metrics").status_code == 401
        ok = client.get("/metrics", headers={"authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and "gridpath_http_requests_total" in ok.text
        assert client.get("/health/live").status_code == 200  # probes stay open


def test_metrics_can_be_switched_off():
    with served(metrics_enabled=False) as client:
        response = client.get("/metrics")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "given, kept",
    [
        ("3f1c2d4e-0b9a-4c1d-8e2f-1234567890ab", True),
        ("svc-7.checkout:42", True),
        ("x" * 128, True),
        ("x" * 129, False),
        ("bad id with spaces", False),
        ('"><script>', False),
        ("line\\nbreak", False),
    ],
)
def test_request_id_is_echoed_when_safe(app_client, given, kept):
    response = app_client.post("/path", json=PATH, headers={"x-request-id": given})
    assert response.status_code == 200
    returned = response.headers["x-request-id"]
    if kept:
        assert returned == given
    else:
        assert returned != given and len(returned) == 32 and int(returned, 16) >= 0


def test_every_response_carries_a_request_id(app_client):
    ids = set()
    for method, url, body in [
        ("POST", "/path", PATH),
        ("POST", "/path", {"map": "field"}),  # 422
        ("POST", "/path", {**PATH, "map": "nowhere"}),  # 404
        ("GET", "/nowhere", None),  # unmatched route
        ("GET", "/health", None),
    ]:
        response = app_client.request(method, url, json=body)
        ids.add(response.headers["x-request-id"])
    big = b'{"map": "arena", "pad": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    refused = app_client.post("/path", content=big)  # refused by the size-limit middleware
    assert refused.status_code == 413
    ids.add(refused.headers["x-request-id"])
    assert len(ids) == 6  # generated, and different for each request


def test_one_log_line_per_request_with_the_search(app_client, caplog):
    with caplog.at_level(logging.INFO, logger="gridpath.access"):
        response = app_client.post("/path", json=PATH, headers={"x-request-id": "trace-1"})
    lines = [r for r in caplog.records if r.name == "gridpath.access"]
    assert len(lines) == 1
    fields = lines[0].fields
    body = response.json()
    assert fields["request_id"] == "trace-1" == response.headers["x-request-id"]
    assert fields["route"] == "/path" and fields["method"] == "POST" and fields["status"] == 200
    assert fields["map"] == "field" and fields["revision"] == body["revision"]
    assert fields["algorithm"] == body["algorithm"] and fields["expanded"] == body["expanded"]
    assert fields["kernel_us"] > 0 and fields["duration_ms"] > 0
    entry = json.loads(JsonFormatter().format(lines[0]))
    assert entry["message"] == "request" and entry["level"] == "info"
    assert entry["request_id"] == "trace-1" and entry["expanded"] == body["expanded"]


def test_error_log_line_names_the_code(app_client, caplog):
    with caplog.at_level(logging.INFO, logger="gridpath.access"):
        app_client.post("/path", json={**PATH, "map": "nowhere"})
    (line,) = [r for r in caplog.records if r.name == "gridpath.access"]
    assert line.fields["status"] == 404 and line.fields["error"] == "map_not_found"


def test_a_batch_logs_the_sum_of_its_searches(app_client, caplog):
    queries = [{"start": [2, 2], "goal": [9, 9]}, {"start": [2, 2], "goal": [5, 40]}]
    with caplog.at_level(logging.INFO, logger="gridpath.access"):
        body = app_client.post("/paths", json={"map": "arena", "queries": queries}).json()
    (line,) = [r for r in caplog.records if r.name == "gridpath.access"]
    assert line.fields["searches"] == 2
    assert line.fields["expanded"] == sum(r["expanded"] for r in body["results"])


def test_uvicorn_access_log_does_not_double_ours(app_client):
    from _pytest.logging import LogCaptureHandler

    access = logging.getLogger("uvicorn.access")
    assert access.disabled
    # No handler of its own nor, through propagation, the root's (pytest's capture aside):
    # uvicorn then skips building each access line's arguments, as with --no-access-log.
    assert not access.propagate
    assert all(isinstance(h, LogCaptureHandler) for h in access.handlers), access.handlers


def test_health_carries_version_and_commit(app_client):
    body = app_client.get("/health").json()
    assert body["status"] == "ok" and body["version"] == "0.1.0"
    assert body["commit"] == "unknown" or len(body["commit"]) >= 7


def test_live_and_ready(app_client):
    assert app_client.get("/health/live").json() == {"status": "alive"}
    ready = app_client.get("/health/ready")
    assert ready.status_code == 200 and ready.json() == {"status": "ready", "checks": {}}


def test_ready_follows_the_readiness_checks(app_client):
    state = app_client.app.state.service
    state.readiness_checks["store"] = lambda: "unreachable: connection refused"
    try:
        response = app_client.get("/health/ready")
        assert response.status_code == 503
        assert response.json() == {
            "status": "not_ready",
            "checks": {"store": "unreachable: connection refused"},
        }
        assert app_client.get("/health/live").status_code == 200
    finally:
        del state.readiness_checks["store"]
    assert app_client.get("/health/ready").status_code == 200


def test_ready_is_503_until_the_maps_are_loaded(app_client):
    state = app_client.app.state.service
    state.ready.clear()  # as before start-up finished
    try:
        response = app_client.get("/health/ready")
        assert response.status_code == 503 and "maps" in response.json()["checks"]
    finally:
        state.ready.set()


def test_time_budget_is_a_deterministic_expansion_budget(app_client):
    # search_expansions_per_ms=10 in this app: 3 ms is a budget of 30 expansions.
    query = {**PATH, "algorithm": "astar", "time_budget_ms": 3}
    first = app_client.post("/path", json=query)
    body = first.json()
    assert body["found"] is False and body["reason"] == "limit_reached"
    assert body["options"]["max_expanded"] == 30 and body["expanded"] <= 30
    assert app_client.post("/path", json=query).content == first.content


def test_time_budget_is_capped_by_max_search_ms():
    with served(max_search_ms=2, search_expansions_per_ms=10) as client:
        wait_ready(client)
        body = client.post("/path", json={**PATH, "time_budget_ms": 1000}).json()
        assert body["options"]["max_expanded"] == 20 and body["reason"] == "limit_reached"


@pytest.mark.parametrize("budget", [0, -5, 1.5, "10", True])
def test_bad_time_budget(app_client, budget):
    response = app_client.post("/path", json={**PATH, "time_budget_ms": budget})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_time_budget_ms"


def test_overloaded_is_503_with_retry_after_at_once():
    with served(search_threads=1, search_queue=0, short_search_threads=0) as client:
        wait_ready(client)
        state = client.app.state.service
        started, release = threading.Event(), threading.Event()

        def hold() -> None:
            started.set()
            release.wait(30)

        holder = state.scheduler.submit(hold, cost=10**9)
        assert started.wait(30)  # the one search thread is busy before the requests come
        try:
            for url, body in [
                ("/path", PATH),
                ("/paths", {"map": "arena", "queries": [{"start": [2, 2], "goal": [9, 9]}]}),
                ("/validate", {"map": "arena", "path": [[2, 2], [3, 3]]}),
                ("/flowfield", {"map": "arena", "goal": [5, 7]}),
            ]:
                response = client.post(url, json=body)
                assert response.status_code == 503, (url, response.text)
                assert response.json()["error"]["code"] == "overloaded"
                assert response.headers["retry-after"] == "1"
                assert "x-request-id" in response.headers
            assert client.get("/health").status_code == 200
            text = client.get("/metrics").text
            assert value(text, "gridpath_rejected_requests_total", reason="overloaded") >= 4
            # The gauges are process-wide and other apps live in this test process (the
            # module's and the session's clients), whose samplers set them too: one of a
            # few scrapes must show this app's running search.
            running = [value(client.get("/metrics").text, "gridpath_searches_running")]
            while running[-1] != 1 and len(running) < 5:
                running.append(value(client.get("/metrics").text, "gridpath_searches_running"))
            assert running[-1] == 1, running
        finally:
            release.set()
            holder.result(10)
        assert client.post("/path", json=PATH).status_code == 200


def _held(state) -> tuple[threading.Event, object]:
    """The one search thread held by a long search until the returned event is set."""
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait(30)

    holder = state.scheduler.submit(hold, cost=10**9)
    assert started.wait(30)
    return release, holder


def test_a_search_waiting_past_the_queue_wait_limit_gets_503_overloaded():
    settings = {"search_threads": 1, "short_search_threads": 0, "search_queue_wait_ms": 200}
    with served(**settings) as client:
        wait_ready(client)
        release, holder = _held(client.app.state.service)
        try:
            began = time.perf_counter()
            response = client.post("/path", json=PATH)
            waited = time.perf_counter() - began
            assert response.status_code == 503 and response.headers["retry-after"] == "1"
            error = response.json()["error"]
            assert error["code"] == "overloaded" and "SEARCH_QUEUE_WAIT_MS=200" in error["message"]
            assert 0.2 <= waited < 5, waited
            assert client.app.state.service.scheduler.depth == 0  # it left the queue
        finally:
            release.set()
            holder.result(10)
        assert client.post("/path", json=PATH).status_code == 200


def test_the_short_lane_answers_while_every_search_thread_is_busy():
    settings = {"search_threads": 1, "short_search_threads": 1, "search_queue_wait_ms": 200}
    with served(**settings, short_search_expansions=10_000) as client:
        wait_ready(client)
        release, holder = _held(client.app.state.service)
        try:
            short = {"map": "arena", "start": [2, 2], "goal": [24, 9]}  # 4,096 cells
            assert client.post("/path", json=short).status_code == 200  # on the lane
            long = {"map": "field", "start": [1, 1], "goal": [250, 250]}  # 65,536 cells
            assert client.post("/path", json=long).status_code == 503  # never on the lane
        finally:
            release.set()
            holder.result(10)


def test_lines_logged_during_a_request_carry_its_id(app_client, caplog, monkeypatch):
    import app.api.path_body as path_body

    def broken(*args, **kwargs):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(path_body, "find_path", broken)
    client = TestClient(app_client.app, raise_server_exceptions=False)  # same running app
    written = io.StringIO()
    handler = logging.StreamHandler(written)  # formats when the line is logged, as in service
    handler.setFormatter(JsonFormatter())
    logging.getLogger("app.api.errors").addHandler(handler)
    try:
        with caplog.at_level(logging.INFO):
            response = client.post("/path", json=PATH, headers={"x-request-id": "boom-7"})
    finally:
        logging.getLogger("app.api.errors").removeHandler(handler)
    assert response.status_code == 500 and response.headers["x-request-id"] == "boom-7"
    assert response.json()["error"]["code"] == "internal_error"
    (entry,) = [json.loads(line) for line in written.getvalue().splitlines()]
    assert entry["request_id"] == "boom-7" and "kernel exploded" in entry["exception"]
    (line,) = [r for r in caplog.records if r.name == "gridpath.access"]
    assert line.fields["status"] == 500 and line.fields["error"] == "internal_error"


def test_generated_request_ids_differ_across_processes_and_requests():
    import multiprocessing

    from app.observability.requests import request_id_from

    here = [request_id_from([]) for _ in range(3)]
    assert len(set(here)) == 3 and all(len(i) == 32 and int(i, 16) >= 0 for i in here)
    with multiprocessing.get_context("fork").Pool(1) as pool:  # a forked worker, as uvicorn's
        there = pool.apply(request_id_from, ([],))
    assert len(there) == 32 and there[:16] != here[0][:16]  # its own prefix
