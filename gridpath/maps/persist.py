"""Writing maps back to ``MAPS_DIR`` (with ``MAPS_WRITABLE=true``), crash-safely.

Every file is written to a temporary file in the same folder, flushed and fsynced, then
renamed over the old one (an atomic replace on POSIX), and the folder is fsynced: a crash
at any point leaves either the old file or the new one, never a torn one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from gridpath.errors import StorageError
from gridpath.grid.loader import MAP_SUFFIXES
from gridpath.maps.snapshot import MapSnapshot
from gridpath.nav.model import NAV_SUFFIX


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that a crash leaves the old or the new file."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def map_files(directory: Path, name: str) -> list[Path]:
    """The map files (any supported suffix) and sidecar named ``name`` in ``directory``."""
    return [
        p
        for p in Path(directory).glob(f"{name}.*")
        if (p.stem == name and (p.suffix.lower() in MAP_SUFFIXES or p.suffix == ".json"))
        or p.name == f"{name}{NAV_SUFFIX}"
    ]


def save(directory: Path, snapshot: MapSnapshot) -> Path:
    """Write ``snapshot`` to ``directory`` in its encoding (``NAME.png``, ``NAME.map`` plus
    sidecar, ``NAME.nav.json``: :meth:`MapSnapshot.encode`), then remove any other file of
    that name so the next start loads exactly this map."""
    suffix, data, sidecar = snapshot.encode()
    return save_bytes(directory, snapshot.name, suffix, data, sidecar)


def save_bytes(directory: Path, name: str, suffix: str, data: bytes, sidecar: dict | None) -> Path:
    """Write a map file (and sidecar) atomically; :class:`StorageError` if the disk says no."""
    try:
        return _save_bytes(Path(directory), name, suffix, data, sidecar)
    except OSError as exc:
        raise StorageError(
            f"could not write map {name!r} to {directory}: {exc}; nothing was changed"
        ) from exc


def _save_bytes(directory: Path, name: str, suffix: str, data: bytes, sidecar: dict | None) -> Path:
    target = directory / f"{name}{suffix}"
    side = directory / f"{name}.json"
    if sidecar is not None:
        atomic_write(side, json.dumps(sidecar, indent=1).encode())
    atomic_write(target, data)
    for other in map_files(directory, name):
        if other != target and not (sidecar is not None and other == side):
            other.unlink(missing_ok=True)
    return target


def remove(directory: Path, name: str) -> None:
    for path in map_files(directory, name):
        path.unlink(missing_ok=True)
