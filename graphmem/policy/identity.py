"""Who a policy call is for: ``MemoryIdentity``, checked fail-closed on every call.

A conversation memory is keyed by ``(tenant, user, session)``; a run id is optional and
only labels the run. Governed fact writes are keyed by ``(tenant, actor)`` and an optional
session. Every part given is checked the same way (:func:`check_identity`):

- a missing required part (``None``, empty or whitespace) raises ``IdentityRequired``;
- a part that is not a printable name (:func:`graphmem.core.store.check_printable_name`: a
  zero-width space, NUL, BOM, Hangul filler, bidirectional override, a blank at an end,
  not NFC, over 256 characters) raises ``InvalidInput`` with ``invalid`` naming the parts.

Either way ``memory.identity_rejected`` is published first, with the operation and the
*names* of the missing and invalid parts, never the values the caller gave.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from graphmem.core.errors import IdentityRequired, InvalidInput
from graphmem.core.events import EventBus, hash_key
from graphmem.core.events import bus as default_bus
from graphmem.core.store import check_printable_name

__all__ = [
    "MAX_IDENTITY_PART",
    "SESSION_PREFIX",
    "MemoryIdentity",
    "check_identity",
    "require_identity",
]

SESSION_PREFIX = "policy"
"""First part of the store session id of a policy conversation (see ``session_id``)."""

MAX_IDENTITY_PART = 256
"""The longest tenant, user, session, actor or run id, in characters."""

_MAX_SESSION_ID = 512


def _missing(value: object) -> bool:
    return not isinstance(value, str) or not value.strip()


@dataclass(frozen=True, slots=True)
class MemoryIdentity:
    """The identity a conversation memory is bound to.

    Attributes:
        tenant: Whose store data (the ``Memory``'s tenant).
        user: The end user (player, customer) the conversation is with.
        session: The conversation session.
        run_id: Optional label of one agent run; not part of the key.
    """

    tenant: str
    user: str
    session: str
    run_id: str | None = None

    @property
    def session_id(self) -> str:
        """The session id the conversation's turns are stored under.

        ``policy:<user>:<session>``, each part percent-encoded (UTF-8, no safe
        characters), so ``:`` inside a part is ``%3A`` and no two (user, session) pairs
        share a session id. The tenant is not in it: the store scopes by tenant already.

        >>> MemoryIdentity("t", "ada:1", "s/2").session_id
        'policy:ada%3A1:s%2F2'
        """
        return f"{SESSION_PREFIX}:{quote(self.user, safe='')}:{quote(self.session, safe='')}"

    @property
    def key_hash(self) -> str:
        """A short one-way hash of (tenant, user, session), safe to put in events."""
        return hash_key(self.tenant, self.user, self.session)


def check_identity(
    operation: str,
    *,
    required: Mapping[str, object],
    optional: Mapping[str, object] | None = None,
    bus: EventBus | None = None,
) -> dict[str, str | None]:
    """Check identity parts by name; return them, an optional blank one as ``None``.

    Args:
        operation: What was attempted (goes into the event and the error).
        required: Parts that must be given (``tenant``, ``user``, ``actor``, ...).
        optional: Parts that may be ``None`` or blank (then ``None``); a given one must
            be a printable name too.
        bus: Where to publish ``memory.identity_rejected`` (default:
            ``graphmem.core.events.bus``).

    Raises:
        IdentityRequired: A required part is missing; ``missing`` names them (and wins
            over invalid parts given at the same time).
        InvalidInput: A part is not a printable name; ``invalid`` names them.
    """
    missing = [name for name, value in required.items() if _missing(value)]
    out: dict[str, str | None] = {}
    invalid: list[str] = []
    first_error: InvalidInput | None = None
    for name, value in {**required, **(optional or {})}.items():
        if name in missing or value is None or (isinstance(value, str) and not value.strip()):
            out[name] = None
            continue
        try:
            out[name] = check_printable_name(value, name, max_length=MAX_IDENTITY_PART)
        except InvalidInput as exc:
            invalid.append(name)
            first_error = first_error or exc
    if missing or invalid:
        (bus or default_bus).publish(
            "memory.identity_rejected", operation=operation, missing=missing, invalid=invalid
        )
    if missing:
        raise IdentityRequired(
            f"{operation} needs a non-empty {', '.join(missing)}: memory policy fails closed",
            missing=tuple(missing),
            operation=operation,
        )
    if first_error is not None:
        # The message names the part and the offending character, never the value.
        raise InvalidInput(
            f"{operation}: {first_error.message}", invalid=tuple(invalid), operation=operation
        )
    return out


def require_identity(
    operation: str,
    *,
    tenant: str | None,
    user: str | None,
    session: str | None,
    run_id: str | None = None,
    bus: EventBus | None = None,
) -> MemoryIdentity:
    """Return the identity, or publish ``memory.identity_rejected`` and raise.

    Args:
        operation: What was attempted (goes into the event).
        tenant: Required.
        user: Required.
        session: Required.
        run_id: Optional; an empty one counts as none.
        bus: Where to publish (default: ``graphmem.core.events.bus``).

    Raises:
        IdentityRequired: A required part is missing; ``missing`` names them.
        InvalidInput: A part is not a printable name (``invalid`` names them), or the
            parts make a session id longer than 512 characters.
    """
    parts = check_identity(
        operation,
        required={"tenant": tenant, "user": user, "session": session},
        optional={"run_id": run_id},
        bus=bus,
    )
    tenant, user, session = parts["tenant"], parts["user"], parts["session"]
    assert tenant is not None and user is not None and session is not None
    identity = MemoryIdentity(tenant, user, session, parts["run_id"])
    if len(identity.session_id) > _MAX_SESSION_ID:
        raise InvalidInput(
            f"user and session are too long together: their encoded session id must be at "
            f"most {_MAX_SESSION_ID} characters"
        )
    return identity
