"""Graph questions: the noun phrase after "which", read on a small made-up lighthouse service.

"Which *head* keeper ..." asks for a keeper: the word before the kind only qualifies it,
and names no step. A type named by a word questions use for requests ("show", "list") is
matched by that word. A phrase WordNet defines verbs by is read with another last particle
("in charge *at*"). And the confidence counts a word a type names by meaning alone by that
match. The light verbs and particles of a phrase ("*got* a feud *going*") a path leaves
unexplained are no sign of another question; a kind named on the way ("the *federation* of
the player X coaches") is one the path passes; a closed compound's last noun names its
kind ("which *course*" of ``racecourse``); and when no word explains the question, the one
type joining the topic's kind to the kind asked for answers it. None of these names is in the
evaluation worlds.
"""

from __future__ import annotations

from graphmem.retrieval import GraphQASettings
from tests.small_worlds import SynonymEmbedder, open_world, top, typed_world

PEOPLE = {
    "ilse": "Ilse Brandt",
    "jory": "Jory Penhale",
    "kit": "Kit Morrow",
    "lowen": "Lowen Trevail",
}
THINGS = {
    "gull": ("lighthouse", "Gull Point Light"),
    "skerry": ("lighthouse", "Black Skerry Light"),
    "harbour": ("station", "Harbour Station"),
}
FACTS = [
    ("gull", "kept_by", "ilse"),
    ("skerry", "kept_by", "jory"),
    ("jory", "trained_by", "ilse"),
    ("kit", "trained_by", "jory"),
    ("lowen", "manages", "harbour"),
    ("gull", "served_from", "harbour"),
]


def test_a_word_before_the_kind_asked_for_names_no_step() -> None:
    with open_world("lights", PEOPLE, THINGS, FACTS) as mem:
        # "master" is one a keeper was trained by: read as a step it walked to Ilse,
        # who trained Jory; the question asks which keeper keeps the light
        assert top(mem, "Which master person keeps the Black Skerry Light?") == ["jory"]
        # and with no such word the answer is the same
        assert top(mem, "Which person keeps the Black Skerry Light?") == ["jory"]


def test_a_word_for_a_person_asks_for_no_relation() -> None:
    with open_world("lights", PEOPLE, THINGS, FACTS) as mem:
        answers = mem.ask("Who trained the man Kit Morrow was trained by?", semantic=False)
        assert [a.entity.id for a in answers][:1] == ["ilse"]
        assert "man" not in answers.unexplained


def test_a_kind_named_in_two_words_with_its_type_keeps_both() -> None:
    entities = [
        ("anna", "ship", "Anna Beck"),
        ("berta", "ship", "Berta Beck"),
        ("clara", "ship", "Clara Beck"),
        ("dunlin", "dock", "Dunlin Dock"),
    ]
    facts = [
        ("anna", "sister_ship_of", "berta"),
        ("clara", "sister_ship_of", "anna"),
        ("anna", "built_in", "dunlin"),
    ]
    with typed_world("sisters", entities, facts) as mem:
        # "sister" names ``sister_ship_of`` with "ships": a compound, not a qualifier
        assert top(mem, "Which sister ships does the Anna Beck have?") == ["berta", "clara"]


def test_a_type_named_by_a_request_word_is_matched_by_it() -> None:
    entities = [
        ("dawn", "show", "Dawn Parade"),
        ("ember", "show", "Ember Review"),
        ("rue", "critic", "Rue Calder"),
        ("loom", "collection", "Loom Eleven"),
    ]
    facts = [
        ("rue", "reviewed", "dawn"),
        ("rue", "reviewed", "ember"),
        ("loom", "shown_at", "dawn"),
    ]
    with typed_world("runway", entities, facts) as mem:
        # "shows" is the kind asked for (``show``), not a step of ``shown_at``
        assert top(mem, "Which shows did Rue Calder review?") == ["dawn", "ember"]


def test_a_defining_phrase_is_read_with_another_particle() -> None:
    with open_world("lights", PEOPLE, THINGS, FACTS) as mem:
        # WordNet defines "manage" by "be in charge of"
        for question in (
            "Who is in charge of Harbour Station?",
            "Who is in charge at Harbour Station?",
        ):
            answers = mem.ask(question, semantic=False)
            assert [a.entity.id for a in answers][:1] == ["lowen"], question
            assert "charge" not in answers.unexplained


def test_the_noun_a_name_is_attached_to_and_a_verb_after_it_are_two_steps() -> None:
    people = {"ada": "Ada Quill", "bo": "Bo Fenner", "cy": "Cy Marsh", "di": "Di Rook"}
    facts = [("ada", "reports_to", "bo"), ("bo", "reports_to", "cy"), ("di", "mentors", "ada")]
    with open_world("office", people, {}, facts) as mem:
        # the boss's boss: the noun's step, then the verb's
        assert top(mem, "Who does Ada Quill's boss report to?") == ["cy"]
        assert top(mem, "Who does Ada Quill report to?") == ["bo"]
        assert top(mem, "Who is Ada Quill's boss?") == ["bo"]
        # a noun of the same relation after the name is one step ("when she was ...")
        assert top(mem, "Who was Ada Quill's boss when she was a subordinate?") == ["bo"]


def test_the_boss_of_a_group_is_its_head_unless_someone_reports_to_a_boss() -> None:
    people = {"vex": "Vex Harrow", "nim": "Nim Cole", "ora": "Ora Pike"}
    things = {"saints": ("crew", "Ash Saints")}
    facts = [("vex", "heads", "saints"), ("nim", "member_of", "saints")]
    with open_world("crews", people, things, facts) as mem:
        assert top(mem, "Who is the boss of the Ash Saints?") == ["vex"]
        assert top(mem, "Which crew is Vex Harrow the boss of?") == ["saints"]
    # where a boss is one reported to, "boss" is that relation's alone
    with open_world("crews", people, things, [*facts, ("nim", "reports_to", "ora")]) as mem:
        assert top(mem, "Who is Nim Cole's boss?") == ["ora"]
        assert mem.ask("Who is the boss of the Ash Saints?", semantic=False).abstained


def test_getting_a_thing_from_someone_is_their_supplying_it() -> None:
    entities = [
        ("vale", "mill", "Vale Mill"),
        ("orme", "mill", "Orme Mill"),
        ("kell", "mill", "Kell Mill"),
        ("brack", "farm", "Brack Farm"),
    ]
    facts = [
        ("brack", "supplies", "vale"),
        ("brack", "supplies", "orme"),
        ("brack", "sued", "kell"),
    ]
    with typed_world("grain", entities, facts) as mem:
        # "get ... from" is "supply" read from its other end
        assert top(mem, "Which mills get grain from Brack Farm?") == ["orme", "vale"]
        assert top(mem, "Which farm does Vale Mill get its grain from?") == ["brack"]


def test_a_capitalised_word_next_to_a_name_no_entity_has_is_a_name_unknown() -> None:
    entities = [
        ("night", "race", "Night Slalom"),
        ("ida", "skier", "Ida Brunner"),
        ("hollow", "village", "Hollow End"),
    ]
    facts = [("ida", "won", "night"), ("night", "held_at", "hollow")]
    with typed_world("slopes", entities, facts) as mem:
        assert top(mem, "Who won the Night Slalom?") == ["ida"]
        # only a Night Slalom is known: the Giant one is not it
        unknown = mem.ask("Who won the Kessel Giant Slalom?", semantic=False)
        assert unknown.abstained and "Kessel" in unknown.reason
        # a title before a name, or an acronym, is no unknown name
        assert top(mem, "Who won the Night Slalom, Captain?") == ["ida"]


def test_a_verb_and_its_noun_in_or_share_a_stem() -> None:
    entities = [
        ("bank", "sponsor", "Nordby Bank"),
        ("open", "tournament", "Nordby Open"),
        ("cup", "tournament", "Harbour Cup"),
        ("town", "city", "Nordby"),
    ]
    facts = [
        ("open", "sponsored_by", "bank"),
        ("cup", "sponsored_by", "bank"),
        ("bank", "based_in", "town"),
    ]
    with typed_world("cups", entities, facts) as mem:
        # "sponsor" and "sponsored" are one word ("spons"), not "spon" and "spons": the
        # walk explains the verb, and no walk that does not (to the bank's town) follows
        answers = mem.ask("What does Nordby Bank sponsor?", semantic=False)
        assert sorted(a.entity.id for a in answers) == ["cup", "open"]


def test_a_word_matched_by_meaning_alone_counts_by_that_match() -> None:
    people = {"mara": "Mara Quell", "tobin": "Tobin Ash"}
    facts = [("mara", "guards", "tobin")]
    # "shields" means "guards" here (cosine 1); a match by meaning counts at most half
    embedder = SynonymEmbedder(("guards", "shields"))
    half = GraphQASettings(semantic_weight=0.5)
    with open_world("wardens", people, {}, facts, embedder=embedder) as mem:
        own = mem.ask("Who guards Tobin Ash?", settings=half)
        meant = mem.ask("Who shields Tobin Ash?", settings=half)
    assert [a.entity.id for a in own][:1] == [a.entity.id for a in meant][:1] == ["mara"]
    assert own.confidence > 0.5
    # the only word of a relation is half explained: the answer is at most half sure
    assert 0 < meant.confidence <= 0.5


def test_light_verbs_and_particles_left_unexplained_do_not_abstain() -> None:
    people = {"amos": "Amos Kell", "bree": "Bree Tallow", "cato": "Cato Rusk"}
    things = {
        "loan9": ("loan", "Loan Nine"),
        "saffron": ("spice", "Red Saffron"),
        "well": ("oasis", "Bitter Well"),
        "dunes": ("caravan", "Dune Runners"),
    }
    facts = [
        ("loan9", "borrowed_by", "cato"),
        ("loan9", "lent_by", "bree"),
        ("saffron", "sourced_from", "well"),
        ("saffron", "carried_by", "dunes"),
        ("amos", "feuds_with", "cato"),
    ]
    with open_world("spices", people, things, facts) as mem:
        # "got" and "going" name no relation: "feud" is what the question asks
        assert top(mem, "Who has Amos Kell got a feud going with?") == ["cato"]
        # nor "come": the kind asked for says which type it is
        assert top(mem, "Which oasis does the Red Saffron come from?") == ["well"]
        # a content word no type explains still abstains: no fact is about money
        money = mem.ask("Who put up the money for Loan Nine?", semantic=False)
        assert money.abstained and money.unexplained == ("money",)


def test_a_kind_named_on_the_way_is_one_the_path_passes() -> None:
    entities = [
        ("sorokin", "trainer", "Ilya Sorokin"),
        ("vera", "player", "Vera Lind"),
        ("cai", "player", "Cai Orr"),
        ("lyon", "club", "Club Lyon"),
        ("ukr", "federation", "Ukrainian Federation"),
        ("kyiv", "city", "Kyiv"),
        ("paris", "city", "Paris"),
    ]
    facts = [
        ("vera", "coached_by", "sorokin"),
        ("vera", "signed_with", "lyon"),
        ("vera", "represents", "ukr"),
        ("cai", "signed_with", "lyon"),
        ("lyon", "based_in", "paris"),
        ("ukr", "based_in", "kyiv"),
    ]
    with typed_world("federations", entities, facts) as mem:
        # no type's words say club or federation: the kind the walk passes does
        asked = "In which city is the federation of the player Sorokin coaches based?"
        answers = mem.ask(asked, semantic=False)
        assert top(mem, asked) == ["kyiv"] and answers.confidence > 0.6, answers
        assert top(mem, "In which city is the club of the player Sorokin coaches based?") == [
            "paris"
        ]
        # and nothing else is walked to when it is clear
        answers = mem.ask("Where is the federation of Vera Lind based?", semantic=False)
        assert [a.entity.id for a in answers] == ["kyiv"], answers


def test_the_noun_a_closed_compound_ends_with_names_its_kind() -> None:
    entities = [
        ("moon", "horse", "Paper Moon"),
        ("cup", "race", "Autumn Cup"),
        ("kelby", "racecourse", "Kelby Downs"),
        ("ann", "trainer", "Ann Oak"),
    ]
    facts = [("moon", "won", "cup"), ("cup", "held_at", "kelby"), ("moon", "trained_by", "ann")]
    with typed_world("courses", entities, facts) as mem:
        # a racecourse is a course: the walk goes on from the race to where it was held
        assert top(mem, "At which course did Paper Moon win?") == ["kelby"]
        assert top(mem, "Which race did Paper Moon win?") == ["cup"]


def test_the_one_way_to_the_kind_asked_for_answers_when_no_word_explains() -> None:
    entities = [
        ("glass", "horse", "Glasshouse"),
        ("moon", "horse", "Paper Moon"),
        ("dusk", "horse", "Dusk Runner"),
        ("priya", "vet", "Priya Nair"),
        ("kit", "vet", "Kit Rowe"),
        ("tom", "groom", "Tom Hale"),
        ("ann", "owner", "Ann Oak"),
    ]
    facts = [
        ("glass", "treated_by", "priya"),
        ("moon", "treated_by", "kit"),
        ("tom", "does", "glass"),
        ("glass", "bred_by", "ann"),
        ("dusk", "bred_by", "ann"),
    ]
    asked = "Which vet sees to Glasshouse when it's lame?"
    with typed_world("stables", entities, facts) as mem:
        # no type's words say "sees to": horses and vets are joined by ``treated_by`` alone
        answers = mem.ask(asked, semantic=False)
        assert [a.entity.id for a in answers] == ["priya"], answers
        assert answers.confidence == 0.3 and "the kind asked for" in answers.reason
        assert answers.unexplained == ("sees", "lame")
        assert top(mem, "Which vet has Glasshouse on her books?") == ["priya"]
        # Dusk Runner has no vet; "who" asks for no kind by a type's own word
        assert mem.ask("Which vet sees to Dusk Runner when it's lame?", semantic=False).abstained
        assert mem.ask("Who sees to Glasshouse when it's lame?", semantic=False).abstained
    # a second type joining horses and vets: which one "sees to" is, is unsure
    with typed_world("stables2", entities, [*facts, ("kit", "bought", "moon")]) as mem:
        two = mem.ask(asked, semantic=False)
        assert two.abstained and two.unexplained == ("sees", "lame")
