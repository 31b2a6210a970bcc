"""What the authorities store: a kind of document (maps, or worlds), as data.

One folder authority and one Redis authority serve both kinds (app/authority/folder.py,
app/authority/redis.py): revisions, records, hot reload, write-back, the ``COMMIT`` script,
announcements, resynchronisation and the restore after a Redis restart are the same road.
A :class:`Documents` names what differs: which files of ``MAPS_DIR`` are of the kind and
how one is read, how a revision is encoded for Redis and read back, how it is written to
the folder and removed, and the Redis keys.

Decisions for worlds (``gridpath.world``):

* A world file is checked against the maps served when it is read from the folder (a bad
  one is an error entry, as a bad map is). A world read back from Redis was checked when it
  was written: it is only parsed (its maps may have changed since; a world whose map is
  deleted or shrunk stays, and queries through it answer ``map_not_found`` or find the
  link unusable).
* Worlds are read after maps, at start-up and at each reload, so a world file and the maps
  it names can arrive together.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.authority.base import Upload
from app.authority.redis_keys import MAPS_LAYOUT, WORLDS_LAYOUT, RedisLayout, decode
from gridpath.errors import MapLoadError, StorageError
from gridpath.maps import LoadFailure, MapRegistry, persist
from gridpath.maps.registry import load_logged, scan_folder, with_revision
from gridpath.world.files import (
    is_world_file,
    load_world,
    parse_world_bytes,
    valid_world_name,
    world_name,
)
from gridpath.world.model import WORLD_SUFFIX, Lookup, MapInfo

log = logging.getLogger("app.authority")

Scan = Callable[[Path], tuple[dict[str, Path], list[LoadFailure]]]


@dataclass(frozen=True)
class Documents:
    what: str  # "map" or "world", in messages and logs
    records: str  # its part of the folder's revision records file
    layout: RedisLayout
    scan: Scan  # the files of the kind in a folder, by name, and the misnamed ones
    load: Callable[[Path, Any], Any]  # (path, settings) -> a revision; MapLoadError
    encode: Callable[[Any], Upload]
    decode: Callable[[str, dict[bytes, bytes], Any], Any]  # (name, hash, settings); MapLoadError
    save: Callable[[Path, Any, Upload | None], Path]  # write-back (MAPS_WRITABLE)
    remove: Callable[[Path, str], None]

    def read_folder(self, settings) -> tuple[list[Any], list[LoadFailure]]:
        """Every document of the kind in ``MAPS_DIR`` that loads, and the files that do not."""
        files, errors = self.scan(Path(settings.maps_dir))
        loaded = []
        for path in files.values():
            try:
                loaded.append(self.load(path, settings))
            except MapLoadError as exc:
                errors.append(LoadFailure(file=path.name, reason=exc.reason))
        return loaded, errors


def _save_map(directory: Path, snapshot, upload: Upload | None) -> Path:
    if upload is None:
        return persist.save(directory, snapshot)
    return persist.save_bytes(directory, snapshot.name, upload.suffix, upload.data, upload.sidecar)


MAPS = Documents(
    what="map",
    records="maps",
    layout=MAPS_LAYOUT,
    scan=scan_folder,
    load=lambda path, s: load_logged(path, max_cells=s.max_map_cells, max_bytes=s.max_map_bytes),
    encode=lambda snapshot: Upload(*snapshot.encode()),
    decode=lambda name, fields, s: decode(name, fields, s.max_map_cells),
    save=_save_map,
    remove=persist.remove,
)


def map_lookup(maps: MapRegistry) -> Lookup:
    """What a world checks of the maps it names: kind and size of the served revision."""

    def lookup(name: str) -> MapInfo | None:
        snapshot = maps.find(name)
        if snapshot is None:
            return None
        return snapshot.kind, getattr(snapshot, "width", 0), getattr(snapshot, "height", 0)

    return lookup


def _any_map(name: str) -> MapInfo:
    """A world read back from the store: checked when written, only parsed now."""
    return "grid", 1 << 31, 1 << 31


def _scan_worlds(directory: Path) -> tuple[dict[str, Path], list[LoadFailure]]:
    files: dict[str, Path] = {}
    errors: list[LoadFailure] = []
    if not directory.is_dir():
        return files, errors  # the maps' scan reports a missing folder
    for path in sorted(directory.iterdir()):
        if not is_world_file(path):
            continue
        name = world_name(path)
        if valid_world_name(name):
            files[name] = path
        else:
            reason = f"world name {name!r} is not 1-128 characters of [A-Za-z0-9_-]"
            log.error("world %s not loaded: %s", path.name, reason)
            errors.append(LoadFailure(file=path.name, reason=reason))
    return files, errors


def _decode_world(name: str, fields: dict[bytes, bytes], settings) -> Any:
    world = parse_world_bytes(name, fields[b"data"], _any_map, fields[b"source"].decode())
    expected = fields[b"sha256"].decode()
    if world.sha256 != expected:
        raise MapLoadError(f"content hash {world.sha256} is not the stored {expected}")
    return with_revision(world, int(fields[b"revision"]))


def _world_file(directory: Path, name: str) -> Path:
    return Path(directory) / f"{name}{WORLD_SUFFIX}"


def _save_world(directory: Path, world, upload: Upload | None) -> Path:
    path = _world_file(directory, world.name)
    try:
        persist.atomic_write(path, world.encode())
    except OSError as exc:
        raise StorageError(
            f"could not write world {world.name!r} to {directory}: {exc}; nothing was changed"
        ) from exc
    return path


def _load_world(path: Path, lookup: Lookup):
    try:
        world = load_world(path, lookup)
    except MapLoadError as exc:
        log.error("world %s not loaded: %s", path.name, exc.reason)
        raise
    log.info("loaded world %s from %s (%s)", world.name, path.name, world.summary())
    return world


def world_documents(maps: MapRegistry) -> Documents:
    """Worlds, checked against the maps of ``maps`` when read from the folder."""
    lookup = map_lookup(maps)
    return Documents(
        what="world",
        records="worlds",
        layout=WORLDS_LAYOUT,
        scan=_scan_worlds,
        load=lambda path, settings: _load_world(path, lookup),
        encode=lambda world: Upload(WORLD_SUFFIX, world.encode(), None),
        decode=_decode_world,
        save=_save_world,
        remove=lambda directory, name: _world_file(directory, name).unlink(missing_ok=True),
    )
