"""A grid's cells as a map file: the canonical encoding a grid is stored in (a folder's file,
Redis's ``data`` field), chosen so that it loads back to the same map.

A Moving AI map stays a ``.map`` while its classes are ``ground`` and ``swamp``; classes
that grey levels express are a greyscale PNG; any others are an RGB PNG with a palette
sidecar. Works on arrays and imports no model (the model's ``encode`` calls it).
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from PIL import Image

from gridpath.grid.terrain import TerrainClass, grey_cost

Encoding = tuple[str, bytes, dict | None]  # (file suffix, file bytes, sidecar or None)

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


def encode_cells(
    walkable: np.ndarray, terrain: np.ndarray, classes: Sequence[TerrainClass], source: str
) -> Encoding:
    """``(suffix, file bytes, sidecar or None)`` of the cells (``walkable`` bool and
    ``terrain`` class indices, both ``(height, width)``) of a map loaded from ``source``."""
    names = [tc.name for tc in classes]
    moving_ai = source.lower().endswith(".map") and set(names) <= {"ground", "swamp"}
    if moving_ai and names[0] == "ground":
        return _moving_ai(walkable, terrain, classes)
    grey = {
        "ground": 255,
        **{n: int(n[5:]) for n in names if n.startswith("grey_") and n[5:].isdigit()},
    }
    if all(tc.name in grey and tc.cost == grey_cost(grey[tc.name]) for tc in classes):
        levels = np.array([grey[n] for n in names], dtype=np.uint8)
        pixels = np.where(walkable, levels[terrain], 0).astype(np.uint8)
        return ".png", _png(Image.fromarray(pixels, mode="L")), None
    return _palette_png(walkable, terrain, classes)


def _moving_ai(walkable: np.ndarray, terrain: np.ndarray, classes: Sequence[TerrainClass]):
    names = [tc.name for tc in classes]
    swamp = terrain == names.index("swamp") if "swamp" in names else False
    rows = np.where(walkable, np.where(swamp, ord("S"), ord(".")), ord("@"))
    height, width = walkable.shape
    text = b"type octile\nheight %d\nwidth %d\nmap\n" % (height, width)
    text += b"\n".join(bytes(r.astype(np.uint8)) for r in rows) + b"\n"
    costs = {tc.name: tc.cost for tc in classes if tc.cost != 1.0}
    return ".map", text, ({"costs": costs} if costs else None)


def _palette_png(walkable: np.ndarray, terrain: np.ndarray, classes: Sequence[TerrainClass]):
    colours = [
        _PALETTE[i]
        if i < len(_PALETTE)
        else f"#{(37 * i) % 256:02x}{(91 * i) % 256:02x}{(151 * i) % 256:02x}"
        for i in range(len(classes))
    ]
    rgb = np.zeros((*walkable.shape, 3), dtype=np.uint8)
    rgb_of_class = np.array(
        [[int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)] for c in colours], dtype=np.uint8
    )
    rgb[walkable] = rgb_of_class[terrain[walkable]]
    palette = [
        {"name": tc.name, "color": colours[i], "cost": tc.cost} for i, tc in enumerate(classes)
    ]
    palette.append({"name": "wall", "color": "#000000", "blocked": True})
    return ".png", _png(Image.fromarray(rgb, mode="RGB")), {"palette": palette}


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
