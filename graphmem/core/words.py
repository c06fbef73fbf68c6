"""The words of a text as every full-text search and retrieval step reads them.

One reading for every layer: both backends' full-text search (:mod:`graphmem.backends`)
and the retrieval steps that compare a query's words with a passage's
(:mod:`graphmem.retrieval`) take words here, so "plain words, any may match, operators
taken literally" means the same everywhere. Pure functions, no dependency.
"""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "query_words", "type_phrase"]

# Common English words that match nearly every passage: they only add cost to an OR query.
_STOPWORD_TEXT = """a about above after again against all am an and any are as at be because
been before being below between both but by can did do does doing down during each few for
from further had has have having he her here hers herself him himself his how i if in into is
it its itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"\w+", re.UNICODE)


def query_words(text: str) -> list[str]:
    """The distinct words of a query, lower-cased, common English words left out.

    >>> query_words('who owns "the Forge" NEAR(x) OR *')
    ['owns', 'forge', 'near', 'x']
    """
    words = [w.lower() for w in _WORD.findall(text)]
    kept = [w for w in words if w not in STOPWORDS] or words
    return list(dict.fromkeys(kept))


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def type_phrase(rel_type: str) -> str:
    """A relationship type as the words a sentence says it with, lower-cased.

    >>> [type_phrase(t) for t in ("works_at", "SitsOn", "memberOf", "HAS_PART", "owner")]
    ['works at', 'sits on', 'member of', 'has part', 'owner']
    """
    return " ".join(_CAMEL.sub(" ", rel_type).replace("_", " ").split()).lower()
