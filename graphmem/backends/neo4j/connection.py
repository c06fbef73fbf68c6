"""Where a Neo4j store lives: the URL and options, parsed once. No driver import, no I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from graphmem.core.errors import InvalidInput
from graphmem.core.store import redact_url

__all__ = ["SCHEMES", "ConnectionSettings", "parse_connection"]

SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
"""URL schemes the driver understands; graphmem registers neo4j, neo4j+s, bolt, bolt+s."""


@dataclass(frozen=True, slots=True)
class ConnectionSettings:
    """A parsed store URL.

    Attributes:
        uri: What the driver connects to: scheme, host and port (plus routing context).
        user: The user name, or None for a server without authentication.
        password: The password (never shown: see ``redacted_url``).
        database: The database name, or None for the server's default database.
        redacted_url: The URL as given, with any password replaced by ``***``.
        driver_options: Further keyword options for ``GraphDatabase.driver``.
    """

    uri: str
    user: str | None
    password: str | None = field(repr=False)
    database: str | None
    redacted_url: str
    driver_options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def auth(self) -> tuple[str, str] | None:
        """Basic credentials for the driver, or None."""
        if self.user is None:
            return None
        return (self.user, self.password or "")


def parse_connection(
    url: str,
    *,
    user: str | None = None,
    password: str | None = None,
    database: str | None = None,
    **driver_options: Any,
) -> ConnectionSettings:
    """Parse ``neo4j://user:password@host:7687/database`` (or ``?database=``) and options.

    Keyword options win over the URL. Other options go to the driver unchanged.

    >>> s = parse_connection("neo4j://neo4j:secret@db.local:7687/memory")
    >>> (s.uri, s.user, s.database, s.redacted_url)
    ('neo4j://db.local:7687', 'neo4j', 'memory', 'neo4j://neo4j:***@db.local:7687/memory')

    Raises:
        InvalidInput: The URL is not a Neo4j URL.
    """
    redacted = redact_url(url)
    try:
        parts = urlsplit(url)
        hostname, port = parts.hostname, parts.port
    except ValueError as exc:
        raise InvalidInput(f"{redacted} is not a valid Neo4j URL: {exc}", url=redacted) from exc
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise InvalidInput(
            f"{redacted} is not a Neo4j URL; use neo4j://, neo4j+s://, bolt:// or bolt+s://",
            url=redacted,
        )
    if not hostname:
        raise InvalidInput(f"{redacted} names no host (neo4j://host:7687)", url=redacted)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    path_database = unquote(parts.path.strip("/")) or None
    query_database = query.pop("database", None) or None
    if path_database and query_database and path_database != query_database:
        raise InvalidInput(
            f"{redacted} names two databases ({path_database!r} and {query_database!r})",
            url=redacted,
        )
    if query and scheme.startswith("bolt"):
        raise InvalidInput(
            f"{redacted}: bolt:// URLs take no query options other than database=",
            url=redacted,
        )
    netloc = hostname if ":" not in hostname else f"[{hostname}]"
    if port is not None:
        netloc = f"{netloc}:{port}"
    uri = urlunsplit((scheme, netloc, "", urlencode(query), ""))
    url_user = unquote(parts.username) if parts.username else None
    url_password = unquote(parts.password) if parts.password is not None else None
    return ConnectionSettings(
        uri=uri,
        user=user if user is not None else url_user,
        password=password if password is not None else url_password,
        database=database or path_database or query_database,
        redacted_url=redacted,
        driver_options=dict(driver_options),
    )
