"""Is a word an everyday word of the question's own language rather than part of a name? (issue 64)

People asking in German about an English-named product write German nouns beside its name: "die Gym Dandy
Teeter-Totter Wippe", "das Medieval Princess Fuschia Kostüm", "das Delta Children Kleinkindbett". German capitalises
every noun, so the capital says nothing; what tells "Wippe" (a seesaw) from "Smoke" in "Tallow Smoke Alarm" (a
product the table lacks) is that "Wippe" is a common German word and no English one. Word frequencies per language
come from the wordfreq package (its lists ship inside the wheel; nothing is downloaded).
"""

from __future__ import annotations

import functools
import logging
import math

log = logging.getLogger(__name__)

# English is what a name's words are told apart from; a Latin word inside a Chinese, Japanese or Korean question is
# never that language's own word (and wordfreq would need a tokenizer for them that is not installed).
_NOT_LATIN = frozenset({"en", "zh", "ja", "ko"})
# Zipf scale (log10 of occurrences per billion words): 3 is about once per million words — "Wippe" 2.7, "Kostüm"
# 3.9, "Bett" 4.9 in German. A word at least this common in its language ...
MIN_ZIPF = 2.5
# ... and this much rarer in English (a tenfold and then some: "Verlag" 4.75 against 3.15; "Alarm" 4.1 against 4.3
# and "Sticker" 3.6 against 3.7 are words of both, so they may be a name's) is the question's own word.
MIN_LEAD = 1.5
# A compound is split into at most this many known parts ("Klein|kind|bett"), each of at least _PART letters, and
# only a word of _COMPOUND letters or more: shorter parts make German of English names ("Tal|low", "Tee|ter").
_PARTS = 3
_PART = 4
_COMPOUND = 8


@functools.cache
def _zipf() -> object | None:
    try:
        from wordfreq import zipf_frequency
    except ImportError:  # pragma: no cover — a dependency; without it no word is taken for the question's own
        log.warning("wordfreq is not installed: words beside a row's name are not read by language")
        return None
    return zipf_frequency


@functools.lru_cache(maxsize=16384)  # a word's family is up to ~80 forms (German endings): 4,096 churned
def _frequency(word: str, language: str) -> float:
    zipf = _zipf()
    if zipf is None:
        return 0.0
    try:
        return float(zipf(word, language))  # type: ignore[operator]
    except (LookupError, ValueError, OSError, ImportError) as exc:  # no list, a damaged install, no tokenizer
        log.debug("no frequency for %r in %s: %s", word, language, exc)
        return 0.0


def _own(word: str, language: str) -> bool:
    here = _frequency(word, language)
    return here >= MIN_ZIPF and here - _frequency(word, "en") >= MIN_LEAD


def _compound(word: str, language: str, parts: int) -> list[str] | None:
    """``word`` as one, or a run of up to ``parts`` words of ``language`` written together (German compounds)."""
    if _frequency(word, language) >= MIN_ZIPF:
        return [word]
    if parts <= 1:
        return None
    for i in range(len(word) - _PART, _PART - 1, -1):  # the longest head first: "kleinkind|bett"
        for head in (word[:i], word[: i - 1] if word[i - 1] == "s" else ""):  # a linking s: "Herkunft|s|land"
            rest = _compound(word[i:], language, parts - 1) if len(head) >= _PART \
                and _frequency(head, language) >= MIN_ZIPF else None
            if rest is not None:
                return [head, *rest]
    return None


def language_beside(words: list[str]) -> str | None:
    """The language of a question's words outside any name ("Versandgewicht … Kleinkindbett" around "Delta Children
    SpongeBob"): a question mostly made of an English name is too short a text to tell as a whole."""
    from biny.core.text.language import language_of

    return language_of(" ".join(words)) if words else None


def own_language_word(word: str, language: str | None) -> bool:
    """Is ``word`` (folded, Latin script) an everyday word of ``language`` that English does not share — the
    question's own word, not a product's? Never for English questions, nor when the language is unknown."""
    if not language or language in _NOT_LATIN or not word.isalpha() or any(c >= "\u0250" for c in word):
        return False
    if _own(word, language):
        return True
    # A compound of the language's words that English has no use for ("kleinkindbett").
    # One of its parts must be the language's own: "flow|meter" is two English words, "Versand|gewicht" is German.
    if language != "de" or len(word) < _COMPOUND or _frequency(word, "en") >= MIN_ZIPF:
        return False
    parts = _compound(word, language, _PARTS)
    return parts is not None and any(_own(p, language) for p in parts)


# Zipf below which a word names something particular rather than being an everyday word (issue 55,
# retrieve/mentions.py): "GraphQL" 1.7, "CSRF" 1.5, "Zigbee" 2.0, "macOS" 3.0, "Alexa" 3.5 in English, against
# "cheapest" 3.8, "yearly" 3.9, "lone" 3.9 — everyday words a paraphrase brings that the text need not hold. Chosen
# on the natural questions' development split (bench/eval_natural.py): every value from 3.0 to 3.6 refused no
# answerable English question there; 3.5 is the round value inside that range.
SPECIFIC_ZIPF = 3.5
# The languages whose word lists are bundled (packaging/biny.spec): elsewhere a word's rarity is read in English.
LISTED = frozenset({"en", "de", "fr", "es", "it", "nl", "pt"})


# Endings of a word's inflections: a word is as common as its family ("tightened" 3.29 alone, 3.71 with "tighten").
_INFLECTIONS = ("s", "es", "ed", "d", "ing", "er", "ers")
# German conjugates and declines with its own endings: "spezifiziere" is in no list, "spezifizieren" and
# "spezifiziert" are (a German verb of a question is no name the material lacks).
_INFLECTIONS_OF = {"de": ("e", "en", "er", "ern", "es", "em", "n", "s", "st", "est", "t", "et", "te", "ten", "tet")}


@functools.lru_cache(maxsize=4096)  # read up to three times a word by ``specific_word`` (issue 57: ask overhead)
def _family_frequency(word: str, language: str) -> float:
    """The Zipf frequency of a word with its inflections — the base it is written from and the forms of that base
    (summed as occurrences, not as logs)."""
    endings = _INFLECTIONS_OF.get(language, _INFLECTIONS)
    bases = {word, *(word[: -len(e)] for e in endings if word.endswith(e) and len(word) - len(e) >= 3)}
    family = bases | {b + e for b in bases for e in endings}
    total = sum(10 ** _frequency(w, language) for w in family if _frequency(w, language) > 0)
    return math.log10(total) if total > 0 else 0.0


def specific_word(word: str, language: str | None) -> bool:
    """Does ``word`` (folded, Latin script) name something particular — a product, a protocol, a technique — rather
    than being an everyday word of the question's language or of English? A word with a digit ("ch32v003") always
    does; a German compound of everyday words ("werkseinstellungen") does not."""
    if any(c.isdigit() for c in word):
        return any(c.isalpha() for c in word)
    # A question too short to tell its language ("Support-Zeiten?"), or in one without a list, is read in every
    # listed one.
    languages = ["en", language] if language in LISTED else sorted(LISTED)
    if any(_family_frequency(word, lang) >= SPECIFIC_ZIPF for lang in languages):
        return False
    # A word of the question's own language English has no use for, though rare there ("spezifiziere"): the
    # asker's wording, not a name — names are written as English writes them.
    if any(lang != "en" and _family_frequency(word, lang) >= MIN_ZIPF
           and _family_frequency(word, lang) - _family_frequency(word, "en") >= MIN_LEAD for lang in languages):
        return False
    return not ("de" in languages and len(word) >= _COMPOUND and _compound(word, "de", _PARTS) is not None)
