"""The routes of the HTTP API: one router per area, included by ``create_app``."""
