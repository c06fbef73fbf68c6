"""The MCP server: memory tools and world-building tools over one Memory."""
