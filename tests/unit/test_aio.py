"""The async twin: every Memory method awaitable, run in worker threads, errors unchanged."""

from __future__ import annotations

import asyncio
import inspect
import threading
from pathlib import Path

import pytest

import graphmem
from graphmem import (
    AsyncConversation,
    AsyncMemory,
    Conversation,
    ConversationMemory,
    FactMemory,
    IdentityRequired,
    Memory,
    NotFound,
    StoreClosed,
    TraceEvent,
)
from graphmem.doors.aio import AsyncConversationMemory, AsyncFactMemory

# Sync methods whose twin is deliberately not a coroutine: no I/O happens in them.
NOT_AWAITED = {
    AsyncMemory: {"conversation", "fact_memory", "render_context", "close"},
    AsyncConversation: set(),
    AsyncConversationMemory: {"close"},
    AsyncFactMemory: set(),
}
# Sync members that are not methods on the sync side either, or are renamed.
RENAMED = {"close": "aclose"}


def _public_methods(cls: type) -> set[str]:
    return {
        name
        for name, value in inspect.getmembers(cls)
        if not name.startswith("_")
        and (inspect.isfunction(value) or isinstance(value, staticmethod))
    }


@pytest.mark.parametrize(
    ("sync", "twin"),
    [
        (Memory, AsyncMemory),
        (Conversation, AsyncConversation),
        (ConversationMemory, AsyncConversationMemory),
        (FactMemory, AsyncFactMemory),
    ],
)
def test_every_method_has_an_awaitable_twin(sync: type, twin: type) -> None:
    for name in _public_methods(sync):
        twin_name = RENAMED.get(name, name) if twin is AsyncMemory else name
        assert hasattr(twin, twin_name), f"{twin.__name__} lacks {twin_name}"
        if name not in NOT_AWAITED[twin]:
            assert inspect.iscoroutinefunction(getattr(twin, twin_name)), (
                f"{twin_name} is not async"
            )
    # The properties that do I/O are awaitable methods on the twin.
    assert inspect.iscoroutinefunction(AsyncConversation.head)


def test_open_async_as_context_manager_runs_calls_in_worker_threads(tmp_path: Path) -> None:
    threads: list[str] = []

    def tracer(event: TraceEvent) -> None:
        threads.append(threading.current_thread().name)

    async def main() -> tuple[str, list[str], int]:
        url = (tmp_path / "w.graphmem").as_uri()
        async with graphmem.open_async(url, tenant="t", tracer=tracer) as mem:
            await mem.upsert_entities([{"id": "mira", "type": "npc", "name": "Mira"}])
            chat = mem.conversation("s")
            await chat.append("player", "Hello", speaker="Ada")
            snapshot = await mem.identity_snapshot("mira")
            history = [t.content for t in await chat.history()]
            count = await mem.count_turns()
        return snapshot.to_prompt(), history, count

    prompt, history, count = asyncio.run(main())

    assert (prompt, history, count) == ("Mira (npc)", ["Hello"], 1)
    assert threads and all(name.startswith("graphmem-async") for name in threads)
    assert threading.main_thread().name not in threads
    with graphmem.open((tmp_path / "w.graphmem").as_uri(), tenant="t") as mem:
        assert mem.count_turns() == 1  # closed on exit: the file could be opened again


def test_awaited_open_errors_and_close() -> None:
    async def main() -> None:
        mem = await graphmem.open_async("memory://", tenant="t")
        with pytest.raises(NotFound):
            await mem.get_entity("nobody")
        await mem.aclose()
        with pytest.raises(StoreClosed):
            await mem.count_entities()

    asyncio.run(main())


def test_empty_tenant_fails_at_once() -> None:
    with pytest.raises(IdentityRequired):
        graphmem.open_async("memory://", tenant=" ")


def test_concurrent_appends_form_one_chain() -> None:
    async def main() -> list[str]:
        async with graphmem.open_async("memory://", tenant="t", max_workers=8) as mem:
            chat = mem.conversation("s")
            await asyncio.gather(*(chat.append("player", f"line {n}") for n in range(40)))
            history = await chat.history()
            assert [b.length for b in await chat.branches()] == [40]
            return [t.content for t in history]

    contents = asyncio.run(main())
    assert sorted(contents) == sorted(f"line {n}" for n in range(40))


def test_policy_twins_and_retrieval() -> None:
    from graphmem.retrieval import HashingEmbedder

    async def main() -> None:
        async with graphmem.open_async(
            "memory://", tenant="t", embedder=HashingEmbedder(64)
        ) as mem:
            facts = mem.fact_memory(actor="gm")
            learned = await facts.learn("Mira", "works_at", "the forge")
            assert learned.decision.value == "add"
            recalled = await facts.recall("where does Mira work?")
            assert [s.fact.value for s in recalled] == ["the forge"]
            chat = await mem.conversation_memory(user="ada", session="s1", strategy="truncation")
            await chat.append("player", "Hi there")
            context = await chat.llm_context()
            assert [m["role"] for m in context.to_messages()] == ["user"]
            await mem.add_documents(["Mira hammers blades at the forge."])
            results = await mem.retrieve("forge", k=3)
            assert results and results[0].kind == "chunk"
            assert "forge" in mem.render_context(results, max_tokens=50)
            await mem.upsert_entities(
                [
                    {"id": "mira", "type": "npc", "name": "Mira"},
                    {"id": "forge", "type": "location", "name": "the forge"},
                ]
            )
            await mem.upsert_relationships(
                [{"source_id": "mira", "target_id": "forge", "type": "works_at"}]
            )
            found = await mem.retrieve("where does Mira work?", k=3, kinds=["relationship"])
            assert [r.content for r in found][:1] == ["Mira works at the forge"]
            said = await mem.retrieve("hi there", kinds=["turn"])
            assert said[0].kind == "turn" and said[0].turn_id is None  # none was given

    asyncio.run(main())


def test_wrapping_a_memory_you_hold() -> None:
    async def main(memory: Memory) -> int:
        twin = AsyncMemory(memory)
        assert twin.sync is memory and twin.tenant == "t"
        await twin.upsert_entities([{"id": "a", "type": "npc", "name": "A"}])
        count = await twin.count_entities()
        await twin.aclose()
        return count

    memory = graphmem.open("memory://", tenant="t")
    assert asyncio.run(main(memory)) == 1
    with pytest.raises(TypeError):
        AsyncMemory("memory://")  # type: ignore[arg-type]


def test_npc_minds_awaited_from_an_empty_store() -> None:
    async def main() -> tuple[list[str], tuple[tuple[str, ...], ...], str | None]:
        async with graphmem.open_async("memory://", tenant="t") as mem:
            await mem.upsert_entities(
                [
                    {"id": "inn", "type": "location", "name": "the inn"},
                    {"id": "key", "type": "item", "name": "the key"},
                    {"id": "jar", "type": "item", "name": "the jar"},
                    *({"id": n, "type": "npc", "name": n} for n in ("ana", "bo", "cy")),
                ]
            )
            await mem.upsert_relationships(
                [{"source_id": n, "target_id": "inn", "type": "located_in"} for n in ("ana", "bo")]
            )
            await mem.record_event("hid", actor="ana", changes=[("key", "located_in", "jar")])
            told = await mem.tell("ana", "bo", ("key", "located_in", "inn"))  # a lie: refused
            said = await mem.announce("ana", ("key", "located_in", "jar"), audience=["cy"])
            deep = await mem.belief("bo", "key", "located_in", of=["ana", "bo", "ana"])
        return [b.fact.object or "" for b in told], said.adopted, deep and deep.fact.object

    assert asyncio.run(main()) == (["jar"], (("cy",),), "jar")


def test_awaited_graph_questions_say_how_sure_they_are() -> None:
    async def main() -> None:
        async with graphmem.open_async("memory://", tenant="t") as mem:
            await mem.upsert_entities(
                [
                    {"id": "rosalind", "type": "person", "name": "Rosalind Hale"},
                    {"id": "brigid", "type": "hospital", "name": "St. Brigid's Infirmary"},
                ]
            )
            await mem.upsert_relationships(
                [{"source_id": "rosalind", "target_id": "brigid", "type": "works_at"}]
            )
            answers = await mem.ask("Where does Rosalind work?", semantic=False)
            assert [a.entity.id for a in answers] == ["brigid"]
            assert not answers.abstained and answers.confidence > 0
            unknown = await mem.ask("Who is Rosalind's husband?", semantic=False)
            assert unknown == [] and unknown.abstained and unknown.unexplained == ("husband",)

    asyncio.run(main())
