"""Graph questions: phrasal verbs and converse verbs, read on a small made-up quarry.

A phrasal verb ("dug *up*") names what WordNet's multi-word verb lemma (``dig_up``) says
in one word ("excavate"): it reaches a type named by that word, its particle explained
with it. A converse verb ("supervise" of ``reports_to``) names a type from its other end:
"who is X supervised by?" walks ``reports_to`` forward from X, "who does X supervise?"
backwards. None of these names is in the evaluation worlds.
"""

from __future__ import annotations

from tests.small_worlds import open_world, top

PEOPLE = {"wren": "Wren Tolley", "aldo": "Aldo Price", "mira": "Mira Stone"}
THINGS = {
    "torc": ("artifact", "Quarry Torc"),
    "bowl": ("artifact", "Slate Bowl"),
    "pit": ("trench", "West Pit"),
}
FACTS = [
    ("torc", "excavated_by", "wren"),
    ("bowl", "excavated_by", "aldo"),
    ("torc", "found_in", "pit"),
    ("wren", "reports_to", "aldo"),
    ("aldo", "reports_to", "mira"),
]


def test_a_phrasal_verb_reaches_the_type_its_one_word_names() -> None:
    with open_world("quarry", PEOPLE, THINGS, FACTS) as mem:
        answers = mem.ask("Who dug up the Quarry Torc?", semantic=False)
        assert [a.entity.id for a in answers][:1] == ["wren"]
        assert answers.unexplained == ()
        assert top(mem, "Which artifacts did Aldo Price dig up?") == ["bowl"]


def test_a_converse_verb_walks_the_type_the_other_way() -> None:
    with open_world("quarry", PEOPLE, THINGS, FACTS) as mem:
        # Aldo supervises Wren: Wren reports to Aldo
        assert top(mem, "Who is Wren Tolley supervised by?") == ["aldo"]
        assert top(mem, "Who does Aldo Price supervise?") == ["wren"]
        assert top(mem, "Who supervises Aldo Price?") == ["mira"]
        # the type's own verb keeps its own way
        assert top(mem, "Who does Aldo Price report to?") == ["mira"]


SUCCESSION = {"wren": "Wren Tolley", "aldo": "Aldo Price", "mira": "Mira Stone", "ivo": "Ivo Lark"}
SUCCESSION_FACTS = [
    ("aldo", "succeeded", "wren"),
    ("mira", "succeeded", "aldo"),
    ("wren", "works_at", "yard"),
    ("aldo", "works_at", "yard"),
    ("ivo", "trained", "mira"),
]


def test_a_verb_in_eed_is_one_stem_with_its_forms() -> None:
    # "succeed" was stemmed "suc", "succeeded" "succe": the base form named no type
    yard = {"yard": ("workshop", "Fenn Yard")}
    with open_world("succession", SUCCESSION, yard, SUCCESSION_FACTS) as mem:
        assert top(mem, "Who did Aldo Price succeed?") == ["wren"]
        assert top(mem, "Who succeeded Aldo Price?") == ["mira"]


def test_taking_over_from_someone_is_succeeding_them() -> None:
    # "take over": WordNet's "relieve", of one family with "succeed" and "replace"
    yard = {"yard": ("workshop", "Fenn Yard")}
    with open_world("succession", SUCCESSION, yard, SUCCESSION_FACTS) as mem:
        assert top(mem, "Who did Mira Stone take over from?") == ["aldo"]
        assert top(mem, "Who took over from Wren Tolley?") == ["aldo"]
