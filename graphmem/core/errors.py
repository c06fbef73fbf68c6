"""The one error tree of graphmem.

Every error graphmem raises on purpose is a ``GraphmemError``. Each subclass also
inherits the builtin exception it narrows, so code that already catches ``KeyError``
or ``ValueError`` keeps working::

    GraphmemError (Exception)
    ├── NotFound (KeyError)                  an id that is not in the store
    ├── InvalidInput (ValueError)            bad data or arguments; nothing was written
    │   ├── InvalidSnapshot                  a snapshot that is not ours or not for this strategy
    │   └── PolicyViolation                  a governed write breaks a rule; nothing was written
    │       ├── ForbiddenCategory            the fact's category may never be stored
    │       ├── PIIDetected                  personal data found and the policy rejects it
    │       ├── PoisoningDetected            instructions aimed at the model, policy rejects
    │       └── MalformedPrivacyTag          an unclosed, stray or nested privacy tag
    ├── SignatureMismatch (ValueError)       governance records do not verify (tampered)
    │   └── AuditChainBroken                 found tampered earlier: governed writes refused
    ├── InvalidTransition (RuntimeError)     a health state change the state machine forbids
    ├── UnsupportedOperation (NotImplementedError)
    │   │                                    the backend cannot do this; the message says why
    │   └── StoreReadOnly                    a write to a store opened with read_only=True
    ├── BackendUnavailable (ConnectionError) the store cannot be reached or opened
    │   ├── StoreLocked                      another writer holds the store file
    │   ├── NotAStore                        the file is not a graphmem store; left untouched
    │   └── StoreCorrupted                   the store file is damaged; restore a backup
    │       └── CommitsMissing               acknowledged commits are gone (a damaged -wal)
    ├── IdentityRequired (PermissionError)   a tenant / user / session part is missing: fail closed
    └── StoreClosed (RuntimeError)           the store or conversation was closed

Errors carry the data a caller needs to act (``entity_id``, ``tenant``, ``query_name``)
as attributes, and a message that says what to fix.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuditChainBroken",
    "BackendUnavailable",
    "CommitsMissing",
    "ForbiddenCategory",
    "GraphmemError",
    "IdentityRequired",
    "InvalidInput",
    "InvalidSnapshot",
    "InvalidTransition",
    "MalformedPrivacyTag",
    "NotAStore",
    "NotFound",
    "PIIDetected",
    "PoisoningDetected",
    "PolicyViolation",
    "SignatureMismatch",
    "StoreClosed",
    "StoreCorrupted",
    "StoreLocked",
    "StoreReadOnly",
    "UnsupportedOperation",
]


class GraphmemError(Exception):
    """Root of every error graphmem raises on purpose.

    Args:
        message: What went wrong and what to do about it.
        **data: Context for the caller (``entity_id``, ``tenant``, ``query_name``, ...),
            available as attributes of the error.
    """

    def __init__(self, message: str, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.data = data
        for key, value in data.items():
            setattr(self, key, value)

    def __str__(self) -> str:
        # KeyError's own __str__ wraps the message in quotes; keep messages readable.
        return self.message


class NotFound(GraphmemError, KeyError):
    """An entity, relationship, turn or conversation id is not in the store."""


class InvalidInput(GraphmemError, ValueError):
    """Bad data or arguments. The operation wrote nothing."""


class InvalidSnapshot(InvalidInput):
    """A snapshot that graphmem did not make, or made for another strategy."""


class PolicyViolation(InvalidInput):
    """A governed write breaks a memory-policy rule; nothing was written.

    Carries ``rule`` (which rule) and, where it applies, ``kinds`` (e.g. the kinds of
    personal data found), never the offending text itself.
    """


class ForbiddenCategory(PolicyViolation):
    """The fact's category is forbidden (always, or by the policy in force)."""


class PIIDetected(PolicyViolation):
    """Personal data (email, phone, card, IBAN, national id) and a policy that rejects it."""


class PoisoningDetected(PolicyViolation):
    """Instructions aimed at the model that will read the fact, and a policy that rejects them.

    ``kinds`` names the patterns (``instruction_override``, ``role_marker``,
    ``hidden_markup``, ``tool_call``). No fact was written; the refusal itself is audited
    (its kinds, never the text), so governance statistics count it.
    """


class MalformedPrivacyTag(PolicyViolation):
    """A ``<private>`` or ``<classified:tier_N>`` tag is unclosed, stray, nested or unknown."""


class SignatureMismatch(GraphmemError, ValueError):
    """Governance records do not verify: altered, re-dated, deleted, reordered, replayed.

    Carries ``record_ids`` (every record out of place) and ``reasons`` (why, by id).
    """


class AuditChainBroken(SignatureMismatch):
    """A governed write refused: the tenant's audit chain was found broken (tampered).

    Governance fails closed (in the process, for the signing key that found it) from the
    moment a check finds a record out of place (``found_at``, ``reason``, ``record_ids``
    of that finding): nothing is appended to a chain that no longer proves what happened.
    Restore the store from a backup and restart.
    """


class InvalidTransition(GraphmemError, RuntimeError):
    """A health state change the state machine does not allow (``from_state``, ``to_state``)."""


class UnsupportedOperation(GraphmemError, NotImplementedError):
    """The backend cannot perform this operation; the message says why."""


class StoreReadOnly(UnsupportedOperation):
    """A write to a store opened with ``read_only=True``; nothing was written."""


class BackendUnavailable(GraphmemError, ConnectionError):
    """The store cannot be reached or opened (the URL is named, never a password)."""


class StoreLocked(BackendUnavailable):
    """Another writer (another process, or another open store here) holds the store file.

    Open it with ``read_only=True`` to read it meanwhile, or close the other writer first.
    """


class NotAStore(BackendUnavailable):
    """The file is not a graphmem store (``path``, and ``kind``: what it looks like).

    Opening it changed nothing: the file is byte-for-byte as it was.
    """


class StoreCorrupted(BackendUnavailable):
    """The store file is damaged: a checksum, a row count or SQLite's own check failed.

    Carries ``path``. Nothing was written; run ``graphmem check`` and restore a backup.
    """


class CommitsMissing(StoreCorrupted):
    """Commits the store acknowledged are missing from its file (``recorded``, ``found``).

    The database opened to an earlier committed state than its commit record names
    (``<store>-commit``, kept beside it): its write-ahead log was damaged or lost. Restore
    a backup, or delete the record to accept the store as it opens now.
    """


class IdentityRequired(GraphmemError, PermissionError):
    """A part of the caller's identity (tenant, user, session) is missing: fail closed."""


class StoreClosed(GraphmemError, RuntimeError):
    """The store or conversation was closed; open a new one."""
