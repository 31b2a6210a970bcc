"""Reading map files into :class:`~gridpath.grid.model.Grid` objects.

Two families of formats:

* **Bitmaps** (PNG, and the other formats Pillow reads: BMP, GIF, TIFF, WebP, PGM/PPM,
  JPEG). A pixel is *walkable* when its luminance is at least 128 (white, 255, is the
  canonical walkable value) and *blocked* when it is darker (black, 0, is the canonical
  blocked value). Pixels whose alpha is below 128 are blocked too. 16-bit greyscale is
  scaled to 8 bits first. The image size is checked against the cell limit from the
  file header, before any pixel is decoded.
  **Terrain costs from grey levels**: white (255) is terrain class ``ground``, cost 1;
  a walkable grey ``v`` (128..254) is class ``grey_<v>`` with cost ``1 + (255 - v) / 32``
  (223 costs 2, 191 costs 3, 159 costs 4, 128 about 5).
* **Moving AI ``.map``** text files: a header ``type octile`` / ``height H`` /
  ``width W`` / ``map``, then ``H`` rows of ``W`` characters. ``.``, ``G`` and ``S`` are
  passable; ``@``, ``O``, ``T`` and ``W`` are blocked; any other character is an error.
  CRLF line endings are accepted. ``.`` and ``G`` are class ``ground`` and ``S`` is class
  ``swamp``, both cost 1 unless a sidecar says otherwise (so benchmark maps load as
  published).

A sidecar ``NAME.json`` beside the map file may give:

* ``"palette"`` (bitmaps): ``[{"name": "road", "color": "#ffffff", "cost": 1},
  {"name": "water", "color": "#0000ff", "blocked": true}, ...]``: every pixel's RGB colour
  must be listed; it replaces the grey-level rule.
* ``"costs"``: ``{"swamp": 5, "grey_200": 2.5}``: costs of existing classes.
* ``"tiles"`` (Tiled maps): rules per tile gid, see :mod:`gridpath.grid.tiled`.
* ``"links"`` (any map): the same-map links it declares, see :mod:`gridpath.grid.links`.

**Tiled maps** (``.tmj``, ``.tmx``) are read by :mod:`gridpath.grid.tiled`.

Every failure raises :class:`~gridpath.errors.MapLoadError` with a reason a person can act on.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from gridpath.errors import MapLoadError
from gridpath.grid.links import declared_links, sidecar_links
from gridpath.grid.model import Grid
from gridpath.grid.terrain import GROUND, TerrainClass, apply_costs, grey_cost, sidecar_cost
from gridpath.grid.tiled import load_tiled

MOVINGAI_SUFFIXES = frozenset({".map"})
IMAGE_SUFFIXES = frozenset(
    {
        ".png",
        ".bmp",
        ".gif",
        ".tif",
        ".tiff",
        ".webp",
        ".pgm",
        ".ppm",
        ".pbm",
        ".pnm",
        ".jpg",
        ".jpeg",
    }
)
TILED_SUFFIXES = frozenset({".tmj", ".tmx"})  # gridpath.grid.tiled
MAP_SUFFIXES = MOVINGAI_SUFFIXES | IMAGE_SUFFIXES | TILED_SUFFIXES

WALKABLE_THRESHOLD = 128  # luminance and alpha at or above this are walkable
_MOVINGAI_PASSABLE = frozenset(b".GS")
_MOVINGAI_BLOCKED = frozenset(b"@OTW")


def is_map_file(path: Path) -> bool:
    """True for files the loader understands (by suffix); hidden files are skipped."""
    return path.is_file() and not path.name.startswith(".") and path.suffix.lower() in MAP_SUFFIXES


# The default size limits of a map (the service's MAX_MAP_CELLS and MAX_MAP_BYTES settings).
DEFAULT_MAX_MAP_CELLS = 4096 * 4096
DEFAULT_MAX_MAP_BYTES = 256 * 1024 * 1024


def load_map(path: Path, *, name: str | None = None, max_cells: int, max_bytes: int) -> Grid:
    """Load one map file (and its sidecar ``NAME.json``, if any); the name defaults to the stem."""
    path = Path(path)
    name = path.stem if name is None else name
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise MapLoadError(f"cannot read file: {exc.strerror or exc}") from exc
    if size == 0:
        raise MapLoadError("file is empty (0 bytes)")
    if size > max_bytes:
        raise MapLoadError(f"file is {size} bytes, over the limit of {max_bytes} bytes")
    suffix = path.suffix.lower()
    if suffix not in MAP_SUFFIXES:
        raise MapLoadError(f"unsupported file type {suffix!r}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MapLoadError(f"cannot read file: {exc.strerror or exc}") from exc
    sidecar = read_sidecar(path.with_suffix(".json"))
    if suffix in TILED_SUFFIXES:
        return load_tiled(
            name,
            data,
            tmx=suffix == ".tmx",
            max_cells=max_cells,
            max_bytes=max_bytes,
            sidecar=sidecar,
            source=path.name,
            tileset_dir=path.parent,
        )
    return load_map_data(
        name,
        data,
        movingai=suffix in MOVINGAI_SUFFIXES,
        max_cells=max_cells,
        sidecar=sidecar,
        source=path.name,
    )


def sniff_movingai(data: bytes) -> bool:
    """True if ``data`` looks like a Moving AI map (its first line is a ``type`` header)."""
    return data.lstrip()[:5] == b"type "


def load_map_data(
    name: str,
    data: bytes,
    *,
    movingai: bool,
    max_cells: int,
    sidecar: dict | None = None,
    source: str = "",
) -> Grid:
    """Build a map from file contents: Moving AI text, or an image Pillow can read."""
    sidecar = sidecar or {}
    if not data:
        raise MapLoadError("file is empty (0 bytes)")
    if "tiles" in sidecar:
        raise MapLoadError("sidecar: 'tiles' applies to Tiled maps only")
    if movingai:
        if "palette" in sidecar:
            raise MapLoadError("sidecar: 'palette' applies to bitmaps only")
        chars = movingai_chars(data, max_cells=max_cells)
        walkable = np.isin(chars, np.frombuffer(bytes(_MOVINGAI_PASSABLE), dtype=np.uint8))
        terrain = (chars == ord("S")).astype(np.uint8)
        classes = (TerrainClass("ground", 1.0), TerrainClass("swamp", 1.0))
    else:
        image = decode_bitmap(io.BytesIO(data), max_cells=max_cells)
        if "palette" in sidecar:
            walkable, terrain, classes = palette_terrain(image, sidecar["palette"])
        else:
            walkable, terrain, classes = grey_terrain(image)
    classes = apply_costs(classes, sidecar.get("costs", {}))
    if len(classes) == 1 and classes[0] == GROUND[0]:
        terrain = None
    size = (walkable.shape[1], walkable.shape[0])
    return Grid.from_walkable(
        name,
        walkable,
        terrain=terrain,
        terrain_classes=classes,
        source=source,
        links=declared_links(sidecar_links(name, size, sidecar.get("links"))),
    )


_COLOR_RE = re.compile(r"^#[0-9a-fA-F]{6}$")


def read_sidecar(path: Path) -> dict:
    """The optional ``NAME.json`` next to a map: ``palette``, ``costs``, ``tiles``, ``links``."""
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MapLoadError(f"sidecar {path.name} is not valid JSON: {exc}") from None
    return parse_sidecar(text, path.name)


def parse_sidecar(text: str | bytes, label: str) -> dict:
    """A sidecar's JSON, checked (a ``NAME.json`` file, or the ``sidecar`` part of an upload)."""
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise MapLoadError(f"sidecar {label} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or set(data) - {"palette", "costs", "tiles", "links"}:
        raise MapLoadError(
            f"sidecar {label} must be an object with 'palette', 'costs', 'tiles' and/or 'links'"
        )
    if "costs" in data and not isinstance(data["costs"], dict):
        raise MapLoadError(f"sidecar {label}: 'costs' must be an object of class: cost")
    if "palette" in data and not (isinstance(data["palette"], list) and data["palette"]):
        raise MapLoadError(f"sidecar {label}: 'palette' must be a non-empty list")
    if "tiles" in data and not isinstance(data["tiles"], dict):
        raise MapLoadError(f"sidecar {label}: 'tiles' must be an object of gid: rule")
    if "links" in data and not isinstance(data["links"], list):
        raise MapLoadError(f"sidecar {label}: 'links' must be a list of links")
    return data


def parse_movingai(data: bytes, *, max_cells: int) -> np.ndarray:
    """Parse a Moving AI ``.map`` file; returns a boolean ``(height, width)`` walkable array."""
    chars = movingai_chars(data, max_cells=max_cells)
    return np.isin(chars, np.frombuffer(bytes(_MOVINGAI_PASSABLE), dtype=np.uint8))


def movingai_chars(data: bytes, *, max_cells: int) -> np.ndarray:
    """The ``(height, width)`` terrain characters of a Moving AI ``.map`` file, checked."""
    lines = data.split(b"\n")
    header: dict[bytes, bytes] = {}
    row = 0
    # Header: "type", "height", "width" in any order, terminated by the line "map".
    while True:
        if row >= len(lines) or row > 8:
            raise MapLoadError("bad Moving AI header: no 'map' line after type/height/width")
        line = lines[row].strip()
        row += 1
        if line == b"map":
            break
        key, _, value = line.partition(b" ")
        if key not in (b"type", b"height", b"width") or not value.strip():
            raise MapLoadError(f"bad Moving AI header line {row}: {line[:40]!r}")
        header[key] = value.strip()
    for key in (b"type", b"height", b"width"):
        if key not in header:
            raise MapLoadError(f"bad Moving AI header: missing {key.decode()!r}")
    if header[b"type"] != b"octile":
        raise MapLoadError(
            f"unsupported Moving AI map type {header[b'type'].decode(errors='replace')!r}"
        )
    try:
        height, width = int(header[b"height"]), int(header[b"width"])
    except ValueError:
        raise MapLoadError("bad Moving AI header: height and width must be integers") from None
    if height < 1 or width < 1:
        raise MapLoadError(f"bad Moving AI header: size {width}x{height} is empty")
    if width * height > max_cells:
        raise MapLoadError(
            f"map is {width}x{height} = {width * height} cells, over the limit of {max_cells}"
        )
    body = [line.rstrip(b"\r") for line in lines[row:]]
    while body and not body[-1].strip():
        body.pop()  # blank lines at the end of the file
    if len(body) != height:
        raise MapLoadError(f"expected {height} map rows, found {len(body)}")
    rows = body
    grid = np.frombuffer(b"".join(rows), dtype=np.uint8)
    for y, line in enumerate(rows):
        if len(line) != width:
            raise MapLoadError(f"row {y} has {len(line)} characters, expected {width}")
    grid = grid.reshape(height, width)
    known = np.isin(
        grid, np.frombuffer(bytes(_MOVINGAI_PASSABLE | _MOVINGAI_BLOCKED), dtype=np.uint8)
    )
    if not known.all():
        y, x = np.argwhere(~known)[0]
        raise MapLoadError(f"unknown terrain character {chr(grid[y, x])!r} at x={x}, y={y}")
    return grid


def decode_bitmap(source: Path | io.BytesIO, *, max_cells: int) -> Image.Image:
    """Open and decode an image, refusing oversized ones from the header first."""
    try:
        with Image.open(source) as image:
            width, height = image.size  # from the header: nothing decoded yet
            if width * height > max_cells:
                raise MapLoadError(
                    f"image is {width}x{height} = {width * height} cells, "
                    f"over the limit of {max_cells}"
                )
            if width < 1 or height < 1:
                raise MapLoadError(f"image size {width}x{height} is empty")
            image.load()
            _check_mode(image.mode)
            return image.copy() if image.mode != "P" else image.convert("RGBA")
    except MapLoadError:
        raise
    except Image.DecompressionBombError as exc:
        raise MapLoadError(f"refused by the decompression-bomb guard: {exc}") from exc
    except UnidentifiedImageError:
        raise MapLoadError("not a readable image (unknown or corrupt format)") from None
    except Exception as exc:
        # Pillow reports corruption as OSError, ValueError or SyntaxError, and some format
        # plugins as RuntimeError (DDS, BLP, AVIF) or AttributeError (SPIDER): whichever it
        # is, the file cannot be read.
        raise MapLoadError(f"corrupt image: {exc}") from exc


def _check_mode(mode: str) -> None:
    """Refuse pixel modes Pillow decodes but cannot convert to what the terrain rules read
    (luminance, RGB for palettes, RGBA for alpha): LAB, for one. Probed on one pixel."""
    try:
        for target in ("L", "RGB", "RGBA"):
            Image.new(mode, (1, 1)).convert(target)
    except ValueError:
        raise MapLoadError(f"unsupported image mode {mode}") from None


def read_bitmap(path: Path, *, max_cells: int) -> np.ndarray:
    """Decode an image into a boolean ``(height, width)`` walkability array."""
    return grey_terrain(decode_bitmap(path, max_cells=max_cells))[0]


def _luminance(image: Image.Image) -> np.ndarray:
    """8-bit luminance (16-bit greys scaled down, rounded)."""
    if image.mode in ("I", "I;16", "I;16L", "I;16B", "I;16N"):
        return np.rint(np.asarray(image, dtype=np.float64) / 257.0).clip(0, 255).astype(np.uint8)
    if image.mode == "F":
        return np.asarray(image, dtype=np.float64).clip(0, 255).astype(np.uint8)
    return np.asarray(image.convert("L"), dtype=np.uint8)


def _opaque(image: Image.Image) -> np.ndarray | None:
    has_alpha = image.mode in ("RGBA", "LA", "PA", "La", "RGBa") or "transparency" in image.info
    if not has_alpha:
        return None
    return np.asarray(image.convert("RGBA").getchannel("A")) >= WALKABLE_THRESHOLD


def grey_terrain(image: Image.Image):
    """Walkable where luminance >= 128 and alpha >= 128; classes from the grey levels."""
    luminance = _luminance(image)
    walkable = luminance >= WALKABLE_THRESHOLD
    opaque = _opaque(image)
    if opaque is not None:
        walkable &= opaque
    levels = sorted(int(v) for v in np.unique(luminance[walkable]) if v != 255)
    if not levels:
        return walkable, None, GROUND
    classes = GROUND + tuple(TerrainClass(f"grey_{v}", grey_cost(v)) for v in levels)
    lookup = np.zeros(256, dtype=np.uint8)
    for index, v in enumerate(levels, start=1):
        lookup[v] = index
    terrain = np.where(walkable, lookup[luminance], 0).astype(np.uint8)
    return walkable, terrain, classes


def palette_terrain(image: Image.Image, palette: list):
    """Walkability and classes from a sidecar palette of exact RGB colours."""
    rgb = np.asarray(image.convert("RGB"), dtype=np.uint32)
    packed = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    classes: list[TerrainClass] = []
    walkable = np.zeros(packed.shape, dtype=bool)
    terrain = np.zeros(packed.shape, dtype=np.uint8)
    listed = np.zeros(packed.shape, dtype=bool)
    seen_colors = set()
    for entry in palette:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("name"), str)
            or not _COLOR_RE.match(str(entry.get("color", "")))
        ):
            raise MapLoadError(
                "sidecar: each palette entry needs a 'name' and a 'color' like '#a0b0c0'"
            )
        color = int(entry["color"][1:], 16)
        if color in seen_colors:
            raise MapLoadError(f"sidecar: colour {entry['color']} is listed twice")
        seen_colors.add(color)
        here = packed == color
        listed |= here
        if entry.get("blocked") is True:
            continue
        names = [tc.name for tc in classes]
        if entry["name"] in names:
            index = names.index(entry["name"])
        else:
            classes.append(
                TerrainClass(entry["name"], sidecar_cost(entry.get("cost"), repr(entry["name"])))
            )
            index = len(classes) - 1
        walkable |= here
        terrain[here] = index
    if not listed.all():
        y, x = np.argwhere(~listed)[0]
        raise MapLoadError(
            f"sidecar: pixel colour #{int(packed[y, x]):06x} at x={x}, y={y} is not in the palette"
        )
    if not classes:
        raise MapLoadError("sidecar: the palette has no walkable colour")
    if len(classes) > 256:
        raise MapLoadError("sidecar: at most 256 walkable terrain classes")
    opaque = _opaque(image)
    if opaque is not None:
        walkable &= opaque
    return walkable, terrain, tuple(classes)
