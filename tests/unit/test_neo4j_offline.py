"""The Neo4j backend's Python side, without a server: a fake driver records every query.

What this proves without Neo4j: each protocol operation sends the queries (and so the
round trips) it is documented to send, every ``$parameter`` a query file uses is passed,
rows are mapped back to models, and errors are typed as the contract says. What it
cannot prove (the Cypher's behaviour on a server) is the job of tests/integration and
tests/conformance against a real Neo4j.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

neo4j = pytest.importorskip("neo4j")

from neo4j.exceptions import (  # noqa: E402
    ConnectionAcquisitionTimeoutError,
    IncompleteCommit,
    Neo4jError,
    ResultConsumedError,
    ServiceUnavailable,
    SessionExpired,
    TransactionError,
)

from graphmem import (  # noqa: E402
    BackendUnavailable,
    Chunk,
    Entity,
    EntityFilter,
    GraphmemError,
    IdentityRequired,
    InvalidInput,
    NotFound,
    Provenance,
    Record,
    Relationship,
    RelationshipFilter,
    StoreClosed,
    TenantDump,
    TraceEvent,
    Turn,
    TurnFilter,
    UnsupportedOperation,
)
from graphmem.backends.neo4j.connection import parse_connection  # noqa: E402
from graphmem.backends.neo4j.mapping import TURN_COLUMNS  # noqa: E402
from graphmem.backends.neo4j.queries import TYPE_SLOT, load_query, query_names  # noqa: E402
from graphmem.backends.neo4j.store import (  # noqa: E402
    BATCH_ROWS,
    NO_LIMIT,
    Neo4jStore,
    _translate,
)
from graphmem.core.store import (  # noqa: E402
    ROOMS,
    ChangeSet,
    ScopedSearch,
    SearchHit,
    SearchPair,
    satisfied_protocols,
)

T0 = datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
ENTITY = {
    "id": "mira",
    "type": "npc",
    "name": "Mira",
    "attributes_json": '{"occupation":"smith","level":3,"tags":["a",1.0],"x":null}',
    "created_at": T0,
    "updated_at": T0,
}
OTHER = dict(ENTITY, id="tomas", name="Tomas", attributes_json="{}")
REL = {
    "source_id": "mira",
    "target_id": "tomas",
    "type": "knows",
    "tenant": "t",
    "attributes_json": '{"since":"childhood"}',
    "session_id": "s1",
    "confidence": 0.75,
    "source": "inferred",
    "confirmed": True,
    "evidence": ["t1"],
    "valid_at": T0,
    "created_at": T0,
}
TURN = {
    "id": "t1",
    "session": "s",
    "role": "player",
    "content": "hello",
    "created_at": T0,
    "parent_id": None,
}
PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
INT32_PARAMETERS = {"limit", "max_nodes", "k", "fetch", "depth", "max_depth"}


CHUNK = {
    "id": "c1",
    "text": "Mira hammers blades at the forge.",
    "source": "lore.md",
    "attributes_json": '{"title":"Forge"}',
    "created_at": T0,
}

RECORD = {
    "id": "r1",
    "kind": "fact",
    "data_json": '{"subject":"mira","n":1,"tags":["a"]}',
    "created_at": T0,
    "updated_at": T0,
}


def canned(name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """What the server would answer, shaped as the query's RETURN clause."""
    rows = params.get("rows", [])
    answers: dict[str, Callable[[], list[dict[str, Any]]]] = {
        "admin/ping_database": lambda: [{"version": "5.26.0", "edition": "community"}],
        "admin/list_tenants": lambda: [{"tenant": "a"}, {"tenant": "b"}],
        "entities/upsert_entities": lambda: [{"written": len(rows), "changed": []}],
        "entities/get_entities": lambda: [{"entity": ENTITY}],
        "entities/lock_entity": lambda: [{"entity": ENTITY}],
        "entities/delete_entities": lambda: [{"deleted": len(params["ids"])}],
        "entities/find_entities": lambda: [{"entity": ENTITY}],
        "entities/count_entities": lambda: [{"count": 2}],
        "entities/get_entity_version": lambda: [{"count": 2, "latest": T0}],
        "relationships/upsert_relationships": lambda: [
            {"written": len(rows), "changed": [], "missing": []}
        ],
        "relationships/get_relationships": lambda: [{"rels": [REL]}],
        "relationships/delete_relationship": lambda: [{"deleted": 1}],
        "relationships/delete_relationships": lambda: [{"deleted": len(params["keys"])}],
        "relationships/invalidate_relationship": lambda: [
            {
                "rel": dict(
                    REL, invalid_at=params["at"] or params["now"], expired_at=params["now"]
                ),
                "empty": False,
            }
        ],
        "relationships/count_relationships": lambda: [{"count": 1}],
        "relationships/count_relationship_patterns": lambda: [
            {"source_type": "npc", "type": "knows", "target_type": "npc", "facts": 1}
        ],
        "relationships/count_role_cooccurrence": lambda: [],
        "traversal/find_neighbors": lambda: [{"entities": [OTHER]}],
        "traversal/find_path": lambda: [
            {"has_source": True, "has_target": True, "path": [ENTITY, OTHER]}
        ],
        "traversal/get_visible_subgraph": lambda: [
            {"entities": [OTHER, ENTITY], "rels": [[REL], [REL]]}
        ],
        "traversal/get_identity_snapshot": lambda: [
            {"entity": ENTITY, "facts": [{"rel": REL, "other": OTHER}]}
        ],
        "conversations/append_turns": lambda: [
            {
                "created": [T0 + timedelta(microseconds=1 + i) for i in range(len(rows))],
                "parent_id": "t0",
                "past_last_time": False,
            }
        ],
        "conversations/append_turn": lambda: [
            {
                "created": [T0 + timedelta(microseconds=1)],
                "parent_id": "t0",
                "past_last_time": False,
            }
        ],
        "conversations/get_turn": lambda: [{"turn": TURN}],
        "conversations/get_head": lambda: [{"turn": TURN}],
        "conversations/fork_conversation": lambda: [{"turn": TURN, "moved": True}],
        "conversations/get_branch": lambda: [
            {
                "turns": [
                    [dict(TURN, id="t2").get(c) for c in TURN_COLUMNS],
                    [TURN.get(c) for c in TURN_COLUMNS],
                ],
                "beyond": None,
            }
        ],
        "conversations/list_turns": lambda: [{"turn": TURN}],
        "conversations/count_turns": lambda: [{"count": 1}],
        "conversations/delete_turn": lambda: [{"deleted": 1}],
        "conversations/delete_conversation": lambda: [{"deleted": 3}],
        "sessions/search_turns": lambda: [{"turn": TURN}],
        "sessions/list_sessions": lambda: [
            {"session_id": "s", "turn_count": 1, "first_at": T0, "last_at": T0, "head_id": "t1"}
        ],
        "tenant/dump_entities": lambda: [{"entity": ENTITY}],
        "tenant/dump_relationships": lambda: [{"rel": REL}],
        "tenant/dump_turns": lambda: [{"turn": TURN}],
        "tenant/dump_heads": lambda: [{"session_id": "s", "head_id": "t1"}],
        "tenant/check_turn_refs": lambda: [{"taken": [], "missing": []}],
        "tenant/create_turns": lambda: [{"created": 1}],
        "tenant/link_turns": lambda: [{"linked": 1}],
        "tenant/set_heads": lambda: [{"moved": 1}],
        "tenant/clear_tenant": lambda: [{"deleted": 0}],
        "tenant/dump_records": lambda: [{"record": RECORD}],
        "records/put_records": lambda: [
            {"id": r["id"], "created_at": r["created_at"], "updated_at": r["updated_at"]}
            for r in rows
        ],
        "records/get_record": lambda: [{"record": RECORD}],
        "records/get_records": lambda: [{"record": RECORD}],
        "records/find_records": lambda: [{"record": RECORD}],
        "records/delete_records": lambda: [{"deleted": len(params["ids"])}],
        "records/count_records": lambda: [{"count": 1}],
        "conversations/get_turns": lambda: [{"turn": TURN}],
        "conversations/get_turn_window": lambda: [{"turn": TURN}],
        "chunks/upsert_chunks": lambda: [
            {"id": r["id"], "created_at": r["created_at"]} for r in rows
        ],
        "chunks/get_chunks": lambda: [{"chunk": CHUNK}],
        "chunks/delete_chunks": lambda: [{"deleted": len(params["ids"])}],
        "chunks/count_chunks": lambda: [{"count": 3}],
        "tenant/dump_chunks": lambda: [{"chunk": CHUNK}],
        "tenant/dump_mentions": lambda: [
            {"kind": "chunk", "node_id": "c1", "entity_id": "mira"},
            {"kind": "turn", "node_id": "t1", "entity_id": "mira"},
        ],
        "search/get_search_context": lambda: [
            {
                "searches": [
                    {
                        "kind": kind,
                        "how": how,
                        "dimension": len(params["vector"] or []) if how == "vector" else None,
                        "fetched": 1,
                        "hits": [{"id": f"{kind}1", "score": 0.75 if how == "vector" else 2.5}],
                    }
                    for kind in ("entity", "turn", "chunk")
                    for how in ("vector", "text")
                ],
                "window": [],
                "unknown": [],
                "count": 1,
                "latest": None,
            }
        ],
        "search/gather_context": lambda: [
            {
                "chunk_mentions": [{"node_id": "c1", "entity_ids": ["mira", "forge"]}]
                if params["chunk_mentions"]
                else [],
                "turn_mentions": [],
                "seeds": [e for e in (ENTITY, OTHER) if e["id"] in params["seeds"]]
                + ([ENTITY] if params["seed_mentions"] else []),
                "reached": [dict(OTHER, id="zed", hop=1), dict(OTHER, id="ada", hop=2)],
                "rels": [[REL], [REL]],
                "mentioning_chunks": [],
                "mentioning_turns": [{"entity_id": "mira", "node_ids": ["c2", "c1"]}]
                if params["reach_turns"]
                else [],
                "chunks": [CHUNK] if "c1" in params["chunk_ids"] else [],
                "turns": [],
                "entities": [],
            }
        ],
        "search/query_scoped_nodes": lambda: [
            {
                "dimensions": {"entity": None, "turn": None, "chunk": 2},
                "searches": [
                    {
                        "position": 0,
                        "kind": "chunk",
                        "vector": [{"id": "c1", "score": 0.75}],
                        "text": [{"id": "c1", "score": 2.5}],
                    }
                ],
                "chunks": [CHUNK] if params["read"] else [],
                "turns": [],
            }
        ],
        "traversal/expand_entities": lambda: [
            {
                "seeds": [e for e in (ENTITY, OTHER) if e["id"] in params["seeds"]],
                "reached": [dict(OTHER, id="zed", hop=1), dict(OTHER, id="ada", hop=2)],
                "rels": [[REL], [REL]],
            }
        ],
    }
    kind_answers: dict[str, Callable[[], list[dict[str, Any]]]] = {
        "mentions/link": lambda: [{"missing_nodes": [], "missing_entities": [], "linked": 1}],
        "mentions/get": lambda: [{"node_id": "c1", "entity_ids": ["mira", "forge"]}],
        "mentions/find": lambda: [{"entity_id": "mira", "node_ids": ["c2", "c1"]}],
        "tenant/add": lambda: [],
        "embeddings/put": lambda: [{"stored_dimension": None, "missing": [], "written": len(rows)}],
        "embeddings/count": lambda: [{"count": 2, "dimension": 3}],
        "search/query": lambda: (
            [{"fetched": 1, "hits": [{"id": "c1", "score": 2.5}]}]
            if name.endswith("_text")
            else [
                {
                    "dimension": len(params["vector"]),
                    "fetched": 1,
                    "hits": [{"id": "mira", "score": 0.75}],
                }
            ]
        ),
        "search/scan": lambda: [
            {"dimension": len(params["vector"]), "hits": [{"id": "mira", "score": 0.75}]}
        ],
    }
    if name.startswith("schema/"):
        return []
    if name in answers:
        return answers[name]()
    return kind_answers[name.split("_", 1)[0]]()


class FakeRecord:
    def __init__(self, row: dict[str, Any]) -> None:
        self._row = row

    def data(self) -> dict[str, Any]:
        return dict(self._row)

    def keys(self) -> list[str]:
        return list(self._row)

    def __getitem__(self, key: str) -> Any:
        return self._row[key]


class FakeTx:
    def __init__(self, server: FakeServer) -> None:
        self.server = server

    def run(self, query: str, params: dict[str, Any]) -> list[FakeRecord]:
        name = self.server.name_of(query)
        code = "\n".join(line.split("//", 1)[0] for line in query.splitlines())
        needed = set(PARAMETER.findall(code))
        missing = needed - set(params)
        assert not missing, f"{name} needs parameters {sorted(missing)} that were not passed"
        for key in INT32_PARAMETERS & set(params):
            value = params[key]
            # Neo4j takes list indexes and slice bounds only as 32-bit integers.
            assert value is None or -(2**31) <= value < 2**31, f"{name}: ${key} = {value}"
        self.server.calls.append((name, params))
        return [FakeRecord(row) for row in self.server.answer(name, params)]


class FakeSession:
    def __init__(self, server: FakeServer, mode: str) -> None:
        self.server = server
        self.mode = mode

    def __enter__(self) -> FakeSession:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_read(self, work: Callable[[FakeTx], Any]) -> Any:
        assert self.mode == "READ", "a read transaction in a session opened for writes"
        self.server.access.append("read")
        return work(FakeTx(self.server))

    def execute_write(self, work: Callable[[FakeTx], Any]) -> Any:
        assert self.mode == "WRITE", "a write transaction in a session opened for reads"
        self.server.transactions += 1
        self.server.access.append("write")
        return work(FakeTx(self.server))

    def run(self, query: str, params: dict[str, Any]) -> list[FakeRecord]:
        """An auto-commit transaction, in the session's access mode."""
        self.server.access.append(self.mode.lower())
        if self.mode == "WRITE":
            self.server.transactions += 1
        return FakeTx(self.server).run(query, params)


class FakeServer:
    """Stands in for neo4j.Driver: answers from ``canned`` unless told otherwise."""

    def __init__(self) -> None:
        self.names = {load_query(n): n for n in query_names()}

        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.transactions = 0
        self.access: list[str] = []  # "read" / "write", one per transaction
        self.overrides: dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]] = {}
        self.closed = False

    def name_of(self, query: str) -> str:
        """The query file a text comes from (a typed query: its type back in the slot)."""
        if query in self.names:
            return self.names[query]
        for text, name in self.names.items():
            if TYPE_SLOT in text:
                slot = r"`[A-Za-z][A-Za-z0-9_]*`"
                if re.fullmatch(re.escape(text).replace(TYPE_SLOT, slot), query):
                    return name
        raise KeyError(query)

    def answer(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if name in self.overrides:
            return self.overrides[name](params)
        return canned(name, params)

    def verify_connectivity(self) -> None:
        """A fake server is always reachable."""

    def session(self, **config: Any) -> FakeSession:
        return FakeSession(self, config["default_access_mode"])

    def execute_query(
        self,
        query: str,
        parameters: dict[str, Any],
        *,
        routing_: Any,
        result_transformer_: Callable[[list[FakeRecord]], Any],
        **config: Any,
    ) -> Any:
        """A managed transaction of one query (as neo4j.Driver.execute_query)."""
        mode = "WRITE" if routing_ == neo4j.RoutingControl.WRITE else "READ"
        with self.session(default_access_mode=mode) as session:
            work = session.execute_write if mode == "WRITE" else session.execute_read
            return work(lambda tx: result_transformer_(tx.run(query, parameters)))

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


@pytest.fixture
def events() -> list[TraceEvent]:
    return []


@pytest.fixture
def store(server: FakeServer, events: list[TraceEvent]) -> Neo4jStore:
    settings = parse_connection("neo4j://neo4j:secret@db.example:7687/memory")
    return Neo4jStore(server, settings, tracer=events.append)  # type: ignore[arg-type]


@contextmanager
def queries(server: FakeServer) -> Iterator[list[str]]:
    names: list[str] = []
    start = len(server.calls)
    yield names
    names.extend(name for name, _ in server.calls[start:])


def ent(entity_id: str, **attributes: Any) -> Entity:
    return Entity(id=entity_id, type="npc", name=entity_id.title(), attributes=attributes)


# --------------------------------------------------------------------------- round trips

ONE_QUERY: dict[str, tuple[str, Callable[[Neo4jStore], Any]]] = {
    "upsert_entities": (
        "entities/upsert_entities",
        lambda s: s.upsert_entities("t", [ent("mira")]),
    ),
    "get_entity": ("entities/get_entities", lambda s: s.get_entity("t", "mira")),
    "get_entities": ("entities/get_entities", lambda s: s.get_entities("t", ["mira", "x"])),
    "delete_entities": ("entities/delete_entities", lambda s: s.delete_entities("t", ["a"])),
    "find_entities": (
        "entities/find_entities",
        lambda s: s.find_entities("t", EntityFilter(type="npc", attributes={"level": 3})),
    ),
    "count_entities": ("entities/count_entities", lambda s: s.count_entities("t")),
    "upsert_relationships": (
        "relationships/upsert_relationships",
        lambda s: s.upsert_relationships(
            "t", [Relationship(source_id="mira", target_id="tomas", type="knows")]
        ),
    ),
    "get_relationships": (
        "relationships/get_relationships",
        lambda s: s.get_relationships("t", "mira", RelationshipFilter()),
    ),
    "delete_relationship": (
        "relationships/delete_relationship",
        lambda s: s.delete_relationship("t", "mira", "tomas", "knows"),
    ),
    "invalidate_relationship": (
        "relationships/invalidate_relationship",
        lambda s: s.invalidate_relationship("t", "mira", "tomas", "knows"),
    ),
    "count_relationships": (
        "relationships/count_relationships",
        lambda s: s.count_relationships("t"),
    ),
    "neighbors": ("traversal/find_neighbors", lambda s: s.neighbors("t", "mira", depth=2)),
    "find_path": ("traversal/find_path", lambda s: s.find_path("t", "mira", "tomas")),
    "visible_subgraph": (
        "traversal/get_visible_subgraph",
        lambda s: s.visible_subgraph("t", "mira"),
    ),
    "identity_snapshot": (
        "traversal/get_identity_snapshot",
        lambda s: s.identity_snapshot("t", "mira"),
    ),
    "append_turn": (
        "conversations/append_turn",
        lambda s: s.append_turn("t", Turn(session_id="s", role="player", content="hi")),
    ),
    "append_turns": (
        "conversations/append_turns",
        lambda s: s.append_turns(
            "t", "s", [Turn(session_id="s", role="player", content=f"{i}") for i in range(2)]
        ),
    ),
    "get_turn": ("conversations/get_turn", lambda s: s.get_turn("t", "t1")),
    "head": ("conversations/get_head", lambda s: s.head("t", "s")),
    "fork": ("conversations/fork_conversation", lambda s: s.fork("t", "s", "t1")),
    "branch": ("conversations/get_branch", lambda s: s.branch("t", "s", limit=2)),
    "list_turns": ("conversations/list_turns", lambda s: s.list_turns("t", "s")),
    "count_turns": ("conversations/count_turns", lambda s: s.count_turns("t")),
    "delete_turn": ("conversations/delete_turn", lambda s: s.delete_turn("t", "t1")),
    "delete_conversation": (
        "conversations/delete_conversation",
        lambda s: s.delete_conversation("t", "s"),
    ),
    "search_turns": (
        "sessions/search_turns",
        lambda s: s.search_turns("t", TurnFilter(text="Dragon silver", limit=3)),
    ),
    "list_sessions": ("sessions/list_sessions", lambda s: s.list_sessions("t")),
    "clear": ("tenant/clear_tenant", lambda s: s.clear("t")),
    "get_turns": ("conversations/get_turns", lambda s: s.get_turns("t", ["t1", "x", "t1"])),
    "turn_window": (
        "conversations/get_turn_window",
        lambda s: s.turn_window("t", ["t1", "x", "t1"], depth=2),
    ),
    "upsert_chunks": (
        "chunks/upsert_chunks",
        lambda s: s.upsert_chunks("t", [Chunk(id="c1", text="lore")]),
    ),
    "get_chunks": ("chunks/get_chunks", lambda s: s.get_chunks("t", ["c1", "x"])),
    "delete_chunks": ("chunks/delete_chunks", lambda s: s.delete_chunks("t", ["c1", "c1"])),
    "count_chunks": ("chunks/count_chunks", lambda s: s.count_chunks("t")),
    "link_mentions": (
        "mentions/link_chunk_mentions",
        lambda s: s.link_mentions("t", "chunk", {"c1": ["mira", "mira"], "c2": []}),
    ),
    "get_mentions": ("mentions/get_turn_mentions", lambda s: s.get_mentions("t", "turn", ["t1"])),
    "find_mentioning": (
        "mentions/find_mentioning_chunks",
        lambda s: s.find_mentioning("t", "chunk", ["mira"], limit=1),
    ),
    "put_embeddings": (
        "embeddings/put_entity_embeddings",
        lambda s: s.put_embeddings("t", "entity", ["mira"], [[3.0, 4.0]]),
    ),
    "embedding_dimension": (
        "embeddings/count_turn_embeddings",
        lambda s: s.embedding_dimension("t", "turn"),
    ),
    "count_embeddings": (
        "embeddings/count_chunk_embeddings",
        lambda s: s.count_embeddings("t", "chunk"),
    ),
    "fulltext_search": (
        "search/query_chunk_text",
        lambda s: s.fulltext_search("t", "chunk", "forge blades", 5),
    ),
    "expand": ("traversal/expand_entities", lambda s: s.expand("t", ["mira"], depth=2)),
}


@pytest.mark.parametrize("operation", sorted(ONE_QUERY))
def test_operation_is_one_query(
    store: Neo4jStore, server: FakeServer, events: list[TraceEvent], operation: str
) -> None:
    name, call = ONE_QUERY[operation]
    with queries(server) as sent:
        call(store)
    assert sent == [name]
    # The query, and the BEGIN and COMMIT of a managed transaction when it runs in one:
    # one round trip auto-commit, two by execute_query, three in a managed transaction.
    assert [e.name for e in events if e.name != "transaction"] == [name]
    assert 1 <= sum(e.round_trips for e in events) <= 3
    assert next(e for e in events if e.name == name).params["tenant"] == "t"


def test_update_entity_is_lock_then_write_in_one_transaction(
    store: Neo4jStore, server: FakeServer
) -> None:
    with queries(server) as sent:
        updated = store.update_entity(
            "t", "mira", attributes={"mood": "calm"}, remove_attributes=["x"]
        )
    assert sent == ["entities/lock_entity", "entities/upsert_entities"]
    assert server.transactions == 1
    assert updated.attributes == {
        "occupation": "smith",
        "level": 3,
        "tags": ["a", 1.0],
        "mood": "calm",
    }
    props = server.calls[-1][1]["rows"][0]["props"]
    assert props["attr.mood"] == "calm" and "attrjson.x" not in props


def test_dump_is_seven_queries_in_one_read(store: Neo4jStore, server: FakeServer) -> None:
    with queries(server) as sent:
        dump = store.dump("t")
    assert sent == [
        "tenant/dump_entities",
        "tenant/dump_relationships",
        "tenant/dump_turns",
        "tenant/dump_heads",
        "tenant/dump_records",
        "tenant/dump_chunks",
        "tenant/dump_mentions",
    ]
    assert dump.heads == {"s": "t1"}
    assert dump.entities[0].attributes["tags"] == ["a", 1.0]
    assert dump.chunks[0].attributes == {"title": "Forge"}
    # The embedded backend's order: turn mentions first, then chunk mentions.
    assert dump.mentions == [("turn", "t1", "mira"), ("chunk", "c1", "mira")]


def test_large_batch_is_one_transaction_of_slices(store: Neo4jStore, server: FakeServer) -> None:
    entities = [ent(f"e{i}") for i in range(2 * BATCH_ROWS + 1)]
    with queries(server) as sent:
        stored = store.upsert_entities("t", entities)
    assert sent == ["entities/upsert_entities"] * 3
    assert server.transactions == 1
    assert len(stored) == len(entities)


def test_pipelined_statements_stop_at_the_first_error(
    store: Neo4jStore, server: FakeServer
) -> None:
    """A statement that cannot be built ends the pipeline inside its transaction."""

    def statement(i: int) -> tuple[str, dict[str, Any], str | None]:
        if i == 2:
            raise InvalidInput("the third statement is broken")
        return "entities/upsert_entities", {"tenant": "t", "rows": [], "now": str(i)}, None

    statements = [functools.partial(statement, i) for i in range(4)]
    with queries(server) as sent, pytest.raises(InvalidInput, match="third"):
        store._execute(lambda tx: store._run_pipelined(tx, statements), write=True)
    assert sent == ["entities/upsert_entities"] * 2

    for count in (1, 2):  # one statement runs without the worker thread
        rows = store._execute(
            lambda tx, n=count: store._run_pipelined(tx, statements[:n]), write=True
        )
        assert rows == [canned("entities/upsert_entities", {"rows": []})] * count


def test_load_checks_then_writes_in_one_transaction(store: Neo4jStore, server: FakeServer) -> None:
    root = Turn(session_id="s", role="user", content="root")
    child = Turn(session_id="s", role="user", content="child", parent_id=root.id)
    dump = TenantDump(
        entities=[ent("a"), ent("b")],
        relationships=[Relationship(source_id="a", target_id="b", type="knows")],
        turns=[root, child],
    )
    with queries(server) as sent:
        store.load("t", dump)
    assert sent == [
        "tenant/check_turn_refs",
        "entities/upsert_entities",
        "relationships/upsert_relationships",
        "tenant/create_turns",
        "tenant/link_turns",
        "tenant/set_heads",
    ]
    assert server.transactions == 1
    heads = server.calls[-1][1]["heads"]
    assert heads == [{"session_id": "s", "head_id": child.id}]


def test_load_numbers_a_dumps_turns_parents_first(store: Neo4jStore, server: FakeServer) -> None:
    # get_branch orders a branch by seq, which create_turns gives in this order: a dump
    # listing a child before its parent must still number the parent first.
    root = Turn(session_id="s", role="user", content="root")
    child = Turn(session_id="s", role="user", content="child", parent_id=root.id)
    grandchild = Turn(session_id="s", role="user", content="grandchild", parent_id=child.id)
    other = Turn(session_id="s", role="user", content="other root")
    store.load("t", TenantDump(turns=[grandchild, other, child, root]))
    [params] = [p for name, p in server.calls if name == "tenant/create_turns"]
    [session] = params["sessions"]
    assert [t["content"] for t in session["turns"]] == ["root", "child", "grandchild", "other root"]
    heads = [p for name, p in server.calls if name == "tenant/set_heads"][0]["heads"]
    # No head named: the last turn in parents-first order (a leaf), not the dump's last.
    assert heads == [{"session_id": "s", "head_id": other.id}]


def test_a_long_dump_is_checked_in_linear_time(store: Neo4jStore, server: FakeServer) -> None:
    turns, parent = [], None
    for i in range(20_000):  # a walk to the root per turn would be 2 * 10**8 steps
        turn = Turn(session_id="s", role="user", content=str(i), parent_id=parent)
        turns.append(turn)
        parent = turn.id
    store.load("t", TenantDump(turns=list(reversed(turns))))
    created = [p for name, p in server.calls if name == "tenant/create_turns"]
    numbered = [t["content"] for p in created for s in p["sessions"] for t in s["turns"]]
    assert numbered == [str(i) for i in range(20_000)]


def test_a_cycle_of_parents_in_a_dump_is_refused(store: Neo4jStore, server: FakeServer) -> None:
    a = Turn(session_id="s", role="user", content="a")
    b = Turn(session_id="s", role="user", content="b", parent_id=a.id)
    looped = a.model_copy(update={"parent_id": b.id})
    with pytest.raises(InvalidInput, match="cycle"):
        store.load("t", TenantDump(turns=[looped, b]))
    assert server.calls == []


def test_branch_sends_a_32_bit_limit(store: Neo4jStore, server: FakeServer) -> None:
    store.branch("t", "s")
    store.branch("t", "s", limit=3)
    assert [p["limit"] for name, p in server.calls] == [NO_LIMIT, 3]


# --------------------------------------------------------------------------- mapping back


def test_rows_become_models(store: Neo4jStore) -> None:
    entity = store.get_entity("t", "mira")
    assert entity.attributes == {"occupation": "smith", "level": 3, "tags": ["a", 1.0], "x": None}
    assert entity.created_at == T0 and entity.created_at.tzinfo is not None
    [rel] = store.get_relationships("t", "mira", RelationshipFilter())
    assert rel.provenance == Provenance(
        session_id="s1", confidence=0.75, source="inferred", confirmed=True, evidence=("t1",)
    )
    assert rel.attributes == {"since": "childhood"}
    snap = store.identity_snapshot("t", "mira")
    assert [e.id for e in snap.related_entities] == ["tomas"]
    sub = store.visible_subgraph("t", "mira")
    assert [e.id for e in sub.entities] == ["mira", "tomas"]
    assert len(sub.relationships) == 1
    assert [t.id for t in store.branch("t", "s")] == ["t1", "t2"]


def test_append_returns_parent_and_bumped_time(store: Neo4jStore) -> None:
    turn = store.append_turn("t", Turn(session_id="s", role="player", content="hi", created_at=T0))
    assert turn.parent_id == "t0"
    assert turn.created_at == T0 + timedelta(microseconds=1)


def test_append_after_the_last_time_is_invalid_in_its_transaction(
    store: Neo4jStore, server: FakeServer
) -> None:
    # The query reports the bump past year 9999 and writes no turn (one auto-commit
    # statement: nothing to roll back).
    server.overrides["conversations/append_turns"] = lambda params: [
        {"created": None, "parent_id": "t0", "past_last_time": True}
    ]
    two = [Turn(session_id="s", role="player", content=f"{i}") for i in range(2)]
    with pytest.raises(InvalidInput, match="last time"):
        store.append_turns("t", "s", two)
    assert server.transactions == 1
    # One turn: conversations/append_turn returns no row.
    server.overrides["conversations/append_turn"] = lambda params: []
    with pytest.raises(InvalidInput, match="last time"):
        store.append_turn("t", Turn(session_id="s", role="player", content="hi"))
    assert server.transactions == 2


def test_upsert_returns_one_entity_per_input_position(store: Neo4jStore) -> None:
    stored = store.upsert_entities("t", [ent("a", n=1), ent("b"), ent("a", n=2)])
    assert [e.id for e in stored] == ["a", "b", "a"]
    assert stored[0] == stored[2] and stored[0].attributes == {"n": 2}


# --------------------------------------------------------------------------- errors


def test_missing_relationship_ends_are_named(store: Neo4jStore, server: FakeServer) -> None:
    server.overrides["relationships/upsert_relationships"] = lambda params: [
        {"written": 0, "changed": [], "missing": ["ghost"]}
    ]
    with pytest.raises(InvalidInput, match="ghost") as info:
        store.upsert_relationships(
            "t", [Relationship(source_id="mira", target_id="ghost", type="knows")]
        )
    assert info.value.missing_ids == ["ghost"]  # type: ignore[attr-defined]


def test_relationship_rows_go_sorted_by_source_and_come_back_in_input_order(
    store: Neo4jStore, server: FakeServer
) -> None:
    later = T0 + timedelta(days=1)
    rels = [
        Relationship(source_id=s, target_id=t, type="knows", created_at=later)
        for s, t in (("zed", "ada"), ("ada", "zed"), ("mira", "ada"))
    ]

    def answer(params: dict[str, Any]) -> list[dict[str, Any]]:
        # The stored "ada -> zed" keeps the created_at it had.
        kept = [
            {"index": index, "created_at": T0}
            for index, source in zip(params["index"], params["source_ids"], strict=True)
            if source == "ada"
        ]
        return [{"written": len(params["index"]), "changed": kept, "missing": []}]

    server.overrides["relationships/upsert_relationships"] = answer
    stored = store.upsert_relationships("t", rels)
    [(_, params)] = server.calls
    assert params["source_ids"] == ["ada", "mira", "zed"] and params["index"] == [1, 2, 0]
    assert [r.key for r in stored] == [r.key for r in rels]
    assert [r.created_at for r in stored] == [later, T0, later]
    # Models are frozen: one stored as sent comes back as the very object (a copy would
    # share its attributes anyway, model_copy being shallow); a replaced one is a new value.
    assert stored[0] is rels[0] and stored[1] is not rels[1]


@pytest.mark.parametrize(
    ("operation", "query"),
    [
        ("get_entity", "entities/get_entities"),
        ("update_entity", "entities/lock_entity"),
        ("get_relationships", "relationships/get_relationships"),
        ("neighbors", "traversal/find_neighbors"),
        ("visible_subgraph", "traversal/get_visible_subgraph"),
        ("identity_snapshot", "traversal/get_identity_snapshot"),
    ],
)
def test_unknown_entity_is_not_found(
    store: Neo4jStore, server: FakeServer, operation: str, query: str
) -> None:
    server.overrides[query] = lambda params: []
    calls: dict[str, Callable[[], Any]] = {
        "get_entity": lambda: store.get_entity("t", "ghost"),
        "update_entity": lambda: store.update_entity("t", "ghost", name="X"),
        "get_relationships": lambda: store.get_relationships("t", "ghost", RelationshipFilter()),
        "neighbors": lambda: store.neighbors("t", "ghost"),
        "visible_subgraph": lambda: store.visible_subgraph("t", "ghost"),
        "identity_snapshot": lambda: store.identity_snapshot("t", "ghost"),
    }
    with pytest.raises(NotFound) as info:
        calls[operation]()
    assert info.value.entity_id == "ghost"  # type: ignore[attr-defined]


def test_find_path_names_the_missing_end(store: Neo4jStore, server: FakeServer) -> None:
    server.overrides["traversal/find_path"] = lambda params: [
        {"has_source": True, "has_target": False, "path": []}
    ]
    with pytest.raises(NotFound) as info:
        store.find_path("t", "mira", "ghost")
    assert info.value.entity_id == "ghost"  # type: ignore[attr-defined]


def test_fork_to_another_session_is_invalid(store: Neo4jStore, server: FakeServer) -> None:
    server.overrides["conversations/fork_conversation"] = lambda params: [
        {"turn": dict(TURN, session="other"), "moved": False}
    ]
    with pytest.raises(InvalidInput, match="other"):
        store.fork("t", "s", "t1")
    server.overrides["conversations/fork_conversation"] = lambda params: [
        {"turn": None, "moved": False}
    ]
    with pytest.raises(NotFound):
        store.fork("t", "s", "ghost")


INJECTION = "KNOWS]->(x) DETACH DELETE x //"


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.neighbors("t", "mira", rel_types=[INJECTION]),
        lambda s: s.turn_window("t", ["t1"], depth=9),
        lambda s: s.turn_window("t", [], depth=-1),
        lambda s: s.turn_window("t", "t1"),
        lambda s: s.neighbors("t", "mira", node_types=["has space"]),
        lambda s: s.neighbors("t", "mira", depth=0),
        lambda s: s.neighbors("t", "mira", max_nodes=0),
        lambda s: s.neighbors("t", "mira", direction="sideways"),
        lambda s: s.find_path("t", "a", "b", rel_types=[""]),
        lambda s: s.find_path("t", "a", "b", max_depth=-1),
        lambda s: s.delete_relationship("t", "a", "b", INJECTION),
        lambda s: s.invalidate_relationship("t", "a", "b", "x`y"),
        lambda s: s.update_entity("t", "mira", type=INJECTION),
        lambda s: s.upsert_relationships(
            "t",
            [
                Relationship.model_construct(
                    source_id="a", target_id="b", type=INJECTION, provenance=Provenance()
                )
            ],
        ),
        lambda s: s.upsert_entities(
            "t", [Entity.model_construct(id="evil", type=INJECTION, name="Evil", attributes={})]
        ),
        lambda s: s.upsert_entities("t", ent("mira")),
        lambda s: s.load(
            "t",
            TenantDump(turns=[Turn(id="x", session_id="s", role="user", content="c")] * 2),
        ),
    ],
)
def test_bad_input_is_rejected_before_any_query(
    store: Neo4jStore, server: FakeServer, call: Callable[[Neo4jStore], Any]
) -> None:
    with pytest.raises(InvalidInput):
        call(store)
    assert server.calls == []


def test_empty_tenant_fails_closed_before_any_query(store: Neo4jStore, server: FakeServer) -> None:
    with pytest.raises(IdentityRequired):
        store.count_entities("")
    assert server.calls == []


def test_closed_store(store: Neo4jStore, server: FakeServer) -> None:
    store.close()
    store.close()
    assert server.closed
    with pytest.raises(StoreClosed):
        store.count_entities("t")


def test_driver_errors_become_backend_unavailable_without_password(server: FakeServer) -> None:
    settings = parse_connection(
        "neo4j://neo4j:secret@db.example:7687/memory", max_transaction_retry_time=0.3
    )
    store = Neo4jStore(server, settings)  # type: ignore[arg-type]

    def gone(params: dict[str, Any]) -> list[dict[str, Any]]:
        raise ServiceUnavailable("connection refused")

    server.overrides["entities/count_entities"] = gone
    with pytest.raises(BackendUnavailable) as info:
        store.count_entities("t")
    assert 2 <= len(server.calls) <= 6  # retried (50, 100, 200 ms apart) for 0.3 s
    message = str(info.value)
    assert "secret" not in message and "neo4j:***@db.example" in message
    assert info.value.query_name == "entities/count_entities"  # type: ignore[attr-defined]
    assert isinstance(info.value.__cause__, ServiceUnavailable)


def test_a_read_is_retried_after_a_retryable_error_then_answers(
    store: Neo4jStore, server: FakeServer
) -> None:
    failures = [Neo4jError._hydrate_neo4j(code="Neo.TransientError.Transaction.DeadlockDetected")]

    def flaky(params: dict[str, Any]) -> list[dict[str, Any]]:
        if failures:
            raise failures.pop()
        return [{"count": 7}]

    server.overrides["entities/count_entities"] = flaky
    assert store.count_entities("t") == 7
    assert [name for name, _ in server.calls] == ["entities/count_entities"] * 2


def test_a_read_is_not_retried_after_an_error_that_will_repeat(
    store: Neo4jStore, server: FakeServer
) -> None:
    def broken(params: dict[str, Any]) -> list[dict[str, Any]]:
        raise Neo4jError._hydrate_neo4j(code="Neo.DatabaseError.Statement.ExecutionFailed")

    server.overrides["entities/count_entities"] = broken
    with pytest.raises(GraphmemError) as info:
        store.count_entities("t")
    assert not isinstance(info.value, BackendUnavailable)
    assert len(server.calls) == 1


@pytest.mark.parametrize(
    ("code", "error"),
    [
        ("Neo.ClientError.Database.DatabaseNotFound", BackendUnavailable),
        ("Neo.ClientError.Security.Unauthorized", BackendUnavailable),
        ("Neo.ClientError.Schema.ConstraintValidationFailed", InvalidInput),
        ("Neo.TransientError.Transaction.DeadlockDetected", BackendUnavailable),
        ("Neo.ClientError.Statement.TypeError", GraphmemError),
        ("Neo.ClientError.Statement.SemanticError", GraphmemError),
        ("Neo.ClientError.Statement.SyntaxError", GraphmemError),
        ("Neo.ClientError.Statement.ParameterMissing", GraphmemError),
        ("Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration", BackendUnavailable),
        ("Neo.TransientError.Transaction.Terminated", BackendUnavailable),
        ("Neo.ClientError.Schema.ConstraintAlreadyExists", InvalidInput),
        # A statement that can never succeed is not an outage (issue 16: a list slice
        # bound above 2**31 was reported as "BackendUnavailable ... try again").
        ("Neo.DatabaseError.Statement.ExecutionFailed", GraphmemError),
        ("Neo.DatabaseError.General.UnknownError", GraphmemError),
        ("Neo.DatabaseError.Transaction.TransactionCommitFailed", GraphmemError),
        ("Neo.TransientError.General.OutOfMemoryError", BackendUnavailable),
        ("Neo.TransientError.Database.DatabaseUnavailable", BackendUnavailable),
        ("Neo.ClientError.Cluster.NotALeader", BackendUnavailable),
        ("Neo.ClientError.General.ForbiddenOnReadOnlyDatabase", BackendUnavailable),
        ("Neo.ClientError.Procedure.ProcedureCallFailed", InvalidInput),
    ],
)
def test_server_errors_are_translated(code: str, error: type[Exception]) -> None:
    exc = Neo4jError._hydrate_neo4j(code=code, message="boom")
    translated = _translate(exc, "neo4j://neo4j:***@h:7687", "q/x_y")
    assert type(translated) is error
    assert translated.query_name == "q/x_y"  # type: ignore[attr-defined]
    if error is BackendUnavailable:
        assert "neo4j://neo4j:***@h:7687" in str(translated)


@pytest.mark.parametrize(
    ("error", "translated"),
    [
        (ServiceUnavailable("refused"), BackendUnavailable),
        (SessionExpired("gone"), BackendUnavailable),
        (IncompleteCommit("dropped"), BackendUnavailable),
        (ConnectionAcquisitionTimeoutError("pool"), BackendUnavailable),
        (ResultConsumedError(None, "consumed"), GraphmemError),
        (TransactionError(None, "closed"), GraphmemError),
    ],
)
def test_only_connection_driver_errors_are_backend_unavailable(
    error: Exception, translated: type[Exception]
) -> None:
    assert type(_translate(error, "bolt://h:7687", None)) is translated


def test_a_huge_limit_is_sent_as_a_32_bit_integer(store: Neo4jStore, server: FakeServer) -> None:
    store.find_mentioning("t", "chunk", ["mira"])
    store.find_mentioning("t", "turn", ["mira"], limit=10**15)
    store.find_entities("t", EntityFilter(limit=10**15))
    store.neighbors("t", "mira", max_nodes=10**15)
    store.expand("t", ["mira"], max_nodes=10**15)
    sent = [
        params[key] for _, params in server.calls for key in ("limit", "max_nodes") if key in params
    ]
    # expand sends the cap and the cap less its seeds
    assert len(sent) == 6 and all(NO_LIMIT - 1 <= value <= NO_LIMIT for value in sent), sent


@pytest.mark.parametrize(
    "kwargs",
    [{"name": ""}, {"name": "   "}, {"attributes": {"x": object()}}, {"attributes": ["x"]}],
)
def test_bad_update_is_rejected_before_any_query(
    store: Neo4jStore, server: FakeServer, kwargs: dict[str, Any]
) -> None:
    with pytest.raises(InvalidInput):
        store.update_entity("t", "mira", **kwargs)
    assert server.calls == []


# ----------------------------------------------------------------------------- records


def test_put_records_is_one_query_in_one_transaction(store: Neo4jStore, server: FakeServer) -> None:
    batch = [Record(id="a", kind="fact", data={"x": 1}), Record(id="a", kind="fact", data={})]
    with queries(server) as sent:
        stored = store.put_records("t", "fact", batch)
    assert sent == ["records/put_records"]
    assert server.transactions == 1
    assert [r.id for r in stored] == ["a", "a"]  # one per input position, last wins
    assert stored[0].data == {}
    params = server.calls[-1][1]
    assert params["kind"] == "fact"
    assert len(params["rows"]) == 1
    assert params["rows"][0]["props"]["data_json"] == "{}"


def test_put_records_of_another_kind_writes_nothing(store: Neo4jStore, server: FakeServer) -> None:
    with queries(server) as sent, pytest.raises(InvalidInput, match="kind"):
        store.put_records("t", "fact", [Record(id="a", kind="audit")])
    assert sent == []
    with queries(server) as sent, pytest.raises(InvalidInput):
        store.put_records("t", "bad kind", [])
    assert sent == []


def test_write_records_is_one_transaction(store: Neo4jStore, server: FakeServer) -> None:
    batch = [Record(id="f", kind="fact"), Record(id="a", kind="audit"), Record(id="g", kind="fact")]
    with queries(server) as sent:
        stored = store.write_records("t", batch, delete={"fact": ["old", "old"]})
    assert server.transactions == 1
    assert sent == ["records/put_records", "records/put_records", "records/delete_records"]
    assert [(c[1]["kind"], [r["id"] for r in c[1].get("rows", [])]) for c in server.calls] == [
        ("fact", ["f", "g"]),
        ("audit", ["a"]),
        ("fact", []),
    ]
    assert server.calls[-1][1]["ids"] == ["old"]
    assert [(r.kind, r.id) for r in stored] == [("fact", "f"), ("audit", "a"), ("fact", "g")]
    with queries(server) as sent, pytest.raises(InvalidInput):
        store.write_records("t", [Record(id="f", kind="fact")], delete={"fact": ["f"]})
    assert sent == [] and server.transactions == 1


def test_write_changes_is_one_transaction(store: Neo4jStore, server: FakeServer) -> None:
    changes = ChangeSet(
        records=[Record(id="f", kind="fact")],
        delete_records={"audit": ["a"]},
        delete_entities=["value:f0"],
        delete_relationships=[("mira", "forge", "works_at")],
    )
    with queries(server) as sent:
        stored = store.write_changes("t", changes)
    assert server.transactions == 1
    assert sent == [
        "relationships/delete_relationships",
        "entities/delete_entities",
        "records/put_records",
        "records/delete_records",
    ]
    assert server.calls[0][1]["keys"] == [
        {"source_id": "mira", "target_id": "forge", "type": "works_at"}
    ]
    assert [(r.kind, r.id) for r in stored.records] == [("fact", "f")]
    with queries(server) as sent, pytest.raises(InvalidInput):
        store.write_changes("t", ChangeSet(delete_relationships=[("a", "b", "not safe")]))
    assert sent == [] and server.transactions == 1


def test_record_reads_map_rows_back(store: Neo4jStore, server: FakeServer) -> None:
    record = store.get_record("t", "fact", "r1")
    assert record.data == {"subject": "mira", "n": 1, "tags": ["a"]}
    assert record.created_at == T0
    server.overrides["records/get_record"] = lambda params: []
    with pytest.raises(NotFound):
        store.get_record("t", "fact", "missing")
    assert store.count_records("t", "fact") == 1
    assert store.delete_records("t", "fact", ["a", "a", "b"]) == 2
    assert store.dump("t").records == [record]


def test_find_records_sends_filter_columns(store: Neo4jStore, server: FakeServer) -> None:
    found = store.find_records(
        "t", "fact", where={"subject": "mira", "n": 1, "gone": None}, limit=5, newest_first=False
    )
    assert [r.id for r in found] == ["r1"]
    params = server.calls[-1][1]
    assert params["where"] == {"attr.subject": "mira", "attr.n": 1, "attrjson.gone": "null"}
    assert params["limit"] == 5 and params["newest_first"] is False
    with pytest.raises(InvalidInput):
        store.find_records("t", "fact", where={"x": [1]})  # type: ignore[dict-item]
    with pytest.raises(InvalidInput):
        store.find_records("t", "fact", limit=0)


# --------------------------------------------------------------------------- contract details


def test_every_method_fails_closed_on_an_empty_tenant_before_any_query(
    store: Neo4jStore, server: FakeServer
) -> None:
    from conformance.helpers import STORE_CALLS

    for name, call in sorted(STORE_CALLS.items()):
        with pytest.raises(IdentityRequired):
            call(store, "  ")
        assert server.calls == [], f"{name} sent {server.calls} before checking the tenant"


def test_every_method_of_a_closed_store_raises_store_closed(
    store: Neo4jStore, server: FakeServer
) -> None:
    from conformance.helpers import STORE_CALLS

    store.close()
    for name, call in sorted(STORE_CALLS.items()):
        with pytest.raises(StoreClosed):
            call(store, "t")
        assert server.calls == [], f"{name} sent {server.calls} on a closed store"


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.find_path("t", "a", "b", max_depth=0),
        lambda s: s.visible_subgraph("t", "mira", depth=0),
        lambda s: s.branch("t", "s", limit=0),
        lambda s: s.load(
            "t",
            TenantDump(
                turns=[Turn.model_construct(id="x", session_id="s", role=INJECTION, content="c")]
            ),
        ),
    ],
    ids=["find_path max_depth 0", "visible_subgraph depth 0", "branch limit 0", "load role"],
)
def test_sizes_must_be_positive_and_roles_safe(
    store: Neo4jStore, server: FakeServer, call: Callable[[Neo4jStore], Any]
) -> None:
    # The contract: sizes are positive integers (0 is InvalidInput, as on networkx), and
    # models built with model_construct are re-checked before anything is sent.
    with pytest.raises(InvalidInput):
        call(store)
    assert server.calls == []


def test_visible_subgraph_puts_the_entity_first_then_the_others_by_id(
    store: Neo4jStore, server: FakeServer
) -> None:
    third = dict(OTHER, id="ada", name="Ada")
    server.overrides["traversal/get_visible_subgraph"] = lambda params: [
        {"entities": [ENTITY, OTHER, third], "rels": [[REL]]}
    ]
    sub = store.visible_subgraph("t", "tomas")
    assert [e.id for e in sub.entities] == ["tomas", "ada", "mira"]


def test_invalidate_sends_no_time_when_none_is_given(store: Neo4jStore, server: FakeServer) -> None:
    # Without `at`, the query keeps an invalid_at set before (the contract: "`at` given
    # again moves invalid_at"; not given, it does not), so the parameter must be null.
    store.invalidate_relationship("t", "mira", "tomas", "knows")
    assert server.calls[-1][1]["at"] is None
    naive = datetime(2025, 1, 2, 3, 4, 5)
    store.invalidate_relationship("t", "mira", "tomas", "knows", at=naive)
    assert server.calls[-1][1]["at"] == naive.replace(tzinfo=UTC)


def test_single_names_and_keys_are_taken_like_the_embedded_backend(
    store: Neo4jStore, server: FakeServer
) -> None:
    store.neighbors("t", "mira", rel_types="knows", node_types="npc")  # type: ignore[arg-type]
    params = server.calls[-1][1]
    assert (params["rel_types"], params["node_types"]) == (["knows"], ["npc"])
    updated = store.update_entity("t", "mira", remove_attributes="occupation")  # type: ignore[arg-type]
    assert "occupation" not in updated.attributes and "level" in updated.attributes


def test_name_filter_is_casefolded_on_both_sides(store: Neo4jStore, server: FakeServer) -> None:
    from graphmem.backends.neo4j.mapping import entity_props

    straße = Entity(id="s", type="location", name="Große Straße")
    assert entity_props(straße, "t")["name_lower"] == "grosse strasse"
    store.find_entities("t", EntityFilter(name_contains="STRASSE"))
    assert server.calls[-1][1]["name_lower"] == "strasse"
    store.find_entities("t", EntityFilter(name_contains=""))
    assert server.calls[-1][1]["name_lower"] is None


@pytest.mark.parametrize(
    "when",
    [
        T0,
        datetime(2001, 1, 1, tzinfo=UTC),
        datetime(2999, 1, 1, 23, 59, 59, 999999, tzinfo=UTC),
        datetime(2024, 5, 1, 14, 0, 0, 1, tzinfo=timezone(timedelta(hours=2))),
    ],
)
def test_times_survive_the_drivers_bolt_codec(when: datetime) -> None:
    # What a parameter becomes on the wire (Bolt 5 DateTime with a UTC offset) and what
    # the driver hands back for it must map to the same aware UTC datetime, microseconds
    # included: stored times are compared with ==, and dumps must round-trip exactly.
    from neo4j._codec.hydration.v2.temporal import dehydrate_datetime, hydrate_datetime

    from graphmem.backends.neo4j.mapping import to_datetime

    wire = dehydrate_datetime(when)
    assert wire.tag == b"I", "an aware datetime must travel as a DateTime with an offset"
    back = to_datetime(hydrate_datetime(*wire.fields))
    assert back == when and back.utcoffset() == timedelta(0), (when, back)
    assert back.tzinfo is UTC


# --------------------------------------------------------------------------- retrieval

VECTOR_INDEX_LISTING = [
    {
        "name": "vector_index_Entity_embedding",
        "type": "VECTOR",
        "state": "ONLINE",
        "options": {"indexConfig": {"vector.dimensions": 3}},
    },
    {
        "name": "vector_index_Chunk_embedding",
        "type": "VECTOR",
        "state": "POPULATING",
        "options": {"indexConfig": {"vector.dimensions": 3}},
    },
]


@pytest.mark.parametrize(
    ("kind", "label"), [("entity", "entity"), ("turn", "turn"), ("chunk", "chunk")]
)
def test_every_kind_has_its_own_queries(
    store: Neo4jStore, server: FakeServer, kind: str, label: str
) -> None:
    with queries(server) as sent:
        store.put_embeddings("t", kind, ["a"], [[1.0, 2.0]])  # type: ignore[arg-type]
        store.count_embeddings("t", kind)  # type: ignore[arg-type]
        store.vector_search("t", kind, [1.0, 2.0], 3)  # type: ignore[arg-type]
        store.fulltext_search("t", kind, "forge", 3)  # type: ignore[arg-type]
    assert sent == [
        f"embeddings/put_{label}_embeddings",
        f"embeddings/count_{label}_embeddings",
        "schema/list_indexes",
        f"search/scan_{label}_vectors",
        f"search/query_{label}_text",
    ]


def test_chunks_map_back_one_per_input_position(store: Neo4jStore, server: FakeServer) -> None:
    first = Chunk(id="c1", text="old", created_at=T0)
    again = Chunk(id="c1", text="new", attributes={"title": "Mill"}, source="a.md")
    stored = store.upsert_chunks("t", [first, Chunk(id="c2", text="x"), again])
    assert [c.id for c in stored] == ["c1", "c2", "c1"]
    assert stored[0] == stored[2] and stored[0].text == "new"
    rows = server.calls[-1][1]["rows"]
    assert [r["id"] for r in rows] == ["c1", "c2"]  # the last of an id wins, sent once
    assert rows[0]["props"]["search_text"] == "Mill\nnew"
    assert rows[1]["props"]["source"] is None  # present, so `SET c += props` removes it
    assert store.get_chunks("t", ["c1", "zzz", "c1"])[0].attributes == {"title": "Forge"}
    assert [t.id for t in store.get_turns("t", ["t1", "nope", "t1"])] == ["t1", "t1"]
    assert store.delete_chunks("t", ["c1", "c1", "c2"]) == 2
    assert server.calls[-1][1]["ids"] == ["c1", "c2"]


def test_search_text_is_written_with_entities_and_turns(
    store: Neo4jStore, server: FakeServer
) -> None:
    smith = Entity(
        id="mira",
        type="npc",
        name="Mira",
        attributes={"aliases": ["the smith"], "description": "Forges blades."},
    )
    store.upsert_entities("t", [smith])
    assert server.calls[-1][1]["rows"][0]["props"]["search_text"] == (
        "Mira (the smith): Forges blades."
    )
    store.append_turn("t", Turn(session_id="s", role="player", content="A wyvern!"))
    assert server.calls[-1][1]["props"]["search_text"] == "A wyvern!"


def test_mentions_are_sent_deduplicated_and_read_back_sorted(
    store: Neo4jStore, server: FakeServer
) -> None:
    assert store.link_mentions("t", "turn", {"t1": ["b", "a", "b"], "t2": []}) == 2
    assert server.calls[-1][1]["links"] == [
        {"node_id": "t1", "entity_ids": ["b", "a"]},
        {"node_id": "t2", "entity_ids": []},
    ]
    assert store.link_mentions("t", "chunk", {}) == 0
    assert store.get_mentions("t", "chunk", ["x", "c1"]) == {"c1": ["forge", "mira"]}
    found = store.find_mentioning("t", "turn", ["mira", "mira", "x"], limit=2)
    assert found == {"mira": ["c1", "c2"]}
    assert server.calls[-1][1]["entity_ids"] == ["mira", "x"]
    assert server.calls[-1][1]["limit"] == 2


def test_unknown_mention_ends_are_named_and_the_transaction_fails(
    store: Neo4jStore, server: FakeServer
) -> None:
    server.overrides["mentions/link_chunk_mentions"] = lambda params: [
        {"missing_nodes": ["c9"], "missing_entities": ["ghost"], "linked": 0}
    ]
    with pytest.raises(InvalidInput, match="ghost") as info:
        store.link_mentions("t", "chunk", {"c9": ["ghost"]})
    assert info.value.missing_node_ids == ["c9"]  # type: ignore[attr-defined]
    assert info.value.missing_ids == ["ghost"]  # type: ignore[attr-defined]
    assert server.transactions == 1


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.link_mentions("t", "entity", {"mira": ["forge"]}),
        lambda s: s.link_mentions("t", "rumour", {"c": ["a"]}),
        lambda s: s.link_mentions("t", "chunk", [("c", ["a"])]),
        lambda s: s.link_mentions("t", "chunk", {"c": "a"}),
        lambda s: s.link_mentions("t", "chunk", {"c": [""]}),
        lambda s: s.get_mentions("t", "entity", ["a"]),
        lambda s: s.find_mentioning("t", "chunk", ["a"], limit=0),
        lambda s: s.put_embeddings("t", "rumour", ["a"], [[1.0]]),
        lambda s: s.put_embeddings("t", "entity", ["a"], [[float("nan"), 1.0]]),
        lambda s: s.put_embeddings("t", "entity", ["a"], [[float("inf"), 1.0]]),
        lambda s: s.put_embeddings("t", "entity", ["a"], [[0.0, 0.0]]),
        lambda s: s.put_embeddings("t", "entity", ["a"], [[1.0, 0.0], [0.0, 1.0]]),
        lambda s: s.put_embeddings("t", "entity", ["a"], "x"),
        lambda s: s.put_embeddings("t", "entity", "a", [[1.0]]),
        lambda s: s.vector_search("t", "entity", [1.0, 0.0], 0),
        lambda s: s.vector_search("t", "entity", [1.0, 0.0], True),
        lambda s: s.vector_search("t", "entity", [float("nan"), 0.0], 3),
        lambda s: s.vector_search("t", "entity", [[1.0, 0.0], [0.0, 1.0]], 3),
        lambda s: s.vector_search("t", "rumour", [1.0], 3),
        lambda s: s.vector_search("t", "entity", [1.0], 3, scope_ids="mira"),
        lambda s: s.fulltext_search("t", "entity", 42, 3),
        lambda s: s.fulltext_search("t", "entity", "mira", -1),
        lambda s: s.expand("t", ["mira"], depth=-1),
        lambda s: s.expand("t", ["mira"], max_nodes=0),
        lambda s: s.expand("t", ["mira"], direction="up"),
        lambda s: s.expand("t", ["mira"], rel_types=[INJECTION]),
        lambda s: s.expand("t", "mira"),
        lambda s: s.upsert_chunks("t", Chunk(id="c", text="x")),
        lambda s: s.upsert_chunks("t", [Chunk.model_construct(id="", text="x")]),
        lambda s: s.load("t", TenantDump(mentions=[("entity", "a", "b")])),
        lambda s: s.load("t", TenantDump(mentions=[("chunk", "a")])),  # type: ignore[list-item]
    ],
)
def test_bad_retrieval_input_is_rejected_before_any_query(
    store: Neo4jStore, server: FakeServer, call: Callable[[Neo4jStore], Any]
) -> None:
    with pytest.raises(InvalidInput):
        call(store)
    assert server.calls == []


def test_put_embeddings_sends_unit_float32_rows_last_id_wins(
    store: Neo4jStore, server: FakeServer
) -> None:
    store.put_embeddings("t", "chunk", ["a", "b", "a"], [[3.0, 4.0], [0.0, 2.0], [0.0, -5.0]])
    params = server.calls[-1][1]
    assert params["dimension"] == 2
    assert params["rows"] == [
        {"id": "a", "vector": [0.0, -1.0]},
        {"id": "b", "vector": [0.0, 1.0]},
    ]
    store.put_embeddings("t", "chunk", ["c"], [[3.0, 4.0]])
    [[x, y]] = [r["vector"] for r in server.calls[-1][1]["rows"]]
    assert (x, y) == (pytest.approx(0.6), pytest.approx(0.8))


def test_put_embeddings_refusals_come_from_the_one_write(
    store: Neo4jStore, server: FakeServer
) -> None:
    server.overrides["embeddings/put_entity_embeddings"] = lambda params: [
        {"stored_dimension": None, "missing": ["ghost"], "written": 0}
    ]
    with pytest.raises(InvalidInput, match="ghost"):
        store.put_embeddings("t", "entity", ["mira", "ghost"], [[1.0, 0.0], [0.0, 1.0]])
    server.overrides["embeddings/put_entity_embeddings"] = lambda params: [
        {"stored_dimension": 384, "missing": [], "written": 0}
    ]
    with pytest.raises(InvalidInput, match="dimension") as info:
        store.put_embeddings("t", "entity", ["mira"], [[1.0, 0.0]])
    assert info.value.expected == 384  # type: ignore[attr-defined]
    assert server.transactions == 2


def test_embedding_counts(store: Neo4jStore, server: FakeServer) -> None:
    assert store.count_embeddings("t", "entity") == 2
    assert store.embedding_dimension("t", "entity") == 3
    server.overrides["embeddings/count_entity_embeddings"] = lambda params: [
        {"count": 0, "dimension": None}
    ]
    assert store.embedding_dimension("t", "entity") is None


@pytest.mark.parametrize(
    ("neo4j_score", "cosine"), [(1.0, 1.0), (0.75, 0.5), (0.5, 0.0), (0.0, -1.0), (1.0000001, 1.0)]
)
def test_scores_are_converted_to_cosine(
    store: Neo4jStore, server: FakeServer, neo4j_score: float, cosine: float
) -> None:
    server.overrides["search/scan_entity_vectors"] = lambda params: [
        {"dimension": 2, "hits": [{"id": "mira", "score": neo4j_score}]}
    ]
    [hit] = store.vector_search("t", "entity", [1.0, 0.0], 3)
    assert hit.id == "mira" and hit.score == pytest.approx(cosine)


def test_vector_search_scans_exactly_without_an_index_of_its_dimension(
    store: Neo4jStore, server: FakeServer
) -> None:
    server.overrides["schema/list_indexes"] = lambda params: VECTOR_INDEX_LISTING
    with queries(server) as sent:
        store.vector_search("t", "entity", [1.0, 0.0], 3)  # the index is 3-d
        store.vector_search("t", "chunk", [1.0, 0.0, 0.0], 3)  # not ONLINE yet
    assert sent == [
        "schema/list_indexes",
        "search/scan_entity_vectors",
        "search/scan_chunk_vectors",
    ]
    params = server.calls[-1][1]
    assert params["dimension"] == 3 and params["k"] == 3 and params["scope"] is None


def test_vector_search_over_fetches_then_scans(store: Neo4jStore, server: FakeServer) -> None:
    server.overrides["schema/list_indexes"] = lambda params: VECTOR_INDEX_LISTING
    fetches: list[int] = []

    def crowded(params: dict[str, Any]) -> list[dict[str, Any]]:
        # Other tenants fill the index: every fetch comes back full with one hit of ours.
        fetches.append(params["fetch"])
        return [{"dimension": 3, "fetched": params["fetch"], "hits": [{"id": "a", "score": 1}]}]

    server.overrides["search/query_entity_vectors"] = crowded
    with queries(server) as sent:
        hits = store.vector_search("t", "entity", [0.0, 0.0, 2.0], 5, scope_ids=["a", "a"])
    assert fetches == [64, 256, 1024, 4096]
    assert sent[-1] == "search/scan_entity_vectors"
    assert [h.id for h in hits] == ["mira"]
    ann = next(p for n, p in server.calls if n == "search/query_entity_vectors")
    assert ann["index"] == "vector_index_Entity_embedding"
    assert ann["vector"] == [0.0, 0.0, 1.0] and ann["scope"] == ["a"] and ann["k"] == 5


@pytest.mark.parametrize(
    ("fetched", "hits", "expected"),
    [(40, 1, [80]), (80, 20, [80]), (80, 19, [80, 320])],
    ids=["index exhausted", "k filled", "grows once"],
)
def test_vector_search_stops_when_k_is_filled_or_the_index_is_exhausted(
    store: Neo4jStore, server: FakeServer, fetched: int, hits: int, expected: list[int]
) -> None:
    server.overrides["schema/list_indexes"] = lambda params: VECTOR_INDEX_LISTING
    fetches: list[int] = []

    def answer(params: dict[str, Any]) -> list[dict[str, Any]]:
        fetches.append(params["fetch"])
        n = hits if len(fetches) == 1 else 20
        rows = [{"id": f"e{i}", "score": 1 - i / 100} for i in range(n)]
        return [{"dimension": 3, "fetched": fetched, "hits": rows}]

    server.overrides["search/query_entity_vectors"] = answer
    found = store.vector_search("t", "entity", [1.0, 1.0, 1.0], 20)
    assert fetches == expected
    assert found[0].score == pytest.approx(1.0)
    assert "search/scan_entity_vectors" not in [n for n, _ in server.calls]


def test_vector_index_listing_is_cached(store: Neo4jStore, server: FakeServer) -> None:
    server.overrides["schema/list_indexes"] = lambda params: VECTOR_INDEX_LISTING
    for _ in range(3):
        store.vector_search("t", "entity", [1.0, 1.0, 1.0], 2)
    names = [n for n, _ in server.calls]
    assert names.count("schema/list_indexes") == 1
    assert names.count("search/query_entity_vectors") == 3


def test_vector_search_dimension_rules(store: Neo4jStore, server: FakeServer) -> None:
    server.overrides["search/scan_entity_vectors"] = lambda params: [{"dimension": 2, "hits": []}]
    with pytest.raises(InvalidInput, match="dimension"):
        store.vector_search("t", "entity", [1.0, 0.0, 0.0], 3)
    server.overrides["search/scan_entity_vectors"] = lambda params: [
        {"dimension": None, "hits": []}
    ]
    assert store.vector_search("t", "entity", [1.0, 0.0, 0.0], 3) == []


def test_a_vanished_vector_index_falls_back_to_the_scan(
    store: Neo4jStore, server: FakeServer
) -> None:
    server.overrides["schema/list_indexes"] = lambda params: VECTOR_INDEX_LISTING

    def gone(params: dict[str, Any]) -> list[dict[str, Any]]:
        raise Neo4jError._hydrate_neo4j(
            code="Neo.ClientError.Procedure.ProcedureCallFailed", message="no such index"
        )

    server.overrides["search/query_entity_vectors"] = gone
    assert [h.id for h in store.vector_search("t", "entity", [1.0, 1.0, 1.0], 2)] == ["mira"]
    assert store._index_cache is None


def test_fulltext_sends_an_escaped_or_query_and_over_fetches(
    store: Neo4jStore, server: FakeServer
) -> None:
    fetches: list[int] = []

    def crowded(params: dict[str, Any]) -> list[dict[str, Any]]:
        fetches.append(params["fetch"])
        done = len(fetches) == 3
        return [{"fetched": params["fetch"] - done, "hits": [{"id": "c1", "score": 3.5}]}]

    server.overrides["search/query_turn_text"] = crowded
    hits = store.fulltext_search("t", "turn", 'Who owns "the Forge" AND (x)?', 2)
    assert fetches == [64, 256, 1024]
    assert hits == [("c1", 3.5)]
    params = server.calls[-1][1]
    assert params["query"] == "owns OR forge OR x"
    assert params["index"] == "fulltext_index_Turn_search_text"


def test_fulltext_without_words_sends_nothing(store: Neo4jStore, server: FakeServer) -> None:
    assert store.fulltext_search("t", "chunk", '  "" ?! ** ', 3) == []
    assert server.calls == []


def test_fulltext_without_its_index_is_unsupported(store: Neo4jStore, server: FakeServer) -> None:
    def missing(params: dict[str, Any]) -> list[dict[str, Any]]:
        raise Neo4jError._hydrate_neo4j(
            code="Neo.ClientError.Procedure.ProcedureCallFailed",
            message="There is no such fulltext schema index",
        )

    server.overrides["search/query_entity_text"] = missing
    with pytest.raises(UnsupportedOperation, match="schema install") as info:
        store.fulltext_search("t", "entity", "mira", 3)
    assert info.value.index == "fulltext_index_Entity_search_text"  # type: ignore[attr-defined]


def test_expand_orders_seeds_then_hops(store: Neo4jStore, server: FakeServer) -> None:
    sub = store.expand("t", ["tomas", "mira", "tomas"], depth=2, max_nodes=3, within=["zed"])
    assert [e.id for e in sub.entities] == ["mira", "tomas", "zed", "ada"]
    assert len(sub.relationships) == 1
    params = server.calls[-1][1]
    assert params["seeds"] == ["tomas", "mira"]
    assert (params["max_nodes"], params["limit"], params["within"]) == (3, 1, ["zed"])
    assert store.expand("t", []).entities == ()


def test_expand_depth_zero_and_unknown_seed(store: Neo4jStore, server: FakeServer) -> None:
    store.expand("t", ["mira"], depth=0, max_nodes=1)
    assert server.calls[-1][1]["depth"] == 0 and server.calls[-1][1]["limit"] == 0
    with pytest.raises(NotFound) as info:
        store.expand("t", ["mira", "ghost"])
    assert info.value.entity_id == "ghost"  # type: ignore[attr-defined]


def test_gather_is_made_of_the_reads_it_stands_for(store: Neo4jStore, server: FakeServer) -> None:
    got = store.gather(
        "t",
        chunk_ids=["c1"],
        mentions_of={"chunk": ["c1"]},
        seed_ids=["ghost"],
        seed_mentions=True,
        depth=1,
        mentioning=["turn"],
        mentioning_limit=2,
    )
    # One round trip: the parts are one statement (the server's answer is canned here;
    # tests/conformance checks on a real server that it equals the parts).
    [(name, params)] = server.calls
    assert name == "search/gather_context"
    assert params["seeds"] == ["ghost"] and params["seed_mentions"] is True
    assert params["chunk_mentions"] == ["c1"] and params["turn_mentions"] is None
    assert (params["reach_turns"], params["reach_chunks"]) == (True, False)
    assert params["mentioning_limit"] == 2 and params["depth"] == 1
    assert [c.id for c in got.chunks] == ["c1"] and got.turns == [] and got.entities == []
    assert got.mentions == {"chunk": {"c1": ["forge", "mira"]}}
    assert [e.id for e in got.subgraph.entities] == ["mira", "zed", "ada"]
    assert got.mentioning == {"turn": {"mira": ["c1", "c2"]}}
    with pytest.raises(InvalidInput):
        store.gather("t", mentioning=["entity"])  # type: ignore[list-item]


def test_search_context_adds_the_window_scope_and_version(
    store: Neo4jStore, server: FakeServer
) -> None:
    server.overrides["schema/list_indexes"] = lambda params: ALL_INDEXES

    def with_context(params: dict[str, Any]) -> list[dict[str, Any]]:
        [answer] = canned("search/get_search_context", params)
        [version] = canned("entities/get_entity_version", params)
        return [dict(answer, window=[TURN], unknown=["x"], **version)]

    server.overrides["search/get_search_context"] = with_context
    got = store.search_context(
        "t",
        ["turn"],
        vector=[3.0, 0.0, 4.0],
        text="forge",
        k=3,
        scope_ids=["mira", "x"],
        window_depth=1,
    )
    names = [name for name, _ in server.calls if not name.startswith("schema/")]
    assert names == ["search/get_search_context"]  # one round trip for all four parts
    [params] = [p for n, p in server.calls if n == "search/get_search_context"]
    assert params["context"] is True and params["window_depth"] == 1
    assert params["scope"] == ["mira", "x"]
    assert [t.id for t in got.window] == ["t1"]
    assert got.unknown_scope == ["x"]
    assert got.entity_version == store.entity_version("t")


def test_entity_version_changes_with_every_entity_write(store: Neo4jStore) -> None:
    seen = {store.entity_version("t")}
    store.upsert_entities("t", [ent("mira")])
    seen.add(store.entity_version("t"))
    store.update_entity("t", "mira", name="Mira the smith")
    seen.add(store.entity_version("t"))
    store.delete_entities("t", ["mira"])
    seen.add(store.entity_version("t"))
    store.clear("t")
    seen.add(store.entity_version("t"))
    assert len(seen) == 5  # the canned server's count and latest update never change
    assert store.entity_version("t") != store.entity_version("u")


def test_load_writes_chunks_then_mentions_in_the_transaction(
    store: Neo4jStore, server: FakeServer
) -> None:
    dump = TenantDump(
        entities=[ent("mira")],
        chunks=[Chunk(id="c1", text="lore")],
        mentions=[("chunk", "c1", "mira"), ("chunk", "c1", "mira"), ("turn", "t1", "mira")],
    )
    with queries(server) as sent:
        store.load("t", dump)
    assert sent == [
        "entities/upsert_entities",
        "chunks/upsert_chunks",
        "tenant/add_chunk_mentions",
        "tenant/add_turn_mentions",
    ]
    assert server.transactions == 1
    assert server.calls[2][1]["rows"] == [{"node_id": "c1", "entity_id": "mira"}]
    server.overrides["tenant/add_turn_mentions"] = lambda params: [
        {"node_id": "t9", "entity_id": "mira", "missing_node": True}
    ]
    with pytest.raises(InvalidInput, match="t9"):
        store.load("t", TenantDump(mentions=[("turn", "t9", "mira")]))


def test_neo4j_store_satisfies_every_room(store: Neo4jStore) -> None:
    assert satisfied_protocols(store) == frozenset(ROOMS)
    assert store.capabilities == {"persistence", "concurrent_writers"}


def test_index_names_are_neomodels() -> None:
    # The queries name the indexes neomodel creates: fulltext_index_<Label>_<property>,
    # vector_index_<Label>_<property>.
    from graphmem.backends.neo4j import schema

    for cls in (schema.EntityNode, schema.TurnNode, schema.ChunkNode):
        props = cls.defined_properties()
        label = cls.__label__
        assert props["embedding"].vector_index is not None
        assert schema.VECTOR_INDEXES[label] == f"vector_index_{label}_embedding"
        assert props["search_text"].fulltext_index.analyzer == "english"
        assert schema.FULLTEXT_INDEXES[label] == f"fulltext_index_{label}_search_text"


# --------------------------------------------------------------------------- Lucene escaping

LUCENE_SPECIALS = '+-&|!(){}[]^"~*?:\\/'


def _lucene_terms(query: str) -> list[str]:
    """Split a query the way Lucene's classic parser tokenises terms: on unescaped spaces,
    with a backslash escaping the next character; fail on any unescaped special."""
    terms: list[str] = []
    current: list[str] = []
    chars = iter(query)
    for ch in chars:
        if ch == "\\":
            current.append(next(chars))
        elif ch == " ":
            terms.append("".join(current))
            current = []
        else:
            assert ch not in LUCENE_SPECIALS, f"unescaped {ch!r} in {query!r}"
            current.append(ch)
    terms.append("".join(current))
    return terms


@pytest.mark.parametrize("special", list(LUCENE_SPECIALS))
def test_every_lucene_special_character_is_escaped(special: str) -> None:
    from graphmem.backends.neo4j.fulltext import lucene_escape

    word = f"a{special}b{special}"
    escaped = lucene_escape(word)
    assert escaped == f"a\\{special}b\\{special}"
    assert _lucene_terms(escaped) == [word]


@pytest.mark.parametrize("word", ["AND", "OR", "NOT"])
def test_operator_words_become_terms(word: str) -> None:
    from graphmem.backends.neo4j.fulltext import lucene_escape

    assert lucene_escape(word) == "\\" + word
    assert lucene_escape(word.lower()) == word.lower()  # lower case is no operator
    assert lucene_escape("&&") == "\\&\\&" and lucene_escape("||") == "\\|\\|"


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("flour", "flour"),
        ('"flour', "flour"),
        ("flour AND", "flour"),
        ("NEAR(flour sack)", "near OR flour OR sack"),
        ("flour*", "flour"),
        ("^flour~2", "flour OR 2"),
        ("body:flour", "body OR flour"),
        ("a/b\\c", "b OR c"),  # 'a' is a stop word, dropped when others remain
        ("-(", None),
        ("'", None),
        ("the AND or", "the OR and OR or"),  # only stop words: all of them kept
        ("Straße ÉLAN", "straße OR élan"),
    ],
)
def test_lucene_query_from_user_text(text: str, query: str | None) -> None:
    from graphmem.backends.neo4j.fulltext import lucene_query

    assert lucene_query(text) == query


def test_lucene_query_is_always_literal_terms_joined_by_or() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from graphmem.backends.neo4j.fulltext import lucene_escape, lucene_query
    from graphmem.backends.search import query_words

    @given(st.text())
    def escaped_words_round_trip(text: str) -> None:
        query = lucene_query(text)
        words = query_words(text)
        if query is None:
            assert words == []
            return
        parts = query.split(" OR ")
        assert [_lucene_terms(p)[0] for p in parts] == words
        assert all(len(_lucene_terms(p)) == 1 for p in parts)

    @given(st.text(alphabet=st.sampled_from(list(LUCENE_SPECIALS) + list("aAND OR"))))
    def any_text_escapes_to_one_literal_term(text: str) -> None:
        escaped = lucene_escape(text.replace(" ", ""))
        assert _lucene_terms(escaped) == [text.replace(" ", "")]
        assert escaped not in {"AND", "OR", "NOT", "&&", "||"}

    escaped_words_round_trip()
    any_text_escapes_to_one_literal_term()


# ----------------------------------------------------------------------------- vector index schema


def _vector_index_row(label: str, *, quantized: bool | None) -> dict[str, Any]:
    config: dict[str, Any] = {"vector.dimensions": 384, "vector.similarity_function": "COSINE"}
    if quantized is not None:
        config["vector.quantization.enabled"] = quantized
    return {
        "name": f"vector_index_{label}_embedding",
        "type": "VECTOR",
        "labelsOrTypes": [label],
        "properties": ["embedding"],
        "state": "ONLINE",
        "populationPercent": 100.0,
        "options": {"indexProvider": "vector-2.0", "indexConfig": config},
    }


def test_vector_index_quantization_is_read_from_the_index_options() -> None:
    from graphmem.backends.neo4j.schema import IndexState, vector_index_quantized

    def state(options: dict[str, Any]) -> IndexState:
        return IndexState("v", "VECTOR", ("Entity",), ("embedding",), "ONLINE", 100.0, options)

    key = "vector.quantization.enabled"
    assert vector_index_quantized(state({"indexConfig": {key: True}}))
    assert not vector_index_quantized(state({"indexConfig": {key: False}}))
    # Not reported: off on the first provider (it had none), Neo4j's default (on) after it.
    assert not vector_index_quantized(state({"indexProvider": "vector-1.0", "indexConfig": {}}))
    assert vector_index_quantized(state({"indexProvider": "vector-2.0", "indexConfig": {}}))


@pytest.fixture
def schema_server(monkeypatch: pytest.MonkeyPatch, server: FakeServer) -> FakeServer:
    from graphmem.backends.neo4j import schema

    def fake_open(url: str, **options: Any) -> Neo4jStore:
        return Neo4jStore(server, parse_connection(url))  # type: ignore[arg-type]

    monkeypatch.setattr(schema, "open_neo4j", fake_open)
    monkeypatch.setattr(schema, "_install_node_classes", lambda store, out: None)
    return server


def _listing(server: FakeServer, quantized: bool | None) -> None:
    """SHOW INDEXES as the fake server answers it: quantized before any re-creation."""

    def answer(params: dict[str, Any]) -> list[dict[str, Any]]:
        created = [p for n, p in server.calls if n.endswith("_vector_index") and "create" in n]
        dropped = {p["name"] for n, p in server.calls if n == "schema/drop_index"}
        rows = []
        for label in ("Entity", "Turn", "Chunk"):
            name = f"vector_index_{label}_embedding"
            if quantized is not None and name not in dropped:
                rows.append(_vector_index_row(label, quantized=quantized))
            elif created:
                rows.append(_vector_index_row(label, quantized=created[-1]["quantization"]))
        return rows

    server.overrides["schema/list_indexes"] = answer


@pytest.mark.parametrize("quantization", [False, True])
def test_install_creates_vector_indexes_with_the_quantization_asked(
    schema_server: FakeServer, quantization: bool
) -> None:
    from graphmem.backends.neo4j.schema import install_schema

    _listing(schema_server, None)
    report = install_schema("bolt://h:7687", quantization=quantization, wait=False)
    created = [(n, p) for n, p in schema_server.calls if n.endswith("_vector_index")]
    assert [n for n, _ in created] == [
        "schema/create_entity_vector_index",
        "schema/create_turn_vector_index",
        "schema/create_chunk_vector_index",
    ]
    assert all(p == {"dimension": 384, "quantization": quantization} for _, p in created)
    assert report.quantization is quantization


LABELS = ("Entity", "Turn", "Chunk")


def test_install_refuses_an_index_of_other_quantization_unless_rebuilding(
    schema_server: FakeServer,
) -> None:
    from graphmem.backends.neo4j.schema import install_schema

    _listing(schema_server, True)  # indexes made with Neo4j's default
    with pytest.raises(InvalidInput, match="quantization on, not off") as info:
        install_schema("bolt://h:7687", wait=False)
    assert "rebuild" in str(info.value) and "DROP INDEX vector_index_" in str(info.value)
    assert not [n for n, _ in schema_server.calls if "vector_index" in n]  # nothing changed

    schema_server.calls.clear()
    report = install_schema("bolt://h:7687", wait=False, rebuild_vector_indexes=True)
    names = [
        n if n != "schema/drop_index" else f"drop {p['name']}"
        for n, p in schema_server.calls
        if "vector_index" in n or "vector_index" in str(p.get("name", ""))
    ]
    assert names == [f"drop vector_index_{label}_embedding" for label in LABELS] + [
        "schema/create_entity_vector_index",
        "schema/create_turn_vector_index",
        "schema/create_chunk_vector_index",
    ]
    assert report.quantization is False


def test_install_drops_the_old_tenant_indexes(schema_server: FakeServer) -> None:
    from graphmem.backends.neo4j.schema import LEGACY_TENANT_INDEXES, install_schema

    install_schema("bolt://h:7687", wait=False)
    dropped = [p["name"] for n, p in schema_server.calls if n == "schema/drop_index"]
    assert set(LEGACY_TENANT_INDEXES) <= set(dropped)


def test_install_refuses_a_bad_quantization(schema_server: FakeServer) -> None:
    from graphmem.backends.neo4j.schema import install_schema

    with pytest.raises(InvalidInput, match="quantization"):
        install_schema("bolt://h:7687", quantization="on")  # type: ignore[arg-type]
    assert schema_server.calls == []


# ----------------------------------------------------------------------------- access modes

READ, WRITE, REFUSED = "read", "write", "refused"

ACCESS: dict[str, tuple[str, Callable[[Neo4jStore], Any]]] = {
    "upsert_entities": (WRITE, lambda s: s.upsert_entities("t", [ent("mira")])),
    "get_entity": (READ, lambda s: s.get_entity("t", "mira")),
    "get_entities": (READ, lambda s: s.get_entities("t", ["mira"])),
    "update_entity": (WRITE, lambda s: s.update_entity("t", "mira", name="M")),
    "delete_entities": (WRITE, lambda s: s.delete_entities("t", ["mira"])),
    "find_entities": (READ, lambda s: s.find_entities("t", EntityFilter(type="npc"))),
    "count_entities": (READ, lambda s: s.count_entities("t")),
    "upsert_relationships": (
        WRITE,
        lambda s: s.upsert_relationships(
            "t", [Relationship(source_id="mira", target_id="tomas", type="knows")]
        ),
    ),
    "get_relationships": (READ, lambda s: s.get_relationships("t", "mira", RelationshipFilter())),
    "delete_relationship": (WRITE, lambda s: s.delete_relationship("t", "mira", "tomas", "knows")),
    "invalidate_relationship": (
        WRITE,
        lambda s: s.invalidate_relationship("t", "mira", "tomas", "knows"),
    ),
    "count_relationships": (READ, lambda s: s.count_relationships("t")),
    "neighbors": (READ, lambda s: s.neighbors("t", "mira", depth=2)),
    "find_path": (READ, lambda s: s.find_path("t", "mira", "tomas")),
    "visible_subgraph": (READ, lambda s: s.visible_subgraph("t", "mira")),
    "identity_snapshot": (READ, lambda s: s.identity_snapshot("t", "mira")),
    "append_turn": (
        WRITE,
        lambda s: s.append_turn("t", Turn(session_id="s", role="player", content="hi")),
    ),
    "append_turns": (
        WRITE,
        lambda s: s.append_turns("t", "s", [Turn(session_id="s", role="player", content="hi")]),
    ),
    "get_turn": (READ, lambda s: s.get_turn("t", "t1")),
    "get_turns": (READ, lambda s: s.get_turns("t", ["t1"])),
    "head": (READ, lambda s: s.head("t", "s")),
    "fork": (WRITE, lambda s: s.fork("t", "s", "t1")),
    "branch": (READ, lambda s: s.branch("t", "s")),
    "list_turns": (READ, lambda s: s.list_turns("t", "s")),
    "count_turns": (READ, lambda s: s.count_turns("t")),
    "delete_turn": (WRITE, lambda s: s.delete_turn("t", "t1")),
    "delete_conversation": (WRITE, lambda s: s.delete_conversation("t", "s")),
    "search_turns": (READ, lambda s: s.search_turns("t", TurnFilter(text="dragon"))),
    "list_sessions": (READ, lambda s: s.list_sessions("t")),
    "put_records": (WRITE, lambda s: s.put_records("t", "fact", [Record(kind="fact", data={})])),
    "get_records": (READ, lambda s: s.get_records("t", "fact", ["r1"])),
    "turn_window": (READ, lambda s: s.turn_window("t", ["t1"], depth=1)),
    "relationship_patterns": (READ, lambda s: s.relationship_patterns("t")),
    "relationship_cooccurrence": (READ, lambda s: s.relationship_cooccurrence("t")),
    "write_records": (
        WRITE,
        lambda s: s.write_records("t", [Record(kind="fact", data={})], {"audit": ["a1"]}),
    ),
    "write_changes": (
        WRITE,
        lambda s: s.write_changes(
            "t", ChangeSet(records=[Record(kind="fact", data={})], delete_entities=["gone"])
        ),
    ),
    "get_record": (READ, lambda s: s.get_record("t", "fact", "r1")),
    "find_records": (READ, lambda s: s.find_records("t", "fact")),
    "delete_records": (WRITE, lambda s: s.delete_records("t", "fact", ["r1"])),
    "count_records": (READ, lambda s: s.count_records("t", "fact")),
    "upsert_chunks": (WRITE, lambda s: s.upsert_chunks("t", [Chunk(id="c1", text="lore")])),
    "get_chunks": (READ, lambda s: s.get_chunks("t", ["c1"])),
    "delete_chunks": (WRITE, lambda s: s.delete_chunks("t", ["c1"])),
    "count_chunks": (READ, lambda s: s.count_chunks("t")),
    "link_mentions": (WRITE, lambda s: s.link_mentions("t", "chunk", {"c1": ["mira"]})),
    "get_mentions": (READ, lambda s: s.get_mentions("t", "chunk", ["c1"])),
    "find_mentioning": (READ, lambda s: s.find_mentioning("t", "chunk", ["mira"])),
    "put_embeddings": (WRITE, lambda s: s.put_embeddings("t", "entity", ["mira"], [[3.0, 4.0]])),
    "embedding_dimension": (READ, lambda s: s.embedding_dimension("t", "turn")),
    "count_embeddings": (READ, lambda s: s.count_embeddings("t", "chunk")),
    "vector_search": (READ, lambda s: s.vector_search("t", "entity", [1.0, 0.0], 3)),
    "fulltext_search": (READ, lambda s: s.fulltext_search("t", "chunk", "forge", 3)),
    "hybrid_search": (
        READ,
        lambda s: s.hybrid_search(
            "t", ["entity", "turn", "chunk"], vector=[1.0, 0.0], text="forge", k=3
        ),
    ),
    "expand": (READ, lambda s: s.expand("t", ["mira"], depth=2)),
    "entity_version": (READ, lambda s: s.entity_version("t")),
    "search_context": (
        READ,
        lambda s: s.search_context(
            "t",
            ["entity", "turn", "chunk"],
            vector=[1.0, 0.0],
            text="forge",
            k=3,
            scope_ids=["mira", "nobody"],
            window_depth=1,
        ),
    ),
    "gather": (
        READ,
        lambda s: s.gather(
            "t",
            chunk_ids=["c1"],
            turn_ids=["t1"],
            entity_ids=["mira"],
            mentions_of={"chunk": ["c1"]},
            seed_ids=["mira"],
            seed_mentions=True,
            depth=2,
            mentioning=["chunk", "turn"],
            mentioning_limit=5,
        ),
    ),
    "search_scoped": (
        READ,
        lambda s: s.search_scoped(
            "t",
            [ScopedSearch(["chunk", "turn"], [1.0, 0.0], "forge", 3, ["mira"])],
            read=True,
        ),
    ),
    "dump": (READ, lambda s: s.dump("t")),
    "load": (
        WRITE,
        lambda s: s.load(
            "t",
            TenantDump(entities=[ent("a")], turns=[Turn(session_id="s", role="u", content="x")]),
        ),
    ),
    "clear": (WRITE, lambda s: s.clear("t")),
    "list_tenants": (READ, lambda s: s.list_tenants()),
    "revision": (REFUSED, lambda s: s.revision("t")),
    "identity_expiry": (REFUSED, lambda s: s.identity_expiry("t", "a", after=datetime.now(UTC))),
}
"""Every operation of the GraphStore protocol and the access mode its transactions use:
on a cluster (neo4j:// URLs) reads go to followers and read replicas, writes to the leader.
Refused: ``UnsupportedOperation`` without a query (no revision: others write the database)."""


def test_every_store_operation_has_an_access_mode() -> None:
    from graphmem.core.store import GraphStore, protocol_members

    operations = protocol_members(GraphStore) - {"url", "capabilities", "close"}
    assert set(ACCESS) == operations, "classify every new operation as a read or a write"


@pytest.mark.parametrize("operation", sorted(ACCESS))
def test_each_operation_runs_in_transactions_of_its_access_mode(
    store: Neo4jStore, server: FakeServer, operation: str
) -> None:
    mode, call = ACCESS[operation]
    if mode == REFUSED:
        with pytest.raises(UnsupportedOperation, match="no revision"):
            call(store)
        assert server.calls == [], f"{operation} sent {server.calls}"
        return
    call(store)
    assert server.access, f"{operation} sent nothing"
    assert set(server.access) == {mode}, (operation, server.access)


# ----------------------------------------------------------------------------- full-text clause cap


def test_a_long_question_keeps_the_most_informative_words_within_the_clause_cap() -> None:
    from graphmem.backends.neo4j.fulltext import MAX_QUERY_TERMS, lucene_query

    filler = [f"w{i}" for i in range(5_000)]  # 5,000 distinct short words
    text = " ".join(filler[:2500] + ["blacksmith", "drowned"] + filler[2500:])
    query = lucene_query(text)
    assert query is not None
    terms = query.split(" OR ")
    assert len(terms) == MAX_QUERY_TERMS < 1024  # Lucene's maxClauseCount
    assert "blacksmith" in terms and "drowned" in terms  # the longest words are kept
    assert terms.index("blacksmith") < terms.index("drowned")  # in their order


def test_a_run_of_ideographs_counts_one_clause_per_character() -> None:
    from graphmem.backends.neo4j.fulltext import MAX_QUERY_TERMS, informative_words

    run = "铁匠" * 800  # one \\w+ word, 1,600 tokens for Lucene's analyzer
    assert informative_words(["smith", run, "forge"]) == [run[:MAX_QUERY_TERMS]]
    short = "铁匠" * 100
    assert informative_words(["smith", short, "forge"]) == ["smith", short, "forge"]
    assert informative_words(["smith", run[:511], "forge"]) == ["smith", run[:511]]


# ----------------------------------------------------------------------------- depth caps


@pytest.mark.parametrize(
    "call",
    [
        lambda s, d: s.neighbors("t", "mira", depth=d),
        lambda s, d: s.visible_subgraph("t", "mira", depth=d),
        lambda s, d: s.expand("t", ["mira"], depth=d),
    ],
    ids=["neighbors", "visible_subgraph", "expand"],
)
def test_walks_are_capped_at_max_depth(
    store: Neo4jStore, server: FakeServer, call: Callable[[Neo4jStore, int], Any]
) -> None:
    from graphmem.backends.neo4j.store import MAX_DEPTH

    call(store, MAX_DEPTH)
    assert server.calls[-1][1]["depth"] == MAX_DEPTH
    server.calls.clear()
    for depth in (MAX_DEPTH + 1, 10**9):
        with pytest.raises(InvalidInput, match=f"at most {MAX_DEPTH}"):
            call(store, depth)
    assert server.calls == []


# ----------------------------------------------------------------------------- hybrid search

ALL_INDEXES = [
    {
        "name": f"vector_index_{label}_embedding",
        "type": "VECTOR",
        "state": "ONLINE",
        "options": {"indexConfig": {"vector.dimensions": 3}},
    }
    for label in ("Entity", "Turn", "Chunk")
]


def test_hybrid_search_of_three_kinds_is_one_query(
    store: Neo4jStore, server: FakeServer, events: list[TraceEvent]
) -> None:
    server.overrides["schema/list_indexes"] = lambda params: ALL_INDEXES
    store.vector_search("t", "entity", [1.0, 0.0, 0.0], 1)  # reads the index listing once
    server.calls.clear()
    events.clear()
    found = store.hybrid_search(
        "t", ["entity", "turn", "chunk"], vector=[3.0, 0.0, 4.0], text="the forge", k=5
    )
    assert [name for name, _ in server.calls] == ["search/get_search_context"]
    assert sum(e.round_trips for e in events) == 1
    [(_, params)] = server.calls
    assert params["vector"] == pytest.approx([0.6, 0.0, 0.8]) and params["text"] == "forge"
    assert params["fetch"] == 64 and params["k"] == 5
    assert params["turn_vector_index"] == "vector_index_Turn_embedding"
    assert params["chunk_text_index"] == "fulltext_index_Chunk_search_text"
    assert found["chunk"].vector == [SearchHit("chunk1", 0.5)]  # (1 + cos) / 2 = 0.75
    assert found["entity"].text == [SearchHit("entity1", 2.5)]


def test_hybrid_search_asks_only_for_the_kinds_and_parts_given(
    store: Neo4jStore, server: FakeServer
) -> None:
    found = store.hybrid_search("t", ["turn"], vector=None, text="forge", k=5)
    [(_, params)] = server.calls
    assert params["turn_text_index"] == "fulltext_index_Turn_search_text"
    assert [params[f"{k}_vector_index"] for k in ("entity", "turn", "chunk")] == [None] * 3
    assert params["entity_text_index"] is None and params["chunk_text_index"] is None
    assert list(found) == ["turn"] and found["turn"].vector == []
    server.calls.clear()
    assert store.hybrid_search("t", ["chunk"], vector=None, text="?!", k=5) == {
        "chunk": SearchPair([], [])
    }
    assert server.calls == []  # no words, no vector: nothing to ask


def test_hybrid_search_continues_a_ranking_the_first_fetch_does_not_fill(
    store: Neo4jStore, server: FakeServer
) -> None:
    server.overrides["schema/list_indexes"] = lambda params: ALL_INDEXES

    def crowded(params: dict[str, Any]) -> list[dict[str, Any]]:
        searches = [
            {
                "kind": "chunk",
                "how": how,
                "dimension": 3 if how == "vector" else None,
                "fetched": params["fetch"],
                "hits": [{"id": "c1", "score": 0.9}],
            }
            for how in ("vector", "text")
        ]
        return [{"searches": searches, "window": [], "unknown": [], "count": 0, "latest": None}]

    server.overrides["search/get_search_context"] = crowded
    found = store.hybrid_search("t", ["chunk"], vector=[1.0, 0.0, 0.0], text="forge", k=5)
    sent = [(name, params.get("fetch")) for name, params in server.calls]
    assert sent[:2] == [("schema/list_indexes", None), ("search/get_search_context", 64)]
    assert ("search/query_chunk_vectors", 256) in sent  # the next fetch, not the first again
    assert ("search/query_chunk_text", 256) in sent
    assert found["chunk"].text == [SearchHit("c1", 2.5)]  # what query_chunk_text answered


def test_hybrid_search_scans_a_kind_without_an_index_of_the_dimension(
    store: Neo4jStore, server: FakeServer
) -> None:
    found = store.hybrid_search("t", ["entity"], vector=[1.0, 0.0], text=None, k=3)
    names = [name for name, _ in server.calls]
    assert names == ["schema/list_indexes", "search/scan_entity_vectors"]
    assert found["entity"].vector == [SearchHit("mira", 0.5)]


def test_hybrid_search_falls_back_to_each_kind_when_an_index_fails(
    store: Neo4jStore, server: FakeServer
) -> None:
    def failed(params: dict[str, Any]) -> list[dict[str, Any]]:
        raise Neo4jError._hydrate_neo4j(code="Neo.ClientError.Procedure.ProcedureCallFailed")

    server.overrides["search/get_search_context"] = failed
    found = store.hybrid_search("t", ["chunk", "turn"], vector=None, text="forge", k=3)
    names = [name for name, _ in server.calls]
    assert names == [
        "search/get_search_context",
        "search/query_chunk_text",
        "search/query_turn_text",
    ]
    assert found["chunk"].text == [SearchHit("c1", 2.5)]


def test_hybrid_search_matches_each_kind_searched_alone(
    store: Neo4jStore, server: FakeServer
) -> None:
    from graphmem.core.store import search_each

    server.overrides["schema/list_indexes"] = lambda params: ALL_INDEXES

    def same(params: dict[str, Any]) -> list[dict[str, Any]]:
        # What the one-kind queries answer (canned): "mira" by vector, "c1" by text.
        hit = {"vector": {"id": "mira", "score": 0.75}, "text": {"id": "c1", "score": 2.5}}
        [answer] = canned("search/get_search_context", params)
        searches = [dict(row, hits=[hit[row["how"]]]) for row in answer["searches"]]
        return [dict(answer, searches=searches)]

    server.overrides["search/get_search_context"] = same
    kinds: list[Any] = ["entity", "turn", "chunk"]
    for text in ("forge", None):
        args: dict[str, Any] = {"vector": [0.0, 1.0, 0.0], "text": text, "k": 1}
        assert store.hybrid_search("t", kinds, **args) == search_each(store, "t", kinds, **args)


# ----------------------------------------------------------------------------- times on the wire


def test_hot_paths_send_times_as_text_and_read_them_back(
    store: Neo4jStore, server: FakeServer
) -> None:
    # The driver converts a Python datetime to a Bolt DateTime in 60-240 us; the text
    # costs one. Ingest, append and the snapshot send text; the queries store DateTime.
    later = T0 + timedelta(days=2)
    store.upsert_entities("t", [ent("mira").model_copy(update={"created_at": T0})])
    rel = Relationship(source_id="mira", target_id="tomas", type="knows", valid_at=T0)
    store.upsert_relationships("t", [rel.model_copy(update={"created_at": later})])
    store.append_turn("t", Turn(session_id="s", role="player", content="hi", created_at=T0))
    store.identity_snapshot("t", "mira")
    sent = {name: params for name, params in server.calls}
    [entity_row] = sent["entities/upsert_entities"]["rows"]
    assert entity_row["created_at"] == "2024-05-01T12:00:00.123456+00:00"
    assert isinstance(sent["entities/upsert_entities"]["now"], str)
    columns = sent["relationships/upsert_relationships"]
    assert columns["created_at"] == [later.isoformat()] and columns["valid_at"] == [T0.isoformat()]
    assert columns["invalid_at"] is None and columns["expired_at"] is None  # null in every row
    append = sent["conversations/append_turn"]
    assert append["created_at"] == T0.isoformat() and "created_at" not in append["props"]
    assert isinstance(sent["traversal/get_identity_snapshot"]["at"], str)


def test_a_replaced_entity_comes_back_with_the_times_the_server_kept(
    store: Neo4jStore, server: FakeServer
) -> None:
    kept = {"id": "mira", "created_at": "2020-01-01T00:00Z", "updated_at": T0.isoformat()}
    server.overrides["entities/upsert_entities"] = lambda params: [
        {"written": 2, "changed": [kept]}
    ]
    given = [ent("mira"), ent("tomas")]
    mira, tomas = store.upsert_entities("t", given)
    assert mira.created_at == datetime(2020, 1, 1, tzinfo=UTC) and mira.updated_at == T0
    assert tomas is given[1]  # stored as sent: the frozen model itself, no copy


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01T12:00:00.123456Z", T0),
        ("2024-05-01T12:00:00.123456789Z", T0),  # nanoseconds cut to microseconds
        ("2024-05-01T14:00:00.123456+02:00", T0),
        ("2024-05-01T14:00:00.123456+02:00[Europe/Paris]", T0),
        ("2024-05-01T12:00Z", T0.replace(microsecond=0)),
    ],
)
def test_times_read_as_text_become_utc_datetimes(text: str, expected: datetime) -> None:
    from graphmem.backends.neo4j.mapping import to_datetime

    assert to_datetime(text) == expected and to_datetime(text).tzinfo is UTC


def test_a_relationship_read_with_null_properties_takes_the_defaults() -> None:
    from graphmem.backends.neo4j.mapping import relationship_from_row

    row = {
        "source_id": "a",
        "target_id": "b",
        "type": "knows",
        "attributes_json": None,
        "session_id": None,
        "confidence": None,
        "source": None,
        "confirmed": None,
        "evidence": None,
        "valid_at": None,
        "invalid_at": None,
        "created_at": "2024-05-01T12:00:00.123456Z",
        "expired_at": None,
    }
    rel = relationship_from_row(row)
    assert rel.provenance.confidence == 1.0 and rel.provenance.source == "stated"
    assert not rel.provenance.confirmed and rel.created_at == T0 and rel.attributes == {}


def test_batch_writes_send_every_row_time_as_text(store: Neo4jStore, server: FakeServer) -> None:
    store.upsert_chunks("t", [Chunk(id="c1", text="lore", created_at=T0)])
    store.put_records("t", "fact", [Record(kind="fact", data={}, created_at=T0, updated_at=T0)])
    store.load("t", TenantDump(turns=[Turn(session_id="s", role="u", content="x", created_at=T0)]))
    sent = {name: params for name, params in server.calls}
    assert sent["chunks/upsert_chunks"]["rows"][0]["created_at"] == T0.isoformat()
    record_row = sent["records/put_records"]["rows"][0]
    assert record_row["created_at"] == record_row["updated_at"] == T0.isoformat()
    assert isinstance(sent["records/put_records"]["now"], str)
    [turn] = sent["tenant/create_turns"]["sessions"][0]["turns"]
    assert turn["created_at"] == T0.isoformat()


# ----------------------------------------------------------------------------- bookmarks


def test_bookmarks_go_from_one_store_to_another(server: FakeServer) -> None:
    settings = parse_connection("neo4j://db.example:7687")
    first = Neo4jStore(server, settings)  # type: ignore[arg-type]
    assert first.bookmarks == []
    first.add_bookmarks(["FB:kcwQ1", "FB:kcwQ2"])
    second = Neo4jStore(server, settings, bookmarks=first.bookmarks)  # type: ignore[arg-type]
    assert second.bookmarks == ["FB:kcwQ1", "FB:kcwQ2"]
    for bad in ("FB:kcwQ1", [""], [3]):
        with pytest.raises(InvalidInput, match="bookmark"):
            second.add_bookmarks(bad)  # type: ignore[arg-type]


def test_agent_turn_fields_round_trip_through_the_stored_properties() -> None:
    from graphmem.backends.neo4j.mapping import turn_from_row, turn_props

    turn = Turn(
        session_id="s",
        role="assistant",
        content="In 1802.",
        created_at=T0,
        trajectory={"tools": [{"name": "search_lore", "summary": "bell"}], "reasoning": "r"},
        artifacts=[{"id": "a1", "title": "Chronicle", "media_type": "text/markdown"}],
        hidden_artifacts=[{"id": "h1", "uri": "file:///tmp/h1"}],
    )
    props = turn_props(turn)
    assert isinstance(props["trajectory_json"], str)
    assert turn_from_row({**props, "parent_id": None}) == turn
    plain = Turn(session_id="s", role="player", content="hi", created_at=T0)
    assert not {"trajectory_json", "artifacts_json", "hidden_artifacts_json"} & set(
        turn_props(plain)
    )
    assert turn_from_row({**turn_props(plain), "parent_id": None}) == plain


def test_list_tenants_is_one_query_across_tenants(store: Neo4jStore, server: FakeServer) -> None:
    with queries(server) as sent:
        assert store.list_tenants() == ["a", "b"]
    assert sent == ["admin/list_tenants"]
    store.close()
    with pytest.raises(StoreClosed):
        store.list_tenants()


@pytest.mark.parametrize("version", ["5.13.0", "5.25.1", "4.4.30"])
def test_a_server_older_than_5_26_is_refused_on_open(server: FakeServer, version: str) -> None:
    server.overrides["admin/ping_database"] = lambda params: [
        {"version": version, "edition": "community"}
    ]
    with pytest.raises(UnsupportedOperation, match=r"5\.26 or newer") as info:
        Neo4jStore(server, parse_connection("bolt://localhost")).ping()  # type: ignore[arg-type]
    assert info.value.data["version"] == version


@pytest.mark.parametrize("version", ["5.26.0", "5.26.19", "2025.01.0", "2026.10.1"])
def test_every_5_26_patch_and_later_is_served(server: FakeServer, version: str) -> None:
    server.overrides["admin/ping_database"] = lambda params: [
        {"version": version, "edition": "community"}
    ]
    store = Neo4jStore(server, parse_connection("bolt://localhost"))  # type: ignore[arg-type]
    store.ping()
    assert store.server_version == version


def test_a_stored_turn_read_back_equals_the_validated_turn() -> None:
    from graphmem.backends.neo4j.mapping import turn_from_row

    row = {
        "id": "t1",
        "session": "s",
        "role": "npc",
        "speaker": "Odile",
        "content": "Two coppers.",
        "summary": None,
        "turn_id": "m-7",
        "created_at": "2024-05-01T12:00:00.123456Z",
    }
    fast = turn_from_row(row, "t0")
    slow = Turn(
        id="t1",
        parent_id="t0",
        session_id="s",
        role="npc",
        speaker="Odile",
        content="Two coppers.",
        turn_id="m-7",
        created_at=datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC),
    )
    assert fast == slow and fast.model_dump() == slow.model_dump()
    assert fast.model_copy(update={"content": "x"}).content == "x"
    assert Turn.model_validate(fast.model_dump()) == fast


def test_batch_parameters_are_lists_with_a_short_repr(
    store: Neo4jStore, server: FakeServer
) -> None:
    # The driver formats repr() of every parameter into a debug line before it checks the
    # log level: ~10 us a relationship row. The rows go as a list whose repr is short.
    rels = [Relationship(source_id="mira", target_id=f"e{i}", type="knows") for i in range(20)]
    store.upsert_relationships("t", rels)
    [(name, params)] = [c for c in server.calls if c[0] == "relationships/upsert_relationships"]
    assert isinstance(params["target_ids"], list) and len(params["target_ids"]) == 20
    assert repr(params["target_ids"]) == "<20 values>"
    assert params["target_ids"] == sorted(f"e{i}" for i in range(20))


def test_relationship_properties_at_their_empty_defaults_are_not_sent(
    store: Neo4jStore, server: FakeServer
) -> None:
    plain = Relationship(source_id="mira", target_id="tomas", type="knows")
    full = Relationship(
        source_id="mira",
        target_id="forge",
        type="knows",
        attributes={"since": 3},
        provenance=Provenance(session_id="s1", confirmed=True, evidence=("t1",)),
    )
    store.upsert_relationships("t", [plain, full])
    params = server.calls[-1][1]
    assert params["target_ids"] == ["forge", "tomas"]  # sorted by source, then target
    assert params["confidence"] == [1.0, 1.0] and params["source"] == ["stated", "stated"]
    # Null where the property is at its default (not stored), the whole column when it
    # is in every row.
    assert params["attributes_json"] == ['{"since":3}', None]
    assert params["session_id"] == ["s1", None]
    assert params["confirmed"] == [True, None]
    assert params["evidence"] == [["t1"], None]
    store.upsert_relationships("t", [plain])
    params = server.calls[-1][1]
    assert params["confidence"] == [1.0] and params["source"] == ["stated"]
    for column in ("attributes_json", "session_id", "confirmed", "evidence", "valid_at"):
        assert params[column] is None, column
