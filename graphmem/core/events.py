"""An in-process, thread-safe event bus: how the memory policy layer says what it did.

Policy objects publish to a bus (the module-level :data:`bus` unless given another
``bus=``); anything in the process may subscribe. Patterns are an exact event name, a
prefix ending in ``*`` (``"memory.*"``), or ``"*"`` for everything. Handlers run in the
publishing thread, in subscription order. A handler that raises is logged (logger
``graphmem.core.events``) and skipped: it never breaks the publisher or the other handlers.

Events published by graphmem (payloads never carry the caller's text or identity values;
keys are hashed with :func:`hash_key`):

- ``memory.identity_rejected``: ``operation``, ``missing`` and ``invalid`` (names of the
  missing and of the non-printable parts);
- ``memory.health_changed``: ``conversation`` (hashed key), ``from``, ``to``, ``reason``
  (a short static string);
- ``memory.recovery_dropped``: ``conversation``, ``dropped_turns``, ``backlog_batches``;
- ``memory.audit.<action>``: ``entry_id``, ``action``, ``actor`` (hashed), ``key``
  (hashed subject + relation), ``fact_ids``;
- ``memory.fact_rejected``: ``rule``, ``key`` (hashed), ``kinds`` (e.g. PII kinds);
- ``memory.fact_held``: ``rule`` (``poisoning``), ``key`` (hashed), ``kinds``, ``fact_id``.

>>> from graphmem.core.events import EventBus
>>> seen = []
>>> b = EventBus()
>>> sub = b.subscribe("memory.*", lambda event: seen.append(event.name))
>>> b.publish("memory.health_changed", reason="summarizer_failed")
1
>>> sub.unsubscribe()
>>> b.publish("memory.health_changed")
0
>>> seen
['memory.health_changed']
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from graphmem.core.errors import InvalidInput
from graphmem.core.models import utcnow

__all__ = ["Event", "EventBus", "Handler", "Subscription", "bus", "hash_key"]

_log = logging.getLogger("graphmem.events")


@dataclass(frozen=True, slots=True)
class Event:
    """One published event.

    Attributes:
        name: Dotted name, e.g. ``memory.health_changed``.
        payload: Read-only mapping of what happened (no caller text, hashed keys).
        at: When it was published (UTC).
    """

    name: str
    payload: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    at: datetime = field(default_factory=utcnow)


Handler = Callable[[Event], object]


def hash_key(*parts: str) -> str:
    """A short, stable, one-way hash of a key (16 hex characters of SHA-256).

    Parts are joined with a separator that cannot occur in text, so ``("a", "bc")``
    and ``("ab", "c")`` differ.

    >>> hash_key("mira", "lives_in") == hash_key("mira", "lives_in")
    True
    >>> len(hash_key("x"))
    16
    """
    # surrogatepass: a key is hashed whatever it holds (a lone surrogate is refused where
    # text is stored, not here, where an event about the refusal is published).
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:16]


def _check_pattern(pattern: str) -> str:
    if not isinstance(pattern, str) or not pattern.strip():
        raise InvalidInput("an event pattern is a name, a prefix ending in '*', or '*'")
    if "*" in pattern[:-1]:
        raise InvalidInput(f"event pattern {pattern!r}: '*' may only end a pattern")
    return pattern


class Subscription:
    """A handler subscribed to a pattern; :meth:`unsubscribe` removes it."""

    __slots__ = ("_bus", "handler", "pattern")

    def __init__(self, bus: EventBus, pattern: str, handler: Handler) -> None:
        self._bus: EventBus | None = bus
        self.pattern = pattern
        self.handler = handler

    def matches(self, name: str) -> bool:
        """Whether an event of this name reaches the handler."""
        if self.pattern.endswith("*"):
            return name.startswith(self.pattern[:-1])
        return name == self.pattern

    @property
    def active(self) -> bool:
        """Whether the subscription still receives events."""
        return self._bus is not None

    def unsubscribe(self) -> None:
        """Stop receiving events. Unsubscribing twice is fine."""
        bus, self._bus = self._bus, None
        if bus is not None:
            bus._remove(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unsubscribe()

    def __repr__(self) -> str:
        return f"Subscription(pattern={self.pattern!r}, active={self.active})"


class EventBus:
    """Publish / subscribe within one process; safe to use from many threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: tuple[Subscription, ...] = ()

    def subscribe(self, pattern: str, handler: Handler) -> Subscription:
        """Call ``handler(event)`` for every event whose name matches ``pattern``.

        Args:
            pattern: An exact name, a prefix ending in ``*``, or ``*``.
            handler: A callable taking an :class:`Event`; its return value is ignored.

        Raises:
            InvalidInput: The pattern is empty or has ``*`` elsewhere than at its end,
                or the handler is not callable.
        """
        _check_pattern(pattern)
        if not callable(handler):
            raise InvalidInput("an event handler must be callable")
        subscription = Subscription(self, pattern, handler)
        with self._lock:
            self._subscriptions = (*self._subscriptions, subscription)
        return subscription

    def _remove(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscriptions = tuple(s for s in self._subscriptions if s is not subscription)

    def publish(self, name: str, /, **payload: Any) -> int:
        """Deliver an event to every matching handler; return how many handlers ran cleanly.

        A handler that raises is logged and skipped; the publisher never sees the error.
        """
        if not isinstance(name, str) or not name or "*" in name:
            raise InvalidInput(f"event name {name!r} must be a non-empty name without '*'")
        # A snapshot of the subscribers: handlers may (un)subscribe while we deliver.
        subscriptions = self._subscriptions
        event = Event(name, MappingProxyType(dict(payload)), utcnow())
        delivered = 0
        for subscription in subscriptions:
            if not subscription.active or not subscription.matches(name):
                continue
            try:
                subscription.handler(event)
            except Exception:
                _log.exception(
                    "event handler %r for %r failed; other handlers still run",
                    subscription.handler,
                    name,
                )
            else:
                delivered += 1
        return delivered

    def subscribers(self, name: str) -> int:
        """How many active subscriptions an event of this name would reach."""
        return sum(1 for s in self._subscriptions if s.matches(name))


bus = EventBus()
"""The process-wide default bus; policy objects publish here unless given ``bus=``."""
