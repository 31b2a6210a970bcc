"""Worlds: named sets of grid maps joined by links (stairs, doors, ladders, teleporters,
one-way drops).

A :class:`World` is one immutable revision, like a map snapshot: its maps' names and its
links. A :class:`Link` is one move from its ``source`` place (the JSON ``from``) to its
``target`` (``to``), or back when ``bidirectional``, costing ``cost`` whatever the cost model
or terrain. A link whose end cell is blocked (now or after an edit), whose map is gone or
smaller than the cell, is unusable until the cell is walkable again: that is read at query
time, never stored.

Decisions:
- A world holds no map: it names them. A query reads each map's current snapshot (or
  the revisions it asks for); a world's revision changes only with its own document.
- A world is validated against the maps it names when it is written (``parse_world`` with
  a ``lookup``): an unknown map, a cell outside its map, a polygon map, a duplicate id or a
  bad cost is refused whole, nothing changed.
- ``apply_patch`` applies ``remove``, then ``add``, then ``set`` as one revision, or raises
  and changes nothing.
- The file form (:meth:`World.document`) is canonical: links in the world's order, every
  field written, so equal worlds encode to equal bytes (``sha256``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from gridpath.errors import ServiceError, UnsupportedMapKind

NAME = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_LINKS = 100_000  # per world: what a query's link tables may hold
MAX_TAGS = 32  # per link
WORLD_SUFFIX = ".world.json"


class InvalidWorld(ServiceError):
    code = "invalid_world"
    status = 422


class LinkNotFound(ServiceError):
    code = "link_not_found"
    status = 404


class WorldNotFound(ServiceError):
    code = "world_not_found"
    status = 404


@dataclass(frozen=True, slots=True)
class Place:
    """A cell of a map of the world: ``(map, (x, y))``."""

    map: str
    cell: tuple[int, int]

    def document(self) -> dict[str, Any]:
        return {"map": self.map, "cell": [self.cell[0], self.cell[1]]}


@dataclass(frozen=True, slots=True)
class Link:
    id: str
    source: Place  # "from"
    target: Place  # "to"
    cost: float = 1.0
    bidirectional: bool = False
    enabled: bool = True
    tags: tuple[str, ...] = ()

    def document(self) -> dict[str, Any]:
        return {
            "id": self.id, "from": self.source.document(), "to": self.target.document(),
            "cost": self.cost, "bidirectional": self.bidirectional, "enabled": self.enabled,
            "tags": list(self.tags),
        }  # fmt: skip

    def ways(self) -> tuple[tuple[Place, Place], ...]:
        """The traversals the link allows, ``(entrance, exit)``: from -> to, and to -> from
        when bidirectional."""
        forward = (self.source, self.target)
        return (forward, (self.target, self.source)) if self.bidirectional else (forward,)


# What a world needs to know of a map it names: its kind ("grid" or "polygon") and size.
MapInfo = tuple[str, int, int]  # (kind, width, height)
Lookup = Callable[[str], MapInfo | None]


@dataclass(frozen=True)
class World:
    """One revision of a world."""

    name: str
    maps: tuple[str, ...]
    links: tuple[Link, ...]
    revision: int = 1
    source: str = ""
    _by_id: dict[str, int] = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    kind = "world"

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {link.id: i for i, link in enumerate(self.links)})

    def index_of(self, link_id: str) -> int:
        """The link's place in :attr:`links` (``/flowfield``'s ``link`` arrays use it)."""
        try:
            return self._by_id[link_id]
        except KeyError:
            raise LinkNotFound(f"world {self.name!r} has no link {link_id!r}") from None

    def link(self, link_id: str) -> Link:
        return self.links[self.index_of(link_id)]

    def document(self) -> dict[str, Any]:
        """The file form (``MAPS_DIR/NAME.world.json``, ``PUT`` body)."""
        return {"maps": list(self.maps), "links": [link.document() for link in self.links]}

    def encode(self) -> bytes:
        return orjson.dumps(self.document(), option=orjson.OPT_INDENT_2) + b"\n"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(orjson.dumps(self.document())).hexdigest()

    @property
    def nbytes(self) -> int:
        return len(orjson.dumps(self.document()))

    def summary(self) -> str:
        return f"world of {len(self.maps)} maps, {len(self.links)} links"

    def with_revision(self, revision: int, source: str | None = None) -> World:
        return replace(self, revision=revision, source=self.source if source is None else source)

    def edit(self, change: WorldPatch, revision: int) -> World:
        """Revision ``revision`` with ``change`` applied (:func:`apply_patch`): the method
        the map stores call on any revision they hold (``MapSnapshot.edit``)."""
        if change.map_links is not None:
            refuse_map_links(self, change.patch, change.map_links(self))
        world = apply_patch(self, change.patch, change.lookup, revision)
        if change.check is not None:
            change.check(world)
        return world


@dataclass(frozen=True)
class WorldPatch:
    """A ``PATCH`` of a world (``add``, ``remove``, ``set``), the maps its new links are
    checked against, a last check of the new revision (raises to refuse it), and the links
    the world's maps declare (:func:`refuse_map_links`)."""

    patch: Mapping[str, Any]
    lookup: Lookup
    check: Callable[[World], object] | None = None
    map_links: Callable[[World], Sequence[Link]] | None = None


def refuse_map_links(world: World, patch: Any, declared: Sequence[Link]) -> None:
    """:class:`InvalidWorld` if ``patch`` removes or sets a link that one of the world's maps
    declares (``declared``: a Tiled map's link objects). Such a link belongs to the map, not
    to the world: it changes with the map (a new file or upload), never by a world's
    ``PATCH``, so every world naming the map keeps reading the map's own links."""
    own = {link.id for link in world.links}
    of_map = {link.id: link.source.map for link in declared if link.id not in own}
    if not of_map or not isinstance(patch, Mapping):
        return
    for key in ("remove", "set"):
        entries = patch.get(key)
        if not isinstance(entries, Sequence) or isinstance(entries, str):
            continue  # apply_patch says what is wrong with it
        for entry in entries:
            link_id = entry.get("id") if isinstance(entry, Mapping) else entry
            if isinstance(link_id, str) and link_id in of_map:
                raise _fail(
                    f"{key}: link {link_id!r} is declared by map {of_map[link_id]!r} (its "
                    f"Tiled link objects), not by world {world.name!r}: change it in the "
                    "map; a world's PATCH changes the world's own links only"
                )


def _fail(message: str) -> InvalidWorld:
    return InvalidWorld(message)


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not NAME.match(value) or len(value) > 128:
        raise _fail(f"{what} must be a name of 1-128 characters [A-Za-z0-9_-], not {value!r}")
    return value


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError
    return value


def _place(value: Any, what: str, maps: Mapping[str, MapInfo]) -> Place:
    if not isinstance(value, Mapping) or set(value) - {"map", "cell"}:
        raise _fail(f"{what} must be an object {{'map': name, 'cell': [x, y]}}")
    name = _name(value.get("map"), f"{what}.map")
    if name not in maps:
        raise _fail(f"{what} names map {name!r}, which is not one of the world's maps")
    cell = value.get("cell")
    try:
        if not isinstance(cell, Sequence) or isinstance(cell, str) or len(cell) != 2:
            raise TypeError
        x, y = _integer(cell[0]), _integer(cell[1])
    except TypeError:
        raise _fail(f"{what}.cell must be [x, y], two integers") from None
    _, width, height = maps[name]
    if not (0 <= x < width and 0 <= y < height):
        raise _fail(
            f"{what}.cell [{x}, {y}] is outside map {name!r} "
            f"(x must be in 0..{width - 1}, y in 0..{height - 1})"
        )
    return Place(name, (x, y))


def link_cost(value: Any, what: str) -> float:
    """A link's cost: a finite number >= 0 (zero allowed)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(f"{what} must be a number >= 0")
    cost = float(value)
    if not math.isfinite(cost) or cost < 0 or cost > 1e12:
        raise _fail(f"{what} must be a finite number from 0 to 1e12, not {value!r}")
    return cost


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(f"{what} must be true or false")
    return value


def _tags(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) > MAX_TAGS:
        raise _fail(f"{what} must be a list of at most {MAX_TAGS} names")
    return tuple(dict.fromkeys(_name(tag, f"{what}[]") for tag in value))


LINK_FIELDS = {"id", "from", "to", "cost", "bidirectional", "enabled", "tags"}


def parse_link(value: Any, what: str, maps: Mapping[str, MapInfo]) -> Link:
    if not isinstance(value, Mapping):
        raise _fail(f"{what} must be an object")
    unknown = set(value) - LINK_FIELDS
    if unknown:
        raise _fail(f"{what} has unknown fields {sorted(unknown)}")
    for key in ("id", "from", "to"):
        if key not in value:
            raise _fail(f"{what} needs {key!r}")
    link = Link(
        _name(value["id"], f"{what}.id"),
        _place(value["from"], f"{what}.from", maps),
        _place(value["to"], f"{what}.to", maps),
        link_cost(value.get("cost", 1.0), f"{what}.cost"),
        _flag(value.get("bidirectional", False), f"{what}.bidirectional"),
        _flag(value.get("enabled", True), f"{what}.enabled"),
        _tags(value.get("tags", []), f"{what}.tags"),
    )
    if link.source == link.target:
        raise _fail(f"{what} joins a cell to itself")
    return link


def _check_ids(links: Sequence[Link]) -> None:
    seen: set[str] = set()
    for link in links:
        if link.id in seen:
            raise _fail(f"link id {link.id!r} is used twice")
        seen.add(link.id)
    if len(links) > MAX_LINKS:
        raise _fail(f"a world has at most {MAX_LINKS} links, not {len(links)}")


def _map_infos(names: Sequence[str], lookup: Lookup) -> dict[str, MapInfo]:
    infos: dict[str, MapInfo] = {}
    for name in names:
        info = lookup(name)
        if info is None:
            raise _fail(f"the world names map {name!r}, which is not loaded")
        if info[0] != "grid":
            raise UnsupportedMapKind(f"map {name!r} is a {info[0]} map: worlds are of grid maps")
        infos[name] = info
    return infos


def parse_world(name: str, document: Any, lookup: Lookup, revision: int = 1,
                source: str = "") -> World:  # fmt: skip
    """A world from its file form (``{"maps": [...], "links": [...]}``), checked against
    the maps ``lookup`` knows; raises :class:`InvalidWorld` (or ``UnsupportedMapKind`` for a
    polygon map) and builds nothing on a bad one."""
    _name(name, "the world's name")
    if not isinstance(document, Mapping) or set(document) - {"maps", "links"}:
        raise _fail("a world is an object {'maps': [names], 'links': [links]}")
    names = document.get("maps")
    if not isinstance(names, Sequence) or isinstance(names, str) or not names:
        raise _fail("'maps' must be a non-empty list of map names")
    names = tuple(_name(n, "maps[]") for n in names)
    if len(set(names)) != len(names):
        raise _fail("'maps' names a map twice")
    if len(names) > 256:
        raise _fail("a world has at most 256 maps")
    infos = _map_infos(names, lookup)
    raw = document.get("links", [])
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise _fail("'links' must be a list of links")
    if len(raw) > MAX_LINKS:
        raise _fail(f"a world has at most {MAX_LINKS} links, not {len(raw)}")
    links = tuple(parse_link(v, f"links[{i}]", infos) for i, v in enumerate(raw))
    _check_ids(links)
    return World(name, names, links, revision, source)


SETTABLE = {"enabled": _flag, "cost": link_cost, "bidirectional": _flag, "tags": _tags}


def _set_link(link: Link, change: Mapping[str, Any], what: str) -> Link:
    unknown = set(change) - {"id", *SETTABLE}
    if unknown:
        raise _fail(f"{what} has unknown fields {sorted(unknown)}")
    values = {key: SETTABLE[key](v, f"{what}.{key}") for key, v in change.items() if key != "id"}
    return replace(link, **values)


def apply_patch(world: World, patch: Mapping[str, Any], lookup: Lookup, revision: int) -> World:
    """Revision ``revision`` of ``world`` with ``patch`` applied (``remove`` ids, ``add`` links,
    ``set`` fields of links by id): all of it, or an error and nothing."""
    if not isinstance(patch, Mapping):
        raise _fail("a world patch is an object {'add', 'remove', 'set', 'if_revision'}")
    unknown = set(patch) - {"add", "remove", "set", "if_revision"}
    if unknown:
        raise _fail(f"a world patch has unknown fields {sorted(unknown)}")
    for key in ("add", "remove", "set"):
        value = patch.get(key, [])
        if value is not None and (not isinstance(value, Sequence) or isinstance(value, str)):
            raise _fail(f"{key!r} must be a list")
    if not any(patch.get(key) for key in ("add", "remove", "set")):
        raise _fail("a world patch changes nothing: give 'add', 'remove' or 'set'")
    links = {link.id: link for link in world.links}
    for link_id in patch.get("remove", []) or []:
        _name(link_id, "remove[]")
        if link_id not in links:
            raise LinkNotFound(f"world {world.name!r} has no link {link_id!r}")
        del links[link_id]
    infos = _map_infos(world.maps, lookup)
    for i, value in enumerate(patch.get("add", []) or []):
        link = parse_link(value, f"add[{i}]", infos)
        if link.id in links:
            raise _fail(f"add[{i}].id {link.id!r} is already a link of the world")
        links[link.id] = link
    for i, change in enumerate(patch.get("set", []) or []):
        if not isinstance(change, Mapping):
            raise _fail(f"set[{i}] must be an object")
        link_id = _name(change.get("id"), f"set[{i}].id")
        if link_id not in links:
            raise LinkNotFound(f"world {world.name!r} has no link {link_id!r}")
        links[link_id] = _set_link(links[link_id], change, f"set[{i}]")
    ordered = tuple(links.values())
    _check_ids(ordered)
    return World(world.name, world.maps, ordered, revision, world.source)


@dataclass(frozen=True)
class WorldMaps:
    """What a query through a world reads: one revision of the world and the snapshot of
    each map it names (every one present: a world whose map is gone answers
    ``map_not_found`` before a search starts). Immutable like its parts, so one search
    reads one consistent view whatever is published meanwhile."""

    world: World
    grids: Mapping[str, Any]  # map name -> gridpath.grid.model.Grid

    kind = "world"  # what the service does with it: app.api.kinds (not a map's kind)

    @property
    def name(self) -> str:
        return self.world.name

    @property
    def revision(self) -> int:
        return self.world.revision

    def revisions(self) -> dict[str, int]:
        return {name: int(self.grids[name].revision) for name in self.world.maps}


def with_map_links(world: World, grids: Mapping[str, Any], strict: bool = True) -> World:
    """``world`` with the same-map links its maps declare (a Tiled map's objects of class
    ``link``: ``grid.links``) after its own, in the order of its maps; the same object when
    they declare none. A map link whose id a world link (or an earlier map's) has is
    :class:`InvalidWorld` (``strict``), or left out (``strict=False``: listing a world)."""
    extra = [link for name in world.maps for link in getattr(grids.get(name), "links", ())]
    if not extra:
        return world
    ids = {link.id for link in world.links}
    kept = []
    for link in extra:
        if link.id in ids:
            if strict:
                raise _fail(
                    f"link id {link.id!r} of map {link.source.map!r} (its Tiled objects) is "
                    f"also a link of world {world.name!r}: rename one"
                )
            continue
        ids.add(link.id)
        kept.append(link)
    return replace(world, links=world.links + tuple(kept))
