"""The Grid model and the MapRegistry registry."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from gridpath.errors import InvalidField, MapNotFound
from gridpath.grid import Grid, is_valid_map_name
from gridpath.grid.edits import Edit, GridEdit
from gridpath.maps import MapRegistry
from gridpath.maps import registry as registry_module
from gridpath.search import Algorithm, SearchOptions, find_path


def test_grid_padding_and_index():
    grid = Grid.from_walkable("g", np.array([[1, 0, 1]], dtype=bool))
    assert grid.passable.shape == (3, 5)
    assert grid.passable[0].sum() == 0 and grid.passable[:, 0].sum() == 0
    assert grid.index(0, 0) == grid.stride + 1
    assert not grid.passable.flags.writeable and not grid.flat.flags.writeable


def test_grid_hash_depends_on_content_and_shape():
    a = Grid.from_walkable("a", np.ones((2, 3), dtype=bool))
    b = Grid.from_walkable("b", np.ones((3, 2), dtype=bool))
    c = Grid.from_walkable("c", np.ones((2, 3), dtype=bool))
    assert a.sha256 != b.sha256 and a.sha256 == c.sha256


@pytest.mark.parametrize(
    "name,ok",
    [
        ("arena", True),
        ("a-b_C9", True),
        ("../etc", False),
        ("a.b", False),
        ("", False),
        ("x" * 65, False),
        ("sp ace", False),
    ],
)
def test_map_names(name, ok):
    assert is_valid_map_name(name) is ok


def test_registry_loads_good_maps_and_lists_failures(tmp_path, caplog):
    Image.new("L", (4, 3), 255).save(tmp_path / "good.png")
    (tmp_path / "broken.png").write_bytes(b"not an image")
    (tmp_path / "empty.map").write_bytes(b"")
    (tmp_path / "good.map").write_text("type octile\nheight 1\nwidth 1\nmap\n.\n")
    (tmp_path / "bad name.png").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("ignored")
    with caplog.at_level(logging.ERROR):
        registry = MapRegistry.from_dir(tmp_path, max_cells=1000, max_bytes=10_000)
    assert registry.names() == ["good"]
    assert registry.get("good").source == "good.map"  # files load in name order; first wins
    failures = {e.file: e.reason for e in registry.errors}
    assert set(failures) == {"bad name.png", "broken.png", "empty.map", "good.png"}
    assert "already taken" in failures["good.png"]
    assert "empty" in failures["empty.map"]
    for name in failures:
        assert name in caplog.text


def test_registry_lists_an_image_pillow_cannot_convert_and_loads_the_rest(tmp_path):
    Image.new("LAB", (4, 3)).save(tmp_path / "lab.tif")  # used to fail the whole start-up
    (tmp_path / "good.map").write_text("type octile\nheight 1\nwidth 1\nmap\n.\n")
    registry = MapRegistry.from_dir(tmp_path, max_cells=1000, max_bytes=10_000)
    assert registry.names() == ["good"]
    [failure] = registry.errors
    assert failure.file == "lab.tif" and "unsupported image mode LAB" in failure.reason


def test_registry_missing_directory(tmp_path):
    registry = MapRegistry.from_dir(tmp_path / "nope", max_cells=10, max_bytes=10)
    assert len(registry) == 0 and "does not exist" in registry.errors[0].reason


def test_registry_get_and_put():
    registry = MapRegistry()
    with pytest.raises(MapNotFound):
        registry.get("x")
    grid = Grid.from_walkable("x", np.ones((1, 1), dtype=bool))
    registry.put(grid)
    assert registry.get("x") is grid and "x" in registry


def test_components_per_rule_and_unit():
    walkable = np.array([[1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1]], dtype=bool)
    grid = Grid.from_walkable("c", walkable)
    four = grid.components().labels.reshape(5, 6)[1:-1, 1:-1]
    assert four[0, 0] != four[1, 1] and four[1, 1] == four[2, 0] == four[0, 2]
    eight = grid.components(diagonals=True).labels.reshape(5, 6)[1:-1, 1:-1]
    assert eight[0, 0] == eight[1, 1]  # joined through the corner with "always"
    big = grid.components(unit=2).labels.reshape(5, 6)[1:-1, 1:-1]
    assert big[0, 0] == 0 and big[0, 2] != 0 and big[1, 1] == big[0, 2]
    assert grid.components(unit=2) is grid.components(unit=2)  # computed once per snapshot


def test_component_labels_take_one_byte_and_name_the_254_largest():
    few = Grid.from_walkable("few", np.ones((4, 4), dtype=bool)).components()
    assert few.labels.dtype == np.uint8 and set(np.unique(few.labels)) == {0, 1}
    assert few.minor_cells is None
    # 300 one-row components of 1..300 cells (one per row, walls between the rows)
    walkable = np.zeros((600, 300), dtype=bool)
    for i in range(300):
        walkable[2 * i, : i + 1] = True
    grid = Grid.from_walkable("many", walkable)
    components = grid.components()
    assert components.labels.dtype == np.uint8
    label_of_row = [int(components.labels[grid.index(0, 2 * i)]) for i in range(300)]
    assert label_of_row[299:45:-1] == list(range(1, 255))  # the largest first
    assert set(label_of_row[:46]) == {255}  # the 46 smallest share the minor label...
    assert components.minor_cells.size == sum(range(1, 47))  # ...and are listed apart
    assert len({components.of(grid.index(0, 2 * i)) for i in range(300)}) == 300
    # every pair in different components: unreachable without a search
    for start, goal in (((0, 598), (0, 0)), ((0, 2), (0, 4)), ((0, 0), (0, 598))):
        result = find_path(grid, start, goal, SearchOptions(algorithm=Algorithm.ASTAR))
        assert result.reason == "unreachable" and result.expanded == 0


def test_maps_of_many_small_components_keep_an_id_per_cell():
    checkerboard = (np.indices((300, 300)).sum(axis=0) % 2).astype(bool)  # 45,000 singletons
    grid = Grid.from_walkable("many", np.tile(checkerboard, (1, 2)))  # 90,000 components
    components = grid.components()
    assert components.minor_cells is None and components.labels.dtype == np.int32
    assert components.labels.max() == 90_000
    result = find_path(grid, (1, 0), (3, 0))
    assert result.reason == "unreachable" and result.expanded == 0


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.3, 0.45, 0.6]),
    st.sampled_from([1, 2, 254]),
    st.sampled_from([1, 16, 10**9]),
    st.booleans(),
)
def test_components_tell_cells_apart_exactly(seed, density, named, share, diagonals):
    """Against scipy's connected components, whichever way the labels are stored
    (one byte, one byte plus minor lists, an id per cell)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    from gridpath.grid import components as module

    rng = np.random.default_rng(seed)
    walkable = rng.random((14, 17)) >= density
    grid = Grid.from_walkable("c", walkable)
    cells = [tuple(c) for c in np.argwhere(walkable)]
    index = {c: i for i, c in enumerate(cells)}
    steps = [(0, 1), (1, 0)] + ([(1, 1), (1, -1)] if diagonals else [])
    edges = [
        (index[(y, x)], index[(y + dy, x + dx)])
        for y, x in cells
        for dy, dx in steps
        if (y + dy, x + dx) in index
    ]
    rows, cols = zip(*edges) if edges else ((), ())
    graph = coo_matrix((np.ones(len(edges)), (rows, cols)), shape=(len(cells), len(cells)))
    _, expected = connected_components(graph, directed=False)
    old = module.NAMED, module._MINOR_SHARE
    module.NAMED, module._MINOR_SHARE = named, share
    try:
        components = module.label_components(grid.flat, grid.stride, 1, diagonals)
    finally:
        module.NAMED, module._MINOR_SHARE = old
    got = [components.of(grid.index(x, y)) for y, x in cells]
    for i in range(len(cells)):
        for j in range(i + 1, len(cells)):
            assert (got[i] == got[j]) == (expected[i] == expected[j])


def test_registry_lists_an_unexpected_loader_error_and_loads_the_rest(tmp_path, monkeypatch):
    real_load = registry_module.load_map

    def load(path, **kwargs):
        if path.stem == "bad":
            raise RuntimeError("boom")
        return real_load(path, **kwargs)

    monkeypatch.setattr(registry_module, "load_map", load)
    for stem in ("bad", "good"):
        (tmp_path / f"{stem}.map").write_text("type octile\nheight 1\nwidth 1\nmap\n.\n")
    registry = MapRegistry.from_dir(tmp_path, max_cells=1000, max_bytes=10_000)
    assert registry.names() == ["good"]
    [failure] = registry.errors
    assert failure.file == "bad.map" and "RuntimeError: boom" in failure.reason


@pytest.mark.parametrize("value", [0, -1.0, 1e308, float("nan"), True, "lava"])
def test_an_edit_refuses_bad_values(value):
    grid = Grid.from_walkable("m", np.ones((3, 3), dtype=bool))
    with pytest.raises(InvalidField, match="set"):
        grid.edit(GridEdit([Edit(value, cells=[(1, 1)])]), 2)
