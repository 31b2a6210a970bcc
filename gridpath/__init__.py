"""gridpath: an authoritative grid pathfinding service for multiplayer game servers."""

__version__ = "0.1.0"
