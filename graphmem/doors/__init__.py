"""The doors: HTTP, MCP and async access to a Memory, side by side."""
