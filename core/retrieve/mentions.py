"""R3 (a) over the whole space: a name the question asks about that no passage mentions (issue 55).

R3 asks whether every named thing of the question is in the passages retrieved, and searches a missing one on its
own. A name that no passage of the space holds cannot be found by any search, and the passages nearest in meaning
are about something else: "Does FastAPI support GraphQL?" over FastAPI's docs, which never say "GraphQL", was
answered with a sentence about editor support; "How do I deploy FastAPI on AWS Lambda?" with Docker images. Such a
question is answered "not in your material", naming the word the material lacks.

Which words name something: a Latin-script word of the question that is rare in its language and in English, or
holds a digit (text/common_words.py ``specific_word``) — "GraphQL", "Zigbee", "CH32V003" — never an everyday word
a paraphrase brings ("cheapest", "bought": the text says "price"). A word frequent in English can still be a name,
and then only its writing says so (text/question.py ``Question.written_as_name``): all in capitals ("CEO", "NFC"), or
with a capital where no sentence begins ("Does the hub work with Alexa?") — in an English question, or as a Latin word
inside another script; other languages' names are often written otherwise in the space ("Varsovia" for Warsaw).
When it counts:

- the question is written in the space's language: most of its everyday words occur in the space (``KNOWN_MIN``).
  A German question over English text shares none of its own words with it, and its rare German words say nothing
  — only a word no language writes so still names something there: a capital inside it or a digit ("ParamSpec");
- or the question is written in another script (Chinese, Japanese, Russian …): a Latin word in it is a name,
  written so in a document of any language.

A word counts as mentioned when a passage holds it, its singular, or a Chinese rendering of it (text/dictionary.py),
and in a plain space also a word it begins (a shortening: "eval" for "evaluation"), another inflection of it
(Snowball's English stem: "reoccupy" / "reoccupied"; not a word derived from it: "liveness" is no "live"), or a
spelling one or two letters away, of the word or of its stem ("Sentanta" for "Setanta", "Erganzungsschulen" for
"Ergänzungsschulen", "gaurentee" for "guarantees"): a misspelt word is the asker's slip, not the material's lack.
A blinded term keeps none of its letters, so an encrypted space matches by the five-letter stem instead, more
loosely. Terms are read from the stored term sets: no passage text is decrypted (R7).
"""

from __future__ import annotations

import functools
import unicodedata

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
# Endings a plural, a possessive or a verb form adds to a word the space may hold bare ("JWTs" → "jwt",
# "edition's", "loaned" → "loan").
_ENDINGS = ("'s", "’s", "s", "es", "ed", "d", "ing")
# A spelling this many letters away names the same thing (a slip): one for a word of FUZZY_MIN letters, two for one of
# FUZZY_TWO or more whose length differs by at most one ("ableine" / "abilene"; "graphql" is no "graph").
FUZZY_MIN = 5
FUZZY_TWO = 7
# What an inflection leaves after a word's stem (a stem's changed last letter included: "studi|es", "reoccup|y"), and
# what follows a doubled consonant ("run|ning"): any other ending made another word of it ("live|ness").
_INFLECTED = frozenset({"", "s", "es", "ed", "d", "ing", "y", "ies", "ied", "e", "er", "ers", "est", "'s", "’s"})
_DOUBLED = frozenset({"ing", "ed", "er", "ers", "est"})
# The longest prefix a text may hyphenate ("re-", "co-", "pre-", "non-").
_JOINED_PREFIX = 3
# Words whose stem or accent-free form is kept: a bound on the memo's memory (a few spaces' rare words), not tuned.
_MEMO = 65536
# Terms of the space compared with one absent word (those sharing its first letter): a bound on the work.
_NEAR_TERMS = 5000


def unmentioned(question: Question, vm: VectorMatrix, blind: BlindIndex) -> list[str]:
    """The question's names that no passage of the space mentions (folded, in the order the question writes them);
    empty when the question is answerable as far as its names go, or its words are no evidence here."""
    # Written in another script: by the language it is answered in ("ASGI 和 WSGI 有什么区别？" has more Latin letters
    # than Han characters, yet is Chinese; a German question quoting "医疗期" stays German).
    other_script = question.script != "latin" or question.reply_language != "en"
    folded = question.text.casefold()
    latin = sorted((w for w in question.terms if _latin_word(w)), key=lambda w: (folded.find(w), w))
    # The exact forms first, for every word: the search among the space's spellings (a slip, another inflection) is
    # the slow part of the stage, and is only worth it once a name is among the words left.
    absent = [w for w in latin if not _held(w, vm, blind, near=False)]
    # A Latin word inside another script is read as English reads it: a name there is written as in English text.
    language = "en" if other_script else question.language
    # Names told by their writing, where writing tells them (text/question.py ``Question.names``).
    by_writing = [w for w in absent if not specific_word(w, language) and w in question.names]
    if not by_writing and not any(specific_word(w, language) for w in absent):
        return []
    if by_writing and not other_script:
        # A name told only by its capitals is the material's lack only where the question's other words are written
        # as the space writes them, letter for letter: an English question over Chinese text knows none of them, and
        # its "Polonia" or "Memorial" is written there in Chinese. (Read before the near forms: over Chinese text,
        # a short English word is often a slip away from some stray Latin term.)
        plain = [w for w in latin if w.isalpha() and w not in by_writing]
        if not plain or 1 - sum(w in absent for w in plain) / len(plain) < KNOWN_MIN:
            by_writing = []
    # One word of a longer name the space does write, or render, is no lack of it ("Memorial" of the "Nobel Memorial
    # Prize", which Chinese text calls 诺贝尔经济学奖).
    by_writing = [w for w in by_writing
                  if not any(_held(o, vm, blind, near=False) or _rendered(o, vm, blind)
                             for o in question.name_around(w))]
    absent = [w for w in absent if not _near(w, vm, blind)]
    names = [w for w in absent if specific_word(w, language) or w in by_writing]
    # Known is judged on the question's everyday words: names, digits and part numbers are no language's.
    everyday = [w for w in latin if w.isalpha() and w not in names]
    if not other_script and everyday and 1 - sum(w in absent for w in everyday) / len(everyday) < KNOWN_MIN:
        # The question's words are no evidence here (another language): only a word no language writes so still
        # names something — with a capital inside it or a digit ("ParamSpec", "CH32V003" in a German question).
        names = [w for w in names if _shaped_as_name(question.written(w))]
    return [w for w in names if not _rendered(w, vm, blind)]


def _shaped_as_name(written: str) -> bool:
    return any(c.isdigit() for c in written) or (any(c.isupper() for c in written[1:])
                                                 and any(c.islower() for c in written))


def _latin_word(term: str) -> bool:
    # Latin letters: ASCII and the accented ones up to U+024F ("zeitüberschreitung"); "элемент" is not.
    return (" " not in term and not is_cjk(term) and sum(c.isalpha() for c in term) >= MIN_LETTERS
            and all(c.isascii() or "\u00c0" <= c <= "\u024f" for c in term))


def _held(word: str, vm: VectorMatrix, blind: BlindIndex, near: bool) -> bool:
    """Held by one of its forms; with ``near``, also by a spelling or an inflection of a space word."""
    if _one_held(word, vm, blind, near):
        return True
    # Written together where the text hyphenates a prefix ("reoccupy" / "re-occupied": terms "re", "occupied").
    return any(vm.df.get(blind(word[:i]), 0) > 0 and _one_held(word[i:], vm, blind, near)
               for i in range(2, _JOINED_PREFIX + 1) if len(word) - i >= FUZZY_MIN)


def _near(word: str, vm: VectorMatrix, blind: BlindIndex) -> bool:
    """Held by a spelling or an inflection only (its exact forms are absent)."""
    return not blind.active and _held(word, vm, blind, near=True)


def _one_held(word: str, vm: VectorMatrix, blind: BlindIndex, near: bool) -> bool:
    forms = [word, *(word[: -len(e)] for e in _ENDINGS if word.endswith(e) and len(word) - len(e) >= MIN_LETTERS)]
    if any(vm.df.get(blind(f), 0) > 0 for f in forms):
        return True
    if blind.active:
        stem = stem_of(word)
        return stem is not None and vm.df.get(blind(stem), 0) > 0
    if any(vm.df.begins(f) for f in forms):
        return True
    if not near:
        return False
    folded, stem = _fold(word), _inflected_stem(word)
    return any(_close(_fold(t), folded) or (stem is not None and _same_stem(_inflected_stem(t), stem))
               for t in vm.df.starting(folded[:1], _NEAR_TERMS) if t.isalpha())


def _same_stem(other: str | None, stem: str) -> bool:
    return other is not None and (other == stem or _close(other, stem))


@functools.lru_cache(maxsize=_MEMO)
def _inflected_stem(word: str) -> str | None:
    """Snowball's English stem of a word that is its stem and an inflection ("reoccupied", "studies", "running");
    None for a word another word was derived into ("liveness" → "live", "happiness" → "happi"): a Kubernetes
    "liveness probe" is not mentioned by a text about live reloading, as "graphql" is no "graph"."""
    import snowballstemmer

    stem = str(snowballstemmer.stemmer("english").stemWord(word))
    shared = next((i for i, (a, b) in enumerate(zip(word, stem, strict=False)) if a != b),
                  min(len(word), len(stem)))
    # The stem may change its last letter ("studi" for "study") or drop a final e ("argu" for "argue").
    if len(stem) - shared > 1:
        return None
    rest = word[shared:]
    if rest[:1] == word[shared - 1 : shared] and rest[1:] in _DOUBLED:  # a doubled consonant: "running"
        return stem
    return stem if rest in _INFLECTED else None


@functools.lru_cache(maxsize=_MEMO)
def _fold(word: str) -> str:
    """Without its accents: "ergänzungsschulen" → "erganzungsschulen"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _close(a: str, b: str) -> bool:
    """Within one edit (two for long words of about the same length), a transposition counting as one."""
    if a == b:
        return True
    if len(b) < FUZZY_MIN or abs(len(a) - len(b)) > 2:
        return False
    limit = 2 if len(b) >= FUZZY_TWO and abs(len(a) - len(b)) <= 1 else 1
    # Each letter one word has and the other lacks altogether takes an edit of its own: a bound read in a pass,
    # which rules out most of a space's terms before the table is filled (issue 57: the search's time, exactly).
    if max(sum(c not in b for c in a), sum(c not in a for c in b)) > limit:
        return False
    return _edits(a, b, limit) <= limit


def _edits(a: str, b: str, limit: int) -> int:
    """The optimal-string-alignment distance, stopping once every row exceeds ``limit``."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def _rendered(word: str, vm: VectorMatrix, blind: BlindIndex) -> bool:
    """A Chinese rendering of the word is in the space (a bilingual space says "保修" where no English text says
    "warranty")."""
    for rendering in dictionary.english_renderings(word):
        for terms in dictionary.term_sets(rendering):
            if all(vm.df.get(blind(t), 0) > 0 for t in terms):
                return True
    return False
