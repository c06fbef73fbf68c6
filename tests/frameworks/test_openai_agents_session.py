"""The OpenAI Agents SDK session over graphmem, against the real ``openai-agents`` package.

The protocol tests run against the SDK's own ``SQLiteSession`` too (the reference: a test
it fails is a wrong test); then graphmem's own rules (branches kept, items lossless, turns
of other doors); then ``Runner.run`` of an ``Agent`` on a scripted model (a ``Model`` of
the SDK's interface: no network) with the session, tools included.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")

from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool  # noqa: E402
from agents.items import ModelResponse, TResponseInputItem  # noqa: E402
from agents.memory import Session, SessionSettings  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

import graphmem  # noqa: E402
from graphmem.core.errors import InvalidInput  # noqa: E402
from graphmem.integrations.openai_agents import MARKER_ROLE, GraphmemSession  # noqa: E402
from graphmem.retrieval.embedders import HashingEmbedder  # noqa: E402

ITEMS: list[Any] = [
    {"role": "user", "content": "Where is the smithy?"},
    {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "By the river.", "annotations": []}],
    },
    {"type": "function_call", "call_id": "c1", "name": "map", "arguments": '{"to": "smithy"}'},
    {"type": "function_call_output", "call_id": "c1", "output": "three streets north ☂"},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "think"}]},
]


@pytest.fixture(params=["reference", "memory", "file"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A factory of sessions on one backing store: make(session_id, settings=None)."""
    if request.param == "reference":
        made: list[SQLiteSession] = []

        def sqlite(session_id: str, settings: SessionSettings | None = None) -> Session:
            session = SQLiteSession(session_id, tmp_path / "ref.db", session_settings=settings)
            made.append(session)
            return session

        yield sqlite
        for session in made:
            session.close()
        return
    url = "memory://" if request.param == "memory" else f"file://{tmp_path}/s.graphmem"
    with graphmem.open(url, tenant="agents", embedder=HashingEmbedder()) as mem:

        def ours(session_id: str, settings: SessionSettings | None = None) -> Session:
            return GraphmemSession(session_id, mem, session_settings=settings)

        yield ours


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# --------------------------------------------------------------------------- the protocol


def test_it_is_a_session(make: Any) -> None:
    assert isinstance(make("s"), Session)


def test_items_come_back_in_order_and_unchanged(make: Any) -> None:
    session = make("s")
    assert run(session.get_items()) == []
    run(session.add_items(ITEMS[:2]))
    run(session.add_items(ITEMS[2:]))
    run(session.add_items([]))
    assert run(session.get_items()) == ITEMS


def test_limit_gives_the_newest_in_order(make: Any) -> None:
    session = make("s")
    run(session.add_items(ITEMS))
    assert run(session.get_items(limit=2)) == ITEMS[-2:]
    assert run(session.get_items(limit=len(ITEMS))) == ITEMS
    assert run(session.get_items(limit=100)) == ITEMS
    assert run(session.get_items(limit=0)) == []
    limited = make("s", SessionSettings(limit=3))
    assert run(limited.get_items()) == ITEMS[-3:]
    assert run(limited.get_items(limit=1)) == ITEMS[-1:]


def test_pop_returns_the_newest_and_removes_it(make: Any) -> None:
    session = make("s")
    assert run(session.pop_item()) is None
    run(session.add_items(ITEMS[:3]))
    assert run(session.pop_item()) == ITEMS[2]
    assert run(session.get_items()) == ITEMS[:2]
    assert run(session.pop_item()) == ITEMS[1]
    assert run(session.pop_item()) == ITEMS[0]
    assert run(session.pop_item()) is None
    assert run(session.get_items()) == []
    run(session.add_items([ITEMS[3]]))
    assert run(session.get_items()) == [ITEMS[3]]


def test_clear_and_sessions_apart(make: Any) -> None:
    one, two = make("one"), make("two")
    run(one.add_items(ITEMS[:2]))
    run(two.add_items(ITEMS[2:3]))
    run(one.clear_session())
    assert run(one.get_items()) == []
    assert run(two.get_items()) == ITEMS[2:3]
    run(one.add_items(ITEMS[3:4]))
    assert run(one.get_items()) == ITEMS[3:4]


def test_a_second_session_object_sees_the_same_history(make: Any) -> None:
    run(make("s").add_items(ITEMS[:2]))
    assert run(make("s").get_items()) == ITEMS[:2]


# --------------------------------------------------------------------------- graphmem's own


@pytest.fixture
def mem() -> Iterator[graphmem.Memory]:
    with graphmem.open("memory://", tenant="agents", embedder=HashingEmbedder()) as memory:
        yield memory


def test_the_history_is_a_conversation_and_pop_keeps_a_branch(mem: graphmem.Memory) -> None:
    session = GraphmemSession("s", mem)
    run(session.add_items(ITEMS[:2]))
    chat = mem.conversation("s")
    assert [t.role for t in chat.history()] == [MARKER_ROLE, "user", "assistant"]
    assert [t.content for t in chat.history()][1:] == ["Where is the smithy?", "By the river."]
    assert run(session.pop_item()) == ITEMS[1]
    run(session.add_items([{"role": "assistant", "content": "Ask the miller."}]))
    branches = chat.branches()
    assert [(b.leaf.content, b.active) for b in branches] == [
        ("By the river.", False),
        ("Ask the miller.", True),
    ]
    assert branches[1].fork_point is not None
    assert branches[1].fork_point.content == "Where is the smithy?"
    # popping the first item keeps it too: the marker turn holds the branches together
    run(session.pop_item())
    assert run(session.pop_item()) == ITEMS[0]
    assert run(session.get_items()) == []
    assert chat.count() == 4  # marker, question, two answers
    # clearing deletes every branch
    run(session.clear_session())
    assert chat.count() == 0


def test_turns_hold_readable_text_and_retrieve_finds_them(mem: graphmem.Memory) -> None:
    session = GraphmemSession("s", mem)
    run(session.add_items(ITEMS))
    turns = mem.conversation("s").history()[1:]
    assert [t.content for t in turns] == [
        "Where is the smithy?",
        "By the river.",
        'map({"to": "smithy"})',
        "three streets north ☂",
        "think",
    ]
    assert [t.role for t in turns] == [
        "user",
        "assistant",
        "function_call",
        "function_call_output",
        "reasoning",
    ]
    hits = mem.retrieve("smithy river", k=10, kinds=["turn"])
    assert "assistant: By the river." in [h.content for h in hits]
    assert all(h.source_id != mem.conversation("s").history()[0].id for h in hits)  # no marker


def test_turns_of_other_doors_come_back_as_messages(mem: graphmem.Memory) -> None:
    chat = mem.conversation("game")
    chat.append("player", "Open the gate")
    chat.append("npc", "Not before dawn.", speaker="Guard")
    session = GraphmemSession("game", mem)
    assert run(session.get_items()) == [
        {"role": "user", "content": "Open the gate"},
        {"role": "assistant", "content": "Not before dawn."},
    ]
    run(session.add_items([{"role": "user", "content": "Please?"}]))
    assert run(session.pop_item()) == {"role": "user", "content": "Please?"}
    assert run(session.pop_item()) == {"role": "assistant", "content": "Not before dawn."}


def test_bad_items_are_refused_and_nothing_is_written(mem: graphmem.Memory) -> None:
    session = GraphmemSession("s", mem)
    with pytest.raises(InvalidInput):
        run(session.add_items([{"role": "user", "content": "ok"}, "not an item"]))
    with pytest.raises(InvalidInput):
        run(session.add_items([{"role": "user", "content": float("nan")}]))
    with pytest.raises(InvalidInput):
        run(session.add_items({"role": "user", "content": "a dict, not a list"}))  # type: ignore[arg-type]
    assert mem.conversation("s").count() == 0
    with pytest.raises(InvalidInput):
        GraphmemSession("s", object())  # type: ignore[arg-type]


# --------------------------------------------------------------------------- a real run


class ScriptedModel(Model):
    """A model of the SDK's interface answering from a script (no network).

    Each call pops the next planned output; every input it was given is kept, so a test
    sees what the session fed the model.
    """

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = script
        self.inputs: list[list[TResponseInputItem]] = []

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.inputs.append(
            list(input) if not isinstance(input, str) else [{"role": "user", "content": input}]
        )
        return ModelResponse(output=self.script.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the scripted model does not stream")


def _say(text: str, n: int) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{n}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def _texts(items: list[Any]) -> list[str]:
    out = []
    for item in items:
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(part["text"] for part in content if "text" in part)
    return out


def test_an_agent_remembers_across_runs_and_branches(mem: graphmem.Memory) -> None:
    calls: list[str] = []

    @function_tool
    def where(place: str) -> str:
        """Say where a place is."""
        calls.append(place)
        return f"The {place} is by the river."

    model = ScriptedModel(
        [
            [
                ResponseFunctionToolCall(
                    type="function_call",
                    call_id="call_1",
                    name="where",
                    arguments='{"place": "smithy"}',
                )
            ],
            [_say("The smithy is by the river.", 1)],
            [_say("You asked about the smithy.", 2)],
            [_say("You asked about the smithy, then about me.", 3)],
        ]
    )
    agent = Agent(name="guide", instructions="Help travellers.", model=model, tools=[where])
    config = RunConfig(tracing_disabled=True)
    session = GraphmemSession("traveller", mem)

    first = run(Runner.run(agent, "Where is the smithy?", session=session, run_config=config))
    assert first.final_output == "The smithy is by the river."
    assert calls == ["smithy"]
    second = run(Runner.run(agent, "What did I ask?", session=session, run_config=config))
    assert second.final_output == "You asked about the smithy."
    # the second run's model saw the first run's whole exchange, tool call included
    seen = model.inputs[2]
    assert _texts(seen)[:1] == ["Where is the smithy?"]
    assert any(i.get("type") == "function_call" for i in seen)
    assert any(i.get("type") == "function_call_output" for i in seen)
    # undo the last answer and the question (the SDK's correction pattern) and ask again
    run(session.pop_item())
    run(session.pop_item())
    third = run(Runner.run(agent, "Who are you?", session=session, run_config=config))
    assert third.final_output == "You asked about the smithy, then about me."
    assert "What did I ask?" not in _texts(model.inputs[3])
    chat = mem.conversation("traveller")
    assert len(chat.branches()) == 2  # the popped exchange is kept on its branch
    history = run(session.get_items())
    assert _texts(history)[-2:] == ["Who are you?", "You asked about the smithy, then about me."]
