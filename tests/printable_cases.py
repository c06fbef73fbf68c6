"""Hostile and ordinary names shared by the unit, conformance and policy tests."""

# A line break after a valid name: `$` in the old pattern matched before it.
TRAILING_BREAKS = ["knows\n", "npc\n", "knows\r\n", "knows\n\n", "\nknows"]

# Tenants and identity parts that are not printable, or carry blanks at an end (issue 17).
NOT_PRINTABLE_TENANTS = {
    "zero-width space only": "\u200b",
    "zero-width space inside": "acme\u200bcorp",
    "delete": "acme\x7f",
    "NUL": "acme\x00",
    "right-to-left override": "\u202eacme",
    "byte order mark": "\ufeffacme",
    "Hangul filler only": "\u3164",
    "halfwidth Hangul filler": "acme\uffa0",
    "soft hyphen": "ac\u00adme",
    "no-break space inside": "acme\u00a0corp",
    "line separator": "acme\u2028",
    "trailing blank": "acme ",
    "leading blank": " acme",
    "trailing tab": "acme\t",
    "lone surrogate": "acme\ud800",
    "private use": "acme\ue000",
    "decomposed accent (not NFC)": "cafe\u0301",
    "braille blank": "\u2800",
}

PRINTABLE_TENANTS = ["acme", "Acme Corp", "café", "東京", "team-7/eu", "a" * 256]
