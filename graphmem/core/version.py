"""graphmem's version, readable by every layer without importing the package face."""

__version__ = "0.1.0"
