"""Turns appended through a memory are indexed in batches, before the next retrieval."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import graphmem
from graphmem import BackendUnavailable, Entity, InvalidInput
from graphmem.core.progress import progress_bar, wants_progress
from graphmem.retrieval import HashingEmbedder


class CountingEmbedder:
    """HashingEmbedder that counts its calls and the texts it saw."""

    def __init__(self) -> None:
        self._inner = HashingEmbedder(64)
        self.calls: list[int] = []
        self.fail = False

    @property
    def dimension(self) -> int:
        return 64

    def embed(self, texts: Sequence[str]) -> Any:
        if self.fail:
            raise BackendUnavailable("the model is away")
        self.calls.append(len(texts))
        return self._inner.embed(texts)


def _embedded(mem: graphmem.Memory) -> int:
    return mem.store.count_embeddings(mem.tenant, "turn")


def test_appends_wait_and_a_retrieve_embeds_them_in_one_batch() -> None:
    embedder = CountingEmbedder()
    with graphmem.open("memory://", tenant="t", embedder=embedder) as mem:
        chat = mem.conversation("s")
        for i in range(40):
            chat.append("user", f"line {i} about the harbour")
        assert mem.pending_index == 40 and _embedded(mem) == 0 and embedder.calls == []

        found = mem.retrieve("harbour", k=3)

        assert embedder.calls == [40, 1]  # the turns in one batch, then the query
        assert _embedded(mem) == 40 and mem.pending_index == 0
        assert [r.kind for r in found] == ["turn"] * 3
        mem.retrieve("harbour", k=3)
        assert embedder.calls == [40, 1, 1]  # nothing left to index


def test_extend_and_load_conversation_are_queued_too() -> None:
    with graphmem.open("memory://", tenant="t", embedder=CountingEmbedder()) as mem:
        mem.conversation("a").extend(
            [{"role": "user", "content": "one"}, {"role": "user", "content": "two"}]
        )
        dump = mem.conversation("a").dump()
        mem.load_conversation(dump, session_id="b")
        assert mem.pending_index == 4
        assert mem.flush_index() == 4
        assert _embedded(mem) == 4


def test_index_batch_indexes_on_append_once_enough_wait() -> None:
    embedder = CountingEmbedder()
    with graphmem.open("memory://", tenant="t", embedder=embedder, index_batch=8) as mem:
        chat = mem.conversation("s")
        for i in range(20):
            chat.append("user", f"line {i}")
        assert embedder.calls == [8, 8]
        assert mem.pending_index == 4 and _embedded(mem) == 16


def test_auto_index_off_leaves_turns_to_index_turns() -> None:
    embedder = CountingEmbedder()
    with graphmem.open("memory://", tenant="t", embedder=embedder, auto_index=False) as mem:
        mem.conversation("s").append("user", "the harbour at dawn")
        assert mem.pending_index == 0
        mem.retrieve("harbour", k=1)
        assert _embedded(mem) == 0
        assert mem.index_turns() == 1
        assert _embedded(mem) == 1


def test_a_turn_deleted_before_the_flush_is_left_out() -> None:
    with graphmem.open("memory://", tenant="t", embedder=CountingEmbedder()) as mem:
        chat = mem.conversation("s")
        keep = chat.append("user", "keep me")
        gone = chat.append("user", "delete me")
        chat.delete_turn(gone)
        assert mem.flush_index() == 1
        assert _embedded(mem) == 1
        assert mem.store.vector_search(mem.tenant, "turn", np.ones(64), 5)[0].id == keep.id


def test_turns_are_linked_to_known_entities_when_indexed() -> None:
    with graphmem.open("memory://", tenant="t", embedder=CountingEmbedder()) as mem:
        mem.upsert_entities([Entity(id="mira", type="npc", name="Mira")])
        turn = mem.conversation("s").append("user", "Mira keeps the forge")
        mem.flush_index()
        assert mem.store.get_mentions(mem.tenant, "turn", [turn.id]) == {turn.id: ["mira"]}


def test_a_failing_embedder_never_fails_an_append_and_nothing_is_lost() -> None:
    embedder = CountingEmbedder()
    embedder.fail = True
    with graphmem.open("memory://", tenant="t", embedder=embedder, index_batch=2) as mem:
        chat = mem.conversation("s")
        for i in range(3):
            chat.append("user", f"line {i}")  # the batch of 2 fails quietly
        assert chat.count() == 3 and mem.pending_index == 3
        with pytest.raises(BackendUnavailable):
            mem.retrieve("line", k=1)
        embedder.fail = False
        mem.retrieve("line", k=1)
        assert _embedded(mem) == 3 and mem.pending_index == 0


def test_full_text_retrieval_links_but_does_not_embed() -> None:
    embedder = CountingEmbedder()
    with graphmem.open("memory://", tenant="t", embedder=embedder) as mem:
        mem.conversation("s").append("user", "the harbour at dawn")
        assert mem.query_with_context("harbour", k=1)[0].kind == "turn"
        assert embedder.calls == [] and mem.pending_index == 1


@pytest.mark.parametrize("batch", [0, -1, 1.5, True])
def test_index_batch_is_checked(batch: object) -> None:
    with pytest.raises(InvalidInput, match="index_batch"):
        graphmem.open("memory://", tenant="t", index_batch=batch)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bars_draw_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    assert not wants_progress()
    with progress_bar(10, "work", True) as bar:
        bar.update(10)
    assert piped.getvalue() == ""

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert wants_progress() and not wants_progress(quiet=True)
    with progress_bar(10, "work", False) as bar:
        bar.update(10)
    assert terminal.getvalue() == ""
    with progress_bar(10, "work", True) as bar:
        bar.update(10)
    assert "work" in terminal.getvalue()


def test_indexing_and_ingest_draw_a_bar_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with graphmem.open("memory://", tenant="t", embedder=CountingEmbedder(), progress=True) as mem:
        mem.conversation("s").append("user", "hello")
        mem.index_turns()
        mem.add_documents(["The mill stands by the river."])
    drawn = terminal.getvalue()
    assert "indexing turns" in drawn and "ingesting documents" in drawn
