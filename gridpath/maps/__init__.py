"""The maps a process serves: the :class:`MapRegistry` of snapshots (grids and polygon
maps, by name and revision), loading a folder of map files into it, and writing maps
back (:mod:`gridpath.maps.persist`). The models themselves are :mod:`gridpath.grid` and
:mod:`gridpath.nav`; the service's authorities (``app.authority``) feed the registry.
"""

from gridpath.maps.registry import LoadFailure, MapRegistry

__all__ = ["LoadFailure", "MapRegistry"]
