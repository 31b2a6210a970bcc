"""Reading PNG and Moving AI maps, and refusing bad files with a reason."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
from PIL import Image, ImageFile

from gridpath.errors import MapLoadError
from gridpath.grid import load_map
from gridpath.grid.loader import parse_movingai
from tests.conftest import MOVINGAI_DIR, MOVINGAI_MISSING

LIMITS = {"max_cells": 16_000_000, "max_bytes": 64 * 1024 * 1024}


def write_png(path, pixels, mode="L"):
    Image.fromarray(np.asarray(pixels, dtype=np.uint8), mode=None).convert(mode).save(path)
    return path


def test_png_white_walkable_black_blocked(tmp_path):
    pixels = np.array([[255, 0, 255], [255, 255, 0]], dtype=np.uint8)
    grid = load_map(write_png(tmp_path / "tiny.png", pixels), **LIMITS)
    assert grid.name == "tiny" and (grid.width, grid.height) == (3, 2)
    assert grid.walkable.tolist() == [[1, 0, 1], [1, 1, 0]]
    assert grid.walkable_count == 4
    assert grid.is_walkable(0, 0) and not grid.is_walkable(1, 0)  # (x, y) = (column, row)


def test_png_grey_threshold_and_alpha(tmp_path):
    rgba = np.zeros((1, 4, 4), dtype=np.uint8)
    rgba[0, :, :3] = [[255, 255, 255], [127, 127, 127], [128, 128, 128], [255, 255, 255]]
    rgba[0, :, 3] = [255, 255, 255, 0]  # the last pixel is transparent
    Image.fromarray(rgba, mode="RGBA").save(tmp_path / "alpha.png")
    grid = load_map(tmp_path / "alpha.png", **LIMITS)
    assert grid.walkable.tolist() == [[1, 0, 1, 0]]


def test_png_16bit_grey(tmp_path):
    pixels = np.array([[65535, 0, 40000]], dtype=np.uint16)
    Image.fromarray(pixels).save(tmp_path / "deep.png")
    assert load_map(tmp_path / "deep.png", **LIMITS).walkable.tolist() == [[1, 0, 1]]


def test_movingai_parse():
    text = b"type octile\nheight 2\nwidth 4\nmap\n.@GS\r\nTOW.\n"
    assert parse_movingai(text, max_cells=100).tolist() == [
        [True, False, True, True],
        [False, False, False, True],
    ]


@pytest.mark.parametrize(
    "content,reason",
    [
        (b"", "empty"),
        (b"\x89PNG\r\n\x1a\nnot really", "corrupt"),
        (b"type hex\nheight 1\nwidth 1\nmap\n.\n", "unsupported"),
        (b"height 1\nwidth 1\nmap\n.\n", "missing"),
        (b"type octile\nheight 2\nwidth 2\nmap\n..\n", "expected 2 map rows"),
        (b"type octile\nheight 1\nwidth 3\nmap\n..\n", "row 0 has 2 characters"),
        (b"type octile\nheight 1\nwidth 2\nmap\n.X\n", "unknown terrain character 'X'"),
        (b"type octile\nheight x\nwidth 2\nmap\n..\n", "integers"),
        (b"type octile\nheight 5000\nwidth 5000\nmap\n", "over the limit"),
        (b"garbage", "header"),
    ],
)
def test_bad_files_have_reasons(tmp_path, content, reason):
    suffix = ".png" if content.startswith(b"\x89PNG") or content == b"" else ".map"
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(content)
    with pytest.raises(MapLoadError, match=reason):
        load_map(path, max_cells=1_000_000, max_bytes=1_000_000)


def pillow_bytes(mode: str, fmt: str, at: int = 0, new: bytes = b"") -> bytes:
    """A 3x2 image saved by Pillow as ``fmt``, with ``new`` written over its bytes at ``at``."""
    out = io.BytesIO()
    Image.new(mode, (3, 2)).save(out, format=fmt)
    data = bytearray(out.getvalue())
    data[at : at + len(new)] = new
    return bytes(data)


# Files Pillow identifies but cannot turn into a map, with what the loader says of them.
# They used to escape as ValueError (LAB), NotImplementedError (DDS, BLP) and
# AttributeError (SPIDER): a 500 on upload, and a start-up that never finished.
UNREADABLE_IMAGES = {
    "tiff-lab": (pillow_bytes("LAB", "TIFF"), "unsupported image mode LAB"),
    "dds": (pillow_bytes("RGB", "DDS", 80, bytes(4)), "corrupt image: Unknown pixel format"),
    "blp": (pillow_bytes("P", "BLP", 8, b"\xa3"), "corrupt image: Unknown BLP encoding"),
    "spider": (pillow_bytes("F", "SPIDER", 104, struct.pack("<f", 1.0)), "corrupt image"),
}


@pytest.mark.parametrize("content,reason", UNREADABLE_IMAGES.values(), ids=UNREADABLE_IMAGES)
def test_images_pillow_cannot_read_have_reasons(tmp_path, content, reason):
    path = tmp_path / "odd.png"  # Pillow goes by the content, not the name
    path.write_bytes(content)
    with pytest.raises(MapLoadError, match=reason):
        load_map(path, max_cells=1_000_000, max_bytes=1_000_000)


def test_oversized_image_refused_before_decoding(tmp_path, monkeypatch):
    Image.new("L", (300, 200), 255).save(tmp_path / "big.png")
    decoded = []
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: decoded.append(1))
    with pytest.raises(MapLoadError, match="300x200 = 60000 cells, over the limit of 50000"):
        load_map(tmp_path / "big.png", max_cells=50_000, max_bytes=1_000_000)
    assert decoded == []


def test_file_over_byte_limit(tmp_path):
    (tmp_path / "m.map").write_bytes(b"type octile\nheight 1\nwidth 1\nmap\n.\n")
    with pytest.raises(MapLoadError, match="over the limit of 10 bytes"):
        load_map(tmp_path / "m.map", max_cells=100, max_bytes=10)


@pytest.mark.skipif(not MOVINGAI_DIR.is_dir(), reason=MOVINGAI_MISSING)
@pytest.mark.parametrize("path", sorted(MOVINGAI_DIR.glob("*.map")), ids=lambda p: p.stem)
def test_shared_movingai_maps_load_as_they_are(path):
    grid = load_map(path, **LIMITS)
    scen = (path.parent / f"{path.name}.scen").read_text().splitlines()[1]
    _, _, width, height, *_ = scen.split("\t")
    assert (grid.width, grid.height) == (int(width), int(height))
    assert 0 < grid.walkable_count < grid.cell_count
