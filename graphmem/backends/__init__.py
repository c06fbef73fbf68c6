"""Storage backends. Each one implements :class:`graphmem.store.GraphStore`."""
