"""Who a policy call is for: ``MemoryIdentity``, checked fail-closed on every call.

A conversation memory is keyed by ``(tenant, user, session)``; a run id is optional and
only labels the run. A missing part (``None``, empty or whitespace) raises
``IdentityRequired`` after publishing ``memory.identity_rejected`` with the operation and
the *names* of the missing parts, never the values the caller gave.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from graphmem.errors import IdentityRequired, InvalidInput
from graphmem.events import EventBus, hash_key
from graphmem.events import bus as default_bus

__all__ = ["SESSION_PREFIX", "MemoryIdentity", "require_identity"]

SESSION_PREFIX = "policy"
"""First part of the store session id of a policy conversation (see ``session_id``)."""

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
        bus: Where to publish (default: ``graphmem.events.bus``).

    Raises:
        IdentityRequired: A required part is missing; ``missing`` names them.
        InvalidInput: The parts make a session id longer than 512 characters.
    """
    parts = {"tenant": tenant, "user": user, "session": session}
    missing = [name for name, value in parts.items() if _missing(value)]
    if missing:
        (bus or default_bus).publish(
            "memory.identity_rejected", operation=operation, missing=list(missing)
        )
        raise IdentityRequired(
            f"{operation} needs a non-empty {', '.join(missing)}: memory policy fails closed",
            missing=tuple(missing),
            operation=operation,
        )
    assert isinstance(tenant, str) and isinstance(user, str) and isinstance(session, str)
    identity = MemoryIdentity(
        tenant, user, session, run_id if isinstance(run_id, str) and run_id.strip() else None
    )
    if len(identity.session_id) > _MAX_SESSION_ID:
        raise InvalidInput(
            f"user and session are too long together: their encoded session id must be at "
            f"most {_MAX_SESSION_ID} characters"
        )
    return identity
