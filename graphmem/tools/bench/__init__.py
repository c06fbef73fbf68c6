"""``graphmem bench``: speed figures, each beside a baseline of the same run."""
