"""World files: ``MAPS_DIR/NAME.world.json`` beside the maps.

A world file is read as the API's ``PUT /worlds/{name}`` body is (:func:`parse_world`), and
every refusal becomes a :class:`~gridpath.errors.MapLoadError` with the reason, so a bad
world is one start-up error entry, as a bad map is, never a failed start.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from gridpath.errors import MapLoadError, ServiceError
from gridpath.world.model import NAME, WORLD_SUFFIX, Lookup, World, parse_world

MAX_WORLD_BYTES = 64 * 1024 * 1024  # a file of MAX_LINKS links with long ids fits


def is_world_file(path: Path) -> bool:
    return path.name.endswith(WORLD_SUFFIX) and not path.name.startswith(".") and path.is_file()


def world_name(path: Path) -> str:
    return Path(path).name[: -len(WORLD_SUFFIX)]


def valid_world_name(name: str) -> bool:
    return bool(NAME.match(name)) and len(name) <= 128


def parse_world_bytes(name: str, data: bytes, lookup: Lookup, source: str = "") -> World:
    """A world from a file's bytes; :class:`MapLoadError` with the reason if it is bad."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise MapLoadError(f"not JSON: {exc}") from None
    try:
        return parse_world(name, document, lookup, source=source)
    except ServiceError as exc:  # invalid_world, unsupported_map_kind
        raise MapLoadError(f"{exc.code}: {exc.message}") from None


def load_world(path: Path, lookup: Lookup, max_bytes: int = MAX_WORLD_BYTES) -> World:
    """The world in ``path`` (``NAME.world.json``), checked against the maps ``lookup``
    knows; :class:`MapLoadError` if it cannot be read or is not a valid world."""
    path = Path(path)
    try:
        if path.stat().st_size > max_bytes:
            raise MapLoadError(f"file is larger than {max_bytes} bytes")
        data = path.read_bytes()
    except OSError as exc:
        raise MapLoadError(f"cannot read: {exc}") from None
    return parse_world_bytes(world_name(path), data, lookup, source=path.name)
