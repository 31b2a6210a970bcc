"""Tiled maps: ``.tmj`` (JSON) and ``.tmx`` (XML), read into a :class:`Grid`, and ``.tmj`` written.

The rules (the README's "Maps" section says the same to users):

* **One tile layer is the map.** The tile layer whose custom property ``gridpath`` is
  ``true``; else the tile layer named ``collision`` or ``walkable`` (any case); else the
  first tile layer in the file (Tiled's bottom layer). Layers inside groups count, in
  file order. Image and other layers are not read; object layers only for links.
* **Each tile's rule** comes from its tileset's custom tile properties: ``walkable``
  (bool, default ``true``), ``cost`` (number, the terrain cost, default 1) and
  ``terrain`` (string, the terrain class name; default ``ground`` for cost 1 and
  ``cost_<c>`` otherwise, the names live edits use). A sidecar ``NAME.json`` may give the
  same per *global* tile id (gid, as in the layer data):
  ``{"tiles": {"5": {"walkable": false}, "7": {"terrain": "swamp", "cost": 3}}}``; its
  entries override the tileset's property by property. A map with no rule at all (no tile
  with one of these properties and no sidecar ``tiles``) is refused rather than read as
  all walkable. A class name must have one cost throughout.
* **Empty cells** (gid 0) are blocked, unless the layer (or the map) has the boolean
  property ``empty_walkable`` set, which makes them class ``ground``, cost 1.
* **Same-map links**: objects of class ``link`` in the object layers
  (:mod:`gridpath.grid.tiled_objects`), and a sidecar's ``links``
  (:mod:`gridpath.grid.links`).
* **Flip bits** (the top four bits of a gid: horizontal, vertical, diagonal flip and the
  hexagonal 120° rotation) are masked off: a flipped tile is the same tile.
* **Encodings**: JSON arrays and CSV, base64 uncompressed, zlib or gzip, and TMX
  ``<tile gid>`` elements. Refused, with a message naming the feature: infinite maps,
  non-orthogonal orientations, zstd and any other compression, Tiled's pre-1.2 JSON
  ``tileproperties``, XML with a DTD or entities, and external tilesets except a file
  (``.tsx``, ``.tsj``, ``.json``) beside a map loaded from ``MAPS_DIR`` (never in an
  upload, which has no folder: embed the tileset in Tiled instead).

The reader is the standard library plus numpy (``defusedxml`` guards the XML parser):
``pytiled-parser`` (MIT) reads only from paths, opens external tilesets wherever they
point, and inflates layer data without a bound; an upload arrives as bytes and must be
read with the size limits applied first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson

from gridpath.errors import MapLoadError, TerrainCostOutOfRange
from gridpath.grid.links import declared_links, sidecar_links
from gridpath.grid.model import Grid
from gridpath.grid.terrain import TERRAIN_COST_RULE, TerrainClass, apply_costs, is_terrain_cost
from gridpath.grid.tiled_format import (
    _Layer,
    _read_tmj,
    _read_tmx,
    _Tileset,
    _TilesetFiles,
)
from gridpath.grid.tiled_objects import tiled_links

GID_MASK = 0x0FFFFFFF  # the top four bits are flip/rotation flags
LAYER_NAMES = ("collision", "walkable")  # chosen by name when no layer has gridpath=true
TILE_PROPERTIES = ("walkable", "cost", "terrain")
_DIRECT_LOOKUP = 1 << 20  # gids up to this index are looked up directly (a few MB at most)


def load_tiled(
    name: str,
    data: bytes,
    *,
    tmx: bool,
    max_cells: int,
    max_bytes: int,
    sidecar: dict | None = None,
    source: str = "",
    tileset_dir: Path | None = None,
) -> Grid:
    """Build a map from a Tiled file's bytes. External tilesets are read from
    ``tileset_dir`` (the map's folder) only; ``None`` (an upload) refuses them."""
    sidecar = sidecar or {}
    if "palette" in sidecar:
        raise MapLoadError("sidecar: 'palette' applies to bitmaps only")
    resolve = _TilesetFiles(tileset_dir, max_bytes)
    tiled = _read_tmx(data, resolve) if tmx else _read_tmj(data, resolve)
    if tiled.width * tiled.height > max_cells:
        raise MapLoadError(
            f"map is {tiled.width}x{tiled.height} = {tiled.width * tiled.height} cells, "
            f"over the limit of {max_cells}"
        )
    layer = _choose_layer(tiled.layers)
    gids = layer.decode()
    if gids.size != tiled.width * tiled.height:
        raise MapLoadError(
            f"layer {layer.name!r} has {gids.size} tiles, expected "
            f"{tiled.width}x{tiled.height} = {tiled.width * tiled.height}"
        )
    gids = (gids & GID_MASK).reshape(tiled.height, tiled.width)
    rules = _tile_rules(tiled.tilesets, sidecar.get("tiles"))
    empty_walkable = _bool_property(layer.properties, "empty_walkable", f"layer {layer.name!r}")
    if empty_walkable is None:
        empty_walkable = _bool_property(tiled.properties, "empty_walkable", "map")
    walkable, terrain, classes = _apply_rules(
        gids, rules, tiled.tilesets, empty_walkable=bool(empty_walkable)
    )
    classes = apply_costs(classes, sidecar.get("costs", {}))
    if len(classes) == 1 and classes[0] == TerrainClass("ground", 1.0):
        terrain = None
    size = (tiled.width, tiled.height)
    links = declared_links(
        tiled_links(name, size, tiled.tile_size, tiled.object_layers),
        sidecar_links(name, size, sidecar.get("links")),
    )
    return Grid.from_walkable(
        name, walkable, terrain=terrain, terrain_classes=classes, source=source, links=links
    )


# --- rules ---------------------------------------------------------------------------------


def _bool_property(properties: dict, key: str, where: str) -> bool | None:
    value = properties.get(key)
    if value is not None and not isinstance(value, bool):
        raise MapLoadError(f"{where}: property {key!r} must be a bool, got {value!r}")
    return value


def _tile_rules(tilesets: list[_Tileset], sidecar_tiles: dict | None) -> dict[int, dict]:
    """gid -> the tile's rule properties (tileset properties, then the sidecar's on top)."""
    rules: dict[int, dict] = {}
    for tileset in tilesets:
        for local_id, properties in tileset.tiles.items():
            rule = {k: properties[k] for k in TILE_PROPERTIES if k in properties}
            if rule:
                rules[tileset.firstgid + local_id] = rule
    if sidecar_tiles is not None:  # an object, checked by loader.parse_sidecar
        for key, rule in sidecar_tiles.items():
            if not (key.isascii() and key.isdigit() and 0 < int(key) <= GID_MASK):
                raise MapLoadError(f"sidecar: 'tiles' key {key!r} is not a tile gid (1 or more)")
            if not isinstance(rule, dict) or not rule or set(rule) - set(TILE_PROPERTIES):
                raise MapLoadError(
                    f"sidecar: tiles[{key!r}] must be an object with 'walkable', 'cost' "
                    "and/or 'terrain'"
                )
            rules[int(key)] = {**rules.get(int(key), {}), **rule}
    if not rules:
        raise MapLoadError(
            "no walkability rule: give the tileset's tiles a boolean 'walkable' property "
            "(and optionally 'cost' and 'terrain'), or list tile gids in a sidecar 'tiles'"
        )
    return rules


def _tile_class(gid: int, rule: dict) -> TerrainClass | None:
    """The terrain class of a tile, or ``None`` if it is blocked."""
    where = f"tile gid {gid}"
    walkable = _bool_property(rule, "walkable", where)
    if walkable is False:
        return None
    cost = rule.get("cost", 1)
    if not is_terrain_cost(cost):
        raise TerrainCostOutOfRange(f"{where}: 'cost' must be {TERRAIN_COST_RULE}, got {cost!r}")
    cost = float(cost)
    terrain = rule.get("terrain", "ground" if cost == 1.0 else f"cost_{cost:g}")
    if not isinstance(terrain, str) or not terrain:
        raise MapLoadError(f"{where}: 'terrain' must be a non-empty string, got {terrain!r}")
    return TerrainClass(terrain, cost)


def _in_tileset(gid: int, tilesets: list[_Tileset]) -> bool:
    for index, tileset in enumerate(tilesets):
        end = tileset.firstgid + tileset.tilecount if tileset.tilecount is not None else None
        if end is None and index + 1 < len(tilesets):
            end = tilesets[index + 1].firstgid
        if tileset.firstgid <= gid and (end is None or gid < end):
            return True
    return False


def _apply_rules(
    gids: np.ndarray, rules: dict[int, dict], tilesets: list[_Tileset], *, empty_walkable: bool
):
    """Walkability, class per cell and the classes (in order of first gid) of a layer."""
    flat = gids.ravel()
    top = int(flat.max(initial=0))
    if top <= _DIRECT_LOOKUP:  # arrays indexed by gid: no sort
        used = np.flatnonzero(np.bincount(flat))
        keys, slots, size = flat, used, top + 1
    else:
        used, keys = np.unique(flat, return_inverse=True)
        slots, size = np.arange(len(used)), len(used)
    classes: list[TerrainClass] = []
    class_of: dict[int, int] = {}  # gid -> class index, for walkable tiles
    for gid in sorted(set(rules) | {int(g) for g in used}):
        if gid == 0:
            tile_class = TerrainClass("ground", 1.0) if empty_walkable else None
        else:
            if gid not in rules and not _in_tileset(gid, tilesets):
                y, x = np.argwhere(gids == gid)[0]
                raise MapLoadError(f"tile gid {gid} at x={x}, y={y} belongs to no tileset")
            tile_class = _tile_class(gid, rules.get(gid, {}))
        if tile_class is None:
            continue
        names = [tc.name for tc in classes]
        if tile_class.name in names:
            known = classes[names.index(tile_class.name)]
            if known.cost != tile_class.cost:
                raise MapLoadError(
                    f"terrain class {tile_class.name!r} has cost {known.cost:g} and "
                    f"{tile_class.cost:g} (tile gid {gid}): one class, one cost"
                )
            class_of[gid] = names.index(tile_class.name)
        else:
            classes.append(tile_class)
            class_of[gid] = len(classes) - 1
    if len(classes) > 256:
        raise MapLoadError("at most 256 walkable terrain classes")
    walkable_of_slot = np.zeros(size, dtype=bool)
    class_of_slot = np.zeros(size, dtype=np.uint8)
    for gid, slot in zip(used.tolist(), slots.tolist()):
        if gid in class_of:
            walkable_of_slot[slot] = True
            class_of_slot[slot] = class_of[gid]
    walkable = walkable_of_slot[keys].reshape(gids.shape)
    terrain = class_of_slot[keys].reshape(gids.shape)
    return walkable, terrain, tuple(classes) or (TerrainClass("ground", 1.0),)


def _choose_layer(layers: list[_Layer]) -> _Layer:
    if not layers:
        raise MapLoadError("the map has no tile layer")
    flagged = [
        layer
        for layer in layers
        if _bool_property(layer.properties, "gridpath", f"layer {layer.name!r}")
    ]
    named = [layer for layer in layers if layer.name.lower() in LAYER_NAMES]
    for chosen, why in ((flagged, "have gridpath=true"), (named, "are named collision/walkable")):
        if len(chosen) > 1:
            names = ", ".join(repr(layer.name) for layer in chosen)
            raise MapLoadError(f"several tile layers {why} ({names}): mark one")
        if chosen:
            return chosen[0]
    return layers[0]


# --- writing -----------------------------------------------------------------------------------


def dump_tmj(grid: Grid) -> bytes:
    """The map as a Tiled JSON map that :func:`load_tiled` reads back to the same
    walkability, classes and costs: one tileset whose tile 0 is a wall and tile ``k + 1``
    terrain class ``k`` (properties ``walkable``, ``terrain``, ``cost``), one layer
    ``walkable``. The tiles have no image: Tiled shows them as placeholders."""
    classes = grid.terrain_classes
    gids = np.where(
        grid.walkable.astype(bool), np.asarray(grid.terrain[1:-1, 1:-1], dtype=np.int64) + 2, 1
    )
    tiles = [{"id": 0, "properties": [{"name": "walkable", "type": "bool", "value": False}]}]
    for index, tc in enumerate(classes, start=1):
        tiles.append(
            {
                "id": index,
                "properties": [
                    {"name": "cost", "type": "float", "value": tc.cost},
                    {"name": "terrain", "type": "string", "value": tc.name},
                    {"name": "walkable", "type": "bool", "value": True},
                ],
            }
        )
    document = {
        "type": "map",
        "version": "1.10",
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "infinite": False,
        "width": grid.width,
        "height": grid.height,
        "tilewidth": 16,
        "tileheight": 16,
        "nextlayerid": 2,
        "nextobjectid": 1,
        "layers": [
            {
                "id": 1,
                "name": "walkable",
                "type": "tilelayer",
                "x": 0,
                "y": 0,
                "width": grid.width,
                "height": grid.height,
                "opacity": 1,
                "visible": True,
                "data": gids.ravel().tolist(),
            }
        ],
        "tilesets": [
            {
                "firstgid": 1,
                "name": "gridpath terrain",
                "tilewidth": 16,
                "tileheight": 16,
                "tilecount": len(classes) + 1,
                "columns": 0,
                "tiles": tiles,
            }
        ],
    }
    if grid.links:
        document["layers"].append(_link_layer(grid.links, 16))
        document["nextlayerid"] = 3
        document["nextobjectid"] = len(grid.links) + 1
    return orjson.dumps(document)


def _link_layer(links, tile: int) -> dict:
    """An object layer of one polyline of class ``link`` per link, from the centre of its
    ``from`` cell to the centre of its ``to`` cell (what :mod:`gridpath.grid.tiled_objects`
    reads back to the same links)."""
    objects = []
    for index, link in enumerate(links, start=1):
        (x0, y0), (x1, y1) = link.source.cell, link.target.cell
        properties = [
            {"name": "bidirectional", "type": "bool", "value": link.bidirectional},
            {"name": "cost", "type": "float", "value": link.cost},
            {"name": "enabled", "type": "bool", "value": link.enabled},
            {"name": "tags", "type": "string", "value": ",".join(link.tags)},
        ]
        objects.append(
            {
                "id": index,
                "name": link.id,
                "type": "link",
                "x": (x0 + 0.5) * tile,
                "y": (y0 + 0.5) * tile,
                "width": 0,
                "height": 0,
                "rotation": 0,
                "visible": True,
                "polyline": [{"x": 0, "y": 0}, {"x": (x1 - x0) * tile, "y": (y1 - y0) * tile}],
                "properties": properties,
            }
        )
    return {
        "id": 2,
        "name": "links",
        "type": "objectgroup",
        "draworder": "topdown",
        "x": 0,
        "y": 0,
        "opacity": 1,
        "visible": True,
        "objects": objects,
    }
