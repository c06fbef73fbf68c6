"""API keys of ``graphmem serve``: a keys file holding only hashes, one tenant per key.

The file is TOML (``.toml``) or JSON (any other name)::

    # graphmem keys: SHA-256 hashes of API keys, never the keys themselves
    [[keys]]
    name = "unity-client"
    tenant = "brindleford"
    sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

or ``{"keys": [{"name": ..., "tenant": ..., "sha256": ...}]}``; an entry may also have
``expires`` (an ISO 8601 time, naive meaning UTC): from then on the key opens nothing.
``graphmem keys add`` makes a key, prints it once and appends its hash (``--expires``
sets the time); ``graphmem keys revoke`` removes an entry.

A server reads the file again whenever it changes (its modification time, size or inode,
looked at on each request, one ``stat``), so a revoked or expired key stops working
without a restart. A file that cannot be read any more refuses every key (503) until it
is fixed: a half-edited file never lets a revoked key back in. A key is presented as
``Authorization: Bearer <key>``; the server hashes it and looks the hash up, so the file
never holds a secret that would open the memory. Keys are random (256 bits), so a fast
hash is enough: there is nothing to brute-force.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import threading
import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from graphmem.core.errors import BackendUnavailable, IdentityRequired, InvalidInput
from graphmem.core.store import check_tenant

__all__ = [
    "KEY_PREFIX",
    "ApiKey",
    "KeyRing",
    "add_key",
    "hash_key",
    "new_key",
    "parse_expiry",
    "revoke_key",
]

_log = logging.getLogger(__name__)

KEY_PREFIX = "gmk_"
"""Every key graphmem makes starts with this, so a leaked one is easy to recognise."""

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


def hash_key(key: str) -> str:
    """The SHA-256 hex digest a keys file stores for ``key``."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A fresh random API key (``gmk_`` and 43 URL-safe characters: 256 bits)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class ApiKey:
    """One entry of a keys file: label, tenant, hash of the key, expiry (UTC; None: never)."""

    name: str
    tenant: str
    sha256: str
    expires: datetime | None = None


def parse_expiry(value: object, *, now: datetime | None = None) -> datetime:
    """An expiry time: ``datetime``, ISO 8601 text (naive means UTC), or ``30d`` / ``12h``.

    Raises:
        InvalidInput: Anything else.
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str) and (relative := re.fullmatch(r"(\d{1,6})([dhm])", value)):
        amount, unit = int(relative.group(1)), relative.group(2)
        step = {"d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1)}
        return (now or datetime.now(UTC)) + amount * step[unit]
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(
                f"expires must be an ISO 8601 time (2027-01-31T12:00:00Z) or a duration "
                f"(30d, 12h, 45m), got {value!r}"
            ) from None
    else:
        raise InvalidInput(f"expires must be a time, got {type(value).__name__}")
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _index(entries: list[ApiKey]) -> dict[str, ApiKey]:
    by_hash: dict[str, ApiKey] = {}
    for entry in entries:
        if entry.sha256 in by_hash:
            first = by_hash[entry.sha256].name
            raise InvalidInput(f"keys {first!r} and {entry.name!r} have the same hash")
        by_hash[entry.sha256] = entry
    if not by_hash:
        raise InvalidInput("the keys file holds no keys; add one with `graphmem keys add`")
    return by_hash


def _signature(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


class KeyRing:
    """The keys a server accepts: hash -> entry. Build one with :meth:`load`.

    A ring loaded from a file follows it: :meth:`lookup` reads the file again when it
    changed since it was read.
    """

    def __init__(self, entries: list[ApiKey], *, path: Path | None = None) -> None:
        self._by_hash = _index(entries)
        self._path = path
        self._seen = _signature(path) if path is not None else None
        self._broken: str | None = None  # why the file cannot be read now (refuse all)
        self._lock = threading.Lock()

    def _follow(self) -> None:
        """Read the file again if it changed (a stat per call)."""
        path = self._path
        if path is None:
            return
        seen: tuple[int, int, int, int] | None
        problem: str | None
        try:
            seen = _signature(path)
        except OSError as exc:
            seen = None
            problem = f"cannot read the keys file {path}: {exc.strerror or exc}"
        else:
            if seen == self._seen:
                return
            problem = None
        with self._lock:
            if seen is not None and seen == self._seen:
                return
            if problem is None:
                try:
                    self._by_hash = _index(_read_entries(path))
                except InvalidInput as exc:
                    problem = str(exc)
                else:
                    self._broken = None
                    _log.warning("graphmem serve: keys file %s read again", path)
            self._seen = seen
            if problem is not None and problem != self._broken:
                _log.error("graphmem serve: refusing every key: %s", problem)
            self._broken = problem

    @property
    def entries(self) -> list[ApiKey]:
        """Every entry, in file order."""
        self._follow()
        return list(self._by_hash.values())

    @property
    def tenants(self) -> list[str]:
        """The tenants the keys open, sorted, without repeats."""
        return sorted({entry.tenant for entry in self._by_hash.values()})

    def lookup(self, key: str | None) -> ApiKey:
        """The entry of a presented key.

        Raises:
            IdentityRequired: No key, one the server does not know (revoked, perhaps) or
                one that expired (the key itself is never part of the message).
            BackendUnavailable: The keys file changed and cannot be read: every key is
                refused until it is fixed.
        """
        self._follow()
        if self._broken is not None:
            raise BackendUnavailable(
                "the server cannot read its keys file, so it accepts no key until the "
                "operator fixes it"
            )
        if not key:
            raise IdentityRequired(
                "this server needs an API key: send 'Authorization: Bearer <key>'",
                missing=("api_key",),
            )
        entry = self._by_hash.get(hash_key(key))
        if entry is None:
            raise IdentityRequired("the API key is not known to this server", missing=("api_key",))
        if entry.expires is not None and datetime.now(UTC) >= entry.expires:
            raise IdentityRequired(
                f"the API key {entry.name!r} expired at {entry.expires.isoformat()}; ask for "
                "a new one",
                missing=("api_key",),
            )
        return entry

    @classmethod
    def load(cls, path: str | Path) -> KeyRing:
        """Read a keys file (TOML by its ``.toml`` suffix, else JSON).

        Raises:
            InvalidInput: The file cannot be read or parsed, or an entry is malformed
                (the message names the entry; a hash is never quoted).
        """
        path = Path(path)
        return cls(_read_entries(path), path=path)


def _read_entries(path: Path) -> list[ApiKey]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot read the keys file {path}: {exc.strerror or exc}") from exc
    try:
        data: Any = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text or "{}")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"the keys file {path} is not valid {_kind(path)}: {exc}") from exc
    rows = data.get("keys", []) if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise InvalidInput(f"the keys file {path} must hold a list 'keys' of entries")
    entries: list[ApiKey] = []
    for index, row in enumerate(rows):
        where = f"{path} entry {index + 1}"
        if not isinstance(row, dict) or not (
            {"name", "tenant", "sha256"} <= set(row) <= {"name", "tenant", "sha256", "expires"}
        ):
            raise InvalidInput(
                f"{where}: an entry has exactly name, tenant and sha256, and may have expires"
            )
        name, tenant, digest = row["name"], row["tenant"], row["sha256"]
        if not isinstance(name, str) or not _NAME.match(name):
            raise InvalidInput(f"{where}: name must be 1-64 letters, digits, '_', '.', '@' or '-'")
        if not isinstance(digest, str) or not _HEX64.match(digest):
            raise InvalidInput(f"{where} ({name}): sha256 must be 64 lowercase hex digits")
        try:
            check_tenant(tenant)
        except (IdentityRequired, InvalidInput) as exc:
            raise InvalidInput(f"{where} ({name}): {exc}") from exc
        expires = None
        if "expires" in row:
            try:
                expires = parse_expiry(row["expires"])
            except InvalidInput as exc:
                raise InvalidInput(f"{where} ({name}): {exc}") from exc
        entries.append(ApiKey(name, tenant, digest, expires))
    return entries


def _kind(path: Path) -> str:
    return "TOML" if path.suffix == ".toml" else "JSON"


def add_key(
    path: str | Path, *, tenant: str, name: str, expires: datetime | str | None = None
) -> str:
    """Make a key for ``tenant``, append its hash to the keys file, return the key.

    The file is created if missing (TOML for a ``.toml`` name, else JSON), rewritten
    atomically, and readable by its owner only. The key is returned once and stored
    nowhere. ``expires`` (a time, ISO 8601 text or ``30d`` / ``12h``) ends its validity.

    Raises:
        InvalidInput: A bad name or tenant, a name already in the file, or an unreadable
            file.
    """
    path = Path(path)
    entries = _read_entries(path) if path.exists() else []
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidInput("a key name is 1-64 letters, digits, '_', '.', '@' or '-'")
    check_tenant(tenant)
    if any(entry.name == name for entry in entries):
        raise InvalidInput(f"the keys file already has a key named {name!r}")
    until = parse_expiry(expires) if expires is not None else None
    key = new_key()
    entries.append(ApiKey(name, tenant, hash_key(key), until))
    _write_entries(path, entries)
    return key


def revoke_key(path: str | Path, *, name: str) -> ApiKey:
    """Remove the key named ``name`` from the keys file; return its entry.

    A server using the file stops accepting the key at its next request.

    Raises:
        NotFound: No key of that name.
        InvalidInput: An unreadable file, or the last key (a keys file holds at least one).
    """
    from graphmem.core.errors import NotFound

    path = Path(path)
    entries = _read_entries(path)
    gone = [entry for entry in entries if entry.name == name]
    if not gone:
        raise NotFound(f"the keys file {path} has no key named {name!r}", name=name)
    kept = [entry for entry in entries if entry.name != name]
    if not kept:
        raise InvalidInput(
            f"{name!r} is the last key of {path}; stop the server or add another key first"
        )
    _write_entries(path, kept)
    return gone[0]


def _write_entries(path: Path, entries: list[ApiKey]) -> None:
    """Rewrite the keys file atomically, readable by its owner only."""
    if path.suffix == ".toml":
        lines = ["# graphmem keys: SHA-256 hashes of API keys, never the keys themselves", ""]
        for entry in entries:
            lines += [
                "[[keys]]",
                f"name = {json.dumps(entry.name)}",
                f"tenant = {json.dumps(entry.tenant, ensure_ascii=False)}",
                f'sha256 = "{entry.sha256}"',
                *([f'expires = "{entry.expires.isoformat()}"'] if entry.expires else []),
                "",
            ]
        text = "\n".join(lines)
    else:
        rows: list[dict[str, str]] = [
            {
                "name": e.name,
                "tenant": e.tenant,
                "sha256": e.sha256,
                **({"expires": e.expires.isoformat()} if e.expires else {}),
            }
            for e in entries
        ]
        text = json.dumps({"keys": rows}, indent=2, ensure_ascii=False) + "\n"
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)
