"""Robustness of the HTTP API under hostile input (property tests through the real app).

The rule: bad input gets a clear error and changes nothing. Every error is the JSON
envelope ``{"error": {"code": "...", "message": "..."}}`` with a 4xx status; no input
gives a 500 or hangs the server; a refused map change leaves the map as it was.

Request bodies are derived from the request models of ``app.models`` (their JSON
schemas: fields, types, enums, bounds), so a new field is fuzzed without touching this
file. ``FUZZ_EXAMPLES=2000`` runs every property with that many examples.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import time
from typing import Any
from urllib.parse import quote

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from pydantic import BaseModel

from app.api.errors import OPTION_FIELDS
from app.cache import LRUCache
from app.models import (
    BatchRequest,
    FlowFieldRequest,
    MapEdit,
    MapPatch,
    PathQuery,
    PathRequest,
    ValidateRequest,
)
from gridpath.grid.model import MAP_NAME_PATTERN
from tests.app.api.test_api_admin import ADMIN, TOKEN, make_client, png_bytes
from tests.conftest import wait_ready

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0"))
SLOW_REQUEST_S = 15.0  # far beyond any answer on the bundled maps: a hang, not a slow search


def fuzz(examples: int):
    return settings(
        max_examples=EXAMPLES or examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


@pytest.fixture(scope="module", autouse=True)
def own_flowfield_cache(client):
    """The shared app gets a flow-field cache of its own while this module runs: other tests
    count that cache's hits and misses."""
    service = client.app.state.service
    shared = service.flowfields
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service, "flowfields", LRUCache(shared.maxsize, shared.max_bytes))
        yield


# --- checking every response ---------------------------------------------------------------


def check_response(response) -> Any:
    """The product rule for one response; returns the parsed JSON body (None for a PNG)."""
    status = response.status_code
    assert status < 500, f"{status}: {response.text[:500]}"
    assert 200 <= status < 300 or 400 <= status < 500, status
    if status >= 400:
        assert response.headers["content-type"] == "application/json", response.headers
        body = orjson.loads(response.content)
        check_envelope(body)
        return body
    if response.headers.get("content-type") == "image/png":
        assert response.content.startswith(b"\x89PNG\r\n\x1a\n")
        return None
    body = orjson.loads(response.content)  # strict JSON: no NaN or Infinity tokens
    for result in body.get("results", [body]) if isinstance(body, dict) else []:
        if isinstance(result, dict) and result.get("found") is True:
            cost = result["cost"]  # a found path has a finite cost (1e308 terrain overflowed)
            assert isinstance(cost, (int, float)) and math.isfinite(cost), result
    return body


def check_envelope(body: Any) -> None:
    assert isinstance(body, dict) and list(body) == ["error"], body
    error = body["error"]
    assert isinstance(error, dict) and sorted(error) == ["code", "message"], body
    assert isinstance(error["code"], str) and error["code"], body
    assert isinstance(error["message"], str) and error["message"], body


def send(client, method: str, url: str, content: bytes | None = None, headers=None):
    began = time.monotonic()
    response = client.request(method, url, content=content, headers=headers)
    elapsed = time.monotonic() - began
    assert elapsed < SLOW_REQUEST_S, f"{method} {url} took {elapsed:.1f} s"
    return response, check_response(response)


def encode(body: Any) -> bytes:
    # json, not orjson: NaN and Infinity go out as the non-standard tokens a client may send.
    return json.dumps(body, allow_nan=True).encode()


JSON = {"content-type": "application/json"}


def post(client, url: str, body: Any):
    return send(client, "POST", url, encode(body), JSON)


# --- hostile values ------------------------------------------------------------------------

HUGE_INTS = st.sampled_from(
    [-1, -(2**31), 2**31 - 1, 2**31, 2**53 + 1, 2**63, -(2**63) - 1, 2**64, 10**30, -(10**100)]
)
SPECIAL_FLOATS = st.sampled_from(
    [math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, -0.0, 0.5, 1.5, 1e-300, 2.0**53]
)
NUMBERS = st.one_of(st.integers(-3, 300), HUGE_INTS, SPECIAL_FLOATS, st.floats())
TEXT = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "arena", "auto", "blocked", "png", "\ud800", "1", "2.5", "true", "NaN"]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
# Over the server's caps (MAX_GOALS 256, MAX_BATCH 1000, MAX_BLOCKED 4096), built by
# repetition so they cost hypothesis nothing.
HUGE_LENGTHS = st.sampled_from([257, 1001, 4097])
MAP_NAMES = st.one_of(
    st.sampled_from(["arena", "maze", "field", "nope", "a" * 65, "../arena", "arena.png", ""]),
    st.from_regex(MAP_NAME_PATTERN, fullmatch=True),
    st.text(max_size=70),
)
COORDS = st.one_of(st.integers(-2, 70), st.integers(-2, 260), HUGE_INTS)
TERRAIN_NAMES = st.sampled_from(["ground", "swamp", "grey_200", "cost_3", "lava", ""])


# --- bodies derived from the request models ------------------------------------------------


def resolve(schema: dict, defs: dict) -> dict:
    while "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def schema_of(model: type[BaseModel]) -> tuple[dict, dict]:
    schema = model.model_json_schema()
    return schema, schema.get("$defs", {})


def plausible(
    schema: dict, defs: dict, field: str, *, wild: bool, huge: bool = False
) -> st.SearchStrategy:
    """Values of the declared shape, at and past their limits. ``wild``: hostile leaves too
    (any name, huge integers, NaN); else mostly usable values, so that searches run with
    odd option combinations. ``huge``: lists may be over the server's caps (at the top
    level only, so that a body stays under a megabyte)."""
    schema = resolve(schema, defs)
    if field == "map":
        return MAP_NAMES if wild else st.sampled_from(["arena", "maze", "field"])
    inner = {"wild": wild, "huge": False}
    if "anyOf" in schema:
        return st.one_of([plausible(s, defs, field, wild=wild, huge=huge) for s in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        bounds = [
            schema[k] + d
            for k in ("minimum", "maximum", "exclusiveMinimum")
            if k in schema
            for d in (-1, 0, 1)
        ]
        near = st.sampled_from(bounds) if bounds else st.nothing()
        if kind == "integer":
            return st.one_of(COORDS if wild else st.integers(0, 63) | st.integers(0, 255), near)
        usable = st.floats(0, 5) | st.integers(0, 5)
        return st.one_of(near, usable, SPECIAL_FLOATS if wild else st.just(1e6))
    if kind == "string":
        return TEXT
    if kind == "array":
        if "prefixItems" in schema:
            return st.tuples(*(plausible(s, defs, field, **inner) for s in schema["prefixItems"]))
        items = plausible(schema.get("items", {}), defs, field, **inner)
        lists = st.lists(items, min_size=schema.get("minItems", 0), max_size=4)
        if not huge:
            return lists
        return st.one_of(lists, st.builds(lambda item, n: [item] * n, items, HUGE_LENGTHS))
    if kind == "object":
        if "properties" in schema:
            return object_body(schema, defs, **inner)
        values = schema.get("additionalProperties")
        if isinstance(values, dict):
            keys = st.one_of(TERRAIN_NAMES, st.text(max_size=8)) if wild else TERRAIN_NAMES
            return st.dictionaries(keys, plausible(values, defs, field, **inner), max_size=3)
    return JSON_VALUES


def field_value(schema: dict, defs: dict, field: str, **mode: bool) -> st.SearchStrategy:
    shaped = plausible(schema, defs, field, **mode)
    return st.one_of(shaped, shaped, shaped, JSON_VALUES) if mode["wild"] else shaped


@st.composite
def object_body(
    draw, schema: dict, defs: dict, overrides: dict | None = None, **mode: bool
) -> dict:
    """An object with the model's fields: the required ones (``wild``: most of them), some
    optional ones, each a plausible (``wild``: or hostile) value; now and then (``wild``) an
    unknown field. ``overrides``: strategies for some fields (a strategy for ``goal`` makes
    it required: the schemas cannot say that a query needs ``goal`` or ``goals``)."""
    overrides = overrides or {}
    props = schema["properties"]
    required = set(schema.get("required", ())) | ({"goal"} & set(overrides))
    body = {}
    for name in sorted(props):
        if name in required:
            keep = not mode["wild"] or draw(st.integers(0, 9)) > 0
        else:
            keep = draw(st.integers(0, 5)) == 0
        if keep:
            strategy = overrides.get(name, None)
            if strategy is None:
                strategy = field_value(props[name], defs, name, **mode)
            body[name] = draw(strategy)
    if mode["wild"] and draw(st.integers(0, 9)) == 0:
        body[draw(st.text(max_size=8))] = draw(JSON_VALUES)
    return body


def model_body(
    model: type[BaseModel], *, wild: bool = True, huge: bool = True, **overrides
) -> st.SearchStrategy:
    schema, defs = schema_of(model)
    return object_body(schema, defs, overrides, wild=wild, huge=huge)


def bodies(model: type[BaseModel], **overrides) -> st.SearchStrategy:
    """Wild bodies, and bodies of usable values in odd combinations."""
    return st.one_of(
        model_body(model, wild=True, **overrides), model_body(model, wild=False, **overrides)
    )


def goal_and_options(model: type[BaseModel]) -> st.SearchStrategy:
    """A query's usable values (with a goal, which the schema cannot require), or wild ones."""
    schema, defs = schema_of(model)
    goal = plausible(schema["properties"]["goal"], defs, "goal", wild=False)
    return st.one_of(model_body(model), model_body(model, wild=False, goal=goal))


QUERIES = goal_and_options(PathQuery)
SMALL_QUERIES = model_body(PathQuery, huge=False)
BODIES = {
    "/path": goal_and_options(PathRequest),
    "/paths": bodies(
        BatchRequest,
        queries=st.one_of(
            st.lists(st.one_of(QUERIES, QUERIES, JSON_VALUES), max_size=4),
            st.builds(lambda q, n: [q] * n, SMALL_QUERIES, HUGE_LENGTHS),
        ),
    ),
    "/validate": bodies(ValidateRequest),
    "/flowfield": bodies(FlowFieldRequest),
}


# --- values of the wrong type or shape, field by field -------------------------------------


def json_types(schema: dict, defs: dict) -> set[str]:
    """The JSON types a schema accepts ("integer" is also a "number")."""
    schema = resolve(schema, defs)
    if "anyOf" in schema:
        return set().union(*(json_types(s, defs) for s in schema["anyOf"]))
    if "enum" in schema:
        kinds = {"string" if isinstance(v, str) else "integer" for v in schema["enum"]}
    elif "type" in schema:
        kinds = {schema["type"]}
    else:
        return {"null", "boolean", "integer", "number", "string", "array", "object"}
    return kinds | ({"integer"} if "number" in kinds else set())


KINDS = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": st.one_of(st.integers(-3, 300), HUGE_INTS),
    "number": st.one_of(
        st.floats().filter(lambda f: not f.is_integer()),
        st.sampled_from([math.nan, math.inf, -math.inf, 0.5, 1.5]),
    ),
    "string": TEXT,
    "array": st.lists(SCALARS, max_size=3),
    "object": st.dictionaries(st.text(max_size=5), SCALARS, max_size=3),
}


def _accepts_string(schema: dict, defs: dict, value: str) -> bool:
    schema = resolve(schema, defs)
    if "anyOf" in schema:
        return any(_accepts_string(s, defs, value) for s in schema["anyOf"])
    if "enum" in schema:
        return value in schema["enum"]
    if schema.get("type") != "string":
        return False
    return "pattern" not in schema or re.search(schema["pattern"], value) is not None


def _out_of_range(schema: dict, defs: dict) -> list:
    schema = resolve(schema, defs)
    if "anyOf" in schema:
        return [v for s in schema["anyOf"] for v in _out_of_range(s, defs)]
    small = 1 if schema.get("type") == "integer" else 1e-9
    values = []
    if "minimum" in schema:
        values += [schema["minimum"] - small, -1e300]
    if "exclusiveMinimum" in schema:
        values += [schema["exclusiveMinimum"], schema["exclusiveMinimum"] - small]
    if "maximum" in schema:
        values += [schema["maximum"] + small, 2**63]
    return values


def wrong(schema: dict, defs: dict, example: Any = None) -> st.SearchStrategy:
    """Values the schema refuses: another JSON type, a string outside its enum or pattern,
    a number out of range, an array of the wrong length, or (given a valid ``example``)
    the example with one wrong element inside."""
    accepted = json_types(schema, defs)
    options = [KINDS[k] for k in KINDS if k not in accepted]
    if "string" in accepted:
        options.append(TEXT.filter(lambda s: not _accepts_string(schema, defs, s)))
    out_of_range = _out_of_range(schema, defs)
    if out_of_range:
        options.append(st.sampled_from(out_of_range))
    schema = resolve(schema, defs)
    branches = [resolve(s, defs) for s in schema.get("anyOf", [schema])]
    shaped = [s for s in branches if s.get("type") in ("array", "object")]
    if len(shaped) == 1 and example is not None:
        options += _wrong_inside(shaped[0], defs, example)
    return st.one_of(options)


def _wrong_inside(schema: dict, defs: dict, example: Any) -> list[st.SearchStrategy]:
    options = []
    if schema["type"] == "array" and isinstance(example, list):
        if "prefixItems" in schema:
            options += [st.just(example + example[:1]), st.just(example[:-1])]
            for i, item in enumerate(schema["prefixItems"]):
                element = wrong(item, defs, example[i])
                options.append(element.map(lambda v, i=i: [*example[:i], v, *example[i + 1 :]]))
        elif example:
            element = wrong(schema.get("items", {}), defs, example[0])
            options.append(element.map(lambda v: [*example, v]))
        if schema.get("minItems", 0) > 0:
            options.append(st.just([]))
    if schema["type"] == "object" and isinstance(example, dict):
        for key, prop in schema.get("properties", {}).items():
            element = wrong(prop, defs, example.get(key))
            options.append(element.map(lambda v, key=key: {**example, key: v}))
        values = schema.get("additionalProperties")
        if isinstance(values, dict) and example:
            key = next(iter(example))
            options.append(wrong(values, defs, example[key]).map(lambda v: {**example, key: v}))
    return options


# A valid value for every field of every request model: the base of each request, and what
# a wrong value is put inside. test_every_field_has_an_example keeps it complete.
FIELD_EXAMPLES: dict[str, Any] = {
    "map": "arena",
    "start": [2, 2],
    "goal": [40, 50],
    "goals": [[40, 50], [3, 3]],
    "revision": 1,
    "algorithm": "astar",
    "heuristic": "octile",
    "heuristic_weight": 1.5,
    "connectivity": 8,
    "diagonal": "one_free",
    "cost_model": "float",
    "clearance": 1,
    "terrain_costs": {"ground": 2.0},
    "blocked": [[10, 10]],
    "max_expanded": 100,
    "max_cost": 1000.0,
    "time_budget_ms": 50,
    "closest": True,
    "turn_penalty": 0.5,
    "smooth": False,
    "snap": True,
    "include": ["path", "explored"],
    "queries": [{"start": [2, 2], "goal": [40, 50]}],
    "path": [[2, 2], [3, 3]],
    "mode": "cells",
    "compare_optimal": True,
    "timing": True,
    "format": "png",
    "set": [{"cells": [[3, 3]], "value": "blocked"}],
    "if_revision": 1,
    "holes": [{"op": "add", "ring": [[1, 1], [2, 1], [2, 2]]}],  # polygon maps' edits
    "waypoints": [[1.5, 1.5]],
    "cells": [[3, 3]],
    "rect": [4, 4, 5, 6],
    "value": 2,
}
BASES = {
    "/path": (PathRequest, {"map": "arena", "start": [2, 2], "goal": [40, 50]}),
    "/paths": (BatchRequest, {"map": "arena", "queries": [{"start": [2, 2], "goal": [40, 50]}]}),
    "/validate": (ValidateRequest, {"map": "arena", "path": [[2, 2], [3, 3]]}),
    "/flowfield": (FlowFieldRequest, {"map": "arena", "goal": [40, 50]}),
}
FIELDS = [(url, name) for url, (model, _) in BASES.items() for name in model.model_fields]
QUERY_FIELDS = [name for name in PathQuery.model_fields]
PATCH_FIELDS = [name for name in MapPatch.model_fields]
EDIT_FIELDS = [name for name in MapEdit.model_fields]


def expected_code(field: str) -> str:
    return f"invalid_{field}" if field in OPTION_FIELDS else "invalid_request"


def wrong_body(model: type[BaseModel], base: dict, field: str) -> st.SearchStrategy:
    schema, defs = schema_of(model)
    wrong_value = wrong(schema["properties"][field], defs, FIELD_EXAMPLES[field])
    return wrong_value.map(lambda value: {**base, field: value})


def test_every_field_has_an_example():
    models = [PathRequest, BatchRequest, ValidateRequest, FlowFieldRequest, MapPatch, MapEdit]
    for model in models:
        schema, _ = schema_of(model)
        assert set(schema["properties"]) <= set(FIELD_EXAMPLES), model.__name__


@pytest.mark.parametrize("url,field", FIELDS)
def test_field_examples_are_accepted(client, url, field):
    """The base of every wrong-value test is valid, so a refusal is the wrong value's doing."""
    model, base = BASES[url]
    body = {**base, field: FIELD_EXAMPLES[field]}
    if field == "goals":
        body.pop("goal")
    response, answer = post(client, url, body)
    assert response.status_code == 200, answer
    if url == "/paths":
        assert "error" not in answer["results"][0], answer


# --- the properties ------------------------------------------------------------------------


@fuzz(15)
@given(data=st.data())
@pytest.mark.parametrize("url,field", FIELDS)
def test_a_wrong_value_for_any_field_is_refused(client, url, field, data):
    model, base = BASES[url]
    body = data.draw(wrong_body(model, base, field), label="body")
    response, answer = post(client, url, body)
    if url == "/paths" and field == "queries" and response.status_code == 200:
        # A list whose wrong part is inside a query (documented as PathQuery): that query
        # is answered with its error in its place (the next test), the batch is not refused.
        assert any("error" in result for result in answer["results"]), answer
        return
    assert response.status_code == 422, answer
    assert answer["error"]["code"] == expected_code(field), answer
    assert field in answer["error"]["message"], answer


@fuzz(15)
@given(data=st.data())
@pytest.mark.parametrize("field", QUERY_FIELDS)
def test_a_wrong_value_in_a_batch_query_fails_that_query_alone(client, field, data):
    query = data.draw(wrong_body(PathQuery, {"start": [2, 2], "goal": [40, 50]}, field))
    good = {"start": [2, 2], "goal": [3, 3]}
    response, answer = post(client, "/paths", {"map": "arena", "queries": [good, query]})
    assert response.status_code == 200, answer
    first, second = answer["results"]
    assert first["found"] is True
    check_envelope(second)
    assert second["error"]["code"] == expected_code(field), second


@fuzz(60)
@given(data=st.data())
@pytest.mark.parametrize("url", sorted(BODIES))
def test_hostile_bodies_get_an_answer_or_an_error_envelope(client, url, data):
    body = data.draw(BODIES[url], label="body")
    response, answer = post(client, url, body)
    if url == "/paths" and response.status_code == 200:
        assert len(answer["results"]) == len(body["queries"])
        for result in answer["results"]:
            assert isinstance(result, dict)
            if "error" in result:
                check_envelope(result)


CONTENT_TYPES = st.sampled_from(
    [
        "application/json",
        "application/json; charset=utf-16",
        "application/vnd.api+json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "image/png",
        "",
        "application/",
    ]
)
RAW_BODIES = st.one_of(
    JSON_VALUES.map(encode),
    st.binary(max_size=200),
    st.sampled_from(
        [
            b"",
            b"{",
            b"null",
            b"[" * 50_000 + b"]" * 50_000,
            b'{"map": "arena", "start": [2, 2], "goal": [40, 50], "start": [1, 1]}',
            b'{"map": "arena", "start": [2, 2], "goal": [40, NaN]}',
            b'{"map": "arena", "start": [2, 2], "goal": [40, 50], "max_cost": -Infinity}',
            b'{"map": "arena", "start": [2, 2], "goal": [40, 1e999]}',
            b'{"map": "arena", "start": [2, 2], "goal": [40, 5' + b"0" * 5000 + b"]}",
            b'\xef\xbb\xbf{"map": "arena", "start": [2, 2], "goal": [40, 50]}',
            b'{"map": "\\ud800", "terrain_costs": {"\\udfff": "x"}, "\\ud800": 1}',
            b"\xff\xfe\x00\x00",
        ]
    ),
)
ENDPOINTS = st.sampled_from(
    [("POST", url) for url in BODIES] + [("GET", "/maps"), ("PUT", "/path"), ("DELETE", "/paths")]
)


@fuzz(300)
@given(endpoint=ENDPOINTS, content=RAW_BODIES, content_type=CONTENT_TYPES)
def test_random_bytes_and_content_types(client, endpoint, content, content_type):
    method, url = endpoint
    send(client, method, url, content, {"content-type": content_type})


def map_url(name: str) -> str:
    return "/maps/" + quote(name.encode("utf-8", "surrogatepass"), safe="")


QUERY_VALUES = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["2,2", "40,50", "0,0", "-1,5", "1,1,1", "1", "", "9" * 30 + ",1", "1.5,2"]),
)


@fuzz(200)
@given(
    name=MAP_NAMES,
    image=st.booleans(),
    query=st.dictionaries(st.sampled_from(["start", "goal", "scale", "x"]), QUERY_VALUES),
)
def test_map_lookups_with_odd_names_and_parameters(client, name, image, query):
    url = map_url(name) + ("/image" if image else "")
    params = "&".join(
        f"{k}={quote(v.encode('utf-8', 'surrogatepass'), safe='')}" for k, v in query.items()
    )
    send(client, "GET", url + ("?" + params if params else ""))


# --- map changes: refused ones change nothing ----------------------------------------------


@pytest.fixture(scope="module")
def admin(tmp_path_factory):
    """A service with ADMIN_TOKEN set, serving its own copy of the bundled maps."""
    client, _ = make_client(tmp_path_factory.mktemp("admin"), admin_token=TOKEN)
    with client:
        wait_ready(client)
        yield client


@pytest.fixture(scope="module")
def disabled(tmp_path_factory):
    """A service without ADMIN_TOKEN: every change is refused."""
    client, _ = make_client(tmp_path_factory.mktemp("disabled"))
    with client:
        wait_ready(client)
        yield client


VALID_AUTH = [ADMIN, {"Authorization": f"bearer   {TOKEN}  "}]
AUTH = st.one_of(
    st.sampled_from(VALID_AUTH),
    st.sampled_from(
        [
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": TOKEN},
            {"Authorization": f"Basic {TOKEN}"},
            {"Authorization": f"Bearer {TOKEN}x"},
            {"Authorization": f"Bearer {TOKEN[:-1]}"},
            {"Authorization": "Bearer "},
        ]
    ),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=24).map(
        lambda s: {"Authorization": s}
    ),
)

MOSTLY_ADMIN = st.one_of(st.just(ADMIN), AUTH)


def snapshot(client, names: list[str]) -> list:
    """What ``GET /maps/{name}`` says of each name, and the listing."""
    seen = [send(client, "GET", map_url(name))[1] for name in names]
    return seen + [send(client, "GET", "/maps")[1]]


def change(client, method: str, name: str, content: bytes, headers: dict, query: str = ""):
    """One map change; a refused one (4xx) leaves every map as it was; an accepted one moves
    the map to a new revision, the one it answers."""
    watched = sorted({name, "arena"})
    before = snapshot(client, watched)
    response, answer = send(client, method, map_url(name) + query, content, headers)
    after = snapshot(client, watched)
    if response.status_code >= 400:
        assert after == before, (method, name, answer)
    else:
        assert after != before, (method, name, answer)
        if method != "DELETE":
            assert answer == after[watched.index(name)]
    return response, answer


PATCH_BODIES = bodies(MapPatch)
EDIT_NAMES = st.one_of(st.just("arena"), st.just("arena"), MAP_NAMES)
IF_REVISION = st.one_of(
    st.just(""), st.integers(-1, 40).map(lambda n: f"?if_revision={n}"), st.just("?if_revision=x")
)


@fuzz(70)
@given(name=EDIT_NAMES, body=PATCH_BODIES, headers=MOSTLY_ADMIN, raw=st.none() | RAW_BODIES)
def test_patch_refused_changes_nothing(admin, name, body, headers, raw):
    content = encode(body) if raw is None else raw
    response, answer = change(admin, "PATCH", name, content, {**headers, **JSON})
    if headers not in VALID_AUTH:
        assert response.status_code >= 400
        if raw is None:  # (a body that is not JSON is refused before the token is checked)
            assert answer["error"]["code"] in (
                "unauthorized",
                "not_found",
                "method_not_allowed",
                "payload_too_large",
            )


EDIT = {"cells": [[3, 3]], "rect": [4, 4, 5, 6], "value": 2}


@fuzz(20)
@given(data=st.data())
@pytest.mark.parametrize("field", PATCH_FIELDS + [f"set[0].{name}" for name in EDIT_FIELDS])
def test_a_wrong_value_in_an_edit_is_refused_and_changes_nothing(admin, field, data):
    if field.startswith("set[0]."):  # a field of one edit (MapEdit)
        name = field.removeprefix("set[0].")
        edit = data.draw(wrong_body(MapEdit, EDIT, name))
        body, field = {"set": [EDIT, edit]}, "set"
    else:
        body = data.draw(wrong_body(MapPatch, {"set": [EDIT]}, field))
    response, answer = change(admin, "PATCH", "arena", encode(body), {**ADMIN, **JSON})
    assert response.status_code == 422, answer
    assert answer["error"]["code"] == expected_code(field), answer
    assert field in answer["error"]["message"], answer


def image_file(mode: str, fmt: str) -> bytes:
    out = io.BytesIO()
    Image.new(mode, (3, 2)).save(out, format=fmt)
    return out.getvalue()


MOVINGAI = b"type octile\nheight 2\nwidth 3\nmap\n.@.\n...\n"
SEEDS = {
    "movingai": MOVINGAI,
    "png": png_bytes([[255, 0], [255, 255]]),
    "png16": image_file("I;16", "PNG"),
    "gif": image_file("P", "GIF"),
    "tiff-lab": image_file("LAB", "TIFF"),
    "dds": image_file("RGB", "DDS"),
    "blp": image_file("P", "BLP"),
    "spider": image_file("F", "SPIDER"),
}
# Overwrite a few bytes, mostly in the header.
CUTS = st.lists(
    st.tuples(st.one_of(st.integers(0, 128), st.integers(0, 2000)), st.binary(max_size=4)),
    max_size=3,
)
UPLOADS = st.one_of(
    st.sampled_from(list(SEEDS.values())),
    st.binary(max_size=300),
    st.builds(lambda seed, cuts: _mutate(seed, cuts), st.sampled_from(list(SEEDS.values())), CUTS),
    st.builds(
        lambda h, w, rows: f"type octile\nheight {h}\nwidth {w}\nmap\n{rows}".encode(),
        st.one_of(st.integers(-2, 4), st.sampled_from(["x", "1e3", "99999999999", " 2"])),
        st.one_of(st.integers(-2, 4), st.sampled_from(["x", "0x3", "-0"])),
        st.text(alphabet=".@GSOTW\n\r x", max_size=30),
    ),
)


def _mutate(seed: bytes, cuts: list[tuple[int, bytes]]) -> bytes:
    data = bytearray(seed)
    for at, insert in cuts:
        at = at % (len(data) + 1)
        data[at : at + len(insert)] = insert
    return bytes(data)


PUT_NAMES = st.one_of(st.sampled_from(["fuzz", "fuzz-2"]), MAP_NAMES.filter(lambda n: n != "arena"))


# Corrupt files make Pillow warn as it reads them; refusing them is the point here.
@pytest.mark.filterwarnings("ignore::UserWarning:PIL")
@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
@fuzz(10)
@given(cuts=CUTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_an_upload_of_any_format_loads_or_is_refused(admin, seed, cuts):
    """Each format Pillow reads, as it is (the first example) and with bytes overwritten."""
    change(admin, "PUT", "fuzz", _mutate(SEEDS[seed], cuts), ADMIN)


@pytest.mark.filterwarnings("ignore::UserWarning:PIL")
@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
@fuzz(60)
@given(name=PUT_NAMES, content=UPLOADS, headers=MOSTLY_ADMIN, query=IF_REVISION)
def test_put_refused_changes_nothing(admin, name, content, headers, query):
    response, _ = change(admin, "PUT", name, content, headers, query)
    if headers not in VALID_AUTH:
        assert response.status_code >= 400


@fuzz(50)
@given(name=PUT_NAMES, headers=MOSTLY_ADMIN, query=IF_REVISION)
def test_delete_refused_changes_nothing(admin, name, headers, query):
    response, _ = change(admin, "DELETE", name, None, headers, query)
    if headers not in VALID_AUTH:
        assert response.status_code >= 400


@fuzz(50)
@given(
    method=st.sampled_from(["PATCH", "PUT", "DELETE"]),
    name=EDIT_NAMES,
    headers=AUTH,
    content=st.one_of(PATCH_BODIES.map(encode), UPLOADS),
)
def test_without_admin_token_every_change_is_refused(disabled, method, name, headers, content):
    response, answer = change(disabled, method, name, content, headers)
    assert response.status_code >= 400
