"""What the map routes answer about a map (``MapInfo``, ``PolygonMapInfo``: by its kind,
:mod:`app.api.kinds`), and the map name check of every route with ``{name}`` in its path."""

from __future__ import annotations

from pydantic import BaseModel

from app.api.kinds import kind_of
from gridpath.errors import InvalidRequest
from gridpath.grid import is_valid_map_name
from gridpath.maps.snapshot import MapSnapshot


def map_info(snapshot: MapSnapshot) -> BaseModel:
    return kind_of(snapshot).info(snapshot)


def check_map_name(name: str) -> None:
    if not is_valid_map_name(name):
        raise InvalidRequest(f"map name {name!r} is not 1-64 characters of [A-Za-z0-9_-]")
