"""NameExtractor: proper names without a model, and add_documents linking by them."""

from __future__ import annotations

import pytest

import graphmem
from graphmem import Entity, InvalidInput
from graphmem.retrieval import HashingEmbedder, NameExtractor
from graphmem.retrieval.names import name_entity_id


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "It was published by the American Psychological Association in 1991.",
            ["American Psychological Association"],
        ),
        ("The study began with G. Stanley Hall's book.", ["G. Stanley Hall"]),
        ("Kim Jong-il visited St. Louis, Missouri.", ["Kim Jong-il", "St. Louis", "Missouri"]),
        ("He taught at the University of North Texas.", ["University of North Texas"]),
        ("Erik Erikson and Anna Freud disagreed.", ["Erik Erikson", "Anna Freud"]),
        # A lone capitalised word opening a sentence is no evidence of a name.
        ("Even so, nobody came. However, Denton grew.", ["Denton"]),
        # Calendar words and particles at the ends are not part of a name.
        ("In March 1999 the King of the Hill aired.", ["King of the Hill"]),
        ("", []),
        ("no capitals here at all.", []),
    ],
)
def test_names_found(text: str, names: list[str]) -> None:
    assert NameExtractor().names(text) == names


def test_same_name_once_and_ids_casefolded() -> None:
    extractor = NameExtractor()
    assert extractor.names("Paris is big. They love the city of Paris.") == ["Paris"]
    assert name_entity_id("The  Hague") == name_entity_id("the hague") == "name:hague"


def test_extract_skips_what_known_entities_are_called() -> None:
    known = [Entity(id="apa", type="faction", name="APA", attributes={"aliases": ["APA Press"]})]
    found = NameExtractor(entity_type="faction").extract(
        "The APA Press and Houston Baptist University met.", known
    )
    assert [(e.id, e.type, e.name) for e in found.entities] == [
        ("name:houston baptist university", "faction", "Houston Baptist University")
    ]
    assert found.relationships == []


def test_word_limits() -> None:
    assert NameExtractor(min_words=2).names("Ada met Bob Marley in Kingston Town.") == [
        "Bob Marley",
        "Kingston Town",
    ]
    with pytest.raises(InvalidInput):
        NameExtractor(min_words=0)
    with pytest.raises(InvalidInput):
        NameExtractor(min_words=3, max_words=2)


def test_add_documents_links_every_chunk_to_names_found_in_any() -> None:
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder(64)) as mem:
        mem.upsert_entities(
            [Entity(id="odile", type="npc", name="Odile Marrow", attributes={"mood": "wary"})]
        )
        docs = [
            # "halden crook" is written in lower case here: only the second document's
            # capitals make it a name, and the first chunk must still be linked to it.
            {"id": "a", "text": "odile marrow owes halden crook two coppers."},
            {"id": "b", "text": "Halden Crook runs the mill. Odile Marrow rows the ferry."},
        ]
        report = mem.add_documents(docs, extractor=NameExtractor())
        assert report.extractor == "names"
        assert report.entities == 1
        assert not report.notes
        assert mem.get_entity("name:halden crook").name == "Halden Crook"
        mentions = mem.store.get_mentions(mem.tenant, "chunk", ["a#0", "b#0"])
        assert mentions == {
            "a#0": ["name:halden crook", "odile"],
            "b#0": ["name:halden crook", "odile"],
        }
        # An existing entity is never overwritten by what an extractor returns.
        assert mem.get_entity("odile").attributes == {"mood": "wary"}
        again = mem.add_documents(
            [{"id": "c", "text": "Halden Crook and Mira Vell argued."}], extractor=NameExtractor()
        )
        assert again.entities == 1  # Mira Vell; Halden Crook exists already
