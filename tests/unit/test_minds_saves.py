"""A ``file://`` store written by an earlier graphmem, opened now (see
``tests/conformance/test_minds_saves.py`` for the save itself): read-only, its old
beliefs are refused with what to do; opened to write once, they are converted."""

from __future__ import annotations

from pathlib import Path

import pytest

import graphmem
from graphmem import Memory, StoreReadOnly
from graphmem.exchange import jsonl

SAVE = Path(__file__).parents[1] / "conformance" / "saves" / "minds_per_chain.jsonl"


def test_a_read_only_store_with_per_chain_beliefs_is_refused_until_opened_to_write(
    tmp_path: Path,
) -> None:
    url = f"file://{tmp_path / 'old.graphmem'}"
    with graphmem.open_store(url) as store:
        store.load("tavern", jsonl.read(SAVE))  # what the earlier version left in the file

    with graphmem.open_store(url, read_only=True) as store:
        reader = Memory(store, "tavern", owns_store=False)
        with pytest.raises(StoreReadOnly, match="without read_only=True"):
            reader.beliefs("tomas")
        assert store.count_records("tavern", "belief") == 26

    with graphmem.open_store(url) as store:
        writer = Memory(store, "tavern", owns_store=False)
        assert writer.belief("tomas", "ring", "located_in").fact.object == "inn"

    with graphmem.open_store(url, read_only=True) as store:
        reader = Memory(store, "tavern", owns_store=False)
        assert store.count_records("tavern", "belief") == 0
        assert reader.belief("ada", "ring", "located_in").fact.object == "inn"
