"""The same-map links a Tiled map declares: objects of class ``link`` in its object layers.

The rules (docs/maps.md says the same to users):

* **Which objects.** An object whose class is ``link`` (any case; Tiled's "Class" field,
  written ``type`` by Tiled 1.8 and 1.10+ and ``class`` by 1.9), in any object layer,
  groups included. Objects of any other class are not read at all, so a game's own objects
  never make a map fail to load.
* **Its two cells.** A *polyline of two points*: from its first point to its second. Or a
  *point* with the int properties ``to_x`` and ``to_y``: from the point to that cell. A
  position in pixels is the cell under it, ``(floor(x / tilewidth), floor(y / tileheight))``
  with the map's tile size (a point on the line between two cells is in the right or lower
  one); ``to_x``/``to_y`` are a cell's column and row, as the API's cells are.
* **Custom properties**: ``id`` (string; default the object's name), ``cost`` (float or
  int, default 1, zero allowed), ``bidirectional`` (bool, default false: from the first
  cell to the second only), ``enabled`` (bool, default true), ``tags`` (string, names
  separated by commas). Other properties are the game's and are ignored.
* **Checked as a world's links are** (:func:`gridpath.grid.links.map_link`): an id of
  ``[A-Za-z0-9_-]``, both cells inside the map, a finite cost >= 0, two different cells.
* **Refused**, with the layer and the object's id: any other shape (rectangle, ellipse,
  polygon, text, tile), a polyline of other than two points, a rotated polyline, a point
  without ``to_x``/``to_y`` or a polyline with them, an object layer (or group) with an
  offset, an instance of an object template (its fields live in the template file: detach
  it), no id and no name, an id used twice.
"""

from __future__ import annotations

import math
from xml.etree.ElementTree import Element

from gridpath.errors import MapLoadError
from gridpath.grid.links import map_link
from gridpath.grid.tiled_format import (
    ObjectLayer,
    _json_properties,
    _pixels,
    _xml_pixels,
    _xml_properties,
)
from gridpath.world.model import Link

LINK_CLASS = "link"


def tiled_links(
    name: str, size: tuple[int, int], tile_size: tuple[object, object], layers
) -> list[Link]:
    """The links the object layers ``layers`` declare, in file order, checked against map
    ``name`` of ``size`` (width, height) cells of ``tile_size`` (tilewidth, tileheight)."""
    links: list[Link] = []
    for layer in layers:
        for element in layer.objects:
            if isinstance(element, dict):
                fields = _json_object(element)
            else:  # an <object> element; anything else in a JSON layer is not an object
                fields = _xml_object(element) if isinstance(element, Element) else None
            if fields is not None:
                links.append(_link(name, size, tile_size, layer, fields))
    return links


def _json_object(entry: dict) -> dict | None:
    kind = entry.get("type") or entry.get("class")
    if not isinstance(kind, str) or kind.lower() != LINK_CLASS:
        return None
    points: tuple[tuple[float, float], ...] | None = ()
    polyline = entry.get("polyline")
    object_id = entry.get("id") if isinstance(entry.get("id"), int) else None
    if entry.get("point"):
        shape = "point"
    elif polyline is not None:
        shape = "polyline"
        if isinstance(polyline, list) and all(isinstance(p, dict) for p in polyline):
            points = tuple((_pixels(p.get("x")), _pixels(p.get("y"))) for p in polyline)
        else:
            points = None  # refused
    else:
        shapes = {"ellipse": "ellipse", "polygon": "polygon", "text": "text", "gid": "tile"}
        shape = next((v for k, v in shapes.items() if entry.get(k)), "rectangle")
    return {
        "id": object_id,
        "name": entry.get("name", ""),
        "x": _pixels(entry.get("x", 0)),
        "y": _pixels(entry.get("y", 0)),
        "rotation": _pixels(entry.get("rotation", 0)),
        "shape": shape,
        "points": points,
        "properties": lambda where: _json_properties(entry.get("properties"), where),
        "template": "template" in entry,
    }


def _xml_object(element: Element) -> dict | None:
    kind = element.get("type") or element.get("class") or ""
    if kind.lower() != LINK_CLASS:
        return None
    raw_id = element.get("id", "")
    shape = "tile" if element.get("gid") is not None else "rectangle"
    points: tuple[tuple[float, float], ...] | None = ()
    for child in element:
        if child.tag in ("point", "ellipse", "polygon", "text"):
            shape = child.tag
        elif child.tag == "polyline":
            shape = "polyline"
            pairs = [pair.split(",") for pair in (child.get("points") or "").split()]
            if all(len(pair) == 2 for pair in pairs):
                points = tuple((_xml_pixels(x), _xml_pixels(y)) for x, y in pairs)
            else:
                points = None  # refused
    return {
        "id": int(raw_id) if raw_id.isdigit() else None,
        "name": element.get("name", ""),
        "x": _xml_pixels(element.get("x")),
        "y": _xml_pixels(element.get("y")),
        "rotation": _xml_pixels(element.get("rotation")),
        "shape": shape,
        "points": points,
        "properties": lambda where: _xml_properties(element, where),
        "template": element.get("template") is not None,
    }


def _link(
    name: str, size: tuple[int, int], tile_size: tuple[object, object], layer: ObjectLayer,
    fields: dict,
) -> Link:  # fmt: skip
    where = f"layer {layer.name!r}: link object {fields['id']}"
    if fields["template"]:
        raise MapLoadError(
            f"{where} is an instance of an object template: detach it (Tiled: Detach) so "
            "its class and properties are in the map"
        )
    if layer.offset != (0.0, 0.0):
        raise MapLoadError(
            f"{where}: its layer (or group) has an offset {layer.offset}; link objects are "
            "read in map pixels: remove the offset"
        )
    properties = fields["properties"](where)
    cell = _cell_of(tile_size, where)
    x, y = fields["x"], fields["y"]
    if fields["shape"] == "polyline":
        if "to_x" in properties or "to_y" in properties:
            raise MapLoadError(f"{where}: a polyline's second point is its 'to' (no to_x/to_y)")
        points = fields["points"]
        if points is None or not all(math.isfinite(v) for point in points for v in point):
            raise MapLoadError(f"{where}: its polyline's points must be pairs of numbers")
        if len(points) != 2:
            raise MapLoadError(f"{where}: a polyline link has two points (from, to)")
        if fields["rotation"] != 0:
            raise MapLoadError(f"{where}: a rotated polyline is refused: draw it unrotated")
        (x0, y0), (x1, y1) = points
        source, target = cell(x + x0, y + y0), cell(x + x1, y + y1)
    elif fields["shape"] == "point":
        source, target = cell(x, y), [_int(properties, key, where) for key in ("to_x", "to_y")]
    else:
        raise MapLoadError(
            f"{where} is a {fields['shape']}: a link is a polyline of two points (from, to) "
            "or a point with the int properties to_x and to_y"
        )
    document = {"from": source, "to": target, "id": properties.get("id", fields["name"])}
    if not document["id"]:
        raise MapLoadError(f"{where} has no name and no 'id' property: a link needs an id")
    for key in ("cost", "bidirectional", "enabled"):
        if key in properties:
            document[key] = properties[key]
    if "tags" in properties:
        document["tags"] = _tags(properties["tags"], where)
    return map_link(name, size, document, where)


def _cell_of(tile_size: tuple[object, object], where: str):
    width, height = tile_size
    for value in tile_size:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise MapLoadError(
                f"{where}: the map's tilewidth and tileheight must be integers of at least 1 "
                f"to place links, got {width!r} and {height!r}"
            )

    def cell(x: float, y: float) -> list[int]:
        if not (math.isfinite(x) and math.isfinite(y)):
            raise MapLoadError(f"{where}: its position must be numbers of pixels")
        return [math.floor(x / width), math.floor(y / height)]

    return cell


def _int(properties: dict, key: str, where: str) -> int:
    value = properties.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MapLoadError(
            f"{where}: a point link needs the int properties to_x and to_y (its 'to' cell), "
            f"{key} is {value!r}"
        )
    return value


def _tags(value: object, where: str) -> list[str]:
    if not isinstance(value, str):
        raise MapLoadError(f"{where}: property 'tags' must be a string of names and commas")
    return [tag.strip() for tag in value.split(",") if tag.strip()]
