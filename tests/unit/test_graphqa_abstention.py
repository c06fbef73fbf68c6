"""Graph questions the graph holds no answer to: abstained on, however near another
relation's words come; and a confidence a caller can threshold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tests.small_worlds import open_world


class NearEmbedder:
    """Words embed to given directions (cosines as a sentence model's: "guides" near
    "leads", not the same), every other word to one direction of its own."""

    def __init__(self, vectors: Mapping[str, Sequence[float]]) -> None:
        self._vectors = vectors
        self.dimension = len(next(iter(vectors.values()))) + 1

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            vector = self._vectors.get(text.lower())
            if vector is None:
                out[row, -1] = 1.0
            else:
                out[row, : len(vector)] = vector
        return out


PEOPLE = {"ana": "Ana Brandt", "ben": "Ben Okoro", "cat": "Cat Lind", "dan": "Dan Reyes"}
THINGS = {"ridge": ("team", "Ridge Team")}
FACTS = [
    ("ben", "guides", "cat"),
    ("ben", "guides", "dan"),
    ("ana", "leads", "ridge"),
    ("dan", "leads", "ridge"),
]


def test_a_relation_the_topics_kind_has_but_the_topic_lacks_is_not_answered() -> None:
    # "guides" comes near "leads" by meaning (a cosine of .8); people have guides, Ana
    # has none
    embedder = NearEmbedder({"guides": (0.8, 0.6), "leads": (1.0, 0.0)})
    with open_world("rope", PEOPLE, THINGS, FACTS, embedder=embedder) as mem:
        lacking = mem.ask("Who guides Ana Brandt?")
        assert lacking == [] and lacking.abstained
        assert "guides" in lacking.reason
        held = mem.ask("Who guides Cat Lind?")
        assert [a.entity.id for a in held] == ["ben"]
        # a word the walked type explains best is no other relation's
        assert [a.entity.id for a in mem.ask("What does Ana Brandt lead?")] == ["ridge"]


def test_the_way_a_type_is_walked_is_read_when_one_kind_takes_it_both_ways() -> None:
    # associates report to partners, paralegals to associates: a partner reports to no one
    things = {
        "vane": ("partner", "Margaret Vane"),
        "raman": ("associate", "Priya Raman"),
        "khan": ("associate", "Aisha Khan"),
        "cole": ("paralegal", "Tom Cole"),
    }
    facts = [("raman", "ReportsTo", "vane"), ("khan", "ReportsTo", "vane")]
    facts.append(("cole", "ReportsTo", "raman"))
    with open_world("firm", {}, things, facts) as mem:
        nobody = mem.ask("Who does Margaret Vane report to?", semantic=False)
        assert nobody == [] and nobody.abstained
        assert [a.entity.id for a in mem.ask("Who does Priya Raman report to?")] == ["vane"]
        reports = mem.ask("Who reports to Priya Raman?", semantic=False)
        assert [a.entity.id for a in reports] == ["cole"]


def test_what_is_the_kind_asks_for_that_kind() -> None:
    things = {
        "mercer": ("case", "Mercer case"),
        "harlow": ("case", "Harlow case"),
        "court": ("court", "Commercial Court"),
        "deal": ("settlement", "Harlow settlement"),
    }
    facts = [("mercer", "heard_in", "court"), ("harlow", "heard_in", "court")]
    facts.append(("harlow", "settled_by", "deal"))
    with open_world("courts", {}, things, facts) as mem:
        none = mem.ask("What was the settlement in the Mercer case?", semantic=False)
        assert none == [] and none.abstained and "settlement" in none.reason
        held = mem.ask("What was the settlement in the Harlow case?", semantic=False)
        assert [a.entity.id for a in held] == ["deal"]
        # "what does the ... do?" asks for no kind by the noun after it
        assert [a.entity.id for a in mem.ask("Where was the Mercer case heard?")] == ["court"]


def test_a_word_a_step_walks_by_asks_for_no_other_step() -> None:
    # "drive" is walked by ``drives``; that it is also the stem of ``driver`` asks for no
    # step through Leo's mentor (a driver) to the mentor's team
    things = {
        "leo": ("driver", "Leo Walsh"),
        "ana": ("driver", "Ana Sato"),
        "car": ("car", "M-24"),
        "meridian": ("team", "Meridian"),
    }
    facts = [("leo", "mentor", "ana"), ("ana", "drives", "car"), ("meridian", "builds", "car")]
    with open_world("grid", {}, things, facts) as mem:
        none = mem.ask("Which team does Leo Walsh drive for?", semantic=False)
        assert none == [] and none.abstained
        held = mem.ask("Which team does Ana Sato drive for?", semantic=False)
        assert [a.entity.id for a in held] == ["meridian"]


def test_an_entity_the_question_names_is_no_answer() -> None:
    things = {
        "pratt": ("member", "Oliver Pratt"),
        "stone": ("constituency", "Stonebridge"),
        "hale": ("member", "Ruth Hale"),
        "mere": ("constituency", "Mere Vale"),
    }
    facts = [("pratt", "represents", "stone"), ("hale", "represents", "mere")]
    with open_world("house", {}, things, facts) as mem:
        none = mem.ask("Who represents Stonebridge besides Oliver Pratt?", semantic=False)
        assert none == [] and none.abstained
        assert [a.entity.id for a in mem.ask("Who represents Stonebridge?")] == ["pratt"]


def test_a_noun_asked_with_names_a_kind_the_answers_must_be() -> None:
    # WordNet knows a cooper as a person and a grape as a fruit: no grape answers "which
    # cooper", whatever words of the question the walk explains
    things = {
        "chai": ("cellar", "Grand Chai"),
        "noire": ("wine", "Pierre Noire"),
        "syrah": ("grape", "Syrah"),
    }
    facts = [("noire", "aged_in", "chai"), ("noire", "made_from", "syrah")]
    with open_world("cave", {}, things, facts) as mem:
        none = mem.ask("Which cooper is Pierre Noire made from?", semantic=False)
        assert none == [] and none.abstained and "cooper" in none.reason
        assert [a.entity.id for a in mem.ask("Which grape is Pierre Noire made from?")] == ["syrah"]


def test_the_noun_of_the_topic_asks_for_its_first_step() -> None:
    # drivers have race engineers; Mehta has none, and the engineer of his team's other
    # driver is not his
    things = {
        "mehta": ("driver", "Arjun Mehta"),
        "rossi": ("driver", "Dario Rossi"),
        "halden": ("team", "Halden"),
        "lund": ("engineer", "Eva Lund"),
    }
    facts = [("mehta", "team", "halden"), ("rossi", "team", "halden")]
    facts.append(("rossi", "engineer", "lund"))
    with open_world("pits", {}, things, facts) as mem:
        none = mem.ask("Who is Arjun Mehta's race engineer?", semantic=False)
        assert none == [] and none.abstained
        # "race" is read from the kinds around it (driver ... engineer: the one type
        # joining them), so the possessive noun blocks every first step Mehta has
        assert "engineer" in none.reason or "start a walk" in none.reason
        bare = mem.ask("Who is Arjun Mehta's engineer?", semantic=False)
        assert bare == [] and bare.abstained
        held = mem.ask("Who is Dario Rossi's race engineer?", semantic=False)
        assert [a.entity.id for a in held] == ["lund"]
