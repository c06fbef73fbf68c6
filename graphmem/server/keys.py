"""API keys of ``graphmem serve``: a keys file holding only hashes, one tenant per key.

The file is TOML (``.toml``) or JSON (any other name)::

    # graphmem keys: SHA-256 hashes of API keys, never the keys themselves
    [[keys]]
    name = "unity-client"
    tenant = "brindleford"
    sha256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

or ``{"keys": [{"name": ..., "tenant": ..., "sha256": ...}]}``. ``graphmem keys add``
makes a key, prints it once and appends its hash. A key is presented as
``Authorization: Bearer <key>``; the server hashes it and looks the hash up, so the file
never holds a secret that would open the memory. Keys are random (256 bits), so a fast
hash is enough: there is nothing to brute-force.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.errors import IdentityRequired, InvalidInput
from graphmem.store import check_tenant

__all__ = ["KEY_PREFIX", "ApiKey", "KeyRing", "add_key", "hash_key", "new_key"]

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
    """One entry of a keys file: a label, the tenant it opens, the hash of the key."""

    name: str
    tenant: str
    sha256: str


class KeyRing:
    """The keys a server accepts: hash -> entry. Build one with :meth:`load`."""

    def __init__(self, entries: list[ApiKey]) -> None:
        self._by_hash: dict[str, ApiKey] = {}
        for entry in entries:
            if entry.sha256 in self._by_hash:
                first = self._by_hash[entry.sha256].name
                raise InvalidInput(f"keys {first!r} and {entry.name!r} have the same hash")
            self._by_hash[entry.sha256] = entry
        if not self._by_hash:
            raise InvalidInput("the keys file holds no keys; add one with `graphmem keys add`")

    @property
    def entries(self) -> list[ApiKey]:
        """Every entry, in file order."""
        return list(self._by_hash.values())

    @property
    def tenants(self) -> list[str]:
        """The tenants the keys open, sorted, without repeats."""
        return sorted({entry.tenant for entry in self._by_hash.values()})

    def lookup(self, key: str | None) -> ApiKey:
        """The entry of a presented key.

        Raises:
            IdentityRequired: No key, or one the server does not know (the key itself is
                never part of the message).
        """
        if not key:
            raise IdentityRequired(
                "this server needs an API key: send 'Authorization: Bearer <key>'",
                missing=("api_key",),
            )
        entry = self._by_hash.get(hash_key(key))
        if entry is None:
            raise IdentityRequired("the API key is not known to this server", missing=("api_key",))
        return entry

    @classmethod
    def load(cls, path: str | Path) -> KeyRing:
        """Read a keys file (TOML by its ``.toml`` suffix, else JSON).

        Raises:
            InvalidInput: The file cannot be read or parsed, or an entry is malformed
                (the message names the entry; a hash is never quoted).
        """
        return cls(_read_entries(Path(path)))


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
        if not isinstance(row, dict) or set(row) != {"name", "tenant", "sha256"}:
            raise InvalidInput(f"{where}: an entry has exactly name, tenant and sha256")
        name, tenant, digest = row["name"], row["tenant"], row["sha256"]
        if not isinstance(name, str) or not _NAME.match(name):
            raise InvalidInput(f"{where}: name must be 1-64 letters, digits, '_', '.', '@' or '-'")
        if not isinstance(digest, str) or not _HEX64.match(digest):
            raise InvalidInput(f"{where} ({name}): sha256 must be 64 lowercase hex digits")
        try:
            check_tenant(tenant)
        except (IdentityRequired, InvalidInput) as exc:
            raise InvalidInput(f"{where} ({name}): {exc}") from exc
        entries.append(ApiKey(name, tenant, digest))
    return entries


def _kind(path: Path) -> str:
    return "TOML" if path.suffix == ".toml" else "JSON"


def add_key(path: str | Path, *, tenant: str, name: str) -> str:
    """Make a key for ``tenant``, append its hash to the keys file, return the key.

    The file is created if missing (TOML for a ``.toml`` name, else JSON), rewritten
    atomically, and readable by its owner only. The key is returned once and stored
    nowhere.

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
    key = new_key()
    entries.append(ApiKey(name, tenant, hash_key(key)))
    if path.suffix == ".toml":
        lines = ["# graphmem keys: SHA-256 hashes of API keys, never the keys themselves", ""]
        for entry in entries:
            lines += [
                "[[keys]]",
                f"name = {json.dumps(entry.name)}",
                f"tenant = {json.dumps(entry.tenant, ensure_ascii=False)}",
                f'sha256 = "{entry.sha256}"',
                "",
            ]
        text = "\n".join(lines)
    else:
        rows = [{"name": e.name, "tenant": e.tenant, "sha256": e.sha256} for e in entries]
        text = json.dumps({"keys": rows}, indent=2, ensure_ascii=False) + "\n"
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, path)
    return key
