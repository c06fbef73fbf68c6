"""A LangGraph agent whose long-term memory is graphmem (``pip install 'graphmem[langgraph]'``).

Each turn, the graph's node stores what the user said under ``("memories", user)`` and
recalls the most relevant earlier memory through ``store.search(query=...)``, which is
graphmem's hybrid retrieval. The memories are graphmem records in a ``file://`` store, so
a second run of this script remembers the first one's.

    python examples/langgraph_store.py [--store file:///tmp/agent.graphmem]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any, TypedDict

from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph

from graphmem.integrations.langgraph import GraphmemStore
from graphmem.retrieval.embedders import HashingEmbedder


class State(TypedDict):
    """The graph's state: who speaks, what they said, what was recalled."""

    user: str
    said: str
    recalled: str


def remember_and_recall(state: State) -> dict[str, Any]:
    """Recall the memory closest to what was said, then keep what was said."""
    store = get_store()
    namespace = ("memories", state["user"])
    hits = store.search(namespace, query=state["said"], limit=1)
    recalled = hits[0].value["text"] if hits else ""
    key = f"m{len(store.search(namespace, limit=1000))}"
    store.put(namespace, key, {"text": state["said"]})
    return {"recalled": recalled}


def main() -> None:
    """Run four turns of one user through the graph and show what was recalled."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(tempfile.gettempdir()) / "graphmem-langgraph-example.graphmem"
    parser.add_argument("--store", default=f"file://{default}")
    args = parser.parse_args()

    builder = StateGraph(State)
    builder.add_node("remember", remember_and_recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    # The hashing embedder runs offline in milliseconds; leave it out for the default
    # sentence-transformers model (the embeddings extra).
    with GraphmemStore.open(
        args.store, tenant="langgraph-demo", embedder=HashingEmbedder()
    ) as store:
        graph = builder.compile(store=store)
        for said in (
            "My sister Ada keeps bees on the roof.",
            "I am allergic to walnuts.",
            "Ada's bees made forty jars of honey this year.",
            "Should I bake a cake with walnuts?",
        ):
            out = graph.invoke({"user": "sam", "said": said, "recalled": ""})
            print(f"said:     {said}")
            print(f"recalled: {out['recalled'] or '(nothing yet)'}")
        print(f"namespaces: {store.list_namespaces()}")
        print(f"memories of sam: {len(store.search(('memories', 'sam'), limit=1000))}")


if __name__ == "__main__":
    main()
