"""Personal-data detectors: emails, phone numbers, card numbers, IBANs, national ids.

Pure functions, no I/O. Detection is deliberately conservative where a checksum exists:

- ``card``: 13 to 19 digits (spaces or dashes between groups allowed) passing the Luhn
  check;
- ``iban``: a country code, two check digits and 11 to 30 letters or digits (spaces
  every four allowed) passing the ISO 13616 mod-97 check;
- ``national_id``: a US social security number ``AAA-GG-SSSS`` (area not 000, 666 or
  9xx; group not 00; serial not 0000) or a UK national insurance number (``AB123456C``);
- ``email``: ``local@domain.tld``;
- ``phone``: an international number (``+`` and 8 to 15 digits) or a national one of
  10 to 11 digits written with separators or brackets (``(555) 123-4567``,
  ``020 7946 0958``), not part of a longer number and not already a card or IBAN.

Matches never overlap; the first detector in the order above wins a span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "PII_KINDS",
    "PIIMatch",
    "detect_pii",
    "iban_valid",
    "luhn_valid",
    "redact_pii",
]

PII_KINDS = ("card", "iban", "national_id", "email", "phone")
"""Every kind :func:`detect_pii` reports, in the order it looks for them."""

_CARD = re.compile(r"(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_SSN = re.compile(r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b")
_NINO = re.compile(
    r"\b(?![DFIQUV])[A-CEGHJ-PR-TW-Z](?![DFIQUVO])[A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_PHONE_INTL = re.compile(r"(?<![\w+])\+\d(?:[ .-]?\(?\d\)?){7,14}(?!\w)")
_PHONE_NATIONAL = re.compile(
    r"(?<![\w+])(?:\(\d{2,5}\)[ .-]?|\d{2,5}[ .-])\d{2,4}[ .-]?\d{3,4}(?![\w-])"
)


@dataclass(frozen=True, slots=True)
class PIIMatch:
    """One piece of personal data found in a text: its kind and span (``text[start:end]``)."""

    kind: str
    start: int
    end: int


def luhn_valid(number: str) -> bool:
    """Whether the digits of ``number`` pass the Luhn check (spaces and dashes ignored).

    >>> luhn_valid("4111 1111 1111 1111"), luhn_valid("4111 1111 1111 1112")
    (True, False)
    """
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 2:
        return False
    total = 0
    for index, digit in enumerate(reversed(digits)):
        if index % 2 == 1:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def iban_valid(iban: str) -> bool:
    """Whether ``iban`` passes the ISO 13616 mod-97 check (spaces ignored).

    >>> iban_valid("GB82 WEST 1234 5698 7654 32"), iban_valid("GB82 WEST 1234 5698 7654 33")
    (True, False)
    """
    compact = iban.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", compact):
        return False
    rearranged = compact[4:] + compact[:4]
    numeric = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(numeric) % 97 == 1


def _digit_count(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


def detect_pii(text: str) -> list[PIIMatch]:
    """Every piece of personal data in ``text``, ordered by position, never overlapping.

    >>> [m.kind for m in detect_pii("Mail ada@example.org or call +44 20 7946 0958.")]
    ['email', 'phone']
    """
    found: list[PIIMatch] = []

    def free(start: int, end: int) -> bool:
        return all(end <= m.start or start >= m.end for m in found)

    def add(kind: str, start: int, end: int) -> None:
        if free(start, end):
            found.append(PIIMatch(kind, start, end))

    for match in _CARD.finditer(text):
        if luhn_valid(match.group()):
            add("card", match.start(), match.end())
    for match in _IBAN.finditer(text):
        if iban_valid(match.group()):
            add("iban", match.start(), match.end())
    for pattern in (_SSN, _NINO):
        for match in pattern.finditer(text):
            add("national_id", match.start(), match.end())
    for match in _EMAIL.finditer(text):
        add("email", match.start(), match.end())
    for match in _PHONE_INTL.finditer(text):
        if 8 <= _digit_count(match.group()) <= 15:
            add("phone", match.start(), match.end())
    for match in _PHONE_NATIONAL.finditer(text):
        if 10 <= _digit_count(match.group()) <= 11:
            add("phone", match.start(), match.end())
    found.sort(key=lambda m: m.start)
    return found


def redact_pii(text: str) -> tuple[str, list[str]]:
    """Replace every detected piece with ``[<kind>]``; return the text and the kinds found.

    >>> redact_pii("SSN 123-45-6789, card 4111-1111-1111-1111")
    ('SSN [national_id], card [card]', ['national_id', 'card'])
    """
    matches = detect_pii(text)
    out: list[str] = []
    last = 0
    for match in matches:
        out.append(text[last : match.start])
        out.append(f"[{match.kind}]")
        last = match.end
    out.append(text[last:])
    return "".join(out), [m.kind for m in matches]
