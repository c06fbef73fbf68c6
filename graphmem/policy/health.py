"""The health state machine of a rolling-summary conversation memory.

::

    healthy --summarizer_failed--> retry --retry_succeeded--> healthy
                                     |
                                     +--retries_exhausted--> degraded
    degraded --recovery_started--> recovering --recovered--> healthy
                                       |
                                       +--recovery_failed--> degraded

``retry``: the summarizer failed once; the same batch is tried again (``max_retries``
times). ``degraded``: the summarizer is taken to be down; the context falls back to
truncation and evicted batches queue for recovery. ``recovering``: the queue is being
folded into the summary. Any other change raises ``InvalidTransition``; every change
publishes ``memory.health_changed`` with ``from``, ``to`` and a short static ``reason``.
"""

from __future__ import annotations

import threading
from enum import StrEnum

from graphmem.core.errors import InvalidTransition
from graphmem.core.events import EventBus
from graphmem.core.events import bus as default_bus

__all__ = ["TRANSITIONS", "HealthMachine", "HealthState"]


class HealthState(StrEnum):
    """The health of a conversation memory's summarizer."""

    HEALTHY = "healthy"
    RETRY = "retry"
    DEGRADED = "degraded"
    RECOVERING = "recovering"


TRANSITIONS: dict[HealthState, frozenset[HealthState]] = {
    HealthState.HEALTHY: frozenset({HealthState.RETRY}),
    HealthState.RETRY: frozenset({HealthState.HEALTHY, HealthState.DEGRADED}),
    HealthState.DEGRADED: frozenset({HealthState.RECOVERING}),
    HealthState.RECOVERING: frozenset({HealthState.HEALTHY, HealthState.DEGRADED}),
}
"""The allowed changes: state -> the states it may move to."""

REASONS = frozenset(
    {
        "summarizer_failed",
        "retry_succeeded",
        "retries_exhausted",
        "recovery_started",
        "recovered",
        "recovery_failed",
    }
)
"""The reasons graphmem itself gives (others may be passed, as short static strings)."""


class HealthMachine:
    """Holds one health state and moves it only along :data:`TRANSITIONS`.

    >>> from graphmem.core.events import EventBus
    >>> machine = HealthMachine(bus=EventBus())
    >>> machine.transition("retry", "summarizer_failed")
    <HealthState.RETRY: 'retry'>
    >>> machine.transition("recovering", "recovery_started")
    Traceback (most recent call last):
    ...
    graphmem.core.errors.InvalidTransition: health cannot go from retry to recovering ...
    """

    def __init__(
        self,
        state: HealthState | str = HealthState.HEALTHY,
        *,
        bus: EventBus | None = None,
        conversation: str | None = None,
    ) -> None:
        self._state = HealthState(state)
        self._bus = bus or default_bus
        self._conversation = conversation
        self._lock = threading.Lock()
        self.history: list[tuple[HealthState, HealthState, str]] = []

    @property
    def state(self) -> HealthState:
        """The current state."""
        return self._state

    def can(self, to: HealthState | str) -> bool:
        """Whether moving to ``to`` is allowed now."""
        return HealthState(to) in TRANSITIONS[self._state]

    def transition(self, to: HealthState | str, reason: str) -> HealthState:
        """Move to ``to``, publish ``memory.health_changed``, return the new state.

        Raises:
            InvalidTransition: ``to`` is not reachable from the current state.
            ValueError: ``to`` is not a health state.
        """
        target = HealthState(to)
        with self._lock:
            source = self._state
            if target not in TRANSITIONS[source]:
                allowed = ", ".join(sorted(TRANSITIONS[source])) or "nothing"
                raise InvalidTransition(
                    f"health cannot go from {source} to {target} (from {source}: {allowed})",
                    from_state=source.value,
                    to_state=target.value,
                )
            self._state = target
            self.history.append((source, target, reason))
        payload: dict[str, object] = {"from": source.value, "to": target.value, "reason": reason}
        if self._conversation is not None:
            payload["conversation"] = self._conversation
        self._bus.publish("memory.health_changed", **payload)
        return target

    def reset(self, state: HealthState | str) -> None:
        """Set the state without an event (for restoring a snapshot)."""
        with self._lock:
            self._state = HealthState(state)
