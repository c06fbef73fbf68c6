"""The event bus: patterns, unsubscribe, failing handlers, threads."""

import logging
import threading

import pytest

from graphmem import InvalidInput
from graphmem.core.events import Event, EventBus, bus, hash_key


def test_exact_prefix_and_star_patterns():
    b = EventBus()
    got = {"exact": [], "prefix": [], "all": [], "other": []}
    b.subscribe("memory.health_changed", lambda e: got["exact"].append(e.name))
    b.subscribe("memory.*", lambda e: got["prefix"].append(e.name))
    b.subscribe("*", lambda e: got["all"].append(e.name))
    b.subscribe("game.*", lambda e: got["other"].append(e.name))

    b.publish("memory.health_changed", reason="x")
    b.publish("memory.audit.add")

    assert got == {
        "exact": ["memory.health_changed"],
        "prefix": ["memory.health_changed", "memory.audit.add"],
        "all": ["memory.health_changed", "memory.audit.add"],
        "other": [],
    }


def test_payload_is_read_only_and_timestamped():
    b = EventBus()
    seen: list[Event] = []
    b.subscribe("x", seen.append)
    b.publish("x", n=1)
    [event] = seen
    assert event.payload["n"] == 1
    with pytest.raises(TypeError):
        event.payload["n"] = 2  # type: ignore[index]
    assert event.at.tzinfo is not None


def test_unsubscribe_stops_delivery_and_is_idempotent():
    b = EventBus()
    seen = []
    sub = b.subscribe("x", seen.append)
    assert b.publish("x") == 1
    sub.unsubscribe()
    sub.unsubscribe()
    assert b.publish("x") == 0
    assert len(seen) == 1
    assert not sub.active


def test_subscription_as_context_manager():
    b = EventBus()
    seen = []
    with b.subscribe("x", seen.append):
        b.publish("x")
    b.publish("x")
    assert len(seen) == 1


def test_a_failing_handler_breaks_neither_publisher_nor_others(caplog):
    b = EventBus()
    seen = []

    def broken(event):
        raise RuntimeError("handler bug")

    b.subscribe("x", broken)
    b.subscribe("x", seen.append)
    with caplog.at_level(logging.ERROR, logger="graphmem.events"):
        delivered = b.publish("x")
    assert delivered == 1
    assert len(seen) == 1
    assert "handler" in caplog.text


@pytest.mark.parametrize("pattern", ["", "  ", "a*b", "**x"])
def test_bad_patterns(pattern):
    with pytest.raises(InvalidInput):
        EventBus().subscribe(pattern, print)


def test_bad_event_names_and_handlers():
    with pytest.raises(InvalidInput):
        EventBus().publish("a*")
    with pytest.raises(InvalidInput):
        EventBus().subscribe("x", "not callable")  # type: ignore[arg-type]


def test_threads_publish_and_subscribe_concurrently():
    b = EventBus()
    counts = []
    lock = threading.Lock()

    def handler(event):
        with lock:
            counts.append(event.payload["i"])

    b.subscribe("x", handler)

    def work(i):
        for j in range(200):
            b.publish("x", i=i * 1000 + j)
            b.subscribe("y", handler).unsubscribe()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(counts) == sorted(i * 1000 + j for i in range(6) for j in range(200))
    assert b.subscribers("y") == 0


def test_module_bus_exists_and_hash_key_is_stable():
    assert isinstance(bus, EventBus)
    assert hash_key("a", "bc") != hash_key("ab", "c")
    assert hash_key("mira") == hash_key("mira")
