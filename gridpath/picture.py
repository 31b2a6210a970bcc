"""PNG drawing: maps (with a path) and flow fields. Pure numpy and Pillow."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from gridpath.grid import Grid
from gridpath.search.flowfield import FlowField


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def render_map(
    grid: Grid, path: np.ndarray | None = None, waypoints: np.ndarray | None = None, scale: int = 1
) -> bytes:
    """Walkable white (greyer the costlier), blocked black, path red, waypoints blue."""
    costs = np.array([tc.cost for tc in grid.terrain_classes])
    shade = np.clip(255 - (costs[grid.terrain[1:-1, 1:-1]] - 1.0) * 32, 128, 255).astype(np.uint8)
    walkable = grid.walkable.astype(bool)
    rgb = np.zeros((grid.height, grid.width, 3), dtype=np.uint8)
    rgb[walkable] = shade[walkable][:, None]
    if path is not None and len(path):
        rgb[path[:, 1], path[:, 0]] = (220, 40, 40)
    if waypoints is not None and len(waypoints):
        rgb[waypoints[:, 1], waypoints[:, 0]] = (40, 80, 230)
    image = Image.fromarray(rgb, mode="RGB")
    if scale > 1:
        image = image.resize((grid.width * scale, grid.height * scale), Image.NEAREST)
    return _png(image)


def render_flow_field(grid: Grid, field: FlowField) -> bytes:
    """Blocked black, unreachable dark red, reachable from bright (near) to dark blue (far)."""
    rgb = np.zeros((grid.height, grid.width, 3), dtype=np.uint8)
    walkable = grid.walkable.astype(bool)
    reachable = field.cost >= 0
    rgb[walkable & ~reachable] = (110, 0, 0)
    if reachable.any():
        near = 1.0 - field.cost / max(float(field.cost[reachable].max()), 1e-9)
        rgb[reachable, 0] = (40 + 215 * near[reachable] ** 2).astype(np.uint8)
        rgb[reachable, 1] = (60 + 195 * near[reachable]).astype(np.uint8)
        rgb[reachable, 2] = 255
    return _png(Image.fromarray(rgb, mode="RGB"))
