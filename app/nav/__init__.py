"""Polygon maps: a walkable area given as an outline with holes, searched in continuous space.

Pure engine, no FastAPI or pydantic: :mod:`app.nav.model` (the map, its validation and its
loader), :mod:`app.nav.geometry` (exact predicates), :mod:`app.nav.mesh` (the navigation mesh),
:mod:`app.nav.polyanya` (exact shortest paths), :mod:`app.nav.waypoints` (the waypoint
graph mode) and :mod:`app.nav.query` (containment, snapping and polyline validation).
"""
