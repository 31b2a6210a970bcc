"""Maps as data: the :class:`Grid` model, file loaders and the :class:`MapStore` registry.

Nothing in this package imports FastAPI, pydantic or the search kernels.
"""

from gridpath.grid.loader import load_map
from gridpath.grid.model import Grid, is_valid_map_name
from gridpath.grid.store import LoadFailure, MapStore

__all__ = ["Grid", "LoadFailure", "MapStore", "is_valid_map_name", "load_map"]
