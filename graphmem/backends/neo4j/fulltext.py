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

Lucene refuses a query of more than 1,024 clauses (``maxClauseCount``), and every word is
a clause (a word the analyzer splits, such as a run of Chinese characters, one per
token). So a long question keeps at most :data:`MAX_QUERY_TERMS` clauses' worth of words:
the most informative, taken to be the longest (in text, a longer word is a rarer one,
and a rarer word tells more documents apart), the first of equally long ones; a
question of any length never errors.
"""

from __future__ import annotations

import unicodedata

from graphmem.backends.search import query_words

__all__ = [
    "LUCENE_OPERATOR_WORDS",
    "LUCENE_SPECIAL",
    "MAX_QUERY_TERMS",
    "informative_words",
    "lucene_escape",
    "lucene_query",
]

MAX_QUERY_TERMS = 512
"""The most clauses a query sends: half of Lucene's default limit of 1,024, for room."""

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


def _splits(ch: str) -> bool:
    """Whether the analyzer may make a token of the character alone.

    Ideographs are one token each (and, at worst, each Hiragana or Thai character).
    """
    return unicodedata.name(ch, "").startswith(("CJK", "HIRAGANA", "THAI", "IDEOGRAPHIC"))


def _clauses(word: str) -> int:
    """How many clauses a word may become: one per character split off, else one."""
    return max(1, sum(1 for ch in word if _splits(ch)))


def informative_words(words: list[str], budget: int = MAX_QUERY_TERMS) -> list[str]:
    """The words that fit ``budget`` clauses, the longest first, kept in their order.

    >>> informative_words(['a', 'blacksmith', 'of', 'the', 'drowned', 'bell'], budget=3)
    ['blacksmith', 'drowned', 'bell']
    """
    if sum(_clauses(word) for word in words) <= budget:
        return words
    ranked = sorted(range(len(words)), key=lambda i: (-len(words[i]), i))
    kept: dict[int, str] = {}
    used = 0
    for index in ranked:
        word = words[index]
        cost = _clauses(word)
        if used + cost > budget and cost > 1:  # a run of ideographs: keep what fits
            word = _prefix_within(word, budget - used)
            cost = _clauses(word)
        if word and used + cost <= budget:
            kept[index] = word
            used += cost
    return [kept[index] for index in sorted(kept)]


def _prefix_within(word: str, clauses: int) -> str:
    """The longest start of ``word`` that is at most ``clauses`` clauses."""
    if clauses <= 0:
        return ""
    split = 0
    for end, ch in enumerate(word):
        if _splits(ch):
            split += 1
            if split > clauses:
                return word[:end]
    return word


def lucene_query(text: str) -> str | None:
    """The Lucene query for user text: its words, escaped, joined by ``OR``; None if none.

    At most :data:`MAX_QUERY_TERMS` clauses (see :func:`informative_words`).

    >>> lucene_query('who owns "the Forge" NEAR(x) OR *')
    'owns OR forge OR near OR x'
    >>> lucene_query('?! --') is None
    True
    """
    words = informative_words(query_words(text))
    if not words:
        return None
    return " OR ".join(lucene_escape(word) for word in words)
