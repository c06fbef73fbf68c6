"""Query plans and their costs on a live Neo4j, read with EXPLAIN and PROFILE.

Speed is not asserted here (the machine is shared); what is asserted is what makes it:
the operators a plan is made of (no scan of every node or relationship where graphmem
means to start from an index seek or a bound node) and the database hits a query makes
as the data grows (linear, not quadratic). Each query is graphmem's own file with the
parameters the store sends; a profiled write runs in a transaction that is rolled back.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from graphmem import (
    Entity,
    GraphStore,
    Relationship,
    TenantDump,
    TraceEvent,
    Turn,
    open_store,
)

pytestmark = pytest.mark.neo4j
neo4j = pytest.importorskip("neo4j", reason="the neo4j extra is not installed")

SCANS = (
    "AllNodesScan",
    "NodeByLabelScan",
    "UnionNodeByLabelsScan",
    "IntersectionNodeByLabelsScan",
    "AllRelationshipsScan",
    "DirectedAllRelationshipsScan",
    "UndirectedAllRelationshipsScan",
    "DirectedRelationshipTypeScan",
    "UndirectedRelationshipTypeScan",
    "DirectedUnionRelationshipTypesScan",
    "UndirectedUnionRelationshipTypesScan",
)
"""Operators that read every node or relationship (of a label or type): never wanted in
a query that starts from ids."""


def operators(plan: Mapping[str, Any]) -> list[str]:
    """Every operator of a plan, depth first (without the ``@database`` suffix)."""
    found = [str(plan["operatorType"]).split("@")[0]]
    for child in plan.get("children", []):
        found += operators(child)
    return found


def db_hits(profile: Mapping[str, Any]) -> int:
    """The database hits of a profiled plan, all operators."""
    return int(profile.get("dbHits", 0)) + sum(db_hits(c) for c in profile.get("children", []))


def explain(store: GraphStore, name: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
    """The plan the server picks for query ``name`` with ``params`` (nothing runs)."""
    from graphmem.backends.neo4j.queries import load_query

    driver = store.driver  # type: ignore[attr-defined]
    with driver.session(database=store.database) as session:  # type: ignore[attr-defined]
        summary = session.run("EXPLAIN " + load_query(name), dict(params)).consume()
    assert summary.plan is not None
    return summary.plan  # type: ignore[no-any-return]


def profile(store: GraphStore, name: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
    """Run query ``name`` under PROFILE in a transaction that is rolled back."""
    from graphmem.backends.neo4j.queries import load_query

    driver = store.driver  # type: ignore[attr-defined]
    with driver.session(database=store.database) as session:  # type: ignore[attr-defined]
        tx = session.begin_transaction()
        try:
            summary = tx.run("PROFILE " + load_query(name), dict(params)).consume()
        finally:
            tx.rollback()
    assert summary.profile is not None
    return summary.profile  # type: ignore[no-any-return]


@pytest.fixture
def traced(neo4j_url: str, schema: object) -> Iterator[tuple[GraphStore, list[TraceEvent]]]:
    events: list[TraceEvent] = []
    store = open_store(neo4j_url, tracer=events.append)
    yield store, events
    store.close()


def sent(events: Sequence[TraceEvent], name: str) -> list[Mapping[str, Any]]:
    """The parameters the store sent with query ``name``."""
    return [event.params for event in events if event.name == name]


# --------------------------------------------------------------------------- relationships


def _entities(n: int) -> list[Entity]:
    return [Entity(id=f"e{i}", type="npc", name=f"E {i}") for i in range(n)]


def _ring(n: int, step: int, kind: str = "knows") -> list[Relationship]:
    return [
        Relationship(source_id=f"e{i}", target_id=f"e{(i + step) % n}", type=kind) for i in range(n)
    ]


def test_relationship_upsert_never_scans_and_costs_the_same_per_row_as_the_store_grows(
    traced: tuple[GraphStore, list[TraceEvent]], tenant: str
) -> None:
    """Issue 16: MERGE (a)-[:$(type)]->(b) was planned as a scan of every relationship on a
    store whose statistics looked empty; the first 5,000-row batch after a clear took
    minutes. The plan must start from the two ends, whatever the statistics say."""
    store, events = traced
    n = 2000
    store.upsert_entities(tenant, _entities(n))
    store.clear(tenant)  # a freshly cleared tenant, as in the bench
    store.upsert_entities(tenant, _entities(n))
    events.clear()
    store.upsert_relationships(tenant, _ring(n, 1))
    [first] = sent(events, "relationships/upsert_relationships")

    plan = explain(store, "relationships/upsert_relationships", first)
    assert not set(operators(plan)) & set(SCANS), operators(plan)

    # The same rows again (all replaced) and new rows on a store with more relationships:
    # hits per row stay flat. A scan would add the store's relationship count per row.
    empty_rows = db_hits(profile(store, "relationships/upsert_relationships", first)) / n
    for step in (2, 3, 4):
        store.upsert_relationships(tenant, _ring(n, step, "trusts"))
    events.clear()
    store.upsert_relationships(tenant, _ring(n, 5, "fears"))
    [later] = sent(events, "relationships/upsert_relationships")
    grown_rows = db_hits(profile(store, "relationships/upsert_relationships", later)) / n
    assert grown_rows < 1.5 * empty_rows + 20, (empty_rows, grown_rows)
    assert store.count_relationships(tenant) == 5 * n


def test_concurrent_upserts_of_one_relationship_create_it_once(
    store: GraphStore, tenant: str
) -> None:
    import threading

    store.upsert_entities(tenant, _entities(3))
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(10):
                store.upsert_relationships(
                    tenant,
                    [
                        Relationship(source_id="e0", target_id="e1", type="knows"),
                        Relationship(source_id="e1", target_id="e2", type="knows"),
                    ],
                )
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert errors == []
    assert store.count_relationships(tenant) == 2


# --------------------------------------------------------------------------- conversations


def _chain(store: GraphStore, tenant: str, session: str, n: int) -> list[Turn]:
    """A session of ``n`` turns, each the parent of the next, loaded in one write."""
    turns, parent = [], None
    for i in range(n):
        turn = Turn(session_id=session, role="player", content=f"line {i}", parent_id=parent)
        turns.append(turn)
        parent = turn.id
    store.load(tenant, TenantDump(turns=turns))
    return turns


def test_branch_read_is_linear_in_the_branch_length(store: GraphStore, tenant: str) -> None:
    """Issue 16: (head)-[:PARENT*0..]->(root) enumerated every partial path; a 10,000-turn
    history ran for minutes. 1k and 10k branches: hits grow ~10x (linear), not ~100x."""
    from graphmem.backends.neo4j.store import NO_LIMIT

    chains = {n: _chain(store, tenant, f"s{n}", n) for n in (1_000, 10_000)}
    hits = {}
    for n in chains:
        params = {"tenant": tenant, "session_id": f"s{n}", "limit": NO_LIMIT}
        assert not set(operators(explain(store, "conversations/get_branch", params))) & set(SCANS)
        hits[n] = db_hits(profile(store, "conversations/get_branch", params))
    assert hits[10_000] < 15 * hits[1_000], hits

    branch = store.branch(tenant, "s10000")
    assert [t.id for t in branch] == [t.id for t in chains[10_000]]
    assert branch[0].parent_id is None
    assert [t.parent_id for t in branch[1:]] == [t.id for t in branch[:-1]]
    assert [t.id for t in store.branch(tenant, "s10000", limit=5)] == [t.id for t in branch[-5:]]


def test_branch_order_survives_fork_delete_and_load(store: GraphStore, tenant: str) -> None:
    chain = _chain(store, tenant, "s", 6)
    store.fork(tenant, "s", chain[2].id)
    fresh = store.append_turn(tenant, Turn(session_id="s", role="npc", content="after fork"))
    assert [t.id for t in store.branch(tenant, "s")] == [t.id for t in chain[:3]] + [fresh.id]
    store.delete_turn(tenant, chain[1].id)  # its child re-links to the root
    assert [t.id for t in store.branch(tenant, "s")] == [chain[0].id, chain[2].id, fresh.id]
    # A dump listing children before parents loads into the same order.
    turns = [Turn(session_id="t", role="npc", content="0")]
    for i in (1, 2):
        turns.append(Turn(session_id="t", role="npc", content=str(i), parent_id=turns[-1].id))
    store.load(tenant, TenantDump(turns=[turns[2], turns[0], turns[1]]))
    assert [t.id for t in store.branch(tenant, "t")] == [t.id for t in turns]


def test_append_costs_the_same_on_a_long_conversation(
    traced: tuple[GraphStore, list[TraceEvent]], tenant: str
) -> None:
    """Append is one query whose work does not grow with the conversation; PROFILE says
    where its time goes (printed with -s)."""
    store, events = traced
    _chain(store, tenant, "long", 5_000)
    store.append_turn(tenant, Turn(session_id="short", role="player", content="first"))
    hits = {}
    for session in ("short", "long"):
        events.clear()
        store.append_turn(tenant, Turn(session_id=session, role="player", content="probe"))
        [params] = sent(events, "conversations/append_turn")
        assert [e.round_trips for e in events] == [1]
        probe = dict(params, props=dict(params["props"], id=f"probe-{session}"))
        plan = profile(store, "conversations/append_turn", probe)
        assert not set(operators(plan)) & set(SCANS), operators(plan)
        hits[session] = db_hits(plan)
        print(f"append on {session}: {hits[session]} db hits; plan {operators(plan)}")
    assert hits["long"] <= hits["short"] + 10, hits


# --------------------------------------------------------------------------- index seeks, hubs


INDEX_SCANS = ("NodeIndexScan", "NodeIndexContainsScan", "NodeIndexEndsWithScan")
"""Operators that read a whole index: the plan of a cold store (issue 25) read every
entity of the tenant per row through a single-property ``tenant`` index."""


def test_batch_writes_seek_their_nodes_on_a_store_without_statistics(
    traced: tuple[GraphStore, list[TraceEvent]], tenant: str
) -> None:
    store, events = traced
    store.clear(tenant)
    events.clear()
    store.upsert_entities(tenant, _entities(500))
    store.upsert_relationships(tenant, _ring(500, 7))
    store.append_turns(
        tenant, "s", [Turn(session_id="s", role="npc", content=f"{i}") for i in range(50)]
    )
    for name in (
        "entities/upsert_entities",
        "relationships/upsert_relationships",
        "conversations/append_turns",
    ):
        [params] = sent(events, name)
        if name == "conversations/append_turns":  # new ids: the turns are stored already
            params = dict(params, session_id="profiled")
            params["rows"] = [
                dict(row, props=dict(row["props"], id=f"p{i}", session="profiled"))
                for i, row in enumerate(params["rows"])
            ]
        plan = profile(store, name, params)
        ops = operators(plan)
        assert not set(ops) & {*SCANS, *INDEX_SCANS}, (name, ops)
        rows = len(params["rows"] if "rows" in params else params["index"])  # rows or columns
        # A seek per node and a few hits per property written: bounded per row.
        assert db_hits(plan) / rows < 60, (name, db_hits(plan) / rows)


def test_a_hub_costs_no_more_per_relationship_than_a_leaf(
    traced: tuple[GraphStore, list[TraceEvent]], tenant: str
) -> None:
    """The existence check of an upsert expands between two bound ends from the one with
    fewer relationships (Expand(Into)): a hub NPC with thousands of relationships costs a
    new relationship to a leaf what a leaf costs, not its degree."""
    store, events = traced
    n = 3_000
    store.upsert_entities(tenant, [*_entities(n), Entity(id="hub", type="npc", name="Hub")])
    rels = [Relationship(source_id="hub", target_id=f"e{i}", type="knows") for i in range(n)]
    store.upsert_relationships(tenant, rels[: n - 200])
    events.clear()
    store.upsert_relationships(tenant, rels[n - 200 :])
    [params] = sent(events, "relationships/upsert_relationships")
    plan = profile(store, "relationships/upsert_relationships", params)
    assert "Expand(Into)" in operators(plan)
    per_row = db_hits(plan) / 200
    assert per_row < 100, per_row  # expanding the hub would be about n per row


# --------------------------------------------------------------------------- the wire


class WireLog:
    """Counts the network round trips the driver makes, from its own wire log.

    The driver logs every Bolt message it sends (``C: RUN``) and receives (``S: SUCCESS``)
    on ``neo4j.io`` at DEBUG; a round trip is a batch of sends followed by a receive.
    """

    def __init__(self) -> None:
        self.trips = 0
        self.messages: list[str] = []
        self._last = ""
        self._pattern = re.compile(r"\]\s+([CS]): (?!<)(\w+)(.*)")
        self._logger = logging.getLogger("neo4j.io")
        self._handler = logging.Handler(logging.DEBUG)
        self._handler.emit = self._emit  # type: ignore[method-assign]
        self._level = self._logger.level

    def _emit(self, record: Any) -> None:
        match = self._pattern.search(record.getMessage())
        if match is None:
            return
        side, message, rest = match.groups()
        if message in ("HELLO", "LOGON", "GOODBYE", "RESET", "ROUTE", "TELEMETRY"):
            return  # connection upkeep, not the operation's
        self.messages.append(f"{side}: {message}{rest}")
        if side == "S" and self._last == "C":
            self.trips += 1
        self._last = side

    def __enter__(self) -> WireLog:
        self._logger.addHandler(self._handler)
        self._logger.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc: object) -> None:
        self._logger.removeHandler(self._handler)
        self._logger.setLevel(self._level)


def _operations(store: GraphStore, tenant: str) -> dict[str, Any]:
    store.upsert_entities(tenant, _entities(3))
    store.upsert_relationships(tenant, _ring(3, 1))
    first = store.append_turn(tenant, Turn(session_id="s", role="npc", content="hello e0"))
    return {
        "upsert_entities": lambda: store.upsert_entities(tenant, _entities(3)),
        "upsert_relationships (one type)": lambda: store.upsert_relationships(tenant, _ring(3, 1)),
        "upsert_relationships (two types)": lambda: store.upsert_relationships(
            tenant, [*_ring(3, 1), *_ring(3, 2, "trusts")]
        ),
        "append_turn": lambda: store.append_turn(
            tenant, Turn(session_id="s", role="npc", content="hi")
        ),
        "append_turns": lambda: store.append_turns(
            tenant, "s", [Turn(session_id="s", role="npc", content=str(i)) for i in range(3)]
        ),
        "branch": lambda: store.branch(tenant, "s"),
        "identity_snapshot": lambda: store.identity_snapshot(tenant, "e0"),
        "get_entities": lambda: store.get_entities(tenant, ["e0", "e1"]),
        "update_entity": lambda: store.update_entity(tenant, "e0", name="E zero"),
        "fork": lambda: store.fork(tenant, "s", first.id),
        "gather": lambda: store.gather(tenant, seed_ids=["e0"], depth=2),
    }


def test_the_tracer_counts_the_round_trips_on_the_wire(
    traced: tuple[GraphStore, list[TraceEvent]], tenant: str
) -> None:
    store, events = traced
    operations = _operations(store, tenant)
    for name, call in operations.items():
        call()  # a pooled connection is open: its HELLO is not the operation's
        events.clear()
        with WireLog() as wire:
            call()
        traced_trips = sum(e.round_trips for e in events)
        assert traced_trips == wire.trips, (name, traced_trips, wire.messages)
        one_statement = ("upsert_", "append_turn", "branch", "identity", "get_", "gather")
        if name.startswith(one_statement) and "two types" not in name:
            assert wire.trips == 1, (name, wire.messages)  # one statement, auto-commit


def test_reads_ask_for_read_access_and_writes_for_write_access(
    neo4j_url: str, schema: object, tenant: str
) -> None:
    """Behind neo4j:// a read goes to a follower when the server says it may: every read
    of the store is sent with read access (``mode: r``), every write without it."""
    routing = "neo4j://" + neo4j_url.split("://", 1)[1]
    with open_store(routing) as store:
        operations = _operations(store, tenant)
        reads = {"branch", "identity_snapshot", "get_entities", "gather"}
        for name, call in operations.items():
            call()
            with WireLog() as wire:
                call()
            sent = [m for m in wire.messages if m.startswith(("C: RUN", "C: BEGIN"))]
            assert sent, name
            if name in reads:
                assert all("'mode': 'r'" in m for m in sent), (name, sent)
            else:
                assert not any("'mode': 'r'" in m for m in sent), (name, sent)
