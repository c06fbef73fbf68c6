"""Each backend satisfies the rooms of the contract its Backend object declares."""

from __future__ import annotations

from graphmem import GraphStore
from graphmem.core.contract import ROOMS
from graphmem.core.registry import get_backend
from graphmem.core.store import satisfied_protocols

from .conftest import Harness


def test_the_store_satisfies_the_rooms_its_backend_declares(
    store: GraphStore, harness: Harness
) -> None:
    backend = get_backend(harness.url)
    assert harness.url.split("://", 1)[0] in backend.schemes
    assert set(backend.protocols) <= set(ROOMS)
    assert set(backend.protocols) <= satisfied_protocols(store)


def test_persistence_is_a_flag_not_a_room(store: GraphStore, harness: Harness) -> None:
    assert ("persistence" in store.capabilities) == harness.spec.persistent
    assert not {room.__name__ for room in ROOMS} & store.capabilities
