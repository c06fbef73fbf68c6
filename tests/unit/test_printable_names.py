"""Safe names match whole (``\\A...\\Z``), and printable names hold nothing invisible."""

from __future__ import annotations

import pytest
from printable_cases import NOT_PRINTABLE_TENANTS, PRINTABLE_TENANTS, TRAILING_BREAKS

from graphmem import Entity, EntityFilter, InvalidInput, Relationship, RelationshipFilter
from graphmem.backends.neo4j.queries import QUERY_NAME_PATTERN
from graphmem.core.models import check_safe_name
from graphmem.core.store import check_printable_name, check_tenant


@pytest.mark.parametrize("name", TRAILING_BREAKS)
def test_safe_names_refuse_a_line_break(name: str) -> None:
    with pytest.raises(InvalidInput, match="safe name"):
        check_safe_name(name, "relationship type")
    with pytest.raises(InvalidInput, match="safe name"):
        Relationship(source_id="a", target_id="b", type=name)
    with pytest.raises(InvalidInput, match="safe name"):
        Entity(id="a", type=name, name="A")
    with pytest.raises(InvalidInput):
        EntityFilter(type=name)
    with pytest.raises(InvalidInput):
        RelationshipFilter(types=(name,))


def test_query_names_match_whole() -> None:
    assert QUERY_NAME_PATTERN.fullmatch("records/get_record")
    assert not QUERY_NAME_PATTERN.fullmatch("records/get_record\n")


@pytest.mark.parametrize("name", sorted(NOT_PRINTABLE_TENANTS))
def test_not_printable_names(name: str) -> None:
    value = NOT_PRINTABLE_TENANTS[name]
    with pytest.raises(InvalidInput, match="user"):
        check_printable_name(value, "user")
    with pytest.raises(InvalidInput, match="tenant"):
        check_tenant(value)


@pytest.mark.parametrize("value", PRINTABLE_TENANTS)
def test_printable_names(value: str) -> None:
    assert check_printable_name(value, "user") == value
    assert check_tenant(value) == value


def test_the_error_names_the_character_not_the_value() -> None:
    with pytest.raises(InvalidInput) as info:
        check_printable_name("ada\u3164", "user")
    assert "U+3164 (HANGUL FILLER)" in str(info.value) and "position 3" in str(info.value)


@pytest.mark.parametrize("value", [None, 3, b"ada", "", "x" * 257])
def test_wrong_types_and_lengths(value: object) -> None:
    with pytest.raises(InvalidInput):
        check_printable_name(value, "user")
