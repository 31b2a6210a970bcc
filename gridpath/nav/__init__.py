"""Polygon maps: a walkable area given as an outline with holes, searched in continuous space.

Pure engine, no FastAPI or pydantic: :mod:`gridpath.nav.model` (the map, its validation and
its loader), :mod:`gridpath.nav.geometry` (exact predicates), :mod:`gridpath.nav.mesh` (the
navigation mesh), :mod:`gridpath.nav.polyanya` (exact shortest paths),
:mod:`gridpath.nav.waypoints` (the waypoint graph mode) and :mod:`gridpath.nav.query`
(containment, snapping and polyline validation).
"""
