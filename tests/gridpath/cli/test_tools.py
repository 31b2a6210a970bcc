"""The map tools (gridpath.cli) in process: check's verdicts and messages, convert's round
trips."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from gridpath.cli.__main__ import main
from gridpath.cli.convert import same_map
from gridpath.grid import load_map
from gridpath.maps.registry import MapRegistry
from tests.conftest import MAPS_DIR, MOVINGAI_DIR, MOVINGAI_MISSING, ROOT
from tests.gridpath.grid.test_tiled import TMX, assert_example
from tests.gridpath.grid.test_upload import COLOURS, PALETTE

# The hand-written example with its road tiles made plain ground: ground and swamp only.
TMX_GROUND_SWAMP = TMX.replace(
    '<property name="terrain" value="road"/>',
    '<property name="walkable" type="bool" value="true"/>',
)
LIMITS = {"max_cells": 16_000_000, "max_bytes": 256 * 1024 * 1024}


def test_check_passes_the_bundled_maps(capsys):
    assert main(["check", str(MAPS_DIR)]) == 0
    out = capsys.readouterr().out
    assert "ok   " in out and "arena.png: 64x64" in out and "FAIL" not in out


def test_check_fails_with_the_servers_messages(tmp_path, capsys):
    (tmp_path / "good.tmx").write_text(TMX)
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    (tmp_path / "bad name.map").write_text("type octile\nheight 1\nwidth 1\nmap\n.\n")
    (tmp_path / "twice.map").write_text("type octile\nheight 1\nwidth 1\nmap\n.\n")
    (tmp_path / "twice.png").write_bytes((tmp_path / "broken.png").read_bytes())
    (tmp_path / "inf.tmj").write_text('{"type": "map", "infinite": true}')
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    server = MapRegistry.from_dir(
        tmp_path, max_cells=LIMITS["max_cells"], max_bytes=LIMITS["max_bytes"]
    )
    assert server.errors, "the server must refuse these too"
    for failure in server.errors:  # every reason the server gives, word for word
        assert f"FAIL {tmp_path / failure.file}: {failure.reason}\n" in out
    assert out.count("FAIL") == len(server.errors)
    assert f"ok   {tmp_path / 'good.tmx'}" in out


def test_check_one_file_and_quiet(tmp_path, capsys):
    (tmp_path / "good.tmx").write_text(TMX)
    assert main(["check", "-q", str(tmp_path / "good.tmx")]) == 0
    assert capsys.readouterr().out == ""
    assert main(["check", str(tmp_path / "missing.png")]) == 1
    assert "cannot read file" in capsys.readouterr().out


def cells(grid) -> list:
    """Every cell as (terrain class, cost), or None where blocked."""
    classes = grid.terrain_classes
    return [
        [
            (classes[grid.terrain[y + 1, x + 1]].name, classes[grid.terrain[y + 1, x + 1]].cost)
            if grid.is_walkable(x, y)
            else None
            for x in range(grid.width)
        ]
        for y in range(grid.height)
    ]


def write_palette_png(path):
    Image.fromarray(COLOURS).save(path)
    path.with_suffix(".json").write_text(json.dumps(PALETTE))
    return path


@pytest.mark.parametrize(
    "chain",
    [
        ["swamp.tmx", ".png", ".map", ".tmj", ".png"],  # ground and swamp fit every format
        [".tmx", ".tmj", ".png"],
        ["palette.png", ".tmj", ".png"],
        ["grey.png", ".map", ".png"],
    ],
)
def test_convert_round_trips(tmp_path, chain):
    first = chain[0]
    if first.endswith(".tmx"):
        source = tmp_path / "m0.tmx"
        source.write_text(TMX if first == ".tmx" else TMX_GROUND_SWAMP)
    elif first == "palette.png":
        source = write_palette_png(tmp_path / "m0.png")
    else:
        source = tmp_path / "m0.png"
        Image.fromarray(np.array([[255, 0, 255], [0, 255, 255]], dtype=np.uint8)).save(source)
    original = load_map(source, **LIMITS)
    for step, suffix in enumerate(chain[1:], start=1):
        target = tmp_path / f"m{step}{suffix}"
        assert main(["convert", str(source), str(target)]) == 0
        converted = load_map(target, name=original.name, **LIMITS)
        assert same_map(original, converted), f"{source.name} -> {target.name}"
        assert (
            converted.terrain_costs.items()
            >= {tc.name: tc.cost for tc in original.terrain_classes if tc.name != "swamp"}.items()
        )
        source = target
    if first == ".tmx":
        assert_example(load_map(tmp_path / "m1.tmj", **LIMITS))
        assert_example(load_map(tmp_path / "m2.png", **LIMITS))


def test_convert_keeps_a_tiled_maps_links(tmp_path):
    """tests/fixtures/ledges.tmx's link objects: in a PNG's sidecar ``links``, and back as
    link polylines in a .tmj."""
    original = load_map(ROOT / "tests" / "fixtures" / "ledges.tmx", **LIMITS)
    assert len(original.links) == 3
    source = ROOT / "tests" / "fixtures" / "ledges.tmx"
    for target in (tmp_path / "as_png.png", tmp_path / "as_tmj.tmj"):
        assert main(["convert", str(source), str(target)]) == 0
        converted = load_map(target, name="ledges", **LIMITS)
        assert converted.links == original.links and converted.sha256 == original.sha256
    sidecar = json.loads((tmp_path / "as_png.json").read_bytes())
    assert [link["id"] for link in sidecar["links"]] == ["ladder", "drop", "gate"]


def test_convert_a_movingai_benchmark_map(tmp_path):
    source = MOVINGAI_DIR / "arena.map"
    if not source.exists():
        pytest.skip(MOVINGAI_MISSING)
    assert main(["convert", str(source), str(tmp_path / "arena.tmj")]) == 0
    assert main(["convert", str(tmp_path / "arena.tmj"), str(tmp_path / "arena.png")]) == 0
    original = load_map(source, **LIMITS)
    assert cells(load_map(tmp_path / "arena.png", **LIMITS)) == cells(original)


def test_convert_refusals(tmp_path, capsys):
    palette = write_palette_png(tmp_path / "p.png")
    assert main(["convert", str(palette), str(tmp_path / "p.map")]) == 1
    assert "ground and swamp only; this map has road, sand" in capsys.readouterr().err
    assert main(["convert", str(palette), str(tmp_path / "p.bmp")]) == 2
    assert main(["convert", str(tmp_path / "none.png"), str(tmp_path / "x.map")]) == 1
    assert "cannot load" in capsys.readouterr().err


def test_convert_removes_a_stale_sidecar(tmp_path, capsys):
    (tmp_path / "m.tmx").write_text(TMX)
    (tmp_path / "out.json").write_text(json.dumps({"costs": {"swamp": 99}}))
    assert main(["convert", str(tmp_path / "m.tmx"), str(tmp_path / "out.tmj")]) == 0
    assert not (tmp_path / "out.json").exists()
    assert "stale sidecar" in capsys.readouterr().err
