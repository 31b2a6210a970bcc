"""Tiled's two file formats, ``.tmj`` (JSON) and ``.tmx`` (XML), read into one model of
the map (its tilesets, with external ones read beside a map from ``MAPS_DIR`` only, its
tile layers, decoded on demand, and its object layers, whose objects
:mod:`gridpath.grid.tiled_objects` reads): what :func:`gridpath.grid.tiled.load_tiled` turns
into a :class:`~gridpath.grid.model.Grid` by the rules its module describes."""

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

TILESET_SUFFIXES = frozenset({".tsx", ".tsj", ".json"})


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
class ObjectLayer:
    """An object layer, its objects as written (JSON objects, or ``<object>`` elements):
    :mod:`gridpath.grid.tiled_objects` reads those of class ``link``."""

    name: str
    offset: tuple[float, float]  # the layer's offset plus its groups', in pixels
    objects: list  # dicts (.tmj) or Elements (.tmx)


@dataclass(frozen=True)
class _TiledMap:
    width: int
    height: int
    properties: dict
    tilesets: list[_Tileset]
    layers: list[_Layer]
    tile_size: tuple[object, object] = (None, None)  # tilewidth, tileheight as written
    object_layers: tuple[ObjectLayer, ...] = ()


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


def _json_layers(
    entries: object, count: int, objects: list[ObjectLayer], offset=(0.0, 0.0)
) -> list[_Layer]:
    """The tile layers, in file order (groups' included); the object layers are appended to
    ``objects``."""
    if not isinstance(entries, list):
        raise MapLoadError("'layers' must be a list")
    layers: list[_Layer] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise MapLoadError("each layer must be an object")
        kind, name = entry.get("type"), str(entry.get("name", ""))
        shift = (
            offset[0] + _pixels(entry.get("offsetx", 0)),
            offset[1] + _pixels(entry.get("offsety", 0)),
        )
        if kind == "group":
            layers += _json_layers(entry.get("layers", []), count, objects, shift)
        elif kind == "objectgroup" and isinstance(entry.get("objects"), list):
            objects.append(ObjectLayer(name, shift, entry["objects"]))
        elif kind == "tilelayer":
            if "chunks" in entry:
                raise MapLoadError(f"layer {name!r}: chunks (infinite maps) are not supported")
            properties = _json_properties(entry.get("properties"), f"layer {name!r}")
            layers.append(_Layer(name, properties, _json_layer_data(entry, name, count)))
    return layers


def _pixels(value: object) -> float:
    """A coordinate in pixels; NaN for anything but a number (refused where it is read)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return float("nan")
    return float(value)


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
    objects: list[ObjectLayer] = []
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
    layers = _json_layers(raw.get("layers", []), width * height, objects)
    return _TiledMap(
        width,
        height,
        _json_properties(raw.get("properties"), "map"),
        sorted(tilesets, key=lambda t: t.firstgid),
        layers,
        (raw.get("tilewidth"), raw.get("tileheight")),
        tuple(objects),
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


def _xml_layers(
    parent: Element, count: int, objects: list[ObjectLayer], offset=(0.0, 0.0)
) -> list[_Layer]:
    layers: list[_Layer] = []
    for element in parent:
        name = element.get("name", "")
        shift = (
            offset[0] + _xml_pixels(element.get("offsetx", "0")),
            offset[1] + _xml_pixels(element.get("offsety", "0")),
        )
        if element.tag == "group":
            layers += _xml_layers(element, count, objects, shift)
        elif element.tag == "objectgroup":
            objects.append(ObjectLayer(name, shift, element.findall("object")))
        elif element.tag == "layer":
            properties = _xml_properties(element, f"layer {name!r}")
            layers.append(_Layer(name, properties, _xml_layer_data(element, name, count)))
    return layers


def _xml_pixels(value: str | None) -> float:
    try:
        return float(value or "0")
    except ValueError:
        return float("nan")  # refused where it is read


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
    objects: list[ObjectLayer] = []
    for element in root.findall("tileset"):
        firstgid = _xml_int(element, "firstgid")
        if element.get("source") is not None:
            tilesets.append(resolve(element.get("source"), firstgid))
        else:
            where = f"tileset {element.get('name', '')!r}"
            tilesets.append(_xml_tileset(element, firstgid, where))
    layers = _xml_layers(root, width * height, objects)
    return _TiledMap(
        width,
        height,
        _xml_properties(root, "map"),
        sorted(tilesets, key=lambda t: t.firstgid),
        layers,
        (_xml_tile_size(root, "tilewidth"), _xml_tile_size(root, "tileheight")),
        tuple(objects),
    )


def _xml_tile_size(root: Element, key: str) -> int | str | None:
    value = root.get(key)
    return int(value) if value is not None and value.isdigit() else value


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
