"""Maps as data: the :class:`Grid` model and its file loaders (the registry of served
snapshots is :class:`gridpath.maps.MapRegistry`).

Nothing in this package imports FastAPI, pydantic or the search kernels.
"""

from gridpath.grid.loader import load_map
from gridpath.grid.model import Grid, is_valid_map_name

__all__ = ["Grid", "is_valid_map_name", "load_map"]
