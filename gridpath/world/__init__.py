"""Worlds of grid maps joined by links (:mod:`gridpath.world.model`)."""

from gridpath.world.model import (
    InvalidWorld,
    Link,
    LinkNotFound,
    Place,
    World,
    WorldMaps,
    WorldNotFound,
    apply_patch,
    parse_link,
    parse_world,
)

__all__ = [
    "InvalidWorld",
    "Link",
    "LinkNotFound",
    "Place",
    "World",
    "WorldMaps",
    "WorldNotFound",
    "apply_patch",
    "parse_link",
    "parse_world",
]
