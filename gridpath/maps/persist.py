"""Writing maps back to ``MAPS_DIR`` (with ``MAPS_WRITABLE=true``), crash-safely.

Every file is written to a temporary file in the same folder, flushed and fsynced, then
renamed over the old one (an atomic replace on POSIX), and the folder is fsynced: a crash
at any point leaves either the old file or the new one, never a torn one.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from gridpath.errors import StorageError
from gridpath.grid.loader import MAP_SUFFIXES, grey_cost
from gridpath.grid.model import Grid
from gridpath.nav.model import NAV_SUFFIX

# Colours for terrain classes that no grey level expresses, written to a palette sidecar.
_PALETTE = [
    "#ffffff",
    "#e0c080",
    "#80c060",
    "#6080c0",
    "#c06080",
    "#c0a040",
    "#40a0a0",
    "#a060c0",
    "#808040",
    "#40c080",
]


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


def serialize(grid: Grid) -> tuple[str, bytes, dict | None]:
    """``(suffix, file bytes, sidecar or None)`` that load back to the same map."""
    if grid.kind == "polygon":  # its encoding is kept with it (gridpath.nav.snapshot)
        return NAV_SUFFIX, grid.data, None
    names = [tc.name for tc in grid.terrain_classes]
    walkable = grid.walkable.astype(bool)
    terrain = np.asarray(grid.terrain[1:-1, 1:-1])
    if (
        grid.source.lower().endswith(".map")
        and set(names) <= {"ground", "swamp"}
        and names[0] == "ground"
    ):
        rows = np.where(
            walkable,
            np.where(
                terrain == names.index("swamp") if "swamp" in names else False, ord("S"), ord(".")
            ),
            ord("@"),
        )
        text = b"type octile\nheight %d\nwidth %d\nmap\n" % (grid.height, grid.width)
        text += b"\n".join(bytes(r.astype(np.uint8)) for r in rows) + b"\n"
        costs = {tc.name: tc.cost for tc in grid.terrain_classes if tc.cost != 1.0}
        return ".map", text, ({"costs": costs} if costs else None)
    grey = {
        "ground": 255,
        **{n: int(n[5:]) for n in names if n.startswith("grey_") and n[5:].isdigit()},
    }
    if all(tc.name in grey and tc.cost == grey_cost(grey[tc.name]) for tc in grid.terrain_classes):
        levels = np.array([grey[n] for n in names], dtype=np.uint8)
        pixels = np.where(walkable, levels[terrain], 0).astype(np.uint8)
        out = io.BytesIO()
        Image.fromarray(pixels, mode="L").save(out, format="PNG")
        return ".png", out.getvalue(), None
    colours = [
        _PALETTE[i]
        if i < len(_PALETTE)
        else f"#{(37 * i) % 256:02x}{(91 * i) % 256:02x}{(151 * i) % 256:02x}"
        for i in range(len(names))
    ]
    rgb = np.zeros((grid.height, grid.width, 3), dtype=np.uint8)
    table = np.array(
        [[int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)] for c in colours], dtype=np.uint8
    )
    rgb[walkable] = table[terrain[walkable]]
    out = io.BytesIO()
    Image.fromarray(rgb, mode="RGB").save(out, format="PNG")
    palette = [
        {"name": tc.name, "color": colours[i], "cost": tc.cost}
        for i, tc in enumerate(grid.terrain_classes)
    ]
    palette.append({"name": "wall", "color": "#000000", "blocked": True})
    return ".png", out.getvalue(), {"palette": palette}


def save(directory: Path, grid: Grid) -> Path:
    """Write ``grid`` to ``directory`` as ``NAME.png`` or ``NAME.map`` (plus sidecar), then
    remove any other file of that name so the next start loads exactly this map."""
    suffix, data, sidecar = serialize(grid)
    return save_bytes(directory, grid.name, suffix, data, sidecar)


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
