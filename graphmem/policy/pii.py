"""Personal-data detectors: emails, phone numbers, card numbers, IBANs, national ids.

Pure functions, no I/O. Detection runs on a normalised copy of the text
(:func:`graphmem.policy.normalize.normalize_for_detection`: NFKC, invisible characters
dropped, any whitespace one space, any dash ``-``), so a card number separated by
no-break spaces, tabs or line breaks, a zero-width space before ``@`` or a fullwidth
``＠`` is found as its plain form would be; each match is reported at its span in the
original text. Detection is deliberately conservative where a checksum exists:

- ``card``: 13 to 19 digits passing the Luhn check, plain, separated by spaces or dashes
  between any digits, or by any of ``. _ / , -`` and spaces, mixed, between groups of
  four (``4111_1111/1111,1111``, Amex ``3782.822463.10005``), or spelt out as 13 to 19
  digit words (``four one one one ...``); never digits right after a decimal point;
- ``iban``: a country code, two check digits and 11 to 30 letters or digits (spaces
  every four allowed), in any letter case, passing the ISO 13616 mod-97 check; one not
  written in capitals must also start with a known IBAN country code;
- ``national_id``: a US social security number ``AAA-GG-SSSS`` (dashes or spaces; area
  not 000, 666 or 9xx; group not 00; serial not 0000), or the same nine digits written
  together when an SSN context word (``SSN``, ``social security``, ``SS#``) comes within
  30 characters before; or a UK national insurance number (``AB123456C``, any case);
- ``email``: ``local@domain.tld`` (Unicode letters allowed, a space either side of ``@``
  allowed; spaces around the dots too when the last label is a common top-level domain:
  ``ada @ example . org``), or spelt out: ``name at host dot com``, ``name (at) host (dot) org``,
  ``name [at] host.org``, where the host is not a determiner or pronoun (``at this dot
  com`` is prose) and a spelt-out last dot is followed by a common top-level domain or
  two letters;
- ``phone``: an international number (``+`` and 8 to 15 digits) or a national one of
  10 to 11 digits written with separators (space, dot, dash or slash) or brackets
  (``(555) 123-4567``, ``020 7946 0958``, ``415/555/2671``), or written together:
  10 digits forming a valid North American number (area and exchange codes starting
  2 to 9), 10 or 11 digits starting with a trunk ``0``, or any 10 or 11 digits after a
  phone context word (``phone``, ``tel``, ``call``, ``mobile``, ...) within 30
  characters; never part of a longer number nor after ``#`` (an order or ticket number).

Matches never overlap; the first detector in the order above wins a span.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from graphmem.policy.normalize import normalize_for_detection

__all__ = [
    "IBAN_COUNTRIES",
    "PII_KINDS",
    "PIIMatch",
    "detect_pii",
    "iban_valid",
    "luhn_valid",
    "redact_pii",
]

PII_KINDS = ("card", "iban", "national_id", "email", "phone")
"""Every kind :func:`detect_pii` reports, in the order it looks for them."""

_IBAN_REGISTRY = """
    AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI
    GL GR GT HN HR HU IE IL IQ IS IT JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI
    NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ST SV TL TN TR UA VA VG XK YE
"""
IBAN_COUNTRIES = frozenset(_IBAN_REGISTRY.split())
"""Countries of the IBAN registry (ISO 13616); an IBAN not in capitals must use one."""

_GAP = r"(?: ?[-_/,.] ?| )"  # between groups: a space, or . _ / , - with spaces around
_CARD = re.compile(
    r"(?<![\w.,/-])(?:"
    r"\d(?:(?: ?- ?| )?\d){12,18}"  # plain, or spaces / dashes anywhere
    rf"|\d{{4}}(?:{_GAP}\d{{4}}){{3}}(?:{_GAP}\d{{1,3}})?"  # any separators between fours
    rf"|\d{{4}}{_GAP}\d{{6}}{_GAP}\d{{5}}"  # Amex 4-6-5
    r")(?![\w-]|[.,/]\d)"
)
_DIGIT_WORDS = {
    "zero": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}
_DIGIT_WORD = "(?:" + "|".join(_DIGIT_WORDS) + ")"
_CARD_WORDS = re.compile(rf"(?i)\b{_DIGIT_WORD}(?:(?:[ ,-]|, )+{_DIGIT_WORD}){{12,18}}\b")
_IBAN_START = re.compile(r"(?<!\w)[A-Za-z]{2}\d{2}")
_IBAN_COMPACT = re.compile(r"[A-Za-z0-9]{11,30}(?!\w)")
_IBAN_GROUPS = re.compile(r"(?: [A-Za-z0-9]{4})*(?: [A-Za-z0-9]{1,4})?(?!\w)")
_SSN = re.compile(r"(?<![\w-])(?!000|666|9\d\d)\d{3}([ -])(?!00)\d{2}\1(?!0000)\d{4}(?![\w-])")
_SSN_PLAIN = re.compile(r"(?<![\w.-])(?!000|666|9\d\d)\d{3}(?!00)\d{2}(?!0000)\d{4}(?![\w-]|\.\d)")
_SSN_CONTEXT = re.compile(r"(?i)\b(?:ssn|social\s+security|ss\s?#|s\.s\.n\b)")
_NINO = re.compile(
    r"(?i)\b(?![DFIQUV])[A-CEGHJ-PR-TW-Z](?![DFIQUVO])[A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)
_EMAIL = re.compile(r"(?<![\w.%+-])[\w.%+-]+ ?@ ?[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}(?![\w-])")
_AT = r"(?: ?[(\[{<] ?at ?[)\]}>] ?| at )"
_DOT = r"(?: ?[(\[{<] ?dot ?[)\]}>] ?| dot )"
_BRACKETED_DOT = r"(?: ?[(\[{<] ?dot ?[)\]}>] ?)"
_TLD = r"(?:com|org|net|edu|gov|mil|int|info|biz|name|pro|io|ai|app|dev|me|[a-z]{2})"
_NOT_A_HOST = (
    r"(?!(?:the|a|an|this|that|these|those|my|your|his|her|its|our|their|some|any|no|"
    r"home|least|last|first|once|all|night|noon|dawn|dusk)\b)"
)
_SPACED_TLD = (
    r"(?:com|org|net|edu|gov|mil|info|biz|io|ai|dev|app|co|uk|de|fr|nl|es|ch|se|jp|ru|br|"
    r"au|ca)"
)
_EMAIL_SPACED = re.compile(
    rf"(?i)(?<![\w.%+-])[\w.%+-]+ ?@ ?{_NOT_A_HOST}[\w-]+(?: ?\. ?[\w-]+)* ?\. ?"
    rf"{_SPACED_TLD}(?![\w-])"
)
_EMAIL_SPELT = re.compile(
    rf"(?i)(?<![\w.+-])[\w.+-]+{_AT}{_NOT_A_HOST}[\w-]+"
    rf"(?:(?:{_DOT}|\.){_NOT_A_HOST}[\w-]+)*"
    rf"(?:\.[^\W\d_]{{2,}}|{_BRACKETED_DOT}[^\W\d_]{{2,}}| dot {_TLD})(?![\w-])"
)
_PHONE_INTL = re.compile(r"(?<![\w+])\+\d(?:[ .-]?\(?\d\)?){7,14}(?!\w)")
_PHONE_NATIONAL = re.compile(
    r"(?<![\w+/])(?:\(\d{2,5}\)[ .-]?|\d{2,5}[ ./-])\d{2,4}[ ./-]?\d{3,4}(?![\w-]|[./]\d)"
)
_PHONE_PLAIN = re.compile(r"(?<![\w+.#-])\d{10,11}(?![\w-]|\.\d)")
_NANP = re.compile(r"1?[2-9]\d{2}[2-9]\d{6}")
_PHONE_CONTEXT = re.compile(
    r"(?i)\b(?:phone|tel|telephone|mobile|cell|call|ring|text|sms|whatsapp|fax|dial|"
    r"contact|number)\b"
)
_CONTEXT_WINDOW = 30


@dataclass(frozen=True, slots=True)
class PIIMatch:
    """One piece of personal data found in a text: its kind and span (``text[start:end]``)."""

    kind: str
    start: int
    end: int


def luhn_valid(number: str) -> bool:
    """Whether the digits of ``number`` pass the Luhn check (other characters ignored).

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
    """Whether ``iban`` passes the ISO 13616 mod-97 check (spaces and letter case ignored).

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


def _ibans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of mod-97-valid IBANs; the longest valid reading of the groups wins."""
    for start in _IBAN_START.finditer(text):
        head = start.group()
        if not head.isupper() and head[:2].upper() not in IBAN_COUNTRIES:
            continue
        rest = start.end()
        compact = _IBAN_COMPACT.match(text, rest)
        if compact and iban_valid(head + compact.group()):
            yield start.start(), compact.end()
            continue
        groups = _IBAN_GROUPS.match(text, rest)
        parts = groups.group().split(" ")[1:] if groups else []
        for count in range(len(parts), 0, -1):  # drop trailing groups that are words
            taken = parts[:count]
            if iban_valid(head + "".join(taken)):
                yield start.start(), rest + sum(len(p) + 1 for p in taken)
                break


def _after_context(text: str, start: int, context: re.Pattern[str]) -> bool:
    return context.search(text, max(0, start - _CONTEXT_WINDOW), start) is not None


def _detect(text: str) -> Iterator[tuple[str, int, int]]:
    """``(kind, start, end)`` candidates in detector order (spans may overlap)."""
    for match in _CARD.finditer(text):
        if luhn_valid(match.group()):
            yield "card", match.start(), match.end()
    for match in _CARD_WORDS.finditer(text):
        words = re.findall(r"[a-z]+", match.group().lower())
        if luhn_valid("".join(_DIGIT_WORDS[w] for w in words)):
            yield "card", match.start(), match.end()
    for start, end in _ibans(text):
        yield "iban", start, end
    for pattern in (_SSN, _NINO):
        for match in pattern.finditer(text):
            yield "national_id", match.start(), match.end()
    for match in _SSN_PLAIN.finditer(text):
        if _after_context(text, match.start(), _SSN_CONTEXT):
            yield "national_id", match.start(), match.end()
    for pattern in (_EMAIL, _EMAIL_SPACED, _EMAIL_SPELT):
        for match in pattern.finditer(text):
            yield "email", match.start(), match.end()
    for match in _PHONE_INTL.finditer(text):
        if 8 <= _digit_count(match.group()) <= 15:
            yield "phone", match.start(), match.end()
    for match in _PHONE_NATIONAL.finditer(text):
        if 10 <= _digit_count(match.group()) <= 11:
            yield "phone", match.start(), match.end()
    for match in _PHONE_PLAIN.finditer(text):
        digits = match.group()
        if (
            (len(digits) == 10 and _NANP.fullmatch(digits))
            or (len(digits) == 11 and digits.startswith("1") and _NANP.fullmatch(digits))
            or digits.startswith("0")
            or _after_context(text, match.start(), _PHONE_CONTEXT)
        ):
            yield "phone", match.start(), match.end()


def detect_pii(text: str) -> list[PIIMatch]:
    r"""Every piece of personal data in ``text``, ordered by position, never overlapping.

    Spans are positions in ``text`` itself, although detection ran on its normalised form.

    >>> [m.kind for m in detect_pii("Mail ada@example.org or call +44 20 7946 0958.")]
    ['email', 'phone']
    >>> [(m.kind, m.start, m.end) for m in detect_pii("card 4111\u00a01111\t1111 1111")]
    [('card', 5, 24)]
    """
    normal = normalize_for_detection(text)
    found: list[PIIMatch] = []
    taken: list[tuple[int, int]] = []
    for kind, start, end in _detect(normal.text):
        if all(end <= s or start >= e for s, e in taken):
            taken.append((start, end))
            found.append(PIIMatch(kind, *normal.span(start, end)))
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
