"""Generate the demo maps shipped with the pathfinding service.

Writes three 8-bit greyscale PNGs (Pillow mode "L") where 255 = walkable and
0 = blocked; row 0 is the top of the image and a cell is (x, y) = (column, row):

* ``arena.png`` (64x64)   - hand-laid 3x3 rooms with doors, pillars and crates.
* ``maze.png``  (129x129) - perfect maze from a seeded randomized depth-first search.
* ``field.png`` (256x256) - open battlefield with seeded rectangles, discs and two
  long walls with gaps.

The output is deterministic (fixed seeds, no PNG metadata). Every map is checked
to have exactly one walkable component under the service's movement rule
(8-connected, no corner cutting); because a legal diagonal step always implies an
orthogonal two-step detour, that equals 4-connectivity. Isolated pockets are filled.

Usage: python maps/make_demo_maps.py [OUT_DIR]   (default: this script's folder)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage

WALK = 255
BLOCK = 0

MAZE_SEED = 20240611
FIELD_SEED = 7331

# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------


def bordered(width: int, height: int) -> np.ndarray:
    """Return an all-walkable uint8 grid of shape (height, width) with a 1-cell wall border."""
    grid = np.full((height, width), WALK, dtype=np.uint8)
    grid[0, :] = grid[-1, :] = grid[:, 0] = grid[:, -1] = BLOCK
    return grid


def fill_pockets(grid: np.ndarray, anchor: tuple[int, int]) -> np.ndarray:
    """Block every walkable cell not connected to ``anchor`` (x, y); returns the grid."""
    labels, _ = ndimage.label(grid == WALK)  # default structure = 4-connectivity
    keep = labels[anchor[1], anchor[0]]
    if keep == 0:
        raise ValueError(f"anchor {anchor} is not walkable")
    grid[(labels != keep) & (labels != 0)] = BLOCK
    return grid


def validate(name: str, grid: np.ndarray, required: list[tuple[int, int]]) -> None:
    """Raise unless ``grid`` follows the map contract and is one connected component."""
    if grid.dtype != np.uint8 or grid.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D uint8 array")
    if not np.isin(grid, (BLOCK, WALK)).all():
        raise ValueError(f"{name}: pixel values other than 0/255")
    if (grid[0, :] | grid[-1, :]).any() or (grid[:, 0] | grid[:, -1]).any():
        raise ValueError(f"{name}: border is not solid")
    for x, y in required:
        if grid[y, x] != WALK:
            raise ValueError(f"{name}: required cell ({x}, {y}) is blocked")
    _, count = ndimage.label(grid == WALK)
    if count != 1:
        raise ValueError(f"{name}: walkable cells form {count} components, expected 1")


def save_png(grid: np.ndarray, path: Path) -> None:
    """Save as a plain mode-"L" PNG (no metadata, fixed compression) and verify the round trip."""
    Image.fromarray(grid, mode="L").save(path, format="PNG", optimize=False, compress_level=9)
    with Image.open(path) as img:
        if img.mode != "L" or not np.array_equal(np.asarray(img), grid):
            raise ValueError(f"{path}: PNG round trip mismatch")


# ---------------------------------------------------------------------------
# arena: 3x3 rooms, 2-cell walls, 3-cell doors, hand-placed cover
# ---------------------------------------------------------------------------

ARENA_SIZE = 64
# Inclusive room spans along either axis: 19 + wall 2 + 20 + wall 2 + 19 = 62 interior cells.
ARENA_SPANS = [(1, 19), (22, 41), (44, 62)]
ARENA_WALLS = [(20, 21), (42, 43)]
DOOR_WIDTH = 3
# Door start offset from the start of the shared room span, per wall segment.
# Vertical walls: key (wall index, room row); horizontal walls: key (wall index, room column).
VERTICAL_DOORS = {(0, 0): 8, (0, 1): 3, (0, 2): 13, (1, 0): 12, (1, 1): 14, (1, 2): 6}
HORIZONTAL_DOORS = {(0, 0): 4, (0, 1): 8, (0, 2): 11, (1, 0): 13, (1, 1): 2, (1, 2): 8}
# Furniture per room (column, row): rectangles (x, y, w, h) in room-local coordinates.
ARENA_FURNITURE = {
    (0, 0): [(4, 4, 2, 2), (12, 5, 3, 2), (6, 12, 2, 3)],
    (1, 0): [(5, 9, 10, 2)],
    (2, 0): [(4, 4, 2, 2), (12, 4, 2, 2), (4, 12, 2, 2), (12, 12, 2, 2)],
    (0, 1): [(5, 5, 7, 2), (5, 7, 2, 6)],
    (1, 1): [(4, 4, 2, 2), (14, 4, 2, 2), (4, 14, 2, 2), (14, 14, 2, 2), (8, 8, 4, 4)],
    (2, 1): [(13, 4, 2, 11), (5, 9, 4, 2)],
    (0, 2): [(8, 4, 3, 3), (4, 11, 2, 2), (12, 12, 3, 2)],
    (1, 2): [(4, 5, 2, 9), (14, 5, 2, 9)],
    (2, 2): [(5, 5, 3, 3), (11, 11, 3, 3)],
}


def make_arena() -> np.ndarray:
    """A 64x64 game level: 3x3 rooms joined by 3-cell doors, with pillars and crates."""
    grid = bordered(ARENA_SIZE, ARENA_SIZE)
    for lo, hi in ARENA_WALLS:
        grid[:, lo : hi + 1] = BLOCK
        grid[lo : hi + 1, :] = BLOCK
    for (wall, row), offset in VERTICAL_DOORS.items():
        lo, hi = ARENA_WALLS[wall]
        y0 = ARENA_SPANS[row][0] + offset
        grid[y0 : y0 + DOOR_WIDTH, lo : hi + 1] = WALK
    for (wall, col), offset in HORIZONTAL_DOORS.items():
        lo, hi = ARENA_WALLS[wall]
        x0 = ARENA_SPANS[col][0] + offset
        grid[lo : hi + 1, x0 : x0 + DOOR_WIDTH] = WALK
    for (col, row), boxes in ARENA_FURNITURE.items():
        ox, oy = ARENA_SPANS[col][0], ARENA_SPANS[row][0]
        for x, y, w, h in boxes:
            grid[oy + y : oy + y + h, ox + x : ox + x + w] = BLOCK
    return fill_pockets(grid, (1, 1))


# ---------------------------------------------------------------------------
# maze: randomized depth-first search (recursive backtracker) on a cell lattice
# ---------------------------------------------------------------------------

MAZE_CELLS = 64  # 64x64 lattice cells -> 2 * 64 + 1 = 129 pixels per side
STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))


def make_maze(seed: int = MAZE_SEED) -> np.ndarray:
    """A perfect maze: lattice cell (i, j) sits at pixel (2i + 1, 2j + 1); walls 1 cell thick."""
    n = MAZE_CELLS
    rng = np.random.default_rng(seed)
    grid = np.full((2 * n + 1, 2 * n + 1), BLOCK, dtype=np.uint8)
    visited = np.zeros((n, n), dtype=bool)
    visited[0, 0] = True
    grid[1, 1] = WALK
    stack = [(0, 0)]
    while stack:
        cx, cy = stack[-1]
        options = [
            (dx, dy)
            for dx, dy in STEPS
            if 0 <= cx + dx < n and 0 <= cy + dy < n and not visited[cy + dy, cx + dx]
        ]
        if not options:
            stack.pop()
            continue
        dx, dy = options[rng.integers(len(options))]
        nx, ny = cx + dx, cy + dy
        visited[ny, nx] = True
        grid[2 * cy + 1 + dy, 2 * cx + 1 + dx] = WALK  # knock down the wall between
        grid[2 * ny + 1, 2 * nx + 1] = WALK
        stack.append((nx, ny))
    return fill_pockets(grid, (1, 1))


# ---------------------------------------------------------------------------
# field: open battlefield with scattered cover and two long walls with gaps
# ---------------------------------------------------------------------------

FIELD_SIZE = 256
FIELD_TARGET_BLOCKED = 0.20  # stop scattering once this fraction of the map is blocked
CORNER_CLEAR = 14  # obstacle-free square just inside each corner
OBSTACLE_SPACING = 2  # minimum free cells between scattered obstacles
WALL_THICKNESS = 3
GAP_WIDTH = 10
MAX_ATTEMPTS = 50_000


def shape_mask(kind: str, cx: int, cy: int, a: int, b: int, grow: int, size: int):
    """Rasterize a rectangle (half-sizes a, b) or disc (radius a) grown by ``grow`` cells.

    Returns ``(rows, cols, mask)``: slices into the map (clipped) and a boolean mask for them.
    """
    ha, hb = (a, b) if kind == "rect" else (a, a)
    y0, y1 = max(cy - hb - grow, 0), min(cy + hb + grow + 1, size)
    x0, x1 = max(cx - ha - grow, 0), min(cx + ha + grow + 1, size)
    yy, xx = np.ogrid[y0:y1, x0:x1]
    if kind == "rect":
        mask = np.ones((y1 - y0, x1 - x0), dtype=bool)
    else:
        mask = (xx - cx) ** 2 + (yy - cy) ** 2 <= (a + grow) ** 2 + a
    return slice(y0, y1), slice(x0, x1), mask


def add_long_wall(grid, keep_clear, rng, horizontal: bool, at: int, start: int, stop: int, gaps):
    """Draw a straight wall from ``start`` to ``stop`` at ``at``, leaving ``gaps`` openings.

    One gap is placed at a random spot in each of ``gaps`` equal sections of the wall; the
    gap and its approaches are marked in ``keep_clear`` so scattered cover cannot plug it.
    """
    band = slice(at, at + WALL_THICKNESS)
    section = (stop - start) // gaps
    openings = []
    for k in range(gaps):
        lo = start + k * section + 2
        openings.append(int(rng.integers(lo, lo + section - GAP_WIDTH - 4)))
    along = np.zeros(grid.shape[1 if horizontal else 0], dtype=bool)
    along[start:stop] = True
    for g in openings:
        along[g : g + GAP_WIDTH] = False
    wall = grid[band, :] if horizontal else grid[:, band]
    if horizontal:
        wall[:, along] = BLOCK
    else:
        wall[along, :] = BLOCK
    margin = OBSTACLE_SPACING + 1
    near = slice(max(at - margin, 0), at + WALL_THICKNESS + margin)
    approach = slice(max(at - 12, 0), at + WALL_THICKNESS + 12)
    if horizontal:
        keep_clear[near, start - margin : stop + margin] = True
        for g in openings:
            keep_clear[approach, g - 3 : g + GAP_WIDTH + 3] = True
    else:
        keep_clear[start - margin : stop + margin, near] = True
        for g in openings:
            keep_clear[g - 3 : g + GAP_WIDTH + 3, approach] = True


def make_field(seed: int = FIELD_SEED) -> np.ndarray:
    """A 256x256 open field, roughly 20% blocked, with a 1-cell solid border."""
    size = FIELD_SIZE
    rng = np.random.default_rng(seed)
    grid = bordered(size, size)
    keep_clear = np.zeros_like(grid, dtype=bool)
    keep_clear[:, : OBSTACLE_SPACING + 1] = keep_clear[:, -OBSTACLE_SPACING - 1 :] = True
    keep_clear[: OBSTACLE_SPACING + 1, :] = keep_clear[-OBSTACLE_SPACING - 1 :, :] = True
    c = CORNER_CLEAR + 1
    keep_clear[:c, :c] = keep_clear[:c, -c:] = keep_clear[-c:, :c] = keep_clear[-c:, -c:] = True

    add_long_wall(grid, keep_clear, rng, True, int(rng.integers(70, 95)), 24, 232, gaps=3)
    add_long_wall(grid, keep_clear, rng, False, int(rng.integers(150, 180)), 110, 242, gaps=2)

    for _ in range(MAX_ATTEMPTS):
        if (grid == BLOCK).mean() >= FIELD_TARGET_BLOCKED:
            break
        cx, cy = (int(v) for v in rng.integers(1, size - 1, size=2))
        if rng.random() < 0.55:
            kind, a, b = "rect", int(rng.integers(1, 10)), int(rng.integers(1, 10))
        else:
            kind, a, b = "disc", int(rng.integers(3, 10)), 0
        rows, cols, halo = shape_mask(kind, cx, cy, a, b, OBSTACLE_SPACING, size)
        if (halo & ((grid[rows, cols] == BLOCK) | keep_clear[rows, cols])).any():
            continue
        rows, cols, body = shape_mask(kind, cx, cy, a, b, 0, size)
        grid[rows, cols][body] = BLOCK
    else:
        raise RuntimeError("field: could not reach the target blocked fraction")
    return fill_pockets(grid, (1, 1))


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def corners(grid: np.ndarray) -> list[tuple[int, int]]:
    """The four cells just inside the border, as (x, y)."""
    h, w = grid.shape
    return [(1, 1), (w - 2, 1), (1, h - 2), (w - 2, h - 2)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "out_dir",
        nargs="?",
        type=Path,
        default=Path(__file__).resolve().parent,
        help="directory to write the PNGs into (default: this script's directory)",
    )
    out_dir: Path = parser.parse_args(argv).out_dir
    out_dir.mkdir(parents=True, exist_ok=True)

    maps = {"arena": make_arena(), "maze": make_maze(), "field": make_field()}
    for name, grid in maps.items():
        validate(name, grid, corners(grid))
        save_png(grid, out_dir / f"{name}.png")
        h, w = grid.shape
        print(f"{name}.png  {w}x{h}  walkable={int((grid == WALK).sum())}")


if __name__ == "__main__":
    main()
