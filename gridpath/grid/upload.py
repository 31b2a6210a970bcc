"""Uploaded maps (``PUT /maps/{name}``): the format, an optional sidecar, lossy images refused.

Two forms of body:

* **Raw** (as before): the map file itself, its format sniffed from the bytes: a Moving AI
  ``.map`` (``type`` header), a Tiled JSON map (``{``), a Tiled XML map (``<``), otherwise
  an image. Content types are not trusted to name the format.
* **``multipart/form-data``**: a part ``map`` (the file; its file name's suffix, when it is
  one the loader knows, names the format, otherwise the bytes are sniffed) and an optional
  part ``sidecar``: the JSON a ``NAME.json`` sidecar holds (``palette``, ``costs``,
  ``tiles``), so a map's terrain palette and costs travel with it. No other part is
  accepted.

Lossy images (JPEG, JPEG 2000, lossy WebP) are refused, not converted: compression
artefacts turn a wall's edge into greys, that is into walkable terrain of random costs,
and a palette's exact colours into colours it does not list. A refused upload changes
nothing. What is stored is the parsed :class:`Grid` (re-encoded by ``gridpath.maps.persist``),
never the uploaded bytes under another format's name.
"""

from __future__ import annotations

import codecs
import io
from pathlib import PurePath

from PIL import Image
from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from gridpath.errors import MapLoadError
from gridpath.grid.loader import (
    IMAGE_SUFFIXES,
    MOVINGAI_SUFFIXES,
    TILED_SUFFIXES,
    load_map_data,
    parse_sidecar,
    sniff_movingai,
)
from gridpath.grid.model import Grid

FORM_PARTS = ("map", "sidecar")
LOSSY_FORMATS = frozenset({"JPEG", "MPO", "JPEG2000"})


def load_upload(
    name: str, body: bytes, content_type: str, *, max_cells: int, max_bytes: int
) -> Grid:
    """The map an upload describes; :class:`MapLoadError` (nothing changed) if it is bad."""
    sidecar: dict = {}
    filename = ""
    media_type, params = parse_options_header(content_type or "")
    if media_type == b"multipart/form-data":
        parts = form_parts(body, params.get(b"boundary", b""))
        if "map" not in parts:
            raise MapLoadError("the form has no 'map' part (the map file)")
        filename, body = parts["map"]
        if "sidecar" in parts:
            sidecar = parse_sidecar(parts["sidecar"][1], "part")
    suffix = PurePath(filename).suffix.lower()
    if suffix not in MOVINGAI_SUFFIXES | TILED_SUFFIXES | IMAGE_SUFFIXES:
        suffix = sniff_suffix(body)
    if suffix in TILED_SUFFIXES:
        from gridpath.grid.tiled import load_tiled

        return load_tiled(
            name,
            body,
            tmx=suffix == ".tmx",
            max_cells=max_cells,
            max_bytes=max_bytes,
            sidecar=sidecar,
            source=f"{name}{suffix}",
            tileset_dir=None,
        )
    movingai = suffix in MOVINGAI_SUFFIXES
    if not movingai:
        refuse_lossy(body)
    return load_map_data(
        name,
        body,
        movingai=movingai,
        max_cells=max_cells,
        sidecar=sidecar,
        source=f"{name}{'.map' if movingai else '.png'}",
    )


def sniff_suffix(data: bytes) -> str:
    """The suffix of the format ``data`` looks like: ``.map``, ``.tmj``, ``.tmx`` or ``.png``
    (any image; Pillow recognises the format from the bytes)."""
    if sniff_movingai(data):
        return ".map"
    head = data.lstrip().removeprefix(codecs.BOM_UTF8).lstrip()[:1]
    if head == b"{":
        return ".tmj"
    if head == b"<":
        return ".tmx"
    return ".png"


def refuse_lossy(data: bytes) -> None:
    """:class:`MapLoadError` for a lossy image (read from the header only)."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind = image.format or ""
    except Exception:
        return  # not an image Pillow knows: the loader says so with its own message
    # A WebP file is lossy when its first chunk is "VP8 " (lossless is "VP8L"); an
    # extended one ("VP8X") holds its image chunk further on.
    lossy_webp = kind == "WEBP" and (data[12:16] == b"VP8 " or b"VP8 " in data[12:4096])
    if kind in LOSSY_FORMATS or lossy_webp:
        raise MapLoadError(
            f"{kind} is a lossy image format: its artefacts turn walls into walkable greys "
            "and exact colours into others; upload a PNG (or another lossless format)"
        )


def form_parts(body: bytes, boundary: bytes) -> dict[str, tuple[str, bytes]]:
    """``{part name: (file name, bytes)}`` of a ``multipart/form-data`` body, checked: only
    the parts in :data:`FORM_PARTS`, each once."""
    if not boundary:
        raise MapLoadError("multipart/form-data without a boundary")
    parts: dict[str, tuple[str, bytes]] = {}
    current: dict = {}

    def on_part_begin() -> None:
        current.clear()
        current.update(headers={}, field=b"", value=b"", data=[])

    def on_header_field(data: bytes, start: int, end: int) -> None:
        current["field"] += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        current["value"] += data[start:end]

    def on_header_end() -> None:
        current["headers"][current["field"].lower()] = current["value"]
        current["field"], current["value"] = b"", b""

    def on_part_data(data: bytes, start: int, end: int) -> None:
        current["data"].append(data[start:end])

    def on_part_end() -> None:
        disposition, options = parse_options_header(
            current["headers"].get(b"content-disposition", b"")
        )
        part = options.get(b"name", b"").decode("utf-8", "replace")
        if disposition != b"form-data" or part not in FORM_PARTS:
            raise MapLoadError(
                f"unknown form part {part!r}: send 'map' (the file) and optionally 'sidecar'"
            )
        if part in parts:
            raise MapLoadError(f"the form has the part {part!r} twice")
        filename = options.get(b"filename", b"").decode("utf-8", "replace")
        parts[part] = (filename, b"".join(current["data"]))

    callbacks = {
        "on_part_begin": on_part_begin,
        "on_header_field": on_header_field,
        "on_header_value": on_header_value,
        "on_header_end": on_header_end,
        "on_part_data": on_part_data,
        "on_part_end": on_part_end,
    }
    parser = MultipartParser(boundary, callbacks)
    try:
        parser.write(body)
        parser.finalize()
    except MultipartParseError as exc:
        raise MapLoadError(f"malformed multipart/form-data: {exc}") from None
    return parts
