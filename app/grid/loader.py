"""Reading map files into :class:`~app.grid.model.Grid` objects.

Two families of formats:

* **Bitmaps** (PNG, and the other formats Pillow reads: BMP, GIF, TIFF, WebP, PGM/PPM,
  JPEG). A pixel is *walkable* when its luminance is at least 128 (white, 255, is the
  canonical walkable value) and *blocked* when it is darker (black, 0, is the canonical
  blocked value). Pixels whose alpha is below 128 are blocked too. 16-bit greyscale is
  scaled to 8 bits first. The image size is checked against the cell limit from the
  file header, before any pixel is decoded.
* **Moving AI ``.map``** text files: a header ``type octile`` / ``height H`` /
  ``width W`` / ``map``, then ``H`` rows of ``W`` characters. ``.``, ``G`` and ``S`` are
  passable; ``@``, ``O``, ``T`` and ``W`` are blocked; any other character is an error.
  CRLF line endings are accepted.

Every failure raises :class:`~app.errors.MapLoadError` with a reason a person can act on.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

from app.errors import MapLoadError
from app.grid.model import Grid

MOVINGAI_SUFFIXES = frozenset({".map"})
IMAGE_SUFFIXES = frozenset(
    {".png", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".pgm", ".ppm", ".pbm", ".pnm",
     ".jpg", ".jpeg"}
)
MAP_SUFFIXES = MOVINGAI_SUFFIXES | IMAGE_SUFFIXES

WALKABLE_THRESHOLD = 128  # luminance and alpha at or above this are walkable
_MOVINGAI_PASSABLE = frozenset(b".GS")
_MOVINGAI_BLOCKED = frozenset(b"@OTW")


def is_map_file(path: Path) -> bool:
    """True for files the loader understands (by suffix); hidden files are skipped."""
    return path.is_file() and not path.name.startswith(".") and path.suffix.lower() in MAP_SUFFIXES


def load_map(path: Path, *, name: str | None = None, max_cells: int, max_bytes: int) -> Grid:
    """Load one map file; the map's name defaults to the file stem."""
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
    if suffix in MOVINGAI_SUFFIXES:
        walkable = parse_movingai(path.read_bytes(), max_cells=max_cells)
    elif suffix in IMAGE_SUFFIXES:
        walkable = read_bitmap(path, max_cells=max_cells)
    else:
        raise MapLoadError(f"unsupported file type {suffix!r}")
    return Grid.from_walkable(name, walkable, source=path.name)


def parse_movingai(data: bytes, *, max_cells: int) -> np.ndarray:
    """Parse a Moving AI ``.map`` file; returns a boolean ``(height, width)`` array."""
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
        raise MapLoadError(f"unsupported Moving AI map type {header[b'type'].decode(errors='replace')!r}")
    try:
        height, width = int(header[b"height"]), int(header[b"width"])
    except ValueError:
        raise MapLoadError("bad Moving AI header: height and width must be integers") from None
    if height < 1 or width < 1:
        raise MapLoadError(f"bad Moving AI header: size {width}x{height} is empty")
    if width * height > max_cells:
        raise MapLoadError(f"map is {width}x{height} = {width * height} cells, over the limit of {max_cells}")
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
    known = np.isin(grid, np.frombuffer(bytes(_MOVINGAI_PASSABLE | _MOVINGAI_BLOCKED), dtype=np.uint8))
    if not known.all():
        y, x = np.argwhere(~known)[0]
        raise MapLoadError(f"unknown terrain character {chr(grid[y, x])!r} at x={x}, y={y}")
    return np.isin(grid, np.frombuffer(bytes(_MOVINGAI_PASSABLE), dtype=np.uint8))


def read_bitmap(path: Path, *, max_cells: int) -> np.ndarray:
    """Decode an image into a boolean ``(height, width)`` walkability array."""
    try:
        with Image.open(path) as image:
            width, height = image.size  # from the header: nothing decoded yet
            if width * height > max_cells:
                raise MapLoadError(
                    f"image is {width}x{height} = {width * height} cells, over the limit of {max_cells}"
                )
            if width < 1 or height < 1:
                raise MapLoadError(f"image size {width}x{height} is empty")
            image.load()
            return bitmap_walkable(image)
    except MapLoadError:
        raise
    except Image.DecompressionBombError as exc:
        raise MapLoadError(f"refused by the decompression-bomb guard: {exc}") from exc
    except UnidentifiedImageError:
        raise MapLoadError("not a readable image (unknown or corrupt format)") from None
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow reports truncation/corruption so
        raise MapLoadError(f"corrupt image: {exc}") from exc


def bitmap_walkable(image: Image.Image) -> np.ndarray:
    """Walkable where luminance >= 128 and (if there is alpha) alpha >= 128."""
    if image.mode in ("I", "I;16", "I;16L", "I;16B", "I;16N"):
        luminance = np.asarray(image, dtype=np.float64) / 257.0  # 16-bit grey -> 0..255
    elif image.mode == "F":
        luminance = np.asarray(image, dtype=np.float64)
    else:
        luminance = np.asarray(image.convert("L"), dtype=np.float64)
    walkable = luminance >= WALKABLE_THRESHOLD
    has_alpha = image.mode in ("RGBA", "LA", "PA", "La", "RGBa") or "transparency" in image.info
    if has_alpha:
        alpha = np.asarray(image.convert("RGBA").getchannel("A"))
        walkable &= alpha >= WALKABLE_THRESHOLD
    return walkable
