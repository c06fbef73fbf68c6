"""The LangGraph store over graphmem, held to LangGraph's own store behaviour.

Each behaviour test runs against LangGraph's ``InMemoryStore`` (the reference: a test
that it fails is a wrong test) and against ``GraphmemStore`` on ``memory://`` and
``file://``. The scenarios follow LangGraph's store tests (libs/checkpoint/tests of the
LangGraph repository: namespaces, wildcards, pagination, depth, namespace validation,
batch semantics, filters, semantic search), then graphmem's own rules, then a compiled
LangGraph graph whose node reads and writes through the store.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="the langgraph extra is not installed")

from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore  # noqa: E402

import graphmem  # noqa: E402
from graphmem.core.errors import InvalidInput, UnsupportedOperation  # noqa: E402
from graphmem.integrations.langgraph import RECORD_KIND, GraphmemStore  # noqa: E402
from graphmem.retrieval.embedders import HashingEmbedder  # noqa: E402

DIMS = 256


def _embed(texts: list[str]) -> list[list[float]]:
    return [list(map(float, row)) for row in HashingEmbedder(DIMS).embed(texts)]


@pytest.fixture(params=["reference", "memory", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BaseStore]:
    if request.param == "reference":
        yield InMemoryStore(index={"dims": DIMS, "embed": _embed})
        return
    url = "memory://" if request.param == "memory" else f"file://{tmp_path}/lg.graphmem"
    with GraphmemStore.open(url, tenant="agents", embedder=HashingEmbedder(DIMS)) as made:
        yield made


@pytest.fixture
def ours(tmp_path: Path) -> Iterator[GraphmemStore]:
    with GraphmemStore.open("memory://", tenant="agents", embedder=HashingEmbedder(DIMS)) as s:
        yield s


def _fill(store: BaseStore, namespaces: list[tuple[str, ...]]) -> None:
    for i, ns in enumerate(namespaces):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})


# --------------------------------------------------------------------------- namespaces


def test_list_namespaces_by_prefix_suffix_depth_and_page(store: BaseStore) -> None:
    _fill(
        store,
        [
            ("a", "b", "c"),
            ("a", "b", "d", "e"),
            ("a", "b", "d", "i"),
            ("a", "b", "f"),
            ("a", "c", "f"),
            ("b", "a", "f"),
            ("users", "123"),
            ("users", "456", "settings"),
            ("admin", "users", "789"),
        ],
    )
    abc = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert store.list_namespaces(prefix=("a", "b")) == abc
    assert store.list_namespaces(suffix=("f",)) == [
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
    ]
    assert store.list_namespaces(prefix=("a",), suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == abc[:2]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == abc[2:]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(suffix=("*", "f")) == [
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
    ]
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]


def test_list_namespaces_with_wildcards(store: BaseStore) -> None:
    _fill(
        store,
        [
            ("users", "123"),
            ("users", "456"),
            ("users", "789", "settings"),
            ("admin", "users", "789"),
            ("guests", "123"),
            ("guests", "456", "preferences"),
        ],
    )
    assert store.list_namespaces(prefix=("users", "*")) == [
        ("users", "123"),
        ("users", "456"),
        ("users", "789", "settings"),
    ]
    assert store.list_namespaces(suffix=("*", "preferences")) == [("guests", "456", "preferences")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []


def test_list_namespaces_pages_in_order(store: BaseStore) -> None:
    for i in range(20):
        store.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": i})
    for offset in (0, 5, 15):
        page = store.list_namespaces(prefix=("namespace",), limit=5, offset=offset)
        assert page == [("namespace", f"sub_{i:02d}") for i in range(offset, offset + 5)]


def test_list_namespaces_max_depth_and_no_conditions(store: BaseStore) -> None:
    assert store.list_namespaces() == []
    _fill(
        store,
        [
            ("a", "b", "c", "d"),
            ("a", "b", "c", "e"),
            ("a", "b", "f"),
            ("a", "g"),
            ("h", "i", "j", "k"),
        ],
    )
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "g"), ("h", "i")]
    assert len(store.list_namespaces()) == 5


def test_a_deleted_items_namespace_is_gone(ours: GraphmemStore) -> None:
    # A namespace is listed while it holds an item (as LangGraph's Postgres store does;
    # its in-memory store keeps listing an emptied namespace).
    ours.put(("x", "y"), "k", {"v": 1})
    ours.delete(("x", "y"), "k")
    assert ours.list_namespaces() == []


# --------------------------------------------------------------------------- validation


def test_bad_namespaces_are_refused_and_langgraph_is_a_reserved_root(store: BaseStore) -> None:
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            asyncio.run(store.aput(bad, "foo", doc))
    assert store.list_namespaces() == []
    # "langgraph" below the root is an ordinary label
    store.put(("foo", "langgraph", "foo"), "bar", doc)
    got = store.get(("foo", "langgraph", "foo"), "bar")
    assert got is not None and got.value == doc
    assert store.search(("foo", "langgraph", "foo"))[0].value == doc
    store.delete(("foo", "langgraph", "foo"), "bar")
    assert store.get(("foo", "langgraph", "foo"), "bar") is None
    # past the public put, LangGraph itself may write under the reserved root
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    got = store.get(("langgraph", "foo"), "bar")
    assert got is not None and got.value == doc


# --------------------------------------------------------------------------- items


def test_put_get_replace_delete(store: BaseStore) -> None:
    assert store.get(("docs",), "missing") is None
    store.put(("docs", "u1"), "a", {"text": "first", "nested": {"n": [1, 2.5, None, True]}})
    item = store.get(("docs", "u1"), "a")
    assert item is not None
    assert (item.namespace, item.key) == (("docs", "u1"), "a")
    assert item.value == {"text": "first", "nested": {"n": [1, 2.5, None, True]}}
    assert isinstance(item.created_at, datetime) and item.created_at.tzinfo is not None
    store.put(("docs", "u1"), "a", {"text": "second"})
    again = store.get(("docs", "u1"), "a")
    assert again is not None and again.value == {"text": "second"}
    assert again.updated_at >= item.updated_at
    store.delete(("docs", "u1"), "a")
    assert store.get(("docs", "u1"), "a") is None
    store.delete(("docs", "u1"), "a")  # deleting a missing item is fine


def test_keys_are_per_namespace(store: BaseStore) -> None:
    store.put(("a",), "k", {"v": "a"})
    store.put(("a", "b"), "k", {"v": "ab"})
    assert store.get(("a",), "k").value == {"v": "a"}  # type: ignore[union-attr]
    assert store.get(("a", "b"), "k").value == {"v": "ab"}  # type: ignore[union-attr]


def test_a_batch_reads_before_it_writes_and_the_last_put_wins(store: BaseStore) -> None:
    store.put(("ns",), "old", {"v": 0})
    results = store.batch(
        [
            PutOp(("ns",), "new", {"v": 1}),
            GetOp(("ns",), "new"),
            GetOp(("ns",), "old"),
            SearchOp(("ns",)),
            ListNamespacesOp(),
            PutOp(("ns",), "new", {"v": 2}),
            PutOp(("ns",), "old", None),
        ]
    )
    assert results[0] is None and results[1] is None
    assert results[2] is not None and results[2].value == {"v": 0}  # type: ignore[union-attr]
    assert [i.key for i in results[3]] == ["old"]  # type: ignore[union-attr]
    assert results[4] == [("ns",)]
    assert store.get(("ns",), "new").value == {"v": 2}  # type: ignore[union-attr]
    assert store.get(("ns",), "old") is None


def test_async_methods(store: BaseStore) -> None:
    async def run() -> None:
        await store.aput(("a", "b"), "k", {"v": 1})
        got, listed = await asyncio.gather(store.aget(("a", "b"), "k"), store.alist_namespaces())
        assert got is not None and got.value == {"v": 1}
        assert listed == [("a", "b")]
        assert [i.key for i in await store.asearch(("a",), filter={"v": 1})] == ["k"]
        await store.adelete(("a", "b"), "k")
        assert await store.aget(("a", "b"), "k") is None

    asyncio.run(run())


def test_ttl_is_refused_as_langgraph_refuses_it(store: BaseStore) -> None:
    assert store.supports_ttl is False
    with pytest.raises(NotImplementedError):
        store.put(("a",), "k", {"v": 1}, ttl=5)
    assert store.get(("a",), "k") is None


# --------------------------------------------------------------------------- search


def _people(store: BaseStore) -> None:
    store.put(
        ("people", "eu"),
        "ada",
        {"name": "Ada", "age": 36, "tags": ["math", "poetry"], "home": {"city": "London"}},
    )
    store.put(
        ("people", "eu"),
        "alan",
        {"name": "Alan", "age": 41, "tags": ["math"], "home": {"city": "Wilmslow"}},
    )
    store.put(
        ("people", "us"),
        "grace",
        {"name": "Grace", "age": 85, "tags": ["navy", "code"], "home": {"city": "Arlington"}},
    )
    store.put(("pets",), "rex", {"name": "Rex", "age": 3})


def test_search_filters(store: BaseStore) -> None:
    _people(store)

    def keys(*args: Any, **kwargs: Any) -> list[str]:
        return sorted(i.key for i in store.search(*args, **kwargs))

    assert keys(("people",)) == ["ada", "alan", "grace"]
    assert keys(("people", "eu")) == ["ada", "alan"]
    assert keys((), limit=100) == ["ada", "alan", "grace", "rex"]
    assert keys(("people",), filter={"name": "Ada"}) == ["ada"]
    assert keys(("people",), filter={"home": {"city": "London"}}) == ["ada"]
    assert keys(("people",), filter={"tags": ["math"]}) == ["alan"]
    assert keys(("people",), filter={"age": {"$gt": 40}}) == ["alan", "grace"]
    assert keys(("people",), filter={"age": {"$gte": 41, "$lt": 85}}) == ["alan"]
    assert keys(("people",), filter={"age": {"$lte": 36}}) == ["ada"]
    assert keys(("people",), filter={"name": {"$ne": "Ada"}}) == ["alan", "grace"]
    assert keys(("people",), filter={"name": {"$eq": "Grace"}, "age": 85}) == ["grace"]
    assert keys(("people",), filter={"name": "Nobody"}) == []
    assert keys(("nobody",)) == []


def test_search_pages(store: BaseStore) -> None:
    for i in range(7):
        store.put(("page",), f"k{i}", {"i": i})
    seen = [i.key for off in (0, 3, 6) for i in store.search(("page",), limit=3, offset=off)]
    assert sorted(seen) == [f"k{i}" for i in range(7)]
    assert store.search(("page",), limit=3, offset=7) == []


def test_search_by_query_ranks_the_matching_item_first(store: BaseStore) -> None:
    store.put(("notes",), "tea", {"text": "Ada drinks green tea every morning"})
    store.put(("notes",), "bike", {"text": "Bob rides a red bicycle to the harbour"})
    store.put(("notes",), "rain", {"text": "Rain fell on the harbour all week"})
    store.put(("other",), "tea2", {"text": "green tea and more green tea"})
    found = store.search(("notes",), query="green tea", limit=2)
    assert [i.key for i in found][:1] == ["tea"]
    assert len(found) == 2
    assert all(i.score is not None for i in found)
    assert found[0].score >= found[1].score  # type: ignore[operator]
    # only under the prefix, and the filter still applies
    assert [
        i.key
        for i in store.search(
            ("notes",), query="harbour", filter={"text": "Rain fell on the harbour all week"}
        )
    ] == ["rain"]


def test_search_by_query_indexes_the_fields_asked(store: BaseStore) -> None:
    store.put(("docs",), "a", {"title": "tea", "body": "nothing about drinks"}, index=["body"])
    store.put(("docs",), "b", {"title": "weather", "body": "tea with lemon"}, index=["body"])
    assert store.search(("docs",), query="tea with lemon", limit=1)[0].key == "b"


def test_items_not_indexed_come_after_the_ranked_ones(store: BaseStore) -> None:
    store.put(("docs",), "ranked", {"text": "lanterns by the river"})
    store.put(("docs",), "plain", {"text": "lanterns by the river"}, index=False)
    found = store.search(("docs",), query="lanterns river", limit=10)
    assert [i.key for i in found] == ["ranked", "plain"]
    assert found[1].score is None


# --------------------------------------------------------------------------- graphmem's own


def test_items_are_records_and_replacing_keeps_created_at(ours: GraphmemStore) -> None:
    ours.put(("memories", "u1"), "likes", {"text": "tea"})
    first = ours.get(("memories", "u1"), "likes")
    ours.put(("memories", "u1"), "likes", {"text": "coffee"})
    second = ours.get(("memories", "u1"), "likes")
    assert first is not None and second is not None
    assert second.created_at == first.created_at and second.updated_at >= first.updated_at
    mem = ours.memory
    (record,) = mem.store.find_records(mem.tenant, RECORD_KIND)
    assert record.data["namespace"] == ["memories", "u1"] and record.data["key"] == "likes"
    assert record.data["value"] == {"text": "coffee"}
    # the item's text is a document retrieve finds, replaced with the item
    hits = mem.retrieve("coffee", k=5, kinds=["chunk"])
    assert [h.content for h in hits] == ['{"text": "coffee"}']


def test_deleting_an_item_deletes_what_retrieve_finds(ours: GraphmemStore) -> None:
    ours.put(("n",), "k", {"text": "a very long story " * 200})
    mem = ours.memory
    assert mem.store.count_chunks(mem.tenant) > 1
    ours.delete(("n",), "k")
    assert mem.store.count_chunks(mem.tenant) == 0
    assert ours.search(("n",), query="story") == []


def test_values_are_plain_copies_and_labels_are_checked_in_batches(ours: GraphmemStore) -> None:
    ours.put(("docs",), "a", {"text": "first"})
    item = ours.get(("docs",), "a")
    assert item is not None
    item.value["text"] = "changed locally"  # a plain dict the caller may change
    assert ours.get(("docs",), "a").value == {"text": "first"}  # type: ignore[union-attr]
    # a label holding a period is refused even past the public put (validate_op_namespace)
    with pytest.raises(InvalidNamespaceError):
        ours.batch([PutOp(("a.b",), "k", {"v": 1})])
    # "*" in a search prefix is a label like any other, as in LangGraph's stores
    assert ours.search(("*",)) == []


def test_values_outside_graphmems_json_are_refused_and_nothing_is_written(
    ours: GraphmemStore,
) -> None:
    with pytest.raises(InvalidInput):
        ours.batch([PutOp(("n",), "ok", {"v": 1}), PutOp(("n",), "bad", {"": 1})])
    with pytest.raises(InvalidInput):
        ours.put(("n",), "nan", {"v": float("nan")})
    assert ours.list_namespaces() == []
    assert ours.memory.store.count_chunks(ours.memory.tenant) == 0
    with pytest.raises(UnsupportedOperation):
        ours.batch([PutOp(("n",), "k", {"v": 1}, ttl=1.0)])
    ours.put(("n",), "k", {"v": 1})
    with pytest.raises(InvalidInput, match="unknown filter operator"):
        ours.search(("n",), filter={"v": {"$like": 1}})


def test_a_store_sees_only_its_tenant(tmp_path: Path) -> None:
    url = f"file://{tmp_path}/shared.graphmem"
    with graphmem.open(url, tenant="alice") as alice_mem:
        alice = GraphmemStore(alice_mem)
        bob = GraphmemStore(graphmem.Memory(alice_mem.store, "bob", owns_store=False))
        alice.put(("memories",), "k", {"who": "alice"})
        bob.put(("memories",), "k", {"who": "bob"})
        assert alice.get(("memories",), "k").value == {"who": "alice"}  # type: ignore[union-attr]
        assert bob.get(("memories",), "k").value == {"who": "bob"}  # type: ignore[union-attr]
        assert [i.value for i in bob.search(())] == [{"who": "bob"}]
    # and the items outlive the process's store: reopened from the file
    with GraphmemStore.open(url, tenant="alice") as again:
        assert again.get(("memories",), "k").value == {"who": "alice"}  # type: ignore[union-attr]


def test_a_langgraph_graph_remembers_through_the_store(ours: GraphmemStore) -> None:
    from typing import TypedDict

    from langgraph.config import get_store
    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        user: str
        said: str
        recalled: list[str]

    def remember(state: State) -> dict[str, Any]:
        store = get_store()
        namespace = ("memories", state["user"])
        count = len(store.search(namespace, limit=100))
        store.put(namespace, f"m{count}", {"text": state["said"]})
        hits = store.search(namespace, query=state["said"], limit=1)
        return {"recalled": [h.value["text"] for h in hits]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", END)
    graph = builder.compile(store=ours)
    graph.invoke({"user": "ada", "said": "I keep bees on the roof", "recalled": []})
    out = graph.invoke({"user": "ada", "said": "my bees made honey", "recalled": []})
    assert out["recalled"] == ["my bees made honey"]
    assert ours.list_namespaces() == [("memories", "ada")]
    assert sorted(i.key for i in ours.search(("memories", "ada"))) == ["m0", "m1"]


def test_without_an_embedder_an_indexed_put_says_so_and_writes_nothing() -> None:
    # A fresh interpreter in which the embeddings extra is missing.
    code = (
        "import sys; sys.modules['sentence_transformers'] = None\n"
        "from graphmem.core.errors import BackendUnavailable\n"
        "from graphmem.integrations.langgraph import GraphmemStore\n"
        "with GraphmemStore.open('memory://', tenant='t') as s:\n"
        "    try:\n"
        "        s.put(('a',), 'k', {'v': 'x'})\n"
        "    except BackendUnavailable as exc:\n"
        "        print('refused:', 'embeddings extra' in str(exc), s.list_namespaces())\n"
        "    s.put(('a',), 'k', {'v': 'x'}, index=False)\n"
        "    print(s.get(('a',), 'k').value)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["refused: True []", "{'v': 'x'}"]
