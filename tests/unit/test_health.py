"""The health state machine: allowed transitions, invalid ones raise, every change published."""

import pytest

from graphmem import InvalidTransition
from graphmem.core.events import EventBus
from graphmem.policy.health import TRANSITIONS, HealthMachine, HealthState

H, R, D, C = (HealthState.HEALTHY, HealthState.RETRY, HealthState.DEGRADED, HealthState.RECOVERING)
ALLOWED = {(H, R), (R, H), (R, D), (D, C), (C, H), (C, D)}


def test_the_transition_table_is_the_issue_s():
    assert {(a, b) for a, targets in TRANSITIONS.items() for b in targets} == ALLOWED


@pytest.mark.parametrize(("source", "target"), sorted(ALLOWED))
def test_allowed_transitions_publish(source, target):
    bus = EventBus()
    seen = []
    bus.subscribe("memory.health_changed", seen.append)
    machine = HealthMachine(source, bus=bus, conversation="abc")

    assert machine.transition(target, "because") is target
    assert machine.state is target
    [event] = seen
    assert dict(event.payload) == {
        "from": source.value,
        "to": target.value,
        "reason": "because",
        "conversation": "abc",
    }


@pytest.mark.parametrize(
    ("source", "target"),
    sorted((a, b) for a in HealthState for b in HealthState if (a, b) not in ALLOWED),
)
def test_invalid_transitions_raise_and_publish_nothing(source, target):
    bus = EventBus()
    seen = []
    bus.subscribe("*", seen.append)
    machine = HealthMachine(source, bus=bus)

    with pytest.raises(InvalidTransition) as info:
        machine.transition(target, "nope")
    assert isinstance(info.value, RuntimeError)
    assert info.value.from_state == source.value and info.value.to_state == target.value
    assert machine.state is source
    assert seen == []


def test_full_cycle_history():
    machine = HealthMachine(bus=EventBus())
    for target, reason in [
        (R, "summarizer_failed"),
        (D, "retries_exhausted"),
        (C, "recovery_started"),
        (D, "recovery_failed"),
        (C, "recovery_started"),
        (H, "recovered"),
    ]:
        machine.transition(target, reason)
    assert [b for _a, b, _r in machine.history] == [R, D, C, D, C, H]


def test_unknown_state_is_a_value_error():
    with pytest.raises(ValueError):
        HealthMachine(bus=EventBus()).transition("sleepy", "x")
