"""R3 (a) over the whole space: a name the question asks about that no passage mentions (issue 55).

R3 asks whether every named thing of the question is in the passages retrieved, and searches a missing one on its
own. A name that no passage of the space holds cannot be found by any search, and the passages nearest in meaning
are about something else: "Does FastAPI support GraphQL?" over FastAPI's docs, which never say "GraphQL", was
answered with a sentence about editor support; "How do I deploy FastAPI on AWS Lambda?" with Docker images. Such a
question is answered "not in your material", naming the word the material lacks.

Which words name something: a Latin-script word of the question that is rare in its language and in English, or
holds a digit (text/common_words.py ``specific_word``) — "GraphQL", "Zigbee", "CH32V003" — never an everyday word
a paraphrase brings ("cheapest", "bought": the text says "price"). When it counts:

- the question is written in the space's language: most of its words occur in the space (``KNOWN_MIN``). A German
  question over English text shares none of its own words with it, and its rare German words say nothing;
- or the question is written in another script (Chinese, Japanese, Russian …): a Latin word in it is a name,
  written so in a document of any language.

A word counts as mentioned when a passage holds it, its singular, a word it begins (a shortening: "eval" for
"evaluation"; plain spaces only — a blinded term keeps none of its letters, so an encrypted space matches by the
five-letter stem instead, more loosely), or a Chinese rendering of it (text/dictionary.py). Terms are read from the
stored term sets: no passage text is decrypted (R7).
"""

from __future__ import annotations

from biny.core.crypto.blind import BlindIndex
from biny.core.store.vectors import VectorMatrix
from biny.core.text import dictionary
from biny.core.text.common_words import specific_word
from biny.core.text.question import Question
from biny.core.text.terms import is_cjk, stem_of

# The share of a Latin-script question's words the space must know for a rare word it lacks to say "not here"
# rather than "another language". Natural questions, development split: English questions over their own corpora
# know 0.5–1.0 of their words; German ones over English text 0.0–0.4 (bench/eval_natural.py).
KNOWN_MIN = 0.5
# Words shorter than this are not judged: "fi" of "Wi-Fi", "c6" of a part number's pieces.
MIN_LETTERS = 3
# Endings a plural or a possessive adds to a word the space may hold bare ("JWTs" → "jwt", "edition's").
_ENDINGS = ("'s", "’s", "s", "es")


def unmentioned(question: Question, vm: VectorMatrix, blind: BlindIndex) -> list[str]:
    """The question's names that no passage of the space mentions (folded, in the question's order of terms);
    empty when the question is answerable as far as its names go, or its words are no evidence here."""
    # Written in another script: by the language it is answered in ("ASGI 和 WSGI 有什么区别？" has more Latin letters
    # than Han characters, yet is Chinese; a German question quoting "医疗期" stays German).
    other_script = question.script != "latin" or question.reply_language != "en"
    latin = [w for w in sorted(question.terms) if _latin_word(w)]
    absent = [w for w in latin if not _held(w, vm, blind)]
    if not absent:
        return []
    # Known is judged on the question's words (digits and part numbers name things in any language).
    plain = [w for w in latin if w.isalpha()]
    if not other_script and (not plain or 1 - sum(w in absent for w in plain) / len(plain) < KNOWN_MIN):
        return []
    # A Latin word inside another script is read as English reads it: a name there is written as in English text.
    language = "en" if other_script else question.language
    return [w for w in absent if specific_word(w, language) and not _rendered(w, vm, blind)]


def _latin_word(term: str) -> bool:
    # Latin letters: ASCII and the accented ones up to U+024F ("zeitüberschreitung"); "элемент" is not.
    return (" " not in term and not is_cjk(term) and sum(c.isalpha() for c in term) >= MIN_LETTERS
            and all(c.isascii() or "\u00c0" <= c <= "\u024f" for c in term))


def _held(word: str, vm: VectorMatrix, blind: BlindIndex) -> bool:
    forms = [word, *(word[: -len(e)] for e in _ENDINGS if word.endswith(e) and len(word) - len(e) >= MIN_LETTERS)]
    if any(vm.df.get(blind(f), 0) > 0 for f in forms):
        return True
    if blind.active:
        stem = stem_of(word)
        return stem is not None and vm.df.get(blind(stem), 0) > 0
    return any(vm.df.begins(f) for f in forms)


def _rendered(word: str, vm: VectorMatrix, blind: BlindIndex) -> bool:
    """A Chinese rendering of the word is in the space (a bilingual space says "保修" where no English text says
    "warranty")."""
    for rendering in dictionary.english_renderings(word):
        for terms in dictionary.term_sets(rendering):
            if all(vm.df.get(blind(t), 0) > 0 for t in terms):
                return True
    return False
