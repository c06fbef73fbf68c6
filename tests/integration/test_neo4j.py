"""What is Neo4j-specific: schema, concurrency, large batches, failures, injection.

The behaviour every backend shares is the conformance suite's; it runs against Neo4j too.
"""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import closing, suppress
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from graphmem import (
    BackendUnavailable,
    Chunk,
    Entity,
    EntityFilter,
    GraphmemError,
    GraphStore,
    InvalidInput,
    Memory,
    Relationship,
    RelationshipFilter,
    TraceEvent,
    Turn,
    TurnFilter,
    open_store,
)

pytestmark = pytest.mark.neo4j
neo4j = pytest.importorskip("neo4j", reason="the neo4j extra is not installed")

INJECTIONS = [
    "x'}) DETACH DELETE n //",
    'x"}) MATCH (m) DETACH DELETE m //',
    "`backtick` $tenant {id: 'other'}",
    "KNOWS]->(x) DETACH DELETE x //",
    "attr.name",
    "a\\b\u00e9\u4e2d",
    'name: "Mallory"} //',
]


def _url_with(url: str, *, password: str | None = None, path: str | None = None) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if password is not None:
        netloc = f"{parts.username}:{password}@{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path if path is None else path, "", ""))


# --------------------------------------------------------------------------- schema


def test_schema_install_twice_is_idempotent_and_online(neo4j_url: str) -> None:
    from graphmem.backends.neo4j.schema import FULLTEXT_INDEXES, VECTOR_INDEXES, install_schema

    first = install_schema(neo4j_url)
    second = install_schema(neo4j_url)

    assert first.online and second.online, [(i.name, i.state) for i in second.indexes]
    assert sorted(i.name for i in first.indexes) == sorted(i.name for i in second.indexes)
    by_name = {i.name: i for i in second.indexes}
    for name in [*VECTOR_INDEXES.values(), *FULLTEXT_INDEXES.values()]:
        assert name in by_name, f"index {name} missing; have {sorted(by_name)}"
    for name in VECTOR_INDEXES.values():
        assert by_name[name].type == "VECTOR"
        config = by_name[name].options["indexConfig"]
        assert config["vector.dimensions"] == 384
        assert config["vector.similarity_function"].lower() == "cosine"
        assert config["vector.quantization.enabled"] is False  # graphmem's default
    for name in FULLTEXT_INDEXES.values():
        assert by_name[name].type == "FULLTEXT"
    for name in ("entity_tenant_id", "turn_tenant_id", "conversation_tenant_id", "chunk_tenant_id"):
        assert name in by_name, f"the backing index of constraint {name} is missing"
        assert by_name[name].properties == ("tenant", "id")


def test_schema_constraints_are_composite_uniqueness(store: GraphStore, schema: object) -> None:
    records, _, _ = store.driver.execute_query(  # type: ignore[attr-defined]
        "SHOW CONSTRAINTS YIELD name, type, labelsOrTypes, properties "
        "WHERE name ENDS WITH '_tenant_id' RETURN name, type, labelsOrTypes, properties",
        database_=store.database,  # type: ignore[attr-defined]
    )
    found = {r["name"]: (r["type"], r["labelsOrTypes"], r["properties"]) for r in records}
    assert found == {
        "entity_tenant_id": ("UNIQUENESS", ["Entity"], ["tenant", "id"]),
        "turn_tenant_id": ("UNIQUENESS", ["Turn"], ["tenant", "id"]),
        "conversation_tenant_id": ("UNIQUENESS", ["Conversation"], ["tenant", "id"]),
        "chunk_tenant_id": ("UNIQUENESS", ["Chunk"], ["tenant", "id"]),
    }


def test_schema_with_another_dimension_is_refused(neo4j_url: str, schema: object) -> None:
    from graphmem.backends.neo4j.schema import install_schema

    with pytest.raises(InvalidInput, match="dimension 384"):
        install_schema(neo4j_url, dimension=385)


def test_schema_with_another_quantization_is_refused_and_changes_nothing(
    neo4j_url: str, schema: object
) -> None:
    from graphmem.backends.neo4j.schema import VECTOR_INDEXES, install_schema

    with pytest.raises(InvalidInput, match="quantization off, not on"):
        install_schema(neo4j_url, quantization=True)
    report = install_schema(neo4j_url)
    for index in report.indexes:
        if index.name in VECTOR_INDEXES.values():
            assert index.options["indexConfig"]["vector.quantization.enabled"] is False


# --------------------------------------------------------------------------- concurrency


def test_concurrent_appends_keep_one_chain(store: GraphStore, tenant: str) -> None:
    threads_n, per_thread = 8, 25
    errors: list[BaseException] = []

    def work(n: int) -> None:
        chat = Memory(store, tenant, owns_store=False).conversation("busy")
        try:
            for i in range(per_thread):
                chat.append("player", f"{n}-{i}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)

    assert errors == []
    history = store.branch(tenant, "busy")
    assert store.count_turns(tenant, "busy") == threads_n * per_thread
    assert len(history) == threads_n * per_thread, "some append did not see the previous head"
    assert history[0].parent_id is None
    assert [t.parent_id for t in history[1:]] == [t.id for t in history[:-1]]
    stamps = [t.created_at for t in history]
    assert all(a < b for a, b in zip(stamps, stamps[1:], strict=False))
    assert [t.id for t in store.list_turns(tenant, "busy")] == [t.id for t in history]


def test_concurrent_updates_of_one_entity_lose_nothing(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [Entity(id="mira", type="npc", name="Mira")])
    threads_n, per_thread = 6, 10

    def work(n: int) -> None:
        for i in range(per_thread):
            store.update_entity(tenant, "mira", attributes={f"k{n}_{i}": i})

    threads = [threading.Thread(target=work, args=(n,)) for n in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)

    attributes = store.get_entity(tenant, "mira").attributes
    assert len(attributes) == threads_n * per_thread, sorted(attributes)


# --------------------------------------------------------------------------- large batches


def test_large_batches_round_trips_and_counts(neo4j_url: str, schema: object) -> None:
    from graphmem.backends.neo4j.store import BATCH_ROWS

    events: list[TraceEvent] = []
    store = open_store(neo4j_url, tracer=events.append)
    tenant = f"it-{uuid.uuid4().hex}"
    try:
        n = 10_000
        entities = [
            Entity(id=f"e{i}", type="npc", name=f"Npc {i}", attributes={"i": i, "tags": [i]})
            for i in range(n)
        ]
        events.clear()
        stored = store.upsert_entities(tenant, entities)
        assert len(stored) == n
        # Two statements in one transaction (its BEGIN and COMMIT: one more event).
        assert [e.name for e in events] == ["entities/upsert_entities"] * (n // BATCH_ROWS) + [
            "transaction"
        ]
        rels = [
            Relationship(source_id=f"e{i}", target_id=f"e{(i + 1) % n}", type="knows")
            for i in range(n)
        ]
        events.clear()
        store.upsert_relationships(tenant, rels)
        assert [e.name for e in events] == ["relationships/upsert_relationships"] * (
            n // BATCH_ROWS
        ) + ["transaction"]
        assert store.count_entities(tenant) == n
        assert store.count_relationships(tenant) == n
        found = store.find_entities(tenant, EntityFilter(attributes={"i": 4242}))
        assert [e.id for e in found] == ["e4242"]
        found = store.find_entities(tenant, EntityFilter(attributes={"tags": [4242]}))
        assert [e.id for e in found] == ["e4242"]
        events.clear()
        snapshot = store.identity_snapshot(tenant, "e10")
        assert [e.round_trips for e in events] == [1]
        assert [e.id for e in snapshot.related_entities] == ["e11", "e9"]
        assert store.delete_entities(tenant, [f"e{i}" for i in range(n)]) == n
        assert store.count_relationships(tenant) == 0
    finally:
        store.clear(tenant)
        store.close()


def test_a_pipelined_batch_is_all_or_nothing(neo4j_url: str, schema: object) -> None:
    """Statements of one batch overlap (built while the one before runs): still one write.

    Three types of 6,000 rows are six statements of one transaction; a missing end in
    the last of them rolls back the five before it (each written on the server by then),
    a replaced relationship among them included.
    """
    events: list[TraceEvent] = []
    store = open_store(neo4j_url, tracer=events.append)
    tenant = f"it-{uuid.uuid4().hex}"
    try:
        n = 6_000
        store.upsert_entities(
            tenant, [Entity(id=f"e{i}", type="npc", name=f"N{i}") for i in range(n)]
        )
        old = Relationship(
            source_id="e0",
            target_id="e1",
            type="knows",
            created_at=Relationship(source_id="a", target_id="b", type="x").created_at
            - timedelta(days=3),
        )
        store.upsert_relationships(tenant, [old])
        batch = [
            Relationship(
                source_id=f"e{i}", target_id=f"e{(i + 1) % n}", type=kind, attributes={"k": kind}
            )
            for kind in ("knows", "owns", "trusts")
            for i in range(n)
        ]
        broken = [*batch[:-1], Relationship(source_id="e7", target_id="ghost", type="trusts")]

        with pytest.raises(InvalidInput) as info:
            store.upsert_relationships(tenant, broken)

        assert info.value.data["missing_ids"] == ["ghost"]
        assert store.count_relationships(tenant) == 1
        [kept] = store.get_relationships(tenant, "e0", RelationshipFilter(types=["knows"]))
        assert kept.attributes == {} and kept.created_at == old.created_at

        events.clear()
        stored = store.upsert_relationships(tenant, batch)

        assert [e.name for e in events] == ["relationships/upsert_relationships"] * 6 + [
            "transaction"
        ]
        assert [r.key for r in stored] == [r.key for r in batch]
        assert stored[0].created_at == old.created_at  # the replaced one keeps its own
        assert stored[1:] == batch[1:]
        assert store.count_relationships(tenant) == len(batch)
    finally:
        store.clear(tenant)
        store.close()


def test_clear_deletes_a_tenant_larger_than_one_batch(neo4j_url: str, schema: object) -> None:
    events: list[TraceEvent] = []
    store = open_store(neo4j_url, tracer=events.append)
    tenant, bystander = f"it-{uuid.uuid4().hex}", f"it-{uuid.uuid4().hex}"
    try:
        n = 2_500  # the query deletes in transactions of 1,000 nodes
        store.upsert_entities(tenant, [Entity(id=f"e{i}", type="npc", name="E") for i in range(n)])
        store.upsert_relationships(
            tenant,
            [
                Relationship(source_id=f"e{i}", target_id=f"e{(i + 1) % n}", type="knows")
                for i in range(n)
            ],
        )
        for i in range(3):
            store.append_turn(tenant, Turn(session_id="s", role="user", content=str(i)))
        store.upsert_entities(bystander, [Entity(id="e0", type="npc", name="Stays")])
        events.clear()
        store.clear(tenant)
        assert [(e.name, e.round_trips) for e in events] == [("tenant/clear_tenant", 1)]
        assert store.count_entities(tenant) == 0
        assert store.count_relationships(tenant) == 0
        assert store.count_turns(tenant) == 0
        assert store.head(tenant, "s") is None
        assert store.get_entity(bystander, "e0").name == "Stays"
    finally:
        store.clear(bystander)
        store.close()


def test_walks_run_to_max_depth_and_refuse_deeper(store: GraphStore, tenant: str) -> None:
    from graphmem.backends.neo4j.store import MAX_DEPTH

    n = 5  # a chain much shorter than the depth: the hops after its end do nothing
    store.upsert_entities(tenant, [Entity(id=f"e{i}", type="npc", name="E") for i in range(n)])
    store.upsert_relationships(
        tenant,
        [
            Relationship(source_id=f"e{i}", target_id=f"e{i + 1}", type="knows")
            for i in range(n - 1)
        ],
    )
    assert [e.id for e in store.neighbors(tenant, "e0", depth=MAX_DEPTH)] == [
        f"e{i}" for i in range(1, n)
    ]
    assert len(store.visible_subgraph(tenant, "e0", depth=MAX_DEPTH).entities) == n
    assert len(store.expand(tenant, ["e0"], depth=MAX_DEPTH).entities) == n
    for walk in (store.neighbors, store.visible_subgraph):
        with pytest.raises(InvalidInput, match=f"at most {MAX_DEPTH}"):
            walk(tenant, "e0", depth=10**9)


def test_another_process_reads_the_writes_behind_bookmarks(neo4j_url: str, schema: object) -> None:
    tenant = f"it-{uuid.uuid4().hex}"
    with closing(open_store(neo4j_url)) as writer:
        writer.upsert_entities(tenant, [Entity(id="mira", type="npc", name="Mira")])
        bookmarks = writer.bookmarks  # type: ignore[attr-defined]
        assert bookmarks and all(isinstance(b, str) for b in bookmarks)
        # Another process would receive the strings (JSON, a queue) and open with them.
        with closing(open_store(neo4j_url, bookmarks=bookmarks)) as reader:
            assert reader.get_entity(tenant, "mira").name == "Mira"
        with closing(open_store(neo4j_url)) as later:
            later.add_bookmarks(bookmarks)  # type: ignore[attr-defined]
            assert later.count_entities(tenant) == 1
        writer.clear(tenant)


# --------------------------------------------------------------------------- failures


class _Proxy:
    """A loopback TCP forwarder to the server that can be pulled away mid-run."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self._open:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._open:  # accepted while closing: refuse it
                client.close()
                return
            try:
                upstream = socket.create_connection(self._target, timeout=10)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with closing(s):
                    pass

    def close(self) -> None:
        """Stop forwarding: refuse new connections and cut the open ones."""
        self._open = False
        # close() alone does not stop a thread blocked in accept(): on Linux the socket
        # keeps accepting, and the driver's retry would reconnect through a "closed"
        # proxy. shutdown() wakes accept() with an error and stops the listening.
        with suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            for s in self._sockets:
                with suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()


@pytest.fixture
def proxy(neo4j_url: str) -> Iterator[_Proxy]:
    parts = urlsplit(neo4j_url)
    forwarder = _Proxy(parts.hostname or "localhost", parts.port or 7687)
    yield forwarder
    forwarder.close()


def test_server_that_goes_away_raises_backend_unavailable(
    neo4j_url: str, schema: object, proxy: _Proxy
) -> None:
    parts = urlsplit(neo4j_url)
    # bolt:// (direct), so the driver does not route around the proxy to the real address.
    url = f"bolt://{parts.username}:{parts.password}@127.0.0.1:{proxy.port}{parts.path}"
    store = open_store(url, max_transaction_retry_time=2.0, connection_timeout=2.0)
    tenant = f"it-{uuid.uuid4().hex}"
    try:
        store.upsert_entities(tenant, [Entity(id="mira", type="npc", name="Mira")])
        assert store.count_entities(tenant) == 1

        proxy.close()

        with pytest.raises(BackendUnavailable) as info:
            store.count_entities(tenant)
        assert f"127.0.0.1:{proxy.port}" in str(info.value)
        assert parts.password and parts.password not in str(info.value)
    finally:
        store.close()
        with closing(open_store(neo4j_url)) as again:
            again.clear(tenant)


def test_the_proxy_refuses_connections_once_closed(proxy: _Proxy) -> None:
    proxy.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", proxy.port), timeout=2).close()


def test_wrong_password_is_backend_unavailable_without_the_password(neo4j_url: str) -> None:
    wrong = _url_with(neo4j_url, password="definitely-not-it")
    try:
        opened = open_store(wrong)
    except BackendUnavailable as exc:
        assert "definitely-not-it" not in str(exc)
        assert "***" in str(exc)
        return
    opened.close()  # every path closes what it opened (filterwarnings=error)
    pytest.skip("the server accepts any password (dbms.security.auth_enabled=false)")


def test_unlimited_mention_lookups_run_on_the_server(store: GraphStore, tenant: str) -> None:
    # "No limit" used to be sent as 2**62, which Neo4j refuses as a list slice bound.
    store.upsert_entities(tenant, [Entity(id="mira", type="npc", name="Mira")])
    store.upsert_chunks(tenant, [Chunk(id="c1", text="Mira at the forge")])
    store.link_mentions(tenant, "chunk", {"c1": ["mira"]})
    turn = store.append_turn(tenant, Turn(session_id="s", role="gm", content="Mira waves"))
    store.link_mentions(tenant, "turn", {turn.id: ["mira"]})
    assert store.find_mentioning(tenant, "chunk", ["mira"]) == {"mira": ["c1"]}
    assert store.find_mentioning(tenant, "turn", ["mira"], limit=10**15) == {"mira": [turn.id]}
    assert [e.id for e in store.find_entities(tenant, EntityFilter(limit=10**15))] == ["mira"]


def test_a_statement_the_server_cannot_run_is_not_backend_unavailable(store: GraphStore) -> None:
    driver = store.driver  # type: ignore[attr-defined]
    with pytest.raises(neo4j.exceptions.Neo4jError) as info:
        driver.execute_query(
            "RETURN [1, 2, 3][..$n] AS xs",
            n=2**62,
            database_=store.database,  # type: ignore[attr-defined]
        )
    translated = store.translate(info.value)  # type: ignore[attr-defined]
    assert isinstance(translated, GraphmemError)
    assert not isinstance(translated, BackendUnavailable), translated


def test_missing_database_is_backend_unavailable(neo4j_url: str) -> None:
    with pytest.raises(BackendUnavailable, match="database"):
        open_store(_url_with(neo4j_url, path="/nosuchdatabase"))


# --------------------------------------------------------------------------- injection


@pytest.mark.parametrize("text", INJECTIONS)
def test_injection_through_ids_names_and_keys_is_stored_literally(
    store: GraphStore, tenant: str, text: str
) -> None:
    bystander = Entity(id="bystander", type="npc", name="Bystander", attributes={"hp": 3})
    store.upsert_entities(tenant, [bystander])
    evil = Entity(id=text, type="npc", name=text, attributes={text: text, "nested": {text: [text]}})

    [stored] = store.upsert_entities(tenant, [evil])
    store.upsert_relationships(
        tenant,
        [
            Relationship(
                source_id=text, target_id="bystander", type="knows", attributes={text: text}
            )
        ],
    )

    got = store.get_entity(tenant, text)
    assert got == stored
    assert got.name == text and got.attributes == {text: text, "nested": {text: [text]}}
    assert store.get_entity(tenant, "bystander").attributes == {"hp": 3}
    assert store.count_entities(tenant) == 2
    assert [e.id for e in store.find_entities(tenant, EntityFilter(attributes={text: text}))] == [
        text
    ]
    assert [e.id for e in store.find_entities(tenant, EntityFilter(name_contains=text))] == [text]
    [fact] = store.get_relationships(tenant, text, RelationshipFilter())
    assert fact.attributes == {text: text}
    chat = Memory(store, tenant, owns_store=False).conversation(text)
    turn = chat.append("player", text, speaker=text, turn_id=text)
    assert store.search_turns(tenant, TurnFilter(text=text.split()[0])) == [turn]
    assert store.branch(tenant, text) == [turn]


@pytest.mark.parametrize("name", ["KNOWS]->(x) DETACH DELETE x //", "x`y", "has space"])
def test_injection_through_relationship_types_is_invalid(
    store: GraphStore, tenant: str, name: str
) -> None:
    store.upsert_entities(tenant, [Entity(id="a", type="npc", name="A")])
    sneaky = Relationship.model_construct(source_id="a", target_id="a", type=name, attributes={})
    with pytest.raises(InvalidInput):
        store.upsert_relationships(tenant, [sneaky])
    assert store.count_relationships(tenant) == 0


def test_tenants_share_ids_but_nothing_else(store: GraphStore, tenant: str) -> None:
    other = f"it-{uuid.uuid4().hex}"
    try:
        for t, name in ((tenant, "Mine"), (other, "Theirs")):
            store.upsert_entities(t, [Entity(id="same", type="npc", name=name)])
        store.append_turn(tenant, Turn(session_id="s", role="user", content="mine"))
        assert store.get_entity(tenant, "same").name == "Mine"
        assert store.get_entity(other, "same").name == "Theirs"
        assert store.count_turns(other) == 0
        store.clear(tenant)
        assert store.get_entity(other, "same").name == "Theirs"
    finally:
        store.clear(other)


def test_times_round_trip_with_microseconds(store: GraphStore, tenant: str) -> None:
    from graphmem.core.models import utcnow

    when = utcnow().replace(microsecond=123457) - timedelta(days=400)
    entity = Entity(id="old", type="npc", name="Old", created_at=when, updated_at=when)
    store.upsert_entities(tenant, [entity])
    got: Any = store.get_entity(tenant, "old")
    assert got.created_at == when and got.created_at.utcoffset() == timedelta(0), (
        f"wrote {when.isoformat()}, read back {got.created_at.isoformat()}"
    )
    # The server's own arithmetic (created_at bumped by duration({microseconds: 1})) must
    # come back exact too.
    first = store.append_turn(
        tenant, Turn(session_id="s", role="user", content="1", created_at=when)
    )
    second = store.append_turn(
        tenant, Turn(session_id="s", role="user", content="2", created_at=when)
    )
    assert second.created_at == first.created_at + timedelta(microseconds=1), (
        f"parent at {first.created_at.isoformat()}, bumped child at {second.created_at.isoformat()}"
    )
    assert store.get_turn(tenant, second.id) == second
