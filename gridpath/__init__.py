"""gridpath: an authoritative grid pathfinding service for multiplayer game servers."""

from gridpath.kernel_cache import use_keyed_cache

__version__ = "0.1.0"

use_keyed_cache()  # before any module of the package defines a kernel
