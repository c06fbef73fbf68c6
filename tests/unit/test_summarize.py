"""summarize_turn: deterministic one-line summaries, every rule of issue 5."""

import unicodedata

import pytest

from graphmem import InvalidInput, summarize_turn
from graphmem.conversation.summarize import CODE_PLACEHOLDER


def test_short_plain_text_is_kept():
    assert summarize_turn("The forge is by the river.") == "The forge is by the river."


def test_whitespace_is_collapsed():
    assert summarize_turn("  The   forge\n\n is\tby  the river. ") == "The forge is by the river."


def test_fenced_code_is_stripped():
    text = "Run this:\n```python\nprint('x')\n```\nThen restart."
    assert summarize_turn(text) == "Run this: Then restart."


def test_tilde_fences_are_stripped_too():
    assert summarize_turn("Before\n~~~\ncode\n~~~\nafter") == "Before after"


@pytest.mark.parametrize(
    "text",
    ["```\nx = 1\n```", "```sh\nls\n```\n\n```py\nprint(1)\n```", "  ```js\n;\n```  \n"],
)
def test_all_code_becomes_the_placeholder_never_empty(text):
    assert summarize_turn(text) == CODE_PLACEHOLDER == "[code]"


def test_unclosed_fence_drops_the_marker_and_keeps_the_text():
    out = summarize_turn("Look:\n```python\nprint(1)")
    assert "`" not in out
    assert out == "Look: print(1)"


def test_inline_code_is_unwrapped_and_stray_backticks_dropped():
    assert (
        summarize_turn("Call `open()` then `` close() `` ` now") == "Call open() then close() now"
    )


def test_markdown_is_stripped_but_link_and_image_text_kept():
    text = (
        "# Directions\n"
        "> **Go** to the [mill](https://example.org/mill) and _ask_ for ~~Tom~~ Tomas.\n"
        "- see ![the map](map.png)\n"
        "1. keep snake_case_names\n"
        "---"
    )
    assert summarize_turn(text) == (
        "Directions Go to the mill and ask for Tom Tomas. see the map keep snake_case_names"
    )


def test_leading_filler_clause_is_dropped_when_content_remains():
    assert summarize_turn("Sure, I'll help with that. The mill is north.") == "The mill is north."
    assert summarize_turn("Of course! Certainly. the smith is Mira.") == "The smith is Mira."


@pytest.mark.parametrize("text", ["Sure, I'll help with that.", "Of course!", "Okay."])
def test_filler_only_text_is_kept(text):
    assert summarize_turn(text) == text


def test_filler_inside_the_text_is_kept():
    assert summarize_turn("The answer is sure, of course.") == "The answer is sure, of course."


def test_cut_at_a_sentence_end_past_halfway():
    text = "The mill stands north of the river, past the old bridge. " + "More words " * 30
    out = summarize_turn(text, max_chars=80)
    assert out == "The mill stands north of the river, past the old bridge."


def test_sentence_end_before_halfway_is_not_used():
    text = "Yes. " + "the long road winds past the mill and over the hills " * 5
    out = summarize_turn(text, max_chars=60)
    assert out != "Yes."
    assert len(out) <= 60
    assert out.startswith("Yes. the long road")
    assert text.startswith(out)
    assert text[len(out)] == " "  # a word boundary


@pytest.mark.parametrize("early", ["e.g.", "v1.2", "node.js", "3.14", "i.e.", "Dr."])
def test_early_dots_are_not_sentence_ends(early):
    text = f"Use {early} with care when the mill wheel turns and the water runs high and fast"
    out = summarize_turn(text, max_chars=50)
    assert len(out) <= 50
    assert text.startswith(out)
    assert text[len(out)] == " "
    assert len(out) > len(f"Use {early}")


@pytest.mark.parametrize("abbreviation", ["e.g.", "v1.2", "node.js"])
def test_dots_past_halfway_that_are_not_sentence_ends_are_not_cut_at(abbreviation):
    text = f"The miller grinds the grain every day, {abbreviation} wheat and rye and barley too"
    out = summarize_turn(text, max_chars=len(text) - 10)
    assert out != text[: text.index(abbreviation) + len(abbreviation)]
    assert text.startswith(out) and text[len(out)] == " "


def test_word_boundary_cut_near_the_limit():
    text = "word " * 100
    out = summarize_turn(text, max_chars=42)
    assert out == ("word " * 8).strip()  # 39 characters, the last whole word that fits


def test_hard_cut_without_spaces():
    text = "x" * 500
    assert summarize_turn(text, max_chars=37) == "x" * 37


def test_decimal_at_the_end_of_the_window_is_not_a_sentence_end():
    text = "The price was 3.50 coins and the smith wanted more than that for the old sword"
    out = summarize_turn(text, max_chars=len("The price was 3.50 coins") + 1)
    assert out == "The price was 3.50 coins"


def test_multibyte_text_is_cut_on_code_points():
    text = "日本語のテキスト" * 50
    out = summarize_turn(text, max_chars=25)
    assert out == text[:25]
    out.encode("utf-8")  # whole characters only


def test_combining_marks_stay_with_their_letter():
    text = "e\u0301" * 40  # decomposed é
    out = summarize_turn(text, max_chars=11)
    assert len(out) == 10
    assert not unicodedata.combining(out[0])
    assert out[-1] == "\u0301" and out[-2] == "e"


def test_zwj_emoji_sequences_are_not_split():
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 5 code points
    out = summarize_turn(family * 10, max_chars=7)
    assert out == family


def test_flags_are_not_split():
    flags = "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea" * 5  # FR DE ...
    out = summarize_turn(flags, max_chars=5)
    assert out == flags[:4]


def test_skin_tone_modifier_stays():
    wave = "\U0001f44b\U0001f3fd"
    out = summarize_turn(wave * 10, max_chars=5)
    assert out == wave * 2


def test_result_never_exceeds_max_chars():
    text = "Hello there. " * 100 + "```x```"
    for limit in range(1, 120, 7):
        assert len(summarize_turn(text, max_chars=limit)) <= limit


def test_deterministic():
    text = "Sure! ## Plan\n* **Step** one: go `north`. Step two: e.g. ask Mira. " * 5
    assert summarize_turn(text, 90) == summarize_turn(text, 90)


@pytest.mark.parametrize("bad", [0, -1, True, 2.5, None])
def test_max_chars_must_be_positive_int(bad):
    with pytest.raises(InvalidInput):
        summarize_turn("text", max_chars=bad)


def test_text_must_be_a_string():
    with pytest.raises(InvalidInput):
        summarize_turn(None)  # type: ignore[arg-type]


def test_empty_text_gives_empty_summary():
    assert summarize_turn("") == ""
    assert summarize_turn("   \n") == ""
