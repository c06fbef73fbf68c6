"""The embedded networkx backend: ``memory://`` and ``file:///path/world.graphmem``."""

from graphmem.backends.networkx.store import NetworkXStore, open_networkx

__all__ = ["NetworkXStore", "open_networkx"]
