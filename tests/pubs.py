"""A small pub world for the tests of graph questions read as a phrase (rows, as JSON has them).

"whereabouts" is no word of ``stands_in`` and WordNet gives it none, so the word-level
reading abstains on "Whereabouts is the Anchor?"; said of the pub's kind ("whereabouts is
the pub?") the question is nearest "pub stands in place". The Bell stands nowhere the
graph knows: it has no ``stands_in`` fact.
"""

from __future__ import annotations

ENTITIES = [
    {"id": "anchor", "type": "pub", "name": "The Anchor"},
    {"id": "bell", "type": "pub", "name": "The Bell"},
    {"id": "quay", "type": "place", "name": "Quayside"},
    {"id": "hill", "type": "place", "name": "Chapel Hill"},
    {"id": "harrow", "type": "brewery", "name": "Harrow Brewery"},
    {"id": "hal", "type": "person", "name": "Hal Morrow"},
    {"id": "jess", "type": "person", "name": "Jess Penn"},
    {"id": "ned", "type": "person", "name": "Ned Tolley"},
]
FACTS = [
    {"source_id": source, "type": kind, "target_id": target}
    for source, kind, target in [
        ("anchor", "stands_in", "quay"),
        ("harrow", "stands_in", "hill"),
        ("anchor", "tied_to", "harrow"),
        ("bell", "tied_to", "harrow"),
        ("hal", "keeps", "anchor"),
        ("jess", "drinks_at", "anchor"),
        ("ned", "drinks_at", "bell"),
        ("jess", "brews_at", "harrow"),
    ]
]
ASKED = "Whereabouts is the Anchor?"
READ_AS = "read as a phrase: 'whereabouts is the pub?'"
