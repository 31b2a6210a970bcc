"""Terrain costs: loading them, searching with them, overriding them per request."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from gridpath.errors import MapLoadError
from gridpath.grid import Grid, load_map
from gridpath.grid.terrain import TerrainClass
from gridpath.search import Algorithm, CostModel, Diagonal, InvalidOption, SearchOptions, find_path
from tests.reference import SQRT2, reference_costs, step_is_legal

LIMITS = {"max_cells": 10**6, "max_bytes": 10**7}
CLASSES = (TerrainClass("ground", 1.0), TerrainClass("sand", 2.0), TerrainClass("swamp", 5.0))


@st.composite
def terrain_case(draw):
    width, height = draw(st.integers(1, 10)), draw(st.integers(1, 10))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    walkable = rng.random((height, width)) >= draw(st.sampled_from([0.0, 0.2, 0.35]))
    walkable[0, 0] = True
    terrain = rng.integers(0, len(CLASSES), size=(height, width)).astype(np.uint8)
    cells = np.argwhere(walkable)
    j = draw(st.integers(0, len(cells) - 1))
    return walkable, terrain, (0, 0), (int(cells[j][1]), int(cells[j][0]))


@pytest.mark.parametrize("algorithm", [Algorithm.ASTAR, Algorithm.DIJKSTRA])
@pytest.mark.parametrize("diagonal", [Diagonal.NO_CORNER_CUT, Diagonal.ALWAYS, Diagonal.NEVER])
@pytest.mark.parametrize("cost_model", list(CostModel))
@settings(max_examples=40, deadline=None)
@given(case=terrain_case())
def test_terrain_costs_match_scipy(algorithm, diagonal, cost_model, case):
    walkable, terrain, start, goal = case
    grid = Grid.from_walkable("t", walkable, terrain=terrain, terrain_classes=CLASSES)
    options = SearchOptions(algorithm=algorithm, diagonal=diagonal, cost_model=cost_model)
    result = find_path(grid, start, goal, options)
    cell_cost = np.array([c.cost for c in CLASSES])[terrain]
    weights = (10.0, 14.0) if cost_model == CostModel.INTEGER else (1.0, SQRT2)
    expected = reference_costs(walkable, start, diagonal.value, weights, cell_cost)[
        goal[1], goal[0]
    ]
    if math.isinf(expected):
        assert not result.found
        return
    assert result.found and result.optimal
    assert abs(result.cost - expected) <= 1e-9 * max(1.0, expected)
    cells = [tuple(c) for c in result.path.tolist()]
    assert all(step_is_legal(walkable, a, b, diagonal.value) for a, b in zip(cells, cells[1:]))


def sand_map():
    """Grass straight ahead (cost 3 per cell), a sand detour around (cost 2)."""
    rows = ["ggggggg", "s#####s", "sssssss"]
    walkable = np.array([[c != "#" for c in r] for r in rows])
    terrain = np.array([[{"g": 1, "s": 2, "#": 0}[c] for c in r] for r in rows], dtype=np.uint8)
    classes = (TerrainClass("ground", 1.0), TerrainClass("grass", 3.0), TerrainClass("sand", 2.0))
    return Grid.from_walkable("sand", walkable, terrain=terrain, terrain_classes=classes)


def test_sand_preferring_unit_takes_the_sand():
    grid = sand_map()
    default = find_path(grid, (0, 0), (6, 0))
    assert all(y == 0 for _, y in default.path.tolist())  # 6 grass steps: 18
    assert default.cost == pytest.approx(18.0)
    sand_lover = find_path(grid, (0, 0), (6, 0), SearchOptions(terrain_costs=(("sand", 1.0),)))
    assert any(y == 2 for _, y in sand_lover.path.tolist())
    assert sand_lover.cost < 18.0


def test_bfs_ignores_terrain_and_says_so():
    grid = sand_map()
    result = find_path(grid, (0, 0), (6, 0), SearchOptions(algorithm=Algorithm.BFS, connectivity=4))
    assert result.found and not result.optimal
    assert len(result.path) == 7 and result.cost == pytest.approx(18.0)


def test_bad_terrain_overrides():
    grid = sand_map()
    with pytest.raises(InvalidOption, match="no terrain class 'lava'"):
        find_path(grid, (0, 0), (6, 0), SearchOptions(terrain_costs=(("lava", 2.0),)))
    with pytest.raises(InvalidOption):
        SearchOptions(terrain_costs=(("sand", -1.0),))
    with pytest.raises(InvalidOption, match="<= 1,000,000"):  # path costs would overflow
        SearchOptions(terrain_costs=(("sand", 1e308),))
    with pytest.raises(InvalidOption, match="integer cost model"):
        find_path(
            grid,
            (0, 0),
            (6, 0),
            SearchOptions(cost_model=CostModel.INTEGER, terrain_costs=(("sand", 1.5),)),
        )


def test_grey_levels_become_classes(tmp_path):
    pixels = np.array([[255, 223, 191, 128, 100, 0]], dtype=np.uint8)
    Image.fromarray(pixels).save(tmp_path / "greys.png")
    grid = load_map(tmp_path / "greys.png", **LIMITS)
    assert grid.walkable.tolist() == [[1, 1, 1, 1, 0, 0]]
    assert grid.terrain_costs == {
        "ground": 1.0,
        "grey_128": 1 + 127 / 32,
        "grey_191": 3.0,
        "grey_223": 2.0,
    }
    result = find_path(grid, (0, 0), (3, 0))
    assert result.cost == pytest.approx(0.5 * (1 + 2) + 0.5 * (2 + 3) + 0.5 * (3 + 1 + 127 / 32))


def test_black_and_white_maps_stay_uniform(tmp_path):
    Image.fromarray(np.array([[255, 0, 255]], dtype=np.uint8)).save(tmp_path / "bw.png")
    grid = load_map(tmp_path / "bw.png", **LIMITS)
    assert grid.uniform and grid.terrain_costs == {"ground": 1.0}


def test_palette_sidecar(tmp_path):
    rgb = np.array(
        [[[255, 255, 255], [224, 192, 128], [0, 0, 255], [224, 192, 128]]], dtype=np.uint8
    )
    Image.fromarray(rgb).save(tmp_path / "beach.png")
    (tmp_path / "beach.json").write_text(
        json.dumps(
            {
                "palette": [
                    {"name": "road", "color": "#ffffff", "cost": 1},
                    {"name": "sand", "color": "#e0c080", "cost": 2},
                    {"name": "water", "color": "#0000ff", "blocked": True},
                ]
            }
        )
    )
    grid = load_map(tmp_path / "beach.png", **LIMITS)
    assert grid.walkable.tolist() == [[1, 1, 0, 1]]
    assert grid.terrain_costs == {"road": 1.0, "sand": 2.0}
    assert find_path(grid, (0, 0), (1, 0)).cost == pytest.approx(1.5)


@pytest.mark.parametrize(
    "sidecar,reason",
    [
        ({"palette": [{"name": "road", "color": "#ffffff", "cost": 1}]}, "not in the palette"),
        ({"palette": [{"name": "road", "color": "white", "cost": 1}]}, "color"),
        (
            {
                "palette": [
                    {"name": "road", "color": "#ffffff", "cost": -2},
                    {"name": "x", "color": "#000000", "blocked": True},
                ]
            },
            "cost must be",
        ),
        ({"costs": {"lava": 3}}, "unknown terrain class 'lava'"),
        ({"costs": {"ground": 1e308}}, "<= 1,000,000"),
        ({"palette": "nope"}, "non-empty list"),
        ({"other": 1}, "must be an object"),
    ],
)
def test_bad_sidecars(tmp_path, sidecar, reason):
    Image.fromarray(np.array([[255, 0]], dtype=np.uint8)).save(tmp_path / "m.png")
    (tmp_path / "m.json").write_text(json.dumps(sidecar))
    with pytest.raises(MapLoadError, match=reason):
        load_map(tmp_path / "m.png", **LIMITS)


def test_movingai_swamp_cost_from_sidecar(tmp_path):
    (tmp_path / "bog.map").write_text("type octile\nheight 1\nwidth 4\nmap\n.SS.\n")
    assert load_map(tmp_path / "bog.map", **LIMITS).terrain_costs == {"ground": 1.0, "swamp": 1.0}
    (tmp_path / "bog.json").write_text(json.dumps({"costs": {"swamp": 4}}))
    grid = load_map(tmp_path / "bog.map", **LIMITS)
    assert grid.terrain_costs["swamp"] == 4.0
    assert find_path(grid, (0, 0), (3, 0)).cost == pytest.approx(2.5 + 4 + 2.5)
