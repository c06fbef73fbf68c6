r"""Plain words to a Lucene query for Neo4j's full-text indexes. No driver import, no I/O.

``db.index.fulltext.queryNodes`` parses its query string with Lucene's classic query
parser, where ``+ - && || ! ( ) { } [ ] ^ " ~ * ? : \ /`` and the bare words ``AND``,
``OR``, ``NOT`` are syntax (Lucene's "Escaping Special Characters"; ``/`` starts a regular
expression since Lucene 4). graphmem's contract is that a query is plain words, any of
which may match, with operators and quotes taken literally and never a syntax error. So
the text is read into words exactly as the embedded backend reads it
(:func:`graphmem.backends.search.query_words`), each word is escaped character by
character, and the words are joined with ``OR``.

Escaping is done even though a word of ``query_words`` is made of word characters only:
the escape function is the one place that makes any text literal, and it is tested on
every character (tests/unit/test_neo4j_offline.py).
"""

from __future__ import annotations

from graphmem.backends.search import query_words

__all__ = ["LUCENE_OPERATOR_WORDS", "LUCENE_SPECIAL", "lucene_escape", "lucene_query"]

LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')
"""Characters with a meaning in Lucene's classic query syntax."""

LUCENE_OPERATOR_WORDS = frozenset({"AND", "OR", "NOT"})
"""Words the classic query parser reads as operators (only in upper case)."""


def lucene_escape(word: str) -> str:
    r"""``word`` as a literal Lucene term: every special character backslash-escaped.

    A bare operator word gets its first letter escaped (the parser allows escaping any
    character), so it is a term, not an operator.

    >>> lucene_escape('(1+1):2')
    '\\(1\\+1\\)\\:2'
    >>> lucene_escape('AND')
    '\\AND'
    """
    escaped = "".join(f"\\{ch}" if ch in LUCENE_SPECIAL else ch for ch in word)
    if escaped in LUCENE_OPERATOR_WORDS:
        escaped = "\\" + escaped
    return escaped


def lucene_query(text: str) -> str | None:
    """The Lucene query for user text: its words, escaped, joined by ``OR``; None if none.

    >>> lucene_query('who owns "the Forge" NEAR(x) OR *')
    'owns OR forge OR near OR x'
    >>> lucene_query('?! --') is None
    True
    """
    words = query_words(text)
    if not words:
        return None
    return " OR ".join(lucene_escape(word) for word in words)
