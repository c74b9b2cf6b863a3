"""core/text/common_words.py: which words beside a name are the question's own language (issue 64)."""

from __future__ import annotations

import pytest

from biny.core.text.common_words import own_language_word, specific_word


@pytest.mark.parametrize("word", ["wippe", "kostüm", "bett", "kleinkindbett", "herkunftsland", "abmessungen"])
def test_everyday_german_words_and_their_compounds_are_the_askers_own(word: str) -> None:
    assert own_language_word(word, "de")


@pytest.mark.parametrize("word", ["smoke", "alarm", "sticker", "pro", "max", "mini", "puck", "tallow", "teeter",
                                  "fuschia", "spongebob"])
def test_english_words_shared_words_and_names_are_not(word: str) -> None:
    """Words English uses too ("Alarm", "Sticker") may be a name's; short pieces make no compound ("Tal|low")."""
    assert not own_language_word(word, "de")


def test_never_in_an_english_or_unknown_language_question_nor_for_another_script() -> None:
    assert not own_language_word("wippe", "en")
    assert not own_language_word("wippe", None)
    assert not own_language_word("価格", "ja")
    assert own_language_word("poupée", "fr")


def test_a_latin_word_in_a_chinese_or_japanese_question_is_never_that_languages() -> None:
    """And the check needs no tokenizer for those languages (wordfreq's Japanese one is not installed)."""
    assert not own_language_word("gateway", "ja")
    assert not own_language_word("puck", "zh")


def test_two_english_words_written_together_are_no_german_compound() -> None:
    """"flowmeter" splits into "flow" and "meter", both also German words, but neither German's own: the question
    "what does the flowmeter cost" stays English, its name the Flow Meter."""
    assert not own_language_word("flowmeter", "de")
    assert not own_language_word("thermoprobe", "de")
    assert own_language_word("versandgewicht", "de")  # "Versand" is German's own


@pytest.mark.parametrize(("word", "language"), [
    ("graphql", "en"), ("csrf", "en"), ("zigbee", None), ("ch32v003", None), ("esp32", "de"), ("paramspec", "de")])
def test_a_rare_word_or_one_with_a_digit_names_something(word: str, language: str | None) -> None:
    """Issue 55 (retrieve/mentions.py): what the material must mention for the question to be answerable."""
    assert specific_word(word, language)


@pytest.mark.parametrize(("word", "language"), [
    ("cheapest", "en"), ("bought", "en"), ("support", None), ("warranty", "en"), ("kostet", "de"),
    ("tightened", "en"), ("loaned", "en"),  # as common as their family: "tighten", "loan"
    ("werkseinstellungen", "de"), ("feuchtigkeitsempfindlichkeitsstufe", "de"), ("zeitüberschreitung", "de"),
    ("spezifiziere", "de"), ("konfiguriere", "de"), ("spezifiziere", None)])  # in no list, but their verbs are
def test_everyday_words_and_compounds_of_them_name_nothing(word: str, language: str | None) -> None:
    """A paraphrase brings words the text need not hold; a German compound of everyday words is one of them. (A
    German word is read in German only when the question is known to be German.)"""
    assert not specific_word(word, language)


def test_a_number_alone_is_no_name() -> None:
    assert not specific_word("2024", None)
