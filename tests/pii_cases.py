"""PII cases shared by the detector's unit tests and the governed-write conformance tests.

Issue 17, item 4: each row is ``(kind, text, redacted)`` for a positive (``redacted`` is
what :func:`graphmem.policy.pii.redact_pii` must make of ``text``) or ``(kind, text)``
for a negative. Positives whose id starts with ``issue17`` are the variants the issue
found missed.
"""

from __future__ import annotations

import pytest

ISSUE = True  # a variant the issue lists as missed: its test id starts with "issue17"
ISSUE29 = "issue29"  # a variant issue 29 found stored under pii="reject"

NBSP, EMSP, ZWSP = "\u00a0", "\u2003", "\u200b"


def positive(kind: str, text: str, redacted: str, issue: bool | str = False) -> object:
    prefix = f"{issue} " if isinstance(issue, str) else "issue17 " if issue else ""
    return pytest.param(kind, text, redacted, id=f"{prefix}{kind}: {text!r}")


POSITIVES = [
    # ---- card (Luhn-valid 13 to 19 digits)
    positive("card", f"card 4111{NBSP}1111{NBSP}1111{NBSP}1111 ok", "card [card] ok", ISSUE),
    positive("card", "card 4111\t1111\t1111\t1111 ok", "card [card] ok", ISSUE),
    positive("card", "card 4111\n1111\n1111\n1111 ok", "card [card] ok", ISSUE),
    positive("card", f"card 4111{EMSP}1111{EMSP}1111{EMSP}1111 ok", "card [card] ok", ISSUE),
    positive("card", "card 4111.1111.1111.1111 ok", "card [card] ok", ISSUE),
    positive("card", "amex 3782.822463.10005 ok", "amex [card] ok"),
    positive("card", f"card 4111{ZWSP}1111{ZWSP}1111{ZWSP}1111 ok", "card [card] ok"),
    positive("card", "card ４１１１ １１１１ １１１１ １１１１ ok", "card [card] ok"),
    positive("card", "card 4111\u20131111\u20131111\u20131111 ok", "card [card] ok"),
    positive("card", "card 4111 \n 1111  1111 1111.", "card [card]."),
    positive("card", "card 4111 1111 1111 1111 ok", "card [card] ok"),
    positive("card", "card 5500-0000-0000-0004", "card [card]"),
    positive("card", "card 4111_1111_1111_1111 ok", "card [card] ok", ISSUE29),
    positive("card", "card 4111/1111/1111/1111 ok", "card [card] ok", ISSUE29),
    positive("card", "card 4111,1111,1111,1111 ok", "card [card] ok", ISSUE29),
    positive("card", "card 4111-1111 1111.1111 ok", "card [card] ok", ISSUE29),
    positive("card", "card 4111_1111/1111,1111 ok", "card [card] ok", ISSUE29),
    positive("card", "amex 3782/822463/10005 ok", "amex [card] ok", ISSUE29),
    positive(
        "card",
        "card four one one one one one one one one one one one one one one one ok",
        "card [card] ok",
        ISSUE29,
    ),
    positive(
        "card",
        "it is Four-One-One-One, one one one one, one one one one, one one one one.",
        "it is [card].",
        ISSUE29,
    ),
    # ---- iban (mod-97-valid)
    positive("iban", "iban gb82 west 1234 5698 7654 32 ok", "iban [iban] ok", ISSUE),
    positive("iban", "iban de89370400440532013000", "iban [iban]", ISSUE),
    positive("iban", f"iban GB82{NBSP}WEST{NBSP}1234{NBSP}5698{NBSP}7654{NBSP}32", "iban [iban]"),
    positive("iban", "iban Gb82 West 1234 5698 7654 32 please", "iban [iban] please"),
    positive("iban", "iban ＧＢ８２ＷＥＳＴ１２３４５６９８７６５４３２", "iban [iban]"),
    positive("iban", "send to DE89 3704 0044 0532 0130 00 please", "send to [iban] please"),
    # ---- national_id (US SSN, UK NINO)
    positive("national_id", "ssn 123456789", "ssn [national_id]", ISSUE),
    positive(
        "national_id",
        "Social Security number: 123456789.",
        "Social Security number: [national_id].",
    ),
    positive("national_id", "SSN 123 45 6789", "SSN [national_id]"),
    positive("national_id", "id 123\u201345\u20136789", "id [national_id]"),
    positive("national_id", "nino ab123456c", "nino [national_id]"),
    positive("national_id", "id 123-45-6789 ok", "id [national_id] ok"),
    positive("national_id", "id AB 12 34 56 C ok", "id [national_id] ok"),
    # ---- email
    positive("email", f"mail ada{ZWSP}@example.org now", "mail [email] now", ISSUE),
    positive("email", "mail josé.núñez@example.org now", "mail [email] now", ISSUE),
    positive("email", "mail ada＠example.org now", "mail [email] now", ISSUE),
    positive("email", "mail ada at example dot com now", "mail [email] now", ISSUE),
    positive("email", "mail ada (at) example (dot) org", "mail [email]"),
    positive("email", "mail ada [at] mail [dot] example [dot] co [dot] uk", "mail [email]"),
    positive("email", "mail ada at example.org now", "mail [email] now"),
    positive("email", "mail ada @ example.org now", "mail [email] now"),
    positive("email", "mail ada@exämple.de now", "mail [email] now"),
    positive("email", "mail x.y+tag@mail.co.uk now", "mail [email] now"),
    positive("email", "mail ada @ example . org now", "mail [email] now", ISSUE29),
    positive("email", "mail ada@example . com now", "mail [email] now", ISSUE29),
    positive("email", "mail ada @ mail . example . co . uk", "mail [email]", ISSUE29),
    # ---- phone
    positive("phone", "call 4155552671 now", "call [phone] now", ISSUE),
    positive("phone", "tel: 5551234567", "tel: [phone]"),
    positive("phone", "call 02079460958", "call [phone]"),
    positive("phone", f"call 020{NBSP}7946{NBSP}0958", "call [phone]"),
    positive("phone", f"call +1{NBSP}415{NBSP}555{NBSP}2671", "call [phone]"),
    positive("phone", "call (555) 123\u20134567", "call [phone]"),
    positive("phone", "call +44 20 7946 0958 now", "call [phone] now"),
    positive("phone", "call (555) 123-4567 now", "call [phone] now"),
    positive("phone", "call 415/555/2671 now", "call [phone] now", ISSUE29),
    positive("phone", "call 020/7946/0958 now", "call [phone] now", ISSUE29),
]


def negative(kind: str, text: str) -> object:
    return pytest.param(kind, text, id=f"{kind}: {text!r}")


NEGATIVES = [
    # ---- card: Luhn fails, or digits that are not a card number
    negative("card", "order 4111.1111.1111.1112 shipped"),
    negative("card", f"order 4111{NBSP}1111{NBSP}1111{NBSP}1112 shipped"),
    negative("card", "pi is 3.14159265358007 or so"),
    negative("card", "ISBN 978-3-16-148410-0"),
    negative("card", "version 1.2.3 on 2024-01-15 with 12345 rows"),
    negative("card", "the mill is at 51.5074, -0.1278"),
    negative("card", "1234\n5678\n9012\n3456"),
    negative("card", "order 4111_1111_1111_1112 shipped"),
    negative("card", "order 4111/1111/1111/1112 shipped"),
    negative("card", "order 4111,1111,1111,1112 shipped"),
    negative("card", "ref four one one one one one one one one one one one one one one two"),
    negative("card", "one two three four, and a five six seven eight"),
    negative("card", "the years 2019/2020/2021/2022 were lean"),
    negative("card", "population 1,234,567,890,123 and rising"),
    negative("card", "it cost $4,111.11, or 4.111,11 EUR"),
    negative("card", "build 2024.01.15.1234 of v10.2.33"),
    negative("card", "dates 12/31/1999, 2024/01/15 and 15.01.2024"),
    negative("card", "serial 1234-5678-9012-3456 on the box"),
    # ---- iban: mod-97 fails, unknown country in lower case, ordinary words
    negative("iban", "iban gb82 west 1234 5698 7654 33"),
    negative("iban", "code zz33west12345698765432"),
    negative("iban", "model ab12 cdef ghij klmn opq"),
    negative("iban", "DE89370400440532013001"),
    # ---- national_id: impossible SSNs, nine digits without an SSN context
    negative("national_id", "order 123456789 shipped"),
    negative("national_id", "ssn 000-12-3456"),
    negative("national_id", "ssn 987654321"),
    negative("national_id", "ssn 123-00-4567"),
    negative("national_id", "the year 1999 and room 42 at 10:30"),
    # ---- email: "at" and "dot" in prose, handles, prices
    negative("email", "meet me at the mill"),
    negative("email", "look at this dot com bubble"),
    negative("email", "Mira waited at the forge. Dot, the miller, did not."),
    negative("email", "@mira said hi"),
    negative("email", "two apples @ 3.50 each"),
    negative("email", "Ignore him, he's drunk at the tavern dot dot dot"),
    negative("email", "I will be @ home . it was late"),
    negative("email", "see you @ school . it was fun"),
    negative("email", "price @ 3 . 50 each"),
    # ---- phone: timestamps, ids, short numbers
    negative("phone", "timestamp 1700000000"),
    negative("phone", "order 1234567890 shipped"),
    negative("phone", "room 42 at 10:30, population 8000000"),
    negative("phone", "between 1999 and 2024"),
    negative("phone", "3.1415926535"),
    negative("phone", "order #4839201756"),
    negative("phone", "dates 2024/01/15 and 1/2/2024"),
    negative("phone", "scores 10/20/30 and 3/4"),
    negative("phone", "version 4.15.555 and 10.0.19045"),
    negative("phone", "it costs 415.55 and weighs 26.71 kg"),
]

ISSUE_POSITIVES = [p for p in POSITIVES if str(p.id).startswith("issue17")]  # type: ignore[attr-defined]
