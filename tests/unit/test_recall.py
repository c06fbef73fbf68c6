"""Conversation recall: time expressions, speakers, the turn model, and the default preset."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

import graphmem
from graphmem import InvalidInput, Memory
from graphmem.core.store import SearchHit
from graphmem.retrieval import (
    PRESETS,
    TURN_SIGNALS,
    TURN_WEIGHTS,
    ConversationRetriever,
    FusionSettings,
    HashingEmbedder,
    choose_preset,
    fit_turn_weights,
    read_time,
)
from graphmem.retrieval.recall import (
    _only_asks,
    first_person,
    named_speakers,
    rank_pool,
    turn_pool,
)

NOW = datetime(2024, 3, 6, 15, 30, tzinfo=UTC)
DAY0 = datetime(2024, 1, 5, 18, 0, tzinfo=UTC)
OWN_OFF = {"own_vector": 0.0, "context_own_vector": 0.0}  # the question in a speaker's words


def _spans(text: str) -> list[tuple[str, str]]:
    return [
        (s.start.date().isoformat(), s.end.date().isoformat()) for s in read_time(text, NOW).spans
    ]


# ----------------------------------------------------------------------------- time


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("What did Paola cook on 22.01.2024?", [("2024-01-22", "2024-01-23")]),
        ("on 01/22/2024", [("2024-01-22", "2024-01-23")]),
        ("on 22/01/2024", [("2024-01-22", "2024-01-23")]),
        ("on 2024-01-22", [("2024-01-22", "2024-01-23")]),
        ("Where was Kate on 31 Dec 2023?", [("2023-12-31", "2024-01-01")]),
        ("the 17th of January, 2024", [("2024-01-17", "2024-01-18")]),
        ("What game did Akib watch on December 28 2023?", [("2023-12-28", "2023-12-29")]),
        ("When did Akib hike in January 2024?", [("2024-01-01", "2024-02-01")]),
        ("When did Fahim catch a cold in 2024?", [("2024-01-01", "2025-01-01")]),
        ("before January 4th, 2024", [("0001-01-02", "2024-01-04")]),
        ("since 3 Jan 2024", [("2024-01-03", "9999-12-30")]),
        ("yesterday", [("2024-03-05", "2024-03-06")]),
        ("today", [("2024-03-06", "2024-03-07")]),
        ("last week", [("2024-02-26", "2024-03-04")]),
        ("last month", [("2024-02-01", "2024-03-01")]),
        ("last year", [("2023-01-01", "2024-01-01")]),
        ("3 days ago", [("2024-03-02", "2024-03-05")]),
        ("on 31.02.2024", []),  # no such day
        ("Did Fahim like 2666 by Bolano?", []),
        ("When did Elise go for a massage?", []),
    ],
)
def test_time_expressions(text: str, spans: list[tuple[str, str]]) -> None:
    assert _spans(text) == spans


def test_bare_months_match_any_year_and_may_the_verb_is_not_a_month() -> None:
    query = read_time("Were they both sick in January?", NOW)
    assert sorted(query.months) == [1]
    assert query.match(datetime(2021, 1, 9, tzinfo=UTC)) == 1.0
    assert query.match(datetime(2021, 2, 9, tzinfo=UTC)) == 0.0
    assert not read_time("this may help, in may", NOW)
    assert sorted(read_time("what happened in May?", NOW).months) == [5]


def test_a_day_off_the_span_counts_half() -> None:
    query = read_time("What did Kate do on 31 Dec 2023?", NOW)
    assert query.match(datetime(2023, 12, 31, 23, 59, tzinfo=UTC)) == 1.0
    assert query.match(datetime(2024, 1, 1, 8, 0, tzinfo=UTC)) == 0.5
    assert query.match(datetime(2024, 1, 3, tzinfo=UTC)) == 0.0


# ----------------------------------------------------------------------------- speakers


def test_speakers_are_named_by_any_part_and_by_spelling_variants() -> None:
    speakers = ["Muhhamed", "Fahim Khan", "Akib", "elise"]
    named, words = named_speakers("What did Mohammed and Fahim do?", speakers)
    assert named == {"Muhhamed", "Fahim Khan"}
    assert {"mohammed", "fahim"} <= words
    assert named_speakers("When did Akim check the servers?", speakers)[0] == {"Akib"}
    assert named_speakers("what did elise buy?", speakers)[0] == {"elise"}
    # a lower-case word is only ever an exact match: "akim" is not Akib
    assert named_speakers("akim's servers", speakers)[0] == frozenset()
    assert named_speakers("What is for dinner?", speakers)[0] == frozenset()


def test_a_speaker_named_like_a_common_word_is_not_found_in_every_question() -> None:
    assert named_speakers("Will it rain? Can we go?", ["Will", "Can"])[0] == frozenset()


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("What about you?", True),
        ("  How are you?  ", True),
        ("I went hiking. How about you?", False),
        ("Hey! How are you?", False),
        ("Skiing, mostly.", False),
    ],
)
def test_a_message_that_only_asks(text: str, asks: bool) -> None:
    assert _only_asks(text) is asks


# ----------------------------------------------------------------------------- the model


@pytest.fixture
def mem() -> Iterator[Memory]:
    with graphmem.open("memory://", tenant="chat", embedder=HashingEmbedder()) as memory:
        yield memory


def _chat(mem: Memory) -> dict[str, str]:
    """Two sessions between Kate and Elise; returns content -> turn id."""
    lines = [
        ("s1", "Kate", "Hey Elise! How are you?"),
        ("s1", "Elise", "Good! What do you do for fun?"),
        ("s1", "Kate", "Mostly skiing in Colorado, and pasta classes"),
        ("s1", "Elise", "Nice. I study economics at UCLA"),
        ("s1", "Elise", "I like the market near campus, it sells scarves"),
        ("s2", "Elise", "I bought a red scarf at the market today"),
        ("s2", "Kate", "Lovely, I stayed home"),
        ("s2", "Elise", "ok"),
    ]
    ids: dict[str, str] = {}
    for n, (session, speaker, text) in enumerate(lines):
        when = DAY0 + timedelta(days=2 if session == "s2" else 0, minutes=n)
        turn = mem.conversation(session).append("user", text, speaker=speaker, created_at=when)
        ids[text] = turn.id
    return ids


def _said(mem: Memory, lines: list[tuple[str, str, str]]) -> dict[str, str]:
    """Append each (session, speaker, text), a day apart; the turn ids by text."""
    ids: dict[str, str] = {}
    for n, (session, speaker, text) in enumerate(lines):
        when = DAY0 + timedelta(days=n)
        turn = mem.conversation(session).append("user", text, speaker=speaker, created_at=when)
        ids[text] = turn.id
    return ids


def _pool(mem: Memory, question: str) -> object:
    vector = mem.embedder.embed([question])[0]
    pair = mem.store.hybrid_search(mem.tenant, ["turn"], vector=vector, text=question, k=100)
    return turn_pool(mem.store, mem.tenant, question, pair["turn"], depth=1)


def test_signals_of_a_turn_read_its_neighbours_speaker_session_and_time(mem: Memory) -> None:
    ids = _chat(mem)
    mem.flush_index()
    pool = _pool(mem, "What does Kate do for fun on 5 Jan 2024?")
    answer = pool.signals(ids["Mostly skiing in Colorado, and pasta classes"])  # type: ignore[attr-defined]
    greeting = pool.signals(ids["Hey Elise! How are you?"])  # type: ignore[attr-defined]
    question = pool.signals(ids["Good! What do you do for fun?"])  # type: ignore[attr-defined]
    assert question["text"] == 1.0  # "fun" is only said there
    assert answer["context_text"] == 1.0  # the answer comes right after it
    assert answer["session_text"] == 1.0
    assert answer["speaker_named"] == 1.0 and answer["other_named"] == 0.0
    assert question["other_named"] == 1.0
    assert answer["when"] == 1.0  # said on 5 January 2024
    assert answer["words"] == 0.7 and answer["short"] == 0.0
    assert greeting["names_named"] == 0.0  # it names Elise; the question names Kate
    assert set(answer) == set(TURN_SIGNALS)


def test_a_question_naming_a_speaker_is_searched_again_in_their_own_words(
    mem: Memory,
) -> None:
    ids = _chat(mem)
    mem.flush_index()
    asked: list[str] = []

    def own_search(text: str) -> list[SearchHit]:
        asked.append(text)
        vector = mem.embedder.embed([text])[0]
        return mem.store.hybrid_search(mem.tenant, ["turn"], vector=vector, text=None, k=100)[
            "turn"
        ].vector

    question = "What are Kate's hobbies?"
    vector = mem.embedder.embed([question])[0]
    pair = mem.store.hybrid_search(mem.tenant, ["turn"], vector=vector, text=question, k=100)
    pool = turn_pool(mem.store, mem.tenant, question, pair["turn"], own_search=own_search)
    assert asked == ["What are my hobbies"]
    own = {node: pool.signals(node)["own_vector"] for node in pool.ids}
    assert max(own.values()) == 1.0 and min(own.values()) == 0.0  # scaled over the hits
    answer = pool.signals(ids["Mostly skiing in Colorado, and pasta classes"])
    around = (
        own[ids["Good! What do you do for fun?"]],
        own[ids["Nice. I study economics at UCLA"]],
    )
    assert answer["context_own_vector"] == max(around)  # its parent and its child
    # a question that names no speaker is not searched again: the signals stay 0
    asked.clear()
    pair = mem.store.hybrid_search(mem.tenant, ["turn"], vector=vector, text="hobbies", k=100)
    pool = turn_pool(mem.store, mem.tenant, "hobbies", pair["turn"], own_search=own_search)
    assert asked == [] and not pool.matrix[:, TURN_SIGNALS.index("own_vector")].any()
    # through retrieve: the signal is read when the memory embedded the question itself
    found = mem.retrieve(question, k=3)
    assert any(r.signals.get("own_vector") for r in found)
    retriever = ConversationRetriever(mem.store, mem.tenant, embedder=mem.embedder)
    assert any(r.signals.get("own_vector") for r in retriever.retrieve(question, k=3))
    given = retriever.retrieve(question, k=3, vector=vector)  # the caller's own vector
    assert not any(r.signals.get("own_vector") for r in given)


def test_a_met_speaker_s_own_words_are_embedded_in_the_batch_of_the_question(
    mem: Memory,
) -> None:
    _chat(mem)
    mem.flush_index()
    batches: list[list[str]] = []

    class Counting:
        """The memory's embedder, telling each batch it is asked for."""

        dimension = mem.embedder.dimension

        def embed(self, texts: Sequence[str]) -> Any:
            batches.append(list(texts))
            return mem.embedder.embed(texts)

    retriever = ConversationRetriever(mem.store, mem.tenant, embedder=Counting())
    question = "What are Kate's hobbies?"
    first = retriever.retrieve(question, k=3)
    # Kate was not met yet: the turn step embeds her words after the search
    assert batches == [[question], ["What are my hobbies"]]
    batches.clear()
    again = retriever.retrieve(question, k=3)
    assert batches == [[question, "What are my hobbies"]]  # one batch, no second call
    assert [(r.source_id, r.score, r.signals) for r in again] == [
        (r.source_id, r.score, r.signals) for r in first
    ]
    batches.clear()
    retriever.retrieve("What are Elise's hobbies?", k=3)  # Elise was met with Kate
    assert batches == [["What are Elise's hobbies?", "What are my hobbies"]]
    batches.clear()
    retriever.retrieve("hobbies", k=3, kinds=["turn"])  # names no one: embedded alone
    assert batches == [["hobbies"]]


def test_the_model_ranks_the_answer_above_the_question_that_matched(mem: Memory) -> None:
    ids = _chat(mem)
    found = mem.retrieve("What does Kate do for fun?", k=3)
    assert found[0].source_id == ids["Mostly skiing in Colorado, and pasta classes"]
    assert found[0].kind == "turn"
    assert found[0].signals["context_text"] == 1.0
    plain = mem.retrieve("What does Kate do for fun?", k=3, turn_ranker="rrf")
    assert plain[0].source_id == ids["Good! What do you do for fun?"]


def test_a_date_in_the_question_picks_the_session_said_that_day(mem: Memory) -> None:
    ids = _chat(mem)
    question = "What did Elise get at the market on 7 January 2024?"
    found = mem.retrieve(question, k=2)
    assert found[0].source_id == ids["I bought a red scarf at the market today"]
    assert found[0].signals["when"] == 1.0
    # without the date (and the question in Elise's words, which also finds the scarf)
    off = {"when": 0.0, **OWN_OFF}
    undated = mem.retrieve(question, k=2, turn_weights={**TURN_WEIGHTS, **off})
    assert undated[0].source_id == ids["I like the market near campus, it sells scarves"]


def test_rank_pool_scales_to_one_and_follows_the_weights(mem: Memory) -> None:
    ids = _chat(mem)
    mem.flush_index()
    pool = _pool(mem, "What does Kate do for fun?")
    scores = rank_pool(pool)  # type: ignore[arg-type]
    assert max(scores.values()) == 1.0 and min(scores.values()) == 0.0
    only_text = rank_pool(pool, {"text": 1.0})  # type: ignore[arg-type]
    assert max(only_text, key=only_text.__getitem__) == ids["Good! What do you do for fun?"]
    no_text = FusionSettings(fulltext_weight=0.0, vector_weight=1.0)
    silent = rank_pool(pool, {"text": 1.0}, no_text)  # type: ignore[arg-type]
    assert set(silent.values()) == {1.0}  # every text signal weighs 0: all tie


def test_weights_and_turn_settings_are_checked() -> None:
    with pytest.raises(InvalidInput, match="unknown signals"):
        FusionSettings(turn_weights={"txt": 1.0})
    with pytest.raises(InvalidInput, match="not finite"):
        FusionSettings(turn_weights={"text": float("nan")})
    with pytest.raises(InvalidInput, match="turn_ranker"):
        FusionSettings(turn_ranker="bm25")
    with pytest.raises(InvalidInput, match="turn_context"):
        FusionSettings(turn_context=9)
    with pytest.raises(InvalidInput, match="turn_candidates"):
        FusionSettings(turn_candidates=0)
    assert set(TURN_WEIGHTS) == set(TURN_SIGNALS)


def test_custom_weights_go_through_retrieve(mem: Memory) -> None:
    ids = _chat(mem)
    found = mem.retrieve("What does Kate do for fun?", k=1, turn_weights={"text": 1.0})
    assert found[0].source_id == ids["Good! What do you do for fun?"]
    with pytest.raises(InvalidInput):
        mem.retrieve("fun", turn_weights={"nope": 1.0})


def test_fit_is_deterministic_and_learns_what_marks_the_evidence() -> None:
    rng = np.random.default_rng(3)
    examples = []
    for _ in range(40):
        matrix = rng.random((30, len(TURN_SIGNALS)))
        labels = np.zeros(30)
        labels[int(np.argmax(matrix[:, 0] - matrix[:, 1]))] = 1.0
        examples.append((matrix, labels))
    examples.append((rng.random((5, len(TURN_SIGNALS))), np.zeros(5)))  # no evidence: skipped
    first = fit_turn_weights(examples, iterations=100)
    assert first == fit_turn_weights(examples, iterations=100)
    assert first["text"] > 1.0 and first["vector"] < -1.0
    assert fit_turn_weights([]) == dict.fromkeys(TURN_SIGNALS, 0.0)


# ----------------------------------------------------------------------------- presets


def test_the_preset_follows_what_is_searched(mem: Memory) -> None:
    assert choose_preset(["turn"]) == "conversation"
    assert choose_preset(["turn", "chunk"]) == "hybrid"
    assert choose_preset(["chunk"]) == "passages"
    ids = _chat(mem)
    by_default = mem.retrieve("What does Kate do for fun?", k=3, kinds=["turn"])
    chosen = mem.retrieve("What does Kate do for fun?", k=3, kinds=["turn"], preset="conversation")
    assert [r.source_id for r in by_default] == [r.source_id for r in chosen]
    assert by_default[0].source_id == ids["Mostly skiing in Colorado, and pasta classes"]
    assert PRESETS["conversation"].graph_weight == 0.0


def test_a_graph_scope_reads_the_hits_without_their_neighbours(mem: Memory) -> None:
    mem.upsert_entities([graphmem.Entity(id="colorado", type="location", name="Colorado")])
    ids = _chat(mem)
    mem.index_turns()
    found = mem.retrieve("skiing", k=5, graph_scope=["colorado"], kinds=["turn"])
    assert [r.source_id for r in found] == [ids["Mostly skiing in Colorado, and pasta classes"]]


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("I took up pottery, my teacher is great", 1.0),
        ("Did you like your trip?", 0.0),
        ("I loved it, did you?", 0.5),
        ("Lovely weather", 0.5),
        ("Im so tired, u know", 0.5),
        ("MY day was long. YOU?", 0.5),
    ],
)
def test_first_person_is_the_writers_share_of_the_pronouns(text: str, share: float) -> None:
    assert first_person(re.findall(r"[^\W\d_]+", text)) == share


def test_what_the_named_speaker_says_of_themselves_ranks_above_what_they_say_of_the_other(
    mem: Memory,
) -> None:
    # The same words either way; the turn about the listener comes first (and wins ties).
    lines = [
        ("s1", "Elise", "How was your week?"),
        ("s1", "Kate", "You like to cook risotto on weekends"),
        ("s2", "Kate", "I like to cook risotto on weekends"),
        ("s2", "Elise", "Thanks, it is my grandmother's recipe"),
    ]
    ids = _said(mem, lines)
    question = "What does Kate like to cook?"
    found = mem.retrieve(question, k=2)
    assert found[0].source_id == ids["I like to cook risotto on weekends"]
    assert found[0].signals["first_person"] == 1.0
    assert "first_person" not in found[1].signals  # 0: it speaks of "you" only
    # blind to pronouns (the question in Kate's own words, "What does I like to cook",
    # also finds the turn that says "I")
    off = {"first_person": 0.0, **OWN_OFF}
    blind = mem.retrieve(question, k=2, turn_weights={**TURN_WEIGHTS, **off})
    assert blind[0].source_id == ids["You like to cook risotto on weekends"]


def test_coverage_weighs_a_rare_word_of_the_question_by_its_rarity_among_the_candidates() -> None:
    from graphmem.retrieval.recall import coverage

    asked = frozenset({"hobb", "wint"})
    # "wint" is in two of the three messages, "hobb" in one: the rare word weighs more
    shares = coverage(asked, [frozenset({"hobb"}), frozenset({"wint"}), frozenset({"wint"})])
    assert shares[0] > 0.5 > shares[1] == shares[2] > 0
    assert coverage(frozenset(), [frozenset({"wint"})]).tolist() == [0.0]


def test_a_message_holding_more_of_the_question_ranks_above_one_repeating_a_word_of_it(
    mem: Memory,
) -> None:
    # The second message says "Aspen" four times and nothing else the question asks; the
    # third holds "hobby", "picked" and "winter" ("hobbies", "pick": compared by the
    # first four letters) in a long message.
    aspen = "Aspen, Aspen, Aspen: I miss Aspen so much, it was lovely"
    hobby = (
        "After a lot of thinking about my free evenings I picked up a new hobby: knitting,"
        " which I do every winter when it is too cold to go out"
    )
    lines = [
        ("s1", "Elise", "How was your day today?"),
        ("s1", "Kate", aspen),
        ("s2", "Kate", hobby),
        ("s2", "Elise", "That sounds like so much fun, enjoy it"),
    ]
    ids = _said(mem, lines)
    question = "Which hobbies did Kate pick up for the winter in Aspen?"
    # (the hashing embedder finds "Aspen" in the question in Kate's words: left out here)
    found = mem.retrieve(question, k=2, turn_weights={**TURN_WEIGHTS, **OWN_OFF})
    assert [r.source_id for r in found] == [ids[hobby], ids[aspen]]
    assert (found[0].signals["coverage"], found[1].signals["coverage"]) == (0.75, 0.25)
    # without coverage the long message's lead over the repeated word shrinks
    off = {"coverage": 0.0, **OWN_OFF}
    blind = mem.retrieve(question, k=4, turn_weights={**TURN_WEIGHTS, **off})
    score = {r.source_id: r.score for r in blind}
    assert score[ids[hobby]] - score[ids[aspen]] < found[0].score - found[1].score


def test_a_name_one_speaker_greets_the_other_with_names_that_speaker(mem: Memory) -> None:
    # The chat stores her as "Emi"; Elise calls her Kate. The question asks about Kate.
    lines = [
        ("s1", "Elise", "Hey Kate! How was your weekend?"),
        ("s1", "Emi", "I like to cook risotto on weekends"),
        ("s2", "Elise", "Thanks Kate, I like to cook too, I like to cook pasta every day"),
        ("s2", "Emi", "Pasta is lovely"),
    ]
    ids = _said(mem, lines)
    found = mem.retrieve("What does Kate like to cook?", k=2)
    assert found[0].source_id == ids["I like to cook risotto on weekends"]
    assert found[0].signals["speaker_named"] == 1.0
    assert found[1].signals["other_named"] == 1.0  # Elise's, though it says "Kate"
    # a name nobody greets with, or that both greet with, names nobody
    assert "speaker_named" not in mem.retrieve("What does Anna like to cook?", k=1)[0].signals


def test_addressed_names_needs_two_greetings_by_one_of_two_speakers() -> None:
    from graphmem.core.models import Turn
    from graphmem.retrieval.recall import addressed_names

    def turns(*said: tuple[str, str]) -> list[Turn]:
        return [Turn(session_id="s", role="user", speaker=s, content=c) for s, c in said]

    question = "Where does Kate work?"
    greeted = turns(("Elise", "Hi Kate"), ("Emi", "Hello!"), ("Elise", "thank you Kate!"))
    assert addressed_names(question, greeted) == {"kate": "Emi"}
    assert addressed_names(question, greeted[:2]) == {}  # one greeting
    both = turns(("Elise", "Hi Kate"), ("Emi", "Hi Kate"), ("Elise", "Bye Kate"))
    assert addressed_names(question, both) == {}
    three = [*greeted, *turns(("Ann", "Hey all"))]
    assert addressed_names(question, three) == {}
    # a speaker's own name is not an alias; "Kate" mentioned, not greeted, is not one
    assert addressed_names("Where does Elise work?", greeted) == {}
    told = turns(("Elise", "I met Kate"), ("Emi", "Nice"), ("Elise", "Kate is kind"))
    assert addressed_names(question, told) == {}
