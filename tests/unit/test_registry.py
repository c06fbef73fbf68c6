import pytest

import graphmem
from graphmem import BackendUnavailable, IdentityRequired, InvalidInput
from graphmem.core.store import (
    ROOMS,
    GraphStore,
    check_tenant,
    redact_url,
    register_backend,
    satisfied_protocols,
)


def test_builtin_schemes_are_registered():
    schemes = graphmem.registered_schemes()
    assert {"memory", "file"} <= set(schemes)
    assert schemes == sorted(schemes)


@pytest.mark.parametrize("url", ["", "memory", "/tmp/x.graphmem", None])
def test_url_without_scheme_is_invalid(url):
    with pytest.raises(InvalidInput, match="scheme"):
        graphmem.open_store(url)


def test_unknown_scheme_names_the_known_ones():
    with pytest.raises(InvalidInput) as info:
        graphmem.open_store("redis://localhost")
    assert "memory://" in str(info.value)


def test_unknown_option_is_invalid():
    with pytest.raises(InvalidInput, match="unknown options"):
        graphmem.open_store("memory://", colour="red")


def test_memory_store_satisfies_the_protocol():
    store = graphmem.open_store("memory://")
    assert isinstance(store, GraphStore)
    assert satisfied_protocols(store) == frozenset(ROOMS)
    assert store.capabilities == {"inline_reads", "revision"}
    store.close()


def test_plugins_can_register_and_may_not_clobber():
    opened = []

    def factory(url, **options):
        opened.append((url, options))
        return graphmem.open_store("memory://")

    register_backend("testplugin", factory)
    with pytest.raises(InvalidInput):
        register_backend("testplugin", factory)
    register_backend("testplugin", factory, replace=True)
    store = graphmem.open_store("testplugin://somewhere")
    assert opened == [("testplugin://somewhere", {})]
    assert "testplugin" in graphmem.registered_schemes()
    store.close()


def test_a_backend_whose_import_fails_is_unavailable_and_names_the_extra():
    register_backend("brokenplugin", "graphmem_no_such_module:factory", replace=True)
    with pytest.raises(BackendUnavailable, match=r"graphmem\[brokenplugin\]"):
        graphmem.open_store("brokenplugin://x")


@pytest.mark.parametrize("tenant", ["", "   ", None, 3])
def test_empty_tenant_fails_closed(tenant):
    with pytest.raises(IdentityRequired):
        check_tenant(tenant)
    with pytest.raises(IdentityRequired):
        graphmem.open("memory://", tenant=tenant)


def test_tenant_with_control_characters_is_invalid():
    with pytest.raises(InvalidInput):
        check_tenant("a\x00b")


def test_redact_url_hides_only_the_password():
    assert redact_url("bolt://u:p4ss@h:7687/db") == "bolt://u:***@h:7687/db"
    assert redact_url("memory://") == "memory://"


def test_tracer_reports_each_operation():
    events = []
    with graphmem.open("memory://", tenant="t", tracer=events.append) as mem:
        mem.upsert_entities([graphmem.Entity(id="a", type="npc", name="A")])
        mem.identity_snapshot("a")
    assert [e.name for e in events] == ["upsert_entities", "identity_snapshot"]
    assert all(e.seconds >= 0 and e.round_trips == 0 for e in events)
    assert events[1].params["tenant"] == "t"
