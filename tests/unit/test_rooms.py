"""The contract's rooms, which rooms a store satisfies, and backends as registry objects."""

import subprocess
import sys
from importlib.metadata import entry_points
from itertools import combinations

import pytest

import graphmem
from graphmem import BackendUnavailable, InvalidInput, StoreReadOnly, UnsupportedOperation
from graphmem.backends.builtin import NEO4J, NETWORKX
from graphmem.core.contract import (
    ROOMS,
    BaseStore,
    ConversationStore,
    EntityGraphStore,
    RecordStore,
    SearchStore,
    TenantAdmin,
    protocol_members,
    satisfied_protocols,
    store_supports,
)
from graphmem.core.registry import ENTRY_POINT_GROUP, Backend, get_backend, install_schema
from graphmem.core.store import GraphStore, register_backend


def test_graph_store_is_the_union_of_the_rooms_which_do_not_overlap():
    rooms = {room: protocol_members(room) for room in ROOMS}
    assert set().union(*rooms.values()) == protocol_members(GraphStore)
    for a, b in combinations(rooms, 2):
        assert not rooms[a] & rooms[b], (a.__name__, b.__name__)
    assert set(GraphStore.__mro__) >= set(ROOMS)
    assert {room.__name__: len(members) for room, members in rooms.items()} == {
        "BaseStore": 3,
        "EntityGraphStore": 21,
        "ConversationStore": 14,
        "SearchStore": 17,
        "RecordStore": 8,
        "TenantAdmin": 4,
    }


def test_every_member_keeps_its_docstring():
    for room in ROOMS:
        for name in protocol_members(room):
            member = vars(room)[name]
            doc = (member.fget if isinstance(member, property) else member).__doc__
            assert doc and doc.strip(), f"{room.__name__}.{name}"


def test_the_store_types_are_importable_from_graphmem_store_as_before():
    import graphmem.core.store as store

    for name in (
        "TenantDump",
        "SearchHit",
        "SearchPair",
        "RelationshipPattern",
        "RoleCooccurrence",
        "JSONScalar",
        "MAX_TURN_WINDOW",
        "open_store",
        "register_backend",
        "registered_schemes",
        "install_schema",
        "ENTRY_POINT_GROUP",
        "ChangeSet",
        "SearchContext",
        "Gathered",
        "WRITE_METHODS",
        "ReadOnlyStore",
        "StoreCheck",
        "check_store",
        "check_changes",
        "stored_changes",
        "check_gather",
    ):
        assert hasattr(store, name), name
    assert graphmem.TenantDump is store.TenantDump
    assert graphmem.ChangeSet is store.ChangeSet


def test_the_writes_are_operations_of_the_contract():
    from graphmem.core.contract import WRITE_METHODS

    assert protocol_members(GraphStore) > WRITE_METHODS
    assert not WRITE_METHODS & protocol_members(BaseStore)
    assert "write_changes" in protocol_members(RecordStore)


class _RecordsOnly:
    """A partial store: the base and the records room, and a field named like an operation."""

    url = "records-only://"
    capabilities = frozenset()

    def close(self):
        pass

    def put_records(self, tenant, kind, records):
        return []

    def write_records(self, tenant, put=(), delete=None):
        return []

    def write_changes(self, tenant, changes):
        return changes

    def get_record(self, tenant, kind, record_id):
        raise KeyError(record_id)

    def get_records(self, tenant, kind, record_ids):
        return []

    def find_records(self, tenant, kind, **conditions):
        return []

    def delete_records(self, tenant, kind, ids):
        return 0

    def count_records(self, tenant, kind):
        return 0

    dump = "not callable"


def test_a_partial_store_satisfies_only_its_rooms():
    store = _RecordsOnly()
    assert satisfied_protocols(store) == {BaseStore, RecordStore}
    assert store_supports(store, RecordStore)
    assert not store_supports(store, TenantAdmin)  # dump is there but not callable
    assert not store_supports(store, GraphStore)
    assert isinstance(store, RecordStore) and not isinstance(store, GraphStore)


def test_the_memory_store_satisfies_every_room_even_closed():
    store = graphmem.open_store("memory://")
    store.close()
    assert satisfied_protocols(store) == frozenset(ROOMS)
    for room in (EntityGraphStore, ConversationStore, SearchStore):
        assert isinstance(store, room)


def test_protocol_members_refuses_a_class_that_is_not_a_protocol():
    with pytest.raises(TypeError, match="not a typing.Protocol"):
        protocol_members(dict)


def test_the_built_in_backends_come_from_graphmem_s_own_entry_points():
    found = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    expected = {
        "memory": NETWORKX,
        "file": NETWORKX,
        "neo4j": NEO4J,
        "neo4j+s": NEO4J,
        "bolt": NEO4J,
        "bolt+s": NEO4J,
    }
    for scheme, backend in expected.items():
        ep = found[scheme]
        assert ep.dist is not None and ep.dist.name == "graphmem"
        assert ep.load() is backend
        assert scheme in backend.schemes
        assert get_backend(f"{scheme}://host") is backend
    assert set(expected) <= set(graphmem.registered_schemes())


def test_loading_an_entry_point_imports_no_backend_library():
    code = (
        "import sys, graphmem.core.registry as r; b = r.get_backend('neo4j'); "
        "print(b.name, ','.join(m for m in ('networkx', 'neo4j', 'neomodel') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["neo4j"]


def test_import_graphmem_does_not_read_entry_points():
    code = "import sys, graphmem; print('importlib.metadata' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_embedded_backend_keeps_no_schema():
    assert install_schema("memory://") is None
    assert NETWORKX.schema_installer is None and NEO4J.schema_installer is not None


def test_a_plugin_joins_the_schema_installer_table_through_its_backend():
    installed = []

    def installer(url, **options):
        installed.append((url, options))
        return {"indexes": ["by_name"]}

    backend = Backend(
        "schemaful",
        ("schemaful",),
        lambda url, **options: graphmem.open_store("memory://"),
        schema_installer=installer,
        protocols=(BaseStore, EntityGraphStore),
    )
    register_backend("schemaful", backend, replace=True)
    assert install_schema("schemaful://db", dimension=8) == {"indexes": ["by_name"]}
    assert installed == [("schemaful://db", {"dimension": 8})]
    assert get_backend("schemaful") is backend
    with graphmem.open("schemaful://db", tenant="t") as mem:
        assert mem.count_entities() == 0


def test_a_backend_whose_import_fails_names_its_extra():
    backend = Backend("ghost", ("ghost",), "graphmem_no_such_module:open", extra="ghost-db")
    register_backend("ghost", backend, replace=True)
    with pytest.raises(BackendUnavailable, match=r"pip install 'graphmem\[ghost-db\]'"):
        graphmem.open_store("ghost://x:secret@h")
    with pytest.raises(BackendUnavailable) as info:
        graphmem.open_store("ghost://x:secret@h")
    assert "secret" not in str(info.value.__dict__)


@pytest.mark.parametrize("schemes", [(), ("Upper",), ("with://",), ("",)])
def test_a_backend_needs_lower_case_schemes(schemes):
    with pytest.raises(InvalidInput, match="schemes"):
        Backend("bad", schemes, "m:f")


def test_a_backend_declares_rooms_of_the_contract_only():
    with pytest.raises(InvalidInput, match="rooms"):
        Backend("bad", ("bad",), "m:f", protocols=(GraphStore,))


def test_a_plugin_may_not_take_a_built_in_scheme_without_replace():
    with pytest.raises(InvalidInput, match="already registered"):
        register_backend("bolt", NETWORKX)


def test_a_backend_says_whether_it_opens_read_only_and_how_it_checks_a_store():
    from graphmem.core.store import check_store

    assert NETWORKX.read_only and not NEO4J.read_only
    assert NETWORKX.checker is not None and NEO4J.checker is None
    with pytest.raises(UnsupportedOperation, match="no integrity check"):
        check_store("neo4j://localhost")
    with pytest.raises(UnsupportedOperation, match="no integrity check"):
        check_store("memory://")


def test_a_plugin_s_checker_and_read_only_mode_come_from_its_backend():
    from graphmem.core.store import StoreCheck, check_store

    opened = []

    def factory(url, **options):
        opened.append(options)
        return graphmem.open_store("memory://", **options)

    backend = Backend(
        "checked",
        ("checked",),
        factory,
        read_only=True,
        checker=lambda url: StoreCheck(url, "checked", counts={"entities": 0}),
    )
    register_backend("checked", backend, replace=True)
    assert check_store("checked://db").counts == {"entities": 0}
    with graphmem.open_store("checked://db", read_only=True) as store, pytest.raises(StoreReadOnly):
        store.upsert_entities("t", [])
    assert opened == [{"read_only": True}]
    register_backend("checked", backend, replace=True, read_only=False)
    store = graphmem.open_store("checked://db", read_only=True)
    try:
        assert type(store).__name__ == "ReadOnlyStore" and opened[-1] == {}
    finally:
        store.close()
