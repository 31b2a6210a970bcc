"""Uploads: raw bodies of every format, the multipart form with a sidecar, lossy images refused."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from gridpath.errors import MapLoadError
from gridpath.grid.upload import load_upload
from tests.gridpath.grid.test_tiled import TMJ, TMX, assert_example

LIMITS = {"max_cells": 10_000, "max_bytes": 1_000_000}
BOUNDARY = "gridpath-test-boundary"
FORM = f"multipart/form-data; boundary={BOUNDARY}"


def image_bytes(pixels, format="PNG", **save) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(out, format=format, **save)
    return out.getvalue()


def form(*parts: tuple[str, str | None, bytes]) -> bytes:
    """A multipart/form-data body: (part name, file name or None, content)."""
    body = b""
    for name, filename, content in parts:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename}"'
        body += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()
        body += content + b"\r\n"
    return body + f"--{BOUNDARY}--\r\n".encode()


COLOURS = np.array([[[255, 255, 255], [224, 192, 128], [0, 0, 0]]], dtype=np.uint8)
PALETTE = {
    "palette": [
        {"name": "road", "color": "#ffffff", "cost": 1},
        {"name": "sand", "color": "#e0c080", "cost": 2.5},
        {"name": "wall", "color": "#000000", "blocked": True},
    ]
}


@pytest.mark.parametrize(
    "body,content_type",
    [
        (TMJ.encode(), "application/json"),
        (TMX.encode(), "application/xml"),
        (TMX.encode(), ""),
        (b"\xef\xbb\xbf" + TMX.encode(), "text/xml"),  # a byte-order mark first
    ],
)
def test_raw_tiled_bodies(body, content_type):
    grid = load_upload("t", body, content_type, **LIMITS)
    assert_example(grid)
    assert grid.source in ("t.tmj", "t.tmx")


def test_raw_png_and_movingai_as_before():
    grid = load_upload("p", image_bytes([[255, 0]]), "image/png", **LIMITS)
    assert grid.walkable.tolist() == [[1, 0]] and grid.source == "p.png"
    text = b"type octile\nheight 1\nwidth 3\nmap\n.@S\n"
    grid = load_upload("m", text, "text/plain", **LIMITS)
    assert grid.walkable.tolist() == [[1, 0, 1]] and grid.source == "m.map"


def test_form_carries_palette_and_costs():
    body = form(
        ("map", "colours.png", image_bytes(COLOURS)),
        ("sidecar", None, json.dumps(PALETTE).encode()),
    )
    grid = load_upload("c", body, FORM, **LIMITS)
    assert grid.walkable.tolist() == [[1, 1, 0]]
    assert [(tc.name, tc.cost) for tc in grid.terrain_classes] == [("road", 1.0), ("sand", 2.5)]
    text = b"type octile\nheight 1\nwidth 2\nmap\n.S\n"
    body = form(("map", "x.map", text), ("sidecar", "x.json", b'{"costs": {"swamp": 4}}'))
    grid = load_upload("m", body, FORM, **LIMITS)
    assert grid.terrain_costs == {"ground": 1.0, "swamp": 4.0}


def test_form_map_format_from_file_name_or_sniffed():
    sidecar = json.dumps({"tiles": {"1": {"walkable": True}}}).encode()
    grid = load_upload(
        "t", form(("map", "level.tmx", TMX.encode()), ("sidecar", None, sidecar)), FORM, **LIMITS
    )
    assert grid.is_walkable(1, 1)  # the sidecar opened gid 1
    assert_example(load_upload("t", form(("map", "blob.bin", TMJ.encode())), FORM, **LIMITS))


@pytest.mark.parametrize(
    "body,reason",
    [
        (form(("sidecar", None, b"{}")), "no 'map' part"),
        (
            form(("map", "a.png", image_bytes([[255]])), ("extra", None, b"1")),
            "unknown form part 'extra'",
        ),
        (form(("map", "a.png", b"x"), ("map", "b.png", b"y")), "the part 'map' twice"),
        (form(("map", "a.png", image_bytes([[255]])), ("sidecar", None, b"{")), "not valid JSON"),
        (
            form(("map", "a.png", image_bytes([[255]])), ("sidecar", None, b'{"x": 1}')),
            "must be an object",
        ),
        (
            form(
                ("map", "a.png", image_bytes(COLOURS)), ("sidecar", None, b'{"costs": {"lava": 2}}')
            ),
            "unknown terrain class 'lava'",
        ),
        (
            form(("map", "a.png", image_bytes([[255]])), ("sidecar", None, b"[" * 100_000)),
            "not valid JSON",
        ),
        (b"--" + BOUNDARY.encode() + b"\r\nbroken", "no 'map' part"),
    ],
)
def test_bad_forms(body, reason):
    with pytest.raises(MapLoadError) as info:
        load_upload("f", body, FORM, **LIMITS)
    assert reason in info.value.reason


def test_form_without_boundary():
    with pytest.raises(MapLoadError, match="without a boundary"):
        load_upload("f", b"", "multipart/form-data", **LIMITS)


@pytest.mark.parametrize(
    "format,save",
    [("JPEG", {}), ("WEBP", {"quality": 80}), ("JPEG2000", {})],
)
def test_lossy_images_refused(format, save):
    try:
        data = image_bytes(np.full((8, 8), 255), format=format, **save)
    except (KeyError, OSError) as exc:  # a Pillow built without that codec
        pytest.skip(f"Pillow cannot write {format}: {exc}")
    with pytest.raises(MapLoadError, match="lossy image format"):
        load_upload("j", data, "image/jpeg", **LIMITS)
    with pytest.raises(MapLoadError, match="lossy image format"):
        load_upload("j", form(("map", "j.png", data)), FORM, **LIMITS)


def test_lossless_webp_accepted():
    try:
        data = image_bytes([[255, 0]], format="WEBP", lossless=True)
    except (KeyError, OSError) as exc:
        pytest.skip(f"Pillow cannot write WebP: {exc}")
    assert load_upload("w", data, "image/webp", **LIMITS).walkable.tolist() == [[1, 0]]
