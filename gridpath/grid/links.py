"""Same-map links a grid map declares: teleporters, ladders, doors between two cells of one
map, used by every world that names the map (``gridpath.world.model.with_map_links``).

A Tiled map declares them as objects of class ``link`` (:mod:`gridpath.grid.tiled_objects`);
any grid map can carry them in its sidecar ``NAME.json`` as ``"links"``, which is how the
service stores them when it writes a map back (a Tiled map is written as a PNG or ``.map``
and its sidecar, in the folder and in Redis). The sidecar form is a world's link without the
map, the map being the one the sidecar belongs to::

    {"links": [{"id": "ladder", "from": [3, 9], "to": [3, 2], "cost": 2,
                "bidirectional": true, "enabled": true, "tags": ["ladder"]}]}

Decisions:
- A declared link is checked exactly as a world's link is (``parse_link``: the id a name,
  both cells inside the map, a finite cost >= 0, two different cells); a bad one is a
  :class:`MapLoadError` with the reason, so the map is not loaded, as for any other fault.
- Ids are unique within the map; a clash with a world's own link, or with another map's,
  is the world's error (``invalid_world``), found when the world is written or queried.
- The links are part of the map's content: its content hash covers their sidecar form
  (without the map's name, so a renamed copy hashes the same).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gridpath.errors import MapLoadError, ServiceError
from gridpath.world.model import MAX_LINKS, Link, parse_link

SIDECAR_FIELDS = ("id", "from", "to", "cost", "bidirectional", "enabled", "tags")


def map_link(name: str, size: tuple[int, int], document: Mapping[str, Any], what: str) -> Link:
    """One link of map ``name`` (``size``: width, height) from its sidecar form, checked as a
    world's link is; :class:`MapLoadError` naming ``what`` if it is bad."""
    value = dict(document)
    for end in ("from", "to"):
        if end in value:
            value[end] = {"map": name, "cell": value[end]}
    try:
        return parse_link(value, what, {name: ("grid", size[0], size[1])})
    except ServiceError as exc:  # invalid_world
        raise MapLoadError(exc.message) from None


def sidecar_links(name: str, size: tuple[int, int], entries: object) -> tuple[Link, ...]:
    """The links of a sidecar's ``"links"`` (None: none)."""
    if entries is None:
        return ()
    if not isinstance(entries, list) or len(entries) > MAX_LINKS:
        raise MapLoadError(f"sidecar: 'links' must be a list of at most {MAX_LINKS} links")
    links = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise MapLoadError(f"sidecar: links[{index}] must be an object")
        links.append(map_link(name, size, entry, f"sidecar: links[{index}]"))
    return tuple(links)


def declared_links(*groups: Iterable[Link]) -> tuple[Link, ...]:
    """The links of a map from its sources (its Tiled objects, its sidecar), each id once."""
    links: list[Link] = []
    seen: set[str] = set()
    for link in (link for group in groups for link in group):
        if link.id in seen:
            raise MapLoadError(f"link id {link.id!r} is declared twice in the map")
        seen.add(link.id)
        links.append(link)
    if len(links) > MAX_LINKS:
        raise MapLoadError(f"a map declares at most {MAX_LINKS} links, not {len(links)}")
    return tuple(links)


def sidecar_form(links: Sequence[Link]) -> list[dict[str, Any]]:
    """The links as a sidecar's ``"links"``: every field written, in the map's order."""
    return [
        {
            "id": link.id,
            "from": list(link.source.cell),
            "to": list(link.target.cell),
            "cost": link.cost,
            "bidirectional": link.bidirectional,
            "enabled": link.enabled,
            "tags": list(link.tags),
        }  # fmt: skip
        for link in links
    ]
