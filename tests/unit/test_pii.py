"""PII detectors: checksums where they exist, no overlaps, redaction by kind."""

import pytest

from graphmem.policy.pii import detect_pii, iban_valid, luhn_valid, redact_pii


def kinds(text):
    return [m.kind for m in detect_pii(text)]


@pytest.mark.parametrize(
    ("number", "valid"),
    [
        ("4111111111111111", True),
        ("4111 1111 1111 1111", True),
        ("5500-0000-0000-0004", True),
        ("378282246310005", True),
        ("4111111111111112", False),
        ("1234567812345678", False),
    ],
)
def test_luhn(number, valid):
    assert luhn_valid(number) is valid


@pytest.mark.parametrize(
    ("iban", "valid"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("DE89370400440532013000", True),
        ("FR1420041010050500013M02606", True),
        ("GB82 WEST 1234 5698 7654 33", False),
        ("DE89370400440532013001", False),
        ("XX00", False),
    ],
)
def test_iban_mod_97(iban, valid):
    assert iban_valid(iban) is valid


def test_cards_are_found_only_when_luhn_passes():
    assert kinds("pay with 4111 1111 1111 1111 today") == ["card"]
    assert kinds("order 4111111111111112 shipped") == []


def test_ibans_are_found_only_when_mod_97_passes():
    assert kinds("send to DE89 3704 0044 0532 0130 00 please") == ["iban"]
    assert kinds("send to GB82 WEST 1234 5698 7654 33 please") == []


@pytest.mark.parametrize("text", ["ada@example.org", "x.y+tag@mail.co.uk"])
def test_emails(text):
    assert kinds(f"mail {text} now") == ["email"]


@pytest.mark.parametrize(
    "text", ["+44 20 7946 0958", "+1-415-555-2671", "(555) 123-4567", "020 7946 0958"]
)
def test_phones(text):
    assert kinds(f"call {text} now") == ["phone"]


@pytest.mark.parametrize("text", ["123-45-6789", "AB123456C", "AB 12 34 56 C"])
def test_national_ids(text):
    assert kinds(f"id {text} ok") == ["national_id"]


@pytest.mark.parametrize("text", ["000-12-3456", "666-12-3456", "123-00-4567", "123-45-0000"])
def test_impossible_ssns_are_not_ids(text):
    assert kinds(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "version 1.2.3 on 2024-01-15 with 12345 rows",
        "the year 1999 and room 42 at 10:30",
        "ISBN 978-3-16-148410-0",
        "the mill is 3 miles north",
    ],
)
def test_ordinary_numbers_are_not_pii(text):
    assert kinds(text) == []


def test_matches_are_ordered_and_never_overlap():
    text = "a@b.io, 4111-1111-1111-1111, +44 20 7946 0958, 123-45-6789"
    found = detect_pii(text)
    assert [m.kind for m in found] == ["email", "card", "phone", "national_id"]
    for first, second in zip(found, found[1:], strict=False):
        assert first.end <= second.start


def test_redaction_replaces_each_piece_with_its_kind():
    text, found = redact_pii("Mail ada@example.org, card 4111 1111 1111 1111.")
    assert text == "Mail [email], card [card]."
    assert found == ["email", "card"]


def test_redaction_without_pii_changes_nothing():
    assert redact_pii("The mill is north.") == ("The mill is north.", [])
