"""An OpenAI Agents SDK agent whose history is a graphmem conversation.

``pip install 'graphmem[openai-agents]'``. The session keeps every item of every run as a
turn of the conversation ``traveller-1``; ``pop_item`` (undo) forks the conversation, so
the undone exchange stays on a branch of its own.

The agent runs on ``LedgerModel``, a stand-in for a real model so that the example runs
offline with no key: it answers from the history the session hands it (how many times
you asked, what you asked first). With an API key, give the ``Agent`` a real model
(``model="gpt-4.1-mini"``) instead; nothing else changes.

    python examples/openai_agents_session.py [--store file:///tmp/agent.graphmem]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, RunConfig, Runner
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

import graphmem
from graphmem.integrations.openai_agents import GraphmemSession


class LedgerModel(Model):
    """A stand-in model: it answers with what the history tells it (no network)."""

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        """Count the user's questions in the history and name the first."""
        items = [{"role": "user", "content": input}] if isinstance(input, str) else input
        asked = [i["content"] for i in items if i.get("role") == "user"]
        text = f"That is question {len(asked)}; your first was: {asked[0]!r}."
        message = ResponseOutputMessage(
            id=f"msg_{len(items)}",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Not needed here: the example runs without streaming."""
        raise NotImplementedError("this stand-in model does not stream")


async def chat(store: str) -> None:
    """Three runs on one session, an undo, a fourth run; then what the session holds."""
    agent = Agent(name="ferry", instructions="You run the ferry.", model=LedgerModel())
    config = RunConfig(tracing_disabled=True)  # no trace export: the example stays offline
    with graphmem.open(store, tenant="agents-demo") as mem:
        session = GraphmemSession("traveller-1", mem)
        for question in ("Can you take me across?", "How much is it?", "Is it safe at night?"):
            result = await Runner.run(agent, question, session=session, run_config=config)
            print(f"> {question}\n  {result.final_output}")
        # Undo the last exchange (answer, then question) and ask something else.
        await session.pop_item()
        await session.pop_item()
        result = await Runner.run(agent, "When do you leave?", session=session, run_config=config)
        print(f"> When do you leave?\n  {result.final_output}")
        branches = session.conversation.branches()
        print(f"items in the session: {len(await session.get_items())}")
        print(f"branches kept: {len(branches)} (the undone one ends: {branches[0].leaf.content!r})")


def main() -> None:
    """Chat on the store named by --store (default memory://)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="memory://")
    asyncio.run(chat(parser.parse_args().store))


if __name__ == "__main__":
    main()
