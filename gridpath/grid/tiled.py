"""Tiled maps: ``.tmj`` (JSON) and ``.tmx`` (XML), read into a :class:`Grid`, and ``.tmj`` written.

The rules (the README's "Maps" section says the same to users):

* **One tile layer is the map.** The tile layer whose custom property ``gridpath`` is
  ``true``; else the tile layer named ``collision`` or ``walkable`` (any case); else the
  first tile layer in the file (Tiled's bottom layer). Layers inside groups count, in
  file order. Object, image and other layers are not read.
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

import base64
import binascii
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

import numpy as np
import orjson
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as parse_xml

from gridpath.errors import MapLoadError
from gridpath.grid.model import TERRAIN_COST_RULE, Grid, TerrainClass, is_terrain_cost
from gridpath.grid.terrain import apply_costs

TILESET_SUFFIXES = frozenset({".tsx", ".tsj", ".json"})
GID_MASK = 0x0FFFFFFF  # the top four bits are flip/rotation flags
LAYER_NAMES = ("collision", "walkable")  # chosen by name when no layer has gridpath=true
TILE_PROPERTIES = ("walkable", "cost", "terrain")
_DIRECT_LOOKUP = 1 << 20  # gids up to this index lookup tables directly (a few MB at most)


@dataclass(frozen=True)
class _Tileset:
    firstgid: int
    tilecount: int | None
    tiles: dict[int, dict]  # local tile id -> custom properties


@dataclass(frozen=True)
class _Layer:
    name: str
    properties: dict
    decode: Callable[[], np.ndarray]  # flat uint32 gids, row-major


@dataclass(frozen=True)
class _TiledMap:
    width: int
    height: int
    properties: dict
    tilesets: list[_Tileset]
    layers: list[_Layer]


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
    return Grid.from_walkable(
        name, walkable, terrain=terrain, terrain_classes=classes, source=source
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
        raise MapLoadError(f"{where}: 'cost' must be {TERRAIN_COST_RULE}, got {cost!r}")
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
    if top <= _DIRECT_LOOKUP:  # tables indexed by gid: no sort
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
    walkable_table = np.zeros(size, dtype=bool)
    class_table = np.zeros(size, dtype=np.uint8)
    for gid, slot in zip(used.tolist(), slots.tolist()):
        if gid in class_of:
            walkable_table[slot] = True
            class_table[slot] = class_of[gid]
    walkable = walkable_table[keys].reshape(gids.shape)
    terrain = class_table[keys].reshape(gids.shape)
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


# --- layer data ------------------------------------------------------------------------------


def _gids_from_bytes(raw: bytes, compression: str, count: int) -> np.ndarray:
    """Little-endian uint32 gids from base64-decoded bytes, inflated to at most
    ``4 * count`` bytes (so a small upload cannot inflate into gigabytes)."""
    if compression in ("zlib", "gzip"):
        inflater = zlib.decompressobj(15 if compression == "zlib" else 31)
        try:
            raw = inflater.decompress(raw, 4 * count + 1)
        except zlib.error as exc:
            raise MapLoadError(f"layer data: corrupt {compression} stream: {exc}") from None
        if len(raw) > 4 * count or inflater.unconsumed_tail:
            raise MapLoadError("layer data inflates to more tiles than the map has")
        if not inflater.eof:
            raise MapLoadError(f"layer data: truncated {compression} stream")
    elif compression:
        raise MapLoadError(
            f"layer compression {compression!r} is not supported "
            "(use zlib, gzip or none in the map's properties)"
        )
    if len(raw) % 4:
        raise MapLoadError(f"layer data: {len(raw)} bytes is not a whole number of tiles")
    return np.frombuffer(raw, dtype="<u4").astype(np.uint32)


def _base64(text: str) -> bytes:
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise MapLoadError(f"layer data: bad base64: {exc}") from None


def _gids_from_numbers(values: object) -> np.ndarray:
    try:
        array = np.asarray(values)
    except (ValueError, OverflowError):  # ragged lists, integers past int64
        array = None
    if (
        array is None
        or array.ndim != 1
        or array.dtype.kind not in "iu"
        or (array.size and (array.min() < 0 or array.max() > 0xFFFFFFFF))
    ):
        raise MapLoadError("layer data: tiles must be integer gids from 0 to 2**32 - 1")
    return array.astype(np.uint32)


def _check_encoding(encoding: str, compression: str, layer: str) -> None:
    if encoding not in ("csv", "base64"):
        raise MapLoadError(f"layer {layer!r}: encoding {encoding!r} is not supported")
    if encoding == "csv" and compression:
        raise MapLoadError(f"layer {layer!r}: CSV data cannot be compressed ({compression!r})")


# --- JSON (.tmj) -------------------------------------------------------------------------------


def _json_properties(entries: object, where: str) -> dict:
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise MapLoadError(f"{where}: 'properties' must be a list of {{name, type, value}}")
    properties = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise MapLoadError(f"{where}: each property needs a 'name'")
        properties[entry["name"]] = entry.get("value")
    return properties


def _json_object(data: bytes, what: str) -> dict:
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise MapLoadError(f"not valid JSON ({what}): {exc}") from None
    if not isinstance(document, dict):
        raise MapLoadError(f"a Tiled {what} is a JSON object")
    return document


def _positive_int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise MapLoadError(f"{what} must be an integer of at least 1, got {value!r}")
    return value


def _json_tileset(raw: dict, firstgid: int, where: str) -> _Tileset:
    if "tileproperties" in raw:
        raise MapLoadError(
            f"{where}: 'tileproperties' is Tiled's pre-1.2 JSON format; re-save with Tiled 1.2+"
        )
    tiles = {}
    entries = raw.get("tiles", [])
    if not isinstance(entries, list):
        raise MapLoadError(f"{where}: 'tiles' must be a list")
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), int):
            raise MapLoadError(f"{where}: each tile needs an integer 'id'")
        where_tile = f"{where} tile {entry['id']}"
        tiles[entry["id"]] = _json_properties(entry.get("properties"), where_tile)
    count = raw.get("tilecount")
    return _Tileset(firstgid, count if isinstance(count, int) else None, tiles)


def _json_layers(entries: object, count: int) -> list[_Layer]:
    if not isinstance(entries, list):
        raise MapLoadError("'layers' must be a list")
    layers: list[_Layer] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise MapLoadError("each layer must be an object")
        kind, name = entry.get("type"), str(entry.get("name", ""))
        if kind == "group":
            layers += _json_layers(entry.get("layers", []), count)
        elif kind == "tilelayer":
            if "chunks" in entry:
                raise MapLoadError(f"layer {name!r}: chunks (infinite maps) are not supported")
            properties = _json_properties(entry.get("properties"), f"layer {name!r}")
            layers.append(_Layer(name, properties, _json_layer_data(entry, name, count)))
    return layers


def _json_layer_data(entry: dict, name: str, count: int) -> Callable[[], np.ndarray]:
    encoding = entry.get("encoding", "csv")
    compression = entry.get("compression", "")
    _check_encoding(encoding, compression, name)
    data = entry.get("data")

    def decode() -> np.ndarray:
        if encoding == "base64":
            if not isinstance(data, str):
                raise MapLoadError(f"layer {name!r}: base64 'data' must be a string")
            return _gids_from_bytes(_base64(data), compression, count)
        if not isinstance(data, list):
            raise MapLoadError(f"layer {name!r}: 'data' must be a list of gids")
        return _gids_from_numbers(data)

    return decode


def _read_tmj(data: bytes, resolve: _TilesetFiles) -> _TiledMap:
    raw = _json_object(data, "map")
    if raw.get("type", "map") != "map":
        raise MapLoadError(f'a Tiled map has "type": "map", this one {raw.get("type")!r}')
    _check_map(raw.get("orientation", "orthogonal"), raw.get("infinite", False))
    width = _positive_int(raw.get("width"), "width")
    height = _positive_int(raw.get("height"), "height")
    tilesets = []
    entries = raw.get("tilesets", [])
    if not isinstance(entries, list):
        raise MapLoadError("'tilesets' must be a list")
    for entry in entries:
        if not isinstance(entry, dict):
            raise MapLoadError("each tileset must be an object")
        firstgid = _positive_int(entry.get("firstgid"), "tileset firstgid")
        if "source" in entry:
            tilesets.append(resolve(entry["source"], firstgid))
        else:
            tilesets.append(_json_tileset(entry, firstgid, f"tileset {entry.get('name', '')!r}"))
    return _TiledMap(
        width,
        height,
        _json_properties(raw.get("properties"), "map"),
        sorted(tilesets, key=lambda t: t.firstgid),
        _json_layers(raw.get("layers", []), width * height),
    )


def _check_map(orientation: object, infinite: object) -> None:
    if infinite not in (False, 0, "0"):
        raise MapLoadError("infinite maps are not supported (Tiled: Map > Map Properties)")
    if orientation != "orthogonal":
        raise MapLoadError(f"orientation {orientation!r} is not supported (orthogonal only)")


# --- XML (.tmx) --------------------------------------------------------------------------------


def _xml_root(data: bytes, tag: str) -> Element:
    try:
        root = parse_xml(data, forbid_dtd=True)
    except DefusedXmlException as exc:
        kind = type(exc).__name__
        raise MapLoadError(f"XML with a DTD or entities is refused ({kind})") from None
    except (ParseError, ValueError, LookupError) as exc:  # LookupError: unknown encoding=
        raise MapLoadError(f"not valid XML: {exc}") from None
    if root.tag != tag:
        raise MapLoadError(f"a Tiled {tag} file has a <{tag}> root element, not <{root.tag}>")
    return root


def _xml_int(element: Element, key: str, default: int | None = None) -> int:
    value = element.get(key)
    if value is None and default is not None:
        return default
    try:
        number = int(value or "")
    except ValueError:
        raise MapLoadError(f"<{element.tag}> {key}={value!r} is not an integer") from None
    if number < 1 and default is None:
        raise MapLoadError(f"<{element.tag}> {key} must be at least 1, got {number}")
    return number


def _xml_properties(element: Element, where: str) -> dict:
    properties = {}
    block = element.find("properties")
    for prop in [] if block is None else block.findall("property"):
        name, kind = prop.get("name"), prop.get("type", "string")
        value = prop.get("value", prop.text or "")
        if name is None:
            raise MapLoadError(f"{where}: a property without a name")
        try:
            if kind == "bool":
                if value not in ("true", "false"):
                    raise ValueError(value)
                value = value == "true"
            elif kind == "int":
                value = int(value)
            elif kind == "float":
                value = float(value)
        except ValueError:
            raise MapLoadError(f"{where}: property {name!r} is not a {kind}: {value!r}") from None
        properties[name] = value
    return properties


def _xml_tileset(element: Element, firstgid: int, where: str) -> _Tileset:
    tiles = {}
    for tile in element.findall("tile"):
        local_id = _xml_int(tile, "id", default=-1)
        if local_id < 0:
            raise MapLoadError(f"{where}: each <tile> needs an id")
        tiles[local_id] = _xml_properties(tile, f"{where} tile {local_id}")
    count = element.get("tilecount")
    return _Tileset(firstgid, int(count) if count and count.isdigit() else None, tiles)


def _xml_layers(parent: Element, count: int) -> list[_Layer]:
    layers: list[_Layer] = []
    for element in parent:
        if element.tag == "group":
            layers += _xml_layers(element, count)
        elif element.tag == "layer":
            name = element.get("name", "")
            properties = _xml_properties(element, f"layer {name!r}")
            layers.append(_Layer(name, properties, _xml_layer_data(element, name, count)))
    return layers


def _xml_layer_data(element: Element, name: str, count: int) -> Callable[[], np.ndarray]:
    data = element.find("data")
    if data is None:
        raise MapLoadError(f"layer {name!r} has no <data>")
    if data.find("chunk") is not None:
        raise MapLoadError(f"layer {name!r}: chunks (infinite maps) are not supported")
    encoding, compression = data.get("encoding"), data.get("compression", "")
    if encoding is not None:
        _check_encoding(encoding, compression, name)
    elif compression:
        raise MapLoadError(f"layer {name!r}: XML tiles cannot be compressed ({compression!r})")

    def decode() -> np.ndarray:
        text = data.text or ""
        if encoding == "base64":
            return _gids_from_bytes(_base64(text), compression, count)
        if encoding == "csv":
            cells = text.split(",")
            try:
                return _gids_from_numbers([int(c) for c in cells] if text.strip() else [])
            except ValueError:
                raise MapLoadError(f"layer {name!r}: CSV data holds a non-integer") from None
        try:
            return _gids_from_numbers([int(tile.get("gid", "0")) for tile in data.iter("tile")])
        except ValueError:
            raise MapLoadError(f"layer {name!r}: a <tile> gid is not an integer") from None

    return decode


def _read_tmx(data: bytes, resolve: _TilesetFiles) -> _TiledMap:
    root = _xml_root(data, "map")
    _check_map(root.get("orientation", "orthogonal"), root.get("infinite", "0"))
    width, height = _xml_int(root, "width"), _xml_int(root, "height")
    tilesets = []
    for element in root.findall("tileset"):
        firstgid = _xml_int(element, "firstgid")
        if element.get("source") is not None:
            tilesets.append(resolve(element.get("source"), firstgid))
        else:
            where = f"tileset {element.get('name', '')!r}"
            tilesets.append(_xml_tileset(element, firstgid, where))
    return _TiledMap(
        width,
        height,
        _xml_properties(root, "map"),
        sorted(tilesets, key=lambda t: t.firstgid),
        _xml_layers(root, width * height),
    )


# --- external tilesets -------------------------------------------------------------------------


class _TilesetFiles:
    """Reads an external tileset named by a map: only a plain file name in the map's folder."""

    def __init__(self, directory: Path | None, max_bytes: int) -> None:
        self.directory = directory
        self.max_bytes = max_bytes

    def __call__(self, source: object, firstgid: int) -> _Tileset:
        where = f"external tileset {source!r}"
        if self.directory is None:
            raise MapLoadError(
                f"{where} cannot be read in an upload: embed it (Tiled: Embed Tileset)"
            )
        path = Path(str(source))
        if (
            not isinstance(source, str)
            or path.name != source
            or source.startswith(".")
            or path.suffix.lower() not in TILESET_SUFFIXES
        ):
            raise MapLoadError(
                f"{where}: only a .tsx, .tsj or .json file beside the map is read (no folders)"
            )
        path = self.directory / source
        try:
            if path.stat().st_size > self.max_bytes:
                raise MapLoadError(f"{where} is over the limit of {self.max_bytes} bytes")
            data = path.read_bytes()
        except OSError as exc:
            raise MapLoadError(f"{where}: cannot read it: {exc.strerror or exc}") from None
        if path.suffix.lower() == ".tsx":
            return _xml_tileset(_xml_root(data, "tileset"), firstgid, where)
        return _json_tileset(_json_object(data, "tileset"), firstgid, where)


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
    return orjson.dumps(document)
