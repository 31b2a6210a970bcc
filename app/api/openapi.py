"""The OpenAPI document tells the truth, and generates clean clients.

Central on purpose, so routes stay short and a route added later is covered:

- operation ids: readable camelCase names from ``OPERATION_IDS`` (endpoint function name ->
  id); a route missing there keeps FastAPI's generated id, which the tests refuse;
- the statuses any operation can give, from what the route depends on: 413
  ``payload_too_large`` where there is a body (``BodySizeLimit``), 422 with the error
  envelope where there are parameters or a body, 503 ``not_ready`` where the map store is
  needed (and ``warming_up`` where a search may wait for its kernels), 503 ``shutting_down``,
  414 and 431 everywhere, 401 (with ``WWW-Authenticate``) and 403 where a token guards it.
  FastAPI's own ``HTTPValidationError`` never leaves the service, so it leaves the document
  too;
- PNG answers typed as binary strings (generators skip a media type without a schema);
- the patterns the service enforces by hand (map names, ``x,y`` cells in query strings);
- summaries from the operation ids, links between operations, and request examples on the
  main operations (``tests/app/api/test_openapi.py`` runs each one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute
from fastapi.utils import generate_unique_id

from app.api.auth import admin_bearer, api_bearer
from app.api.deps import get_registry
from app.config import Settings
from app.models.world_paths import WORLD_ALTERNATIVE_TITLE
from gridpath.grid.model import MAP_NAME_PATTERN

OPERATION_IDS = {
    "health": "getHealth",
    "live": "getLiveness",
    "ready": "getReadiness",
    "get_metrics": "getMetrics",
    "post_path": "findPath",
    "post_paths": "findPaths",
    "post_validate": "validatePath",
    "post_flowfield": "flowField",
    "post_table": "costTable",
    "post_group": "planGroup",
    "list_maps": "listMaps",
    "get_map": "getMap",
    "get_map_image": "getMapImage",
    "get_map_cells": "getMapCells",
    "patch_map": "editMap",
    "put_map": "putMap",
    "delete_map": "deleteMap",
    "reload_maps": "reloadMaps",
    "get_nearest": "getNearestCell",
    "list_worlds": "listWorlds",
    "get_world": "getWorld",
    "put_world": "putWorld",
    "patch_world": "editWorld",
    "delete_world": "deleteWorld",
}


def operation_id(route: APIRoute) -> str:
    """``generate_unique_id_function`` for the app and its routers."""
    return OPERATION_IDS.get(route.name) or generate_unique_id(route)


ERROR_SCHEMA = {"$ref": "#/components/schemas/ErrorResponse"}
CELL_QUERY_PATTERN = r"^-?[0-9]{1,9},-?[0-9]{1,9}$"  # app.api.routes.maps._cell_param
# (where, parameter name) -> the pattern the service checks for it itself.
PARAMETER_PATTERNS = {
    ("path", "name"): MAP_NAME_PATTERN,
    ("query", "start"): CELL_QUERY_PATTERN,
    ("query", "goal"): CELL_QUERY_PATTERN,
}

REQUEST_EXAMPLES: dict[str, dict[str, dict[str, Any]]] = {
    "findPath": {
        "path": {
            "summary": "A path across the arena",
            "value": {"map": "arena", "start": [1, 1], "goal": [60, 60]},
        },
        "authoritative": {
            "summary": "Only if the map is still at revision 1 (else 409 stale_revision)",
            "value": {
                "map": "arena",
                "start": [1, 1],
                "goal": [60, 60],
                "revision": 1,
                "include": ["waypoints"],
            },
        },
        "polygon": {
            "summary": "The shortest path on a polygon map (mode waypoints: over its waypoints)",
            "value": {"map": "courtyard", "start": [1.5, 1.5], "goal": [45, 15], "mode": "exact"},
        },
        "snap": {
            "summary": "A click inside a hole, moved to the nearest walkable point",
            "value": {"map": "courtyard", "start": [1, 29], "goal": [20, 15], "snap": True},
        },
        "world": {
            "summary": "Through a world: across the keep's east wing, by the stairs or not",
            "value": {
                "world": "keep",
                "start": {"map": "keep_1", "cell": [2, 2]},
                "goal": {"map": "keep_1", "cell": [40, 9]},
                "links": {"exclude_tags": ["magic"]},
            },
        },
    },
    "findPaths": {
        "batch": {
            "summary": "Two queries on one map",
            "value": {
                "map": "arena",
                "queries": [
                    {"start": [1, 1], "goal": [60, 60]},
                    {"start": [1, 1], "goal": [30, 5], "connectivity": 4},
                ],
            },
        },
        "world": {
            "summary": "Two queries through a world",
            "value": {
                "world": "keep",
                "queries": [
                    {
                        "start": {"map": "keep_1", "cell": [2, 2]},
                        "goal": {"map": "keep_2", "cell": [40, 13]},
                    },
                    {
                        "start": {"map": "keep_2", "cell": [2, 2]},
                        "goal": {"map": "keep_1", "cell": [40, 9]},
                        "algorithm": "dijkstra",
                    },
                ],
            },
        },
    },
    "validatePath": {
        "claim": {
            "summary": "Check a client's claimed steps",
            "value": {"map": "arena", "path": [[1, 1], [2, 2], [3, 3]], "revision": 1},
        },
        "polyline": {
            "summary": "Check a polyline on a polygon map, and its length",
            "value": {"map": "courtyard", "points": [[1, 1], [30, 4.5], [45, 15]], "max_cost": 50},
        },
        "world": {
            "summary": "Check a claimed path through a world: up the west stairs",
            "value": {
                "world": "keep",
                "path": [
                    {"map": "keep_1", "cell": [2, 2]},
                    {"map": "keep_1", "cell": [3, 3]},
                    {"map": "keep_2", "cell": [3, 3]},
                    {"map": "keep_2", "cell": [4, 4]},
                ],
            },
        },
        "group": {
            "summary": "Check a claimed group move: two units, each cell at every tick",
            "value": {"map": "arena", "plans": [[[2, 2], [3, 2]], [[3, 3], [4, 3]]]},
        },
    },
    "flowField": {
        "field": {
            "summary": "Every cell's way to one goal",
            "value": {"map": "maze", "goal": [127, 127]},
        },
        "world": {
            "summary": "Every cell of every floor of the keep, to one place",
            "value": {"world": "keep", "goal": {"map": "keep_2", "cell": [40, 13]}},
        },
    },
    "costTable": {
        "world": {
            "summary": "World-optimal costs between places of the keep",
            "value": {
                "world": "keep",
                "sources": [{"map": "keep_1", "cell": [2, 2]}],
                "targets": [
                    {"map": "keep_1", "cell": [40, 9]},
                    {"map": "keep_2", "cell": [40, 13]},
                ],
            },
        },
    },
    "editMap": {
        "wall": {
            "summary": "Block two cells, if nobody changed the map since revision 1",
            "value": {"set": [{"value": "blocked", "cells": [[5, 5], [5, 6]]}], "if_revision": 1},
        },
        "hole": {
            "summary": "A polygon map: add a hole (a crate)",
            "value": {"holes": [{"op": "add", "ring": [[2, 12], [4, 12], [4, 14], [2, 14]]}]},
        },
    },
}


# OpenAPI links: where an answer's values feed the next call (clients' docs; schemathesis's
# stateful phase follows them).
LINKS = {
    "findPath": {
        "200": {
            "ValidateThePath": {
                "operationId": "validatePath",
                "description": "Check the path on the revision it was computed on.",
                "requestBody": {
                    "map": "$response.body#/map",
                    "path": "$response.body#/path",
                    "revision": "$response.body#/revision",
                },
            }
        }
    },
    "listMaps": {
        "200": {
            "GetTheFirstMap": {
                "operationId": "getMap",
                "parameters": {"path.name": "$response.body#/maps/0/name"},
            }
        }
    },
    "editMap": {
        "200": {
            "GetTheEditedMap": {
                "operationId": "getMap",
                "parameters": {"path.name": "$response.body#/name"},
            }
        }
    },
}


# Operations that serve one kind of map only (or take fields of one kind): the other kind
# is refused with a 422 (app.api.kinds).
# Operations that take terrain costs (a request's terrain_costs, an edit's cost, an
# upload's sidecar or Tiled costs): one out of range is a 422 invalid_terrain_costs.
TERRAIN_COST_OPERATIONS = frozenset(
    {"findPath", "findPaths", "validatePath", "flowField", "costTable", "editMap", "putMap"}
)
MAP_KIND_OPERATIONS = frozenset(
    {
        "findPath",
        "findPaths",
        "validatePath",
        "flowField",
        "costTable",
        "getMapImage",
        "getMapCells",
        "getNearestCell",
        "editMap",
    }
)
# Operations that answer target_not_walkable (a polygon map's start or goal, without snap).
TARGET_OPERATIONS = frozenset({"findPath"})


def _sentence(operation: str) -> str:
    """``findPath`` -> ``Find path``."""
    return re.sub(r"(?<!^)([A-Z])", lambda m: " " + m[1].lower(), operation).capitalize()


def _calls(dependant: Any) -> Iterator[Callable[..., Any]]:
    for dependency in dependant.dependencies:
        if dependency.call is not None:
            yield dependency.call
        yield from _calls(dependency)


def _declare(op: dict, status: int, code: str, text: str, headers: dict | None = None) -> None:
    """Add a status with the error envelope, or complete one the route declared (its
    description gets the code unless it names it already)."""
    response = op["responses"].setdefault(str(status), {"description": ""})
    if f"`{code}`" not in response["description"]:
        response["description"] = f"{response['description']} {text} (`{code}`).".strip()
    content = response.setdefault("content", {}).setdefault("application/json", {})
    content["schema"] = ERROR_SCHEMA
    if headers:
        response.setdefault("headers", {}).update(headers)


_RETRY_AFTER = {"Retry-After": {"description": "Seconds", "schema": {"type": "string"}}}
_WWW_AUTHENTICATE = {"WWW-Authenticate": {"description": "`Bearer`", "schema": {"type": "string"}}}
_RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "string"}}}
# The operations whose searches wait for kernels compiled after start-up (gridpath.search.warming)
WARMING_OPERATIONS = {
    "findPath",
    "findPaths",
    "validatePath",
    "flowField",
    "costTable",
    "planGroup",
}


def complete(document: dict, app: FastAPI, settings: Settings) -> dict:
    """Declare what the routes alone do not (see the module docstring); in place."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    for route in _schema_routes(app.state.routers):
        calls = set(_calls(route.dependant))
        has_input = bool(route.dependant.path_params or route.dependant.query_params)
        for method in route.methods:
            op = document["paths"][route.path_format][method.lower()]
            security = {name for option in op.get("security", ()) for name in option}
            if "requestBody" in op:
                _declare(op, 413, "payload_too_large", "The body is over MAX_BODY_BYTES")
            if has_input or "requestBody" in op:
                _declare(op, 422, "invalid_request", "Bad input; `error.code` says which")
            if get_registry in calls:
                _declare(op, 503, "not_ready", "Still starting")
            # Any request can be cut off by a shutdown (app.api.errors.shutting_down), or
            # have a head over the limits (app.http_protocol, app.api.limits).
            _declare(op, 503, "shutting_down", "Cut off by the shutdown", _RETRY_AFTER)
            _declare(op, 414, "uri_too_long", "The request target is over MAX_URL_BYTES")
            _declare(op, 431, "headers_too_large", "The headers are over MAX_HEADER_BYTES")
            if op["operationId"] in WARMING_OPERATIONS:
                _declare(
                    op, 503, "warming_up", "Its kernels still compiling after start-up",
                    _RETRY_AFTER,
                )  # fmt: skip
            if admin_bearer.scheme_name in security:
                # The admin token passes the API_TOKEN check too: it alone is the way in.
                op["security"] = [{admin_bearer.scheme_name: []}]
                _declare(op, 401, "unauthorized", "Missing or wrong token", _WWW_AUTHENTICATE)
                _declare(op, 403, "admin_disabled", "The server has no ADMIN_TOKEN")
            elif api_bearer.scheme_name in security:
                if settings.api_token is not None:
                    _declare(op, 401, "unauthorized", "Missing or wrong token", _WWW_AUTHENTICATE)
                else:  # the scheme is accepted, not needed: say so (Swagger UI keeps Authorize)
                    op["security"] = [{api_bearer.scheme_name: []}, {}]
            for response in op["responses"].values():
                for media, content in response.get("content", {}).items():
                    if media.startswith("image/") and not content.get("schema"):
                        content["schema"] = {"type": "string", "format": "binary"}
            for parameter in op.get("parameters", ()):
                pattern = PARAMETER_PATTERNS.get((parameter["in"], parameter["name"]))
                if pattern is not None:
                    _add_pattern(parameter["schema"], pattern)
            if op["operationId"] in MAP_KIND_OPERATIONS:
                _declare(op, 422, "unsupported_map_kind", "The map is of the other kind")
            if op["operationId"] in TERRAIN_COST_OPERATIONS:
                _declare(op, 422, "invalid_terrain_costs", "A terrain cost out of range")
            if op["operationId"] in TARGET_OPERATIONS:
                _declare(op, 422, "target_not_walkable", "A point outside the walkable area")
            if route.summary is None:  # FastAPI's default is the function name ("Post Path")
                op["summary"] = _sentence(op["operationId"])
            for status, links in LINKS.get(op["operationId"], {}).items():
                op["responses"][status]["links"] = links
            if "requestBody" in op:
                _one_of(op["requestBody"]["content"]["application/json"]["schema"])
            for name, examples in REQUEST_EXAMPLES.get(op["operationId"], {}).items():
                content = op["requestBody"]["content"]["application/json"]
                content.setdefault("examples", {})[name] = examples
    assert admin_bearer.scheme_name in document["components"].get("securitySchemes", {})
    return document


def _schema_routes(routers: list[APIRouter]) -> Iterator[APIRoute]:
    """The documented routes of the app's routers (their own route objects: the security
    the app adds when it includes them is read from the document itself)."""
    for router in routers:
        for route in router.routes:
            if isinstance(route, APIRoute) and route.include_in_schema:
                yield route


def _one_of(schema: dict) -> None:
    """A body on a map or through a world (app.models.world_paths): exactly one of the two
    (one needs ``map``, the other ``world``, and neither takes the other's), so ``oneOf``;
    the map's own alternatives (grid or polygon) may overlap and stay ``anyOf``."""
    options = schema.get("anyOf", ())
    if any(option.get("title") == WORLD_ALTERNATIVE_TITLE for option in options):
        schema["oneOf"] = schema.pop("anyOf")


def _add_pattern(schema: dict, pattern: str) -> None:
    for option in schema.get("anyOf", [schema]):
        if option.get("type") == "string":
            option["pattern"] = pattern


def install_openapi(app: FastAPI, settings: Settings) -> None:
    """``app.openapi()`` returns the completed document (built once, then cached)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = complete(generate(), app, settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
