"""The OpenAPI document: readable operation ids, every error status the service can give
declared with the envelope, the bearer schemes, the patterns it enforces, and examples that
work. (tests/system/test_schemathesis.py checks the answers against it, request by request.)"""

from __future__ import annotations

import re
import shutil

import pytest
from fastapi.testclient import TestClient

from app.api.openapi import OPERATION_IDS, REQUEST_EXAMPLES
from app.config import Settings
from app.main import create_app
from gridpath.grid.model import MAP_NAME_PATTERN
from tests.conftest import MAPS_DIR, wait_ready

API, ADMIN = "api-secret", "admin-secret"
PROBES = {"getHealth", "getLiveness", "getReadiness"}  # open, and their 503 is their own body
ERROR_REF = "#/components/schemas/ErrorResponse"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """A server with both tokens set, on a copy of the bundled maps (admin calls change them)."""
    maps = tmp_path_factory.mktemp("maps")
    shutil.copytree(MAPS_DIR, maps, dirs_exist_ok=True)
    app = create_app(Settings(maps_dir=maps, api_token=API, admin_token=ADMIN))
    with TestClient(app) as client:
        wait_ready(client)
        yield client


@pytest.fixture(scope="module")
def document(guarded):
    return guarded.get("/openapi.json").json()


def operations(document):
    for path, item in document["paths"].items():
        for method, op in item.items():
            yield path, method, op


def test_operation_ids_are_readable_and_unique(document):
    ids = [op["operationId"] for _, _, op in operations(document)]
    assert len(ids) == len(set(ids))
    # A route added without an entry in OPERATION_IDS gets FastAPI's `post_path_path_post`.
    assert all(re.fullmatch(r"[a-z]+(?:[A-Z][a-z]+)*", i) for i in ids), ids
    assert set(ids) <= set(OPERATION_IDS.values())
    assert {"findPath", "findPaths", "validatePath", "flowField", "getMap"} <= set(ids)


def test_no_fastapi_validation_error_shape(document):
    text = str(document)
    assert "HTTPValidationError" not in text and "#/components/schemas/ValidationError" not in text


def test_every_error_status_has_the_envelope(document):
    for path, method, op in operations(document):
        for status, response in op["responses"].items():
            if status.startswith(("4", "5")) and op["operationId"] not in PROBES:
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": ERROR_REF}, (method, path, status)


def test_statuses_every_operation_can_give_are_declared(document):
    for path, method, op in operations(document):
        responses = op["responses"]
        if op["operationId"] in PROBES:
            assert "security" not in op and "401" not in responses
            continue
        if op["operationId"] != "getMetrics":
            assert "503" in responses, (method, path)  # not_ready until the maps are loaded
        assert "401" in responses, (method, path)  # API_TOKEN is set here
        assert responses["401"]["headers"]["WWW-Authenticate"]
        if "requestBody" in op:
            assert {"413", "422"} <= set(responses), (method, path)
        if op.get("parameters"):
            assert "422" in responses, (method, path)
    for op_id in ("findPath", "findPaths"):
        op = next(op for _, _, op in operations(document) if op["operationId"] == op_id)
        assert "stale_revision" in op["responses"]["409"]["description"]


def test_bearer_schemes_are_declared(document):
    schemes = document["components"]["securitySchemes"]
    assert schemes["apiToken"] == {**schemes["apiToken"], "type": "http", "scheme": "bearer"}
    assert schemes["adminToken"]["scheme"] == "bearer"
    by_id = {op["operationId"]: op for _, _, op in operations(document)}
    assert by_id["findPath"]["security"] == [{"apiToken": []}]
    for op_id in ("editMap", "putMap", "deleteMap"):
        assert by_id[op_id]["security"] == [{"adminToken": []}]
        assert "403" in by_id[op_id]["responses"]


def test_without_api_token_the_scheme_is_optional(client):
    op = client.get("/openapi.json").json()["paths"]["/path"]["post"]
    assert op["security"] == [{"apiToken": []}, {}]
    assert "401" not in op["responses"]


def test_batch_queries_are_typed(document):
    queries = document["components"]["schemas"]["BatchRequest"]["properties"]["queries"]
    assert queries["items"] == {  # a grid's query, or a polygon map's
        "anyOf": [
            {"$ref": "#/components/schemas/PathQuery"},
            {"$ref": "#/components/schemas/PolygonPathQuery"},
        ]
    }
    assert "start" in document["components"]["schemas"]["PathQuery"]["required"]
    assert "start" in document["components"]["schemas"]["PolygonPathQuery"]["required"]


def test_enforced_patterns_are_declared(document):
    for path, method, op in operations(document):
        for parameter in op.get("parameters", ()):
            if parameter["name"] == "name":
                assert parameter["schema"]["pattern"] == MAP_NAME_PATTERN, (method, path)
    image = document["paths"]["/maps/{name}/image"]["get"]["parameters"]
    cells = {
        p["name"]: p["schema"]["anyOf"][0]["pattern"]
        for p in image
        if p["name"] in ("start", "goal")
    }
    assert re.fullmatch(cells["start"].strip("^$"), "-3,12")
    assert not re.fullmatch(cells["goal"].strip("^$"), "3, 12")


@pytest.mark.parametrize(
    "op_id,name", [(op, name) for op, examples in REQUEST_EXAMPLES.items() for name in examples]
)
def test_request_examples_work(guarded, document, op_id, name):
    path, method, op = next(
        (p, m, op) for p, m, op in operations(document) if op["operationId"] == op_id
    )
    example = op["requestBody"]["content"]["application/json"]["examples"][name]["value"]
    # the map edit examples edit maps nobody reads here (a grid, or the polygon map)
    url = path.replace("{name}", "courtyard" if "holes" in example else "field")
    auth = ADMIN if op_id == "editMap" else API
    response = guarded.request(
        method.upper(), url, json=example, headers={"Authorization": f"Bearer {auth}"}
    )
    assert response.status_code == 200, response.text
    if op_id == "findPaths":
        assert all("error" not in result for result in response.json()["results"])


@pytest.mark.parametrize(
    "method,url", [("POST", "/path"), ("PATCH", "/maps/arena"), ("POST", "/validate")]
)
def test_the_token_is_checked_before_the_body(guarded, method, url):
    headers = {"content-type": "application/json"}
    refused = guarded.request(method, url, content=b"{not json", headers=headers)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthorized"
    assert refused.headers["WWW-Authenticate"] == "Bearer"
    token = ADMIN if method == "PATCH" else API
    judged = guarded.request(
        method, url, content=b"{not json", headers={**headers, "Authorization": f"Bearer {token}"}
    )
    assert judged.status_code == 422
    assert judged.json()["error"]["code"] == "invalid_request"


def test_an_api_token_does_not_open_map_changes(guarded):
    response = guarded.patch(
        "/maps/arena", content=b"{not json", headers={"Authorization": f"Bearer {API}"}
    )
    assert response.status_code == 401


def test_405_lists_every_method_of_the_path(client):
    response = client.request("OPTIONS", "/maps/arena")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert set(response.headers["Allow"].split(", ")) >= {"GET", "PATCH", "PUT", "DELETE"}
    assert "POST" in client.get("/path").headers["Allow"]


def test_405_on_a_concrete_path_lists_its_own_methods(client):
    # /maps/reload is the reload action, matched before /maps/{name} (OpenAPI's path order)
    response = client.request("OPTIONS", "/maps/reload")
    assert response.status_code == 405
    assert response.headers["Allow"] == "POST"
