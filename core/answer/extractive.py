"""The no-model answer: the sentences of the final context that best answer the question, best first.

Scored by string evidence — the question's terms (IDF-weighted within the context, matched by word or stem), its
identifiers, the aspect it asks about (price, duration, contact …), the form its question word asks for (a year, a
count, a name: answer/expected.py), and, for sentences in the other language of a Chinese ↔ English pair, the
renderings of the question's words (text/dictionary.py) — and, when the caller passes the embedder's distances, by
meaning: each sentence's nearness to the question against the context's other sentences. A sentence is read in its
place: the sentence before it in its paragraph and the heading of its section count for it at half weight ("Team" /
"The Team plan covers … . It costs $129 per month."), and a sentence whose surroundings lack the thing the question
names, when others have it, is about something else ("It costs $49" under "Starter" for a question about the Team
plan) — and when the best sentence sits under a heading the question names, a sentence holding the same kind of answer
under a sibling heading it does not name is left out (a wrong answer, not a lesser one). The same sentence met
twice (overlapping passages) counts once; a sentence ending in a colon brings the list after it. At most
``max_sentences`` sentences, each with its citation, the best first. Words alone take a few milliseconds; meaning
costs one embedding per sentence (≈0.2–0.5 s on two cores, bench/eval_answers.py).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from biny.core.answer import expected, ranking, rows
from biny.core.embed.base import Vectors
from biny.core.embed.sentences import placed
from biny.core.text import dictionary, referring
from biny.core.text.aspects import aspects_of
from biny.core.text.identifiers import chunk_keys, model_codes
from biny.core.text.language import passage_language
from biny.core.text.question import Question
from biny.core.text.scripts import script_of, scripts_of
from biny.core.text.terms import stem_of, terms_of
from biny.core.text.units import MAX_CHARS, units_of

_LIST_CHARS = 600  # a colon's list, at most
_CONTEXT_WEIGHT = 0.5  # a question term met only beside the sentence (before it, or its heading)
_ELSEWHERE = 0.6  # a sentence whose surroundings lack every term naming what the question is about
_FORM_BONUS = 0.25  # the sentence holds the form the question word asks for (a year, a count, a name)
_MAX_SENTENCES = 3  # an extracted answer: the best sentence and at most two that continue it (R8's short answer)
# Meaning is read beside words only among 3 or more sentences: the z-score of one or two is no evidence.
_MEANING_MIN_SENTENCES = 3
# A question term names its topic when it is held in or beside at most a quarter of the sentences (and some): one
# held everywhere is the document's own subject, not what tells the sentences apart.
_NAMING_SHARE = 4
# Sentence texts whose terms are kept: a bound on the memo's memory (a few hundred passages' sentences), not tuned.
_TERMS_MEMO = 16384
# How far a sentence's meaning counts beside its words: its distance to the question as a z-score among the context's
# sentences (nearer than most: positive). Measured (bench/README.md, grounded answers).
_MEANING_WEIGHT = 0.3
# For a sentence in another script than the question (a Chinese question, English passages) its words are only the
# dictionary's renderings, weaker evidence, and its meaning counts for more: zh→en gold in the answer 0.795 → 0.805,
# same-script sets untouched (bench/README.md, issue 45).
_MEANING_WEIGHT_ACROSS = 0.5

# Question → the distance of each sentence to it (the embedder, with its query / passage roles); None: words only.
Distances = Callable[[str, list[str]], list[float]]


@dataclass(slots=True)
class Sentence:
    passage: int  # 1-based, in context order
    position: int
    text: str
    score: float = 0.0
    item: bool = False  # a list item
    # Read from a figure by OCR or from its drawing (text/units.py): words in a picture, seldom an answer.
    figure: bool = False
    previous: str = ""  # the sentence before it in its paragraph
    heading: str = ""  # its section's heading
    follows: list[Sentence] = field(default_factory=list)  # a colon's list items, shown after it
    kinds: set[str] = field(default_factory=set)  # the asked aspects and answer forms it holds ("price", "year")
    # It holds one of the question's words itself (or a dictionary rendering of one, or the identifier or aspect it
    # asks for): a sentence that does not is padding after the first, unless it continues the one before it.
    says: bool = False
    # Brought as the antecedent of the sentence after it ("Lemurs are primates …" before "They live …"): the two are
    # one statement and carry one citation, after the second.
    leads: bool = False
    # Its stored vector (embed/sentences.py, issue 57) and the one before it in its paragraph; None: not stored.
    vector: Vectors | None = None
    previous_vector: Vectors | None = None
    # Its evidence, one value per ``ranking.FEATURES`` name, and the fitted ranker's score of it (answer/ranking.py).
    features: dict[str, float] = field(default_factory=dict)
    rank: float = 0.0


def _units(passage: int, text: str, vectors: Vectors | None = None) -> list[Sentence]:
    """The sentences of a passage (text/units.py: the split its stored sentence vectors were made from) with their
    paragraph's previous sentence, their section's heading and, when given, their vectors."""
    found = units_of(text)
    if vectors is not None and len(vectors) != len(found):
        vectors = None  # made from another text or split: read by words alone, never by another sentence's vector
    out: list[Sentence] = []
    for i, u in enumerate(found):
        vector = vectors[i] if vectors is not None else None
        before = vectors[i - 1] if vectors is not None and u.previous else None
        out.append(Sentence(passage, i, u.text, item=u.item, figure=u.figure, previous=u.previous, heading=u.heading,
                            vector=vector, previous_vector=before))
    return out


@functools.lru_cache(maxsize=_TERMS_MEMO)
def _terms(text: str) -> frozenset[str]:
    """A sentence's terms and the stems of its words (as ingest indexes them), so "died" meets "die". Kept per
    text: a passage's sentences are read for every question it answers, and their words were most of the answer's
    time once its meaning came stored (issue 57, bench/README.md)."""
    ts = terms_of(text)
    return frozenset(ts | {s for s in map(stem_of, ts) if s is not None})


@functools.lru_cache(maxsize=_TERMS_MEMO)
def _aspects(text: str) -> frozenset[str]:
    """A sentence's aspects (a price, a duration …), kept per text as its terms are."""
    return frozenset(aspects_of(text))


def _aspects_price(text: str) -> bool:
    return "price" in _aspects(text)


@functools.lru_cache(maxsize=_TERMS_MEMO)
def _script(text: str) -> str:
    """A sentence's script, kept per text as its terms are: the meaning and translated-words checks both ask it of
    every sentence of the context (issue 57)."""
    return script_of(text)


@functools.lru_cache(maxsize=_TERMS_MEMO)
def _words(text: str) -> frozenset[str]:
    return frozenset(terms_of(text))


def _says(asked: frozenset[str], text: str) -> bool:
    """Does the sentence hold one of the question's words itself — as written, or inflected by one letter ("election" /
    "elections"; words of five letters or more, which have a stem)? A shared 5-letter stem is evidence enough to rank
    a sentence, not to keep it as part of the answer: "start" is not "starter" (issue 55, padding)."""
    own = _words(text)
    if asked & own:
        return True
    stems = {stem_of(w): w for w in own}
    for t in asked:
        w = stems.get(stem_of(t)) if stem_of(t) is not None else None
        # One inflection of the other, all but a last letter shared ("model" / "models"), not two words sharing only
        # the stem's five ("interface" / "internet").
        if w is not None and abs(len(w) - len(t)) <= 1 and _inflects(w, t):
            return True
    return False


def _inflects(a: str, b: str) -> bool:
    """Do two words differ only in their last letter or the one added?"""
    shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return shared >= min(len(a), len(b)) - 1


# A run of capitalised words, small joining words allowed ("European Union", "Chief Executive Officer").
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of|and|for|the|de|du|des|der)?\s*[A-Z][\w'’-]*)+")


def _names(term: str, text: str) -> bool:
    """Does ``text`` name what the question's ``term`` names: the word itself (or its stem), or, for an acronym, a run
    of capitalised words holding its initials ("EU": "the European Union", "CEO": "Chief Executive Officer")?"""
    if _held(term, _terms(text)):
        return True
    for m in _CAPITALISED_RUN.finditer(text) if len(term) >= 2 else ():
        if term in "".join(w[0] for w in m.group(0).split() if w[0].isupper()).casefold():
            return True
    return False


def _held(term: str, ts: frozenset[str]) -> bool:
    stem = stem_of(term)
    return term in ts or (stem is not None and stem in ts)


def _distinct(passages: list[str], vectors: list[Vectors | None] | None = None) -> list[Sentence]:
    """The passages' sentences, each once: overlapping passages repeat a sentence, or its tail when the overlap
    starts inside it — the longer one stays, where first met."""
    out: list[Sentence] = []
    keys: list[str] = []
    units = [_units(n, text, vectors[n - 1] if vectors is not None else None)
             for n, text in enumerate(passages, start=1)]
    _stitch(units)
    for found in units:
        for c in found:
            key = " ".join(c.text.casefold().split())
            same = next((i for i, k in enumerate(keys) if key in k or k in key), None)
            if same is None:
                out.append(c)
                keys.append(key)
            elif len(key) > len(keys[same]):
                # The whole sentence, cited to the passage that holds it whole (its numbers are traced there).
                out[same], keys[same] = c, key
    return out


_OVERLAP = 20  # characters a passage's cut-off sentence and the next passage's opening must share to be joined
_ENDED = re.compile(r"[.!?。！？…\"'”’」』)）]\s*$")


def _stitch(units: list[list[Sentence]]) -> None:
    """A sentence cut by a passage's end ("… in 2011 and 2012, The United Methodist Church's General Board") and
    finished by the passage that starts inside it ("The United Methodist Church's General Board … for Lent.") is
    read whole, where its head is: neither half alone says who did what when."""
    for found in units:
        if not found or _ENDED.search(found[-1].text):
            continue
        last = found[-1]
        for other in units:
            if other is found or not other:
                continue
            head = other[0].text
            at = last.text.find(head[:_OVERLAP]) if len(head) >= _OVERLAP else -1
            if at >= 0 and head.startswith(last.text[at:]) and len(head) > len(last.text) - at:
                last.text = (last.text[:at] + head)[:MAX_CHARS]
                if last.vector is not None and other[0].vector is not None:
                    # Read whole by meaning too: its two halves' vectors combined, as a sentence and the one before.
                    last.vector = placed(last.vector, other[0].vector)
                else:
                    last.vector = None
                break


@dataclass(frozen=True, slots=True)
class Stored:
    """Issue 57: the question's vector and, per passage in context order, its sentence vectors made at ingest
    (embed/sentences.py; None: none stored) — the answer reads meaning without embedding anything."""

    query: Vectors
    passages: list[Vectors | None]


@dataclass(slots=True)
class Choice:
    """The answer's sentences, and why there are none when the question asked what none of them gives."""

    sentences: list[Sentence]
    # What the question asks for that no sentence of the answer gives — a number (``number``), a date (``year``),
    # an amount of money (``price``): the reason ``sentences`` is empty, when it is this one.
    unvalued: frozenset[str] = frozenset()
    # The physical units the number was asked in (answer/expected.py ``asked_units``), named by the refusal.
    units: frozenset[str] = frozenset()
    # The versions the question names that no passage writes ("3.15" when the passages are about 3.13): the reason.
    unnamed: tuple[str, ...] = ()


def choose(question: Question, passages: list[str], max_sentences: int = _MAX_SENTENCES,
           distances: Distances | None = None, stored: Stored | None = None) -> list[Sentence]:
    """The best-answering sentences, best first (a colon's list right after its sentence). Meaning is read from
    ``stored`` vectors where a passage has them, from ``distances`` (the embedder, now) where it has none."""
    return chosen(question, passages, max_sentences, distances, stored).sentences


def chosen(question: Question, passages: list[str], max_sentences: int = _MAX_SENTENCES,
           distances: Distances | None = None, stored: Stored | None = None) -> Choice:
    """``choose``, with the reason an answer was refused: the value or the version it lacks."""
    picked = rows.pick(question.text, passages)  # a table's rows: the named row's asked line, or none (issue 64)
    if picked.lines is not None:
        return Choice([Sentence(p, i, line) for i, (p, line) in enumerate(picked.lines)])
    # A passage a table's row narrowed is another text than its vectors were made from.
    vectors = None if stored is None else [v if new is old else None for v, new, old in
                                           zip(stored.passages, picked.passages, passages, strict=True)]
    passages = picked.passages
    # A version names one thing, as an identifier does: passages that never write it are about another (issue 55).
    unnamed = tuple(v for v in question.asks.versions
                    if not any(expected.holds_version(v, p) for p in passages))
    if unnamed and passages:
        return Choice([], unnamed=unnamed)
    candidates = _distinct(passages, vectors)
    if not candidates:
        return Choice([])
    _score(question, candidates)
    if len(candidates) >= _MEANING_MIN_SENTENCES and (distances is not None or stored is not None):
        _by_meaning(question, candidates, distances, stored.query if stored is not None else None)
    # A question in the material (an FAQ's "Wie viele Sensoren kann ein Hub verwalten?") asks; it never answers.
    # Which sentences may answer is the evidence's (a score above nothing); their order is the fitted ranker's
    # where one ships (answer/ranking.py), else the evidence's own sum.
    model = ranking.bundled()
    for c in candidates:
        c.rank = model.score(c.features) if model is not None else c.score
    ranked = [c for c in sorted(candidates, key=lambda c: (-c.rank, c.passage, c.position))
              if c.score > 0 and not _asks(c.text)]
    if ranked:
        ranked = _from_heading(question, _one_section(question, _codes_first(question, ranked), candidates))
    best = _with_antecedents(_unpadded(ranked[:max_sentences]), candidates)
    unvalued = _unvalued(question, best, candidates)
    if unvalued:
        return Choice([], unvalued, question.asks.units)
    if not best:
        # Issue 55, an answer must answer: in the question's own language, a context none of whose sentences holds a
        # word of the question, a rendering, its identifier or the asked form does not answer it — "not in your
        # material", not the nearest passage's opening. Words cannot judge a passage in another language (no
        # dictionary for the pair): there the nearest passage is the answer retrieval found, its opening carries it.
        first = [c for c in candidates if c.passage == 1 and not _asks(c.text)][:2]
        best = first if any(_elsewhere(question, c.text) for c in first) else []
        unvalued = _unvalued(question, best, candidates)
        if unvalued:
            return Choice([], unvalued, question.asks.units)
    _attach_lists(best, candidates)
    # A lead-in whose list did not come with it ("Also, don't forget:") says nothing on its own (issue 55).
    said = [c for c in best if c.follows or not c.text.rstrip().endswith((":", "："))]
    return Choice(said or best)


def _unvalued(question: Question, ranked: list[Sentence], candidates: list[Sentence]) -> frozenset[str]:
    """Issue 55, an answer must answer: what the question asks for — a number (how many, how much, how long, a
    measure; in the unit asked, if one is), a date asked as one, a price — when no sentence of the answer gives it,
    nor the list such a sentence announces. Empty when nothing of the kind is asked, or it is given.
    "女职工产假多少天" over the labour law's article listing the protected periods, with no number of days, is "not
    in your material", not that article."""
    asked = question.asks.values
    price = question.asks.price
    if not (asked or price) or not ranked:
        return frozenset()
    # The value counts where the answer speaks of what was asked: in its first sentence, one holding a word of the
    # question, one read back to the sentence before it ("It costs $129 per month"), or the list one announces — not
    # in a next sentence about something else ("Auf welchem Port …" is not answered by "Der Hub zeichnet die
    # Messwerte bis zu 7 Tage lang auf").
    about = [c for i, c in enumerate(ranked) if i == 0 or c.says or c.leads or referring.refers_back(c.text)]
    # And it is said of what the question names (text/question.py ``Question.names``): "How many users can share a
    # Starter account?" is not answered by "The Team plan covers … up to 20 users". In the sentence or its heading, or
    # the one before it when it reads back to it ("It costs $129"); a sentence in another script writes the name its
    # own way and is not judged so.
    near = about
    names = question.names
    if names:
        about = [c for c in about if _script(c.text) != question.script or any(
            _names(t, f"{c.heading}\n{c.previous if referring.refers_back(c.text) else ''}\n{c.text}") for t in names)]
    said = [s.text for c in about for s in (c, *(_list_after(c, candidates) if _leads_in(c.text) else ()))
            if not s.figure]
    # A price asked is given as an amount of money: "12 V / 1.5 A" is no price of the hub.
    if price and not any(_aspects_price(text) for text in said):
        return frozenset({"price"})
    # Asked in a unit ("How many watts …"), the number must come in it: "12 V / 1.5 A" gives no wattage.
    units = question.asks.units
    if units and not any(expected.gives_unit(u, text) for u in units for text in said):
        return frozenset(asked)
    # A count asked of a thing ("How many users …") is not given by a count of another ("up to 10 sensors") where the
    # material counts the thing asked ("up to 20 users" under another plan): its words are the evidence of which
    # number answers. Where the material never writes a count of it ("How many people live …" over "a population of
    # 300,000"), any number still may; and a sentence of the answer counting it in the section of one said of the
    # name ("… a grand dinner attended by 2000 guests" after "The Grainger Market itself, was opened in 1835") is
    # the name's count, though it does not write the name again.
    counted = question.asks.counted
    if counted and "number" in asked and any(expected.counts(counted, c.text) for c in candidates if not c.figure):
        sections = {(c.passage, c.heading) for c in about}
        if not any(expected.counts(counted, text) for text in said) and not any(
                (c.passage, c.heading) in sections and expected.counts(counted, c.text) for c in near):
            return frozenset(asked)
    given = {f for f in asked if any(expected.gives_value(f, text, question.text) for text in said)}
    return frozenset() if given else frozenset(asked)


def _unpadded(best: list[Sentence]) -> list[Sentence]:
    """Issue 55: after the best sentence, only those that say something of what was asked — one of its words, a
    rendering, the identifier or the asked form — or that continue the sentence chosen before them in its passage
    ("It costs $129 per month." after "The Team plan covers ten hubs."). "How much is the Starter plan?" no longer
    ends with "No payment card is needed to start the trial"."""
    out = best[:1]
    for c in best[1:]:
        before = out[-1]
        if c.says or (c.passage == before.passage and c.position == before.position + 1):
            out.append(c)
    return out


def _with_antecedents(best: list[Sentence], candidates: list[Sentence]) -> list[Sentence]:
    """A chosen sentence that opens by referring back ("They live in its forests …", 「它们生活在……」) is read with
    the sentence before it in its paragraph, placed first: the pronoun's referent is part of the answer ("Lemurs are
    primates found only on the island of Madagascar. They live in its forests …", issue 60). The two count as one
    of the answer's sentences (``best`` is already within the cap)."""
    out: list[Sentence] = []
    for c in best:
        before = _antecedent(c, candidates) if referring.refers_back(c.text) else None
        if before is not None and before not in out:  # (chosen itself further down: read here, once)
            before.leads = True
            out.append(before)
        if c not in out:
            out.append(c)
    return out


def _antecedent(c: Sentence, candidates: list[Sentence]) -> Sentence | None:
    # In another script it is a translation beside it (a bilingual agreement's 「本协议……」 / "This agreement …").
    # (By the scripts each holds: a Chinese sentence naming "Tallow Labs" has more Latin letters than Han ones.)
    if not c.previous or scripts_of(c.previous) != scripts_of(c.text):
        return None
    return next((p for p in candidates if p.passage == c.passage and p.position == c.position - 1
                 and p.text == c.previous), None) or next((p for p in candidates if p.text == c.previous), None)


def _elsewhere(question: Question, sentence: str) -> bool:
    """Whether a sentence is in another script or language than the question (words are no evidence there)."""
    script = _script(sentence)
    if script != question.script and "all" not in (script, question.script):
        return True
    if script != "latin" or question.language is None:
        return False
    said = passage_language(sentence)
    return said is not None and said != question.language


_ASKS = re.compile(r"[?？]\W*$")


def _asks(sentence: str) -> bool:
    return bool(_ASKS.search(sentence))


def _one_section(question: Question, ranked: list[Sentence], candidates: list[Sentence]) -> list[Sentence]:
    """When the best sentence sits under a heading the question names ("Team", 「团队版」) beside sections it does
    not name ("Starter", 「入门版」), a sentence of those other sections holding the same kind of answer (a price, a
    year) is about something else — not a lesser answer but a wrong one beside it ("It costs $49 per month" when
    asked the Team plan's price). Headings are told apart by the terms they do not all share ("plan")."""
    headings = {c.heading for c in candidates if c.heading}
    if len(headings) < 2 or not ranked[0].heading:
        return ranked
    terms = {h: _terms(h) for h in headings}
    shared = frozenset.intersection(*terms.values())
    asked = question.terms
    named = {h for h, ts in terms.items() if any(_held(t, ts - shared) for t in asked)}
    top = ranked[0]
    if top.heading not in named or named == headings:
        return ranked
    return [c for c in ranked if c is top or not c.heading or c.heading in named or not c.kinds & top.kinds]


def _codes_first(question: Question, ranked: list[Sentence]) -> list[Sentence]:
    """The sentences writing a model code the question names lead, in their order (``_writes_code``), and those
    writing only other codes are left out: the ranker weighs a sentence's words and meaning, and "The leak detector
    LD-2 uses two AAA batteries …" is nearer to 「门磁 DC-4 的电池能用多久」 by both than "The door contact DC-4
    lasts about 2 years." — yet it is another model's."""
    if not question.codes:
        return ranked
    writing = [c for c in ranked if _writes_code(question, c.text)]
    if not writing:
        return ranked
    # One naming another model only is about that one, not a lesser answer (as ``_one_section``'s sibling sections).
    return writing + [c for c in ranked if c not in writing and not model_codes(c.text)]


def _writes_code(question: Question, text: str) -> bool:
    """Does the sentence write a model code the question names ("The door contact DC-4 lasts about 2 years." for
    「门磁 DC-4 的电池能用多久」), letter for letter in any language? A sentence about the "LD-2" beside it is about
    another model, however near its words (电池 / "batteries")."""
    return any(re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", text, re.IGNORECASE) for code in question.codes)


def _from_heading(question: Question, ranked: list[Sentence]) -> list[Sentence]:
    """When the best sentence holds none of the question's words and its section's heading does ("What's in the box?"
    under "What is in the box"), the heading is what matched: the section answers as written, from its first
    sentence on, not from the sentence its meaning placed nearest ("Sensors are sold separately" before "The hub ships
    with …", issue 55). Its sentences lead in reading order; the rest of the ranking follows."""
    top = ranked[0]
    if not top.heading or top.says or top.features.get("words", 0.0) > 0:
        return ranked
    heading = _terms(top.heading)
    if not any(_held(t, heading) for t in question.terms):
        return ranked
    section = sorted((c for c in ranked if c.passage == top.passage and c.heading == top.heading),
                     key=lambda c: c.position)
    if section[0] is top:
        return ranked
    return section + [c for c in ranked if c not in section]


def _score(question: Question, candidates: list[Sentence]) -> None:
    asked = question.terms
    own = [_terms(c.text) for c in candidates]
    near = [_terms(f"{c.heading}\n{c.previous}") for c in candidates]
    # IDF within the context: a word every sentence has says little about which one answers.
    idf = {t: math.log(1 + len(candidates) / (1 + sum(_held(t, ts) for ts in own))) for t in asked}
    total = sum(idf.values()) or 1.0
    # The terms that name what the question is about: held in or beside few sentences, but some.
    around = [o | n for o, n in zip(own, near, strict=True)]
    df = {t: sum(_held(t, ts) for ts in around) for t in asked}
    naming = {t for t, n in df.items() if 0 < n <= max(1, len(candidates) // _NAMING_SHARE)}
    keys = {i.key for i in question.keys}
    aspects = {a for a in question.aspects if not a.startswith("topic:")}
    forms = question.asks.forms
    across = _translated(question, [c.text for c in candidates], [c.text for c in candidates])
    for c, ts, ns, more in zip(candidates, own, near, across, strict=True):
        held = sum(w for t, w in idf.items() if _held(t, ts)) / total
        beside = sum(w for t, w in idf.items() if not _held(t, ts) and _held(t, ns)) / total
        c.score = held + _CONTEXT_WEIGHT * beside + more
        c.says = more > 0 or _says(asked, c.text)
        ev = c.features
        ev.update(words=held, beside=beside, across=more, passage=1.0 / c.passage, position=1.0 / (1 + c.position),
                  length=math.log1p(len(c.text)), figure=float(c.figure))
        named = bool(keys and keys & {k.split("|", 1)[1] for k in chunk_keys(c.text, "")})
        if named or _writes_code(question, c.text):
            c.score += 1.0  # the named article / RFC / part / model code is in this sentence
            c.says = True
            ev["identifier"] = 1.0
        if c.score <= 0:
            continue
        # The asked price / duration / contact, and the asked form, count where the sentence is about the question.
        c.kinds = (aspects & _aspects(c.text)) | {f for f in forms if expected.holds(f, c.text, question.text)}
        if c.kinds & aspects:
            c.score += 0.5
            c.says = True
            ev["aspect"] = 1.0
        if c.kinds & forms:
            c.score += _FORM_BONUS
            ev["form"] = 1.0
        if naming and not any(_held(t, ts | ns) for t in naming):
            c.score *= _ELSEWHERE
            ev["elsewhere"] = 1.0


def _by_meaning(question: Question, candidates: list[Sentence], distances: Distances | None,
                query: Vectors | None) -> None:
    """Add each sentence's nearness to the question, against the other sentences of the context: the answer to "Who
    led the most rapid expansion?" is "Under Genghis's successor Ögedei Khan the speed of expansion reached its
    peak" — few shared words, one meaning. A sentence is measured alone and with the one before it in its paragraph
    (the mean of both): "It costs $129 per month" means little without "The Team plan covers …"."""
    d = _meaning_distances(question, candidates, distances, query)
    if d is None:
        return
    spread = float(d.std())
    if spread <= 0:
        return
    script = question.script
    for c, z in zip(candidates, (float(np.median(d)) - d) / spread, strict=True):
        across = _script(c.text) not in (script, "all")
        c.score += (_MEANING_WEIGHT_ACROSS if across else _MEANING_WEIGHT) * z
        c.features["meaning_across" if across else "meaning"] = z


def _meaning_distances(question: Question, candidates: list[Sentence], distances: Distances | None,
                       query: Vectors | None) -> npt.NDArray[np.float64] | None:
    """Each sentence's distance to the question, the mean of it alone and with the one before it. From stored
    vectors (issue 57: the pair is their normalised weighted mean, not a second embedding); the sentences without
    them are embedded now, through ``distances`` — or, without it, none is read by meaning."""
    d = np.zeros(len(candidates), dtype=np.float64)
    missing: list[int] = []
    for i, c in enumerate(candidates):
        if c.vector is None or query is None or (c.previous and c.previous_vector is None):
            missing.append(i)
            continue
        pair = placed(c.previous_vector, c.vector) if c.previous_vector is not None else c.vector
        d[i] = 1.0 - (float(c.vector @ query) + float(pair @ query)) / 2
    if missing:
        if distances is None:
            return None
        alone = [candidates[i].text for i in missing]
        before = [f"{candidates[i].previous} {candidates[i].text}".strip() for i in missing]
        fresh = np.asarray(distances(question.text, alone + before), dtype=np.float64)
        d[missing] = (fresh[: len(alone)] + fresh[len(alone) :]) / 2
    return d


# A sentence that may announce a list: it ends in a colon ("遗产按照下列顺序继承：") or says what follows ("… comes
# with the following resources.", "… are as follows.", 「如下。」, 「以下のとおり。」, "… folgende Teile."). Its list is
# attached when list items follow it; only one ending in a colon is left out without them (a figure may follow).
_LEAD_IN = re.compile(r"(?:[:：]|\bthe following(?:\s+[\w-]+){0,3}\s*\.|\bas follows\s*\.|"
                      r"如下[。.]?|下列\w{0,6}[。.]|以下(?:の|のとおり|の通り)\w{0,8}[。.]|\bfolgende[nrs]?(?:\s+\w+){0,2}\s*\.)$",
                      re.I)


def _leads_in(text: str) -> bool:
    return bool(_LEAD_IN.search(text.rstrip()))


def _attach_lists(best: list[Sentence], candidates: list[Sentence]) -> None:
    """A chosen sentence that announces a list (``_LEAD_IN``) is followed by the list items after it; an item
    chosen on its own as well leaves ``best`` to stand in its place in the list."""
    attached: set[tuple[int, int]] = set()
    for c in best:
        if not _leads_in(c.text) or (c.passage, c.position) in attached:
            continue
        items = _list_after(c, candidates)
        c.follows.extend(items)  # an item chosen on its own too comes once, in its place in the list
        attached.update((i.passage, i.position) for i in items)
    best[:] = [c for c in best if (c.passage, c.position) not in attached]


def _list_after(c: Sentence, candidates: list[Sentence]) -> list[Sentence]:
    """The list items right after ``c`` in its passage, up to ``_LIST_CHARS``."""
    items: list[Sentence] = []
    size = 0
    for nxt in candidates:
        if nxt.passage != c.passage or nxt.position <= c.position:
            continue
        if not nxt.item or size + len(nxt.text) > _LIST_CHARS:
            break
        items.append(nxt)
        size += len(nxt.text)
    return items


def _translated(question: Question, sentences: list[str], texts: list[str]) -> list[float]:
    """Each sentence's share of the question's words looked up across Chinese ↔ English, IDF-weighted within the
    context, for the sentences in another script than the question; 0 elsewhere. A Chinese question shares no words
    with the English sentence that answers it (only its numbers and names): without this the answer fell back to the
    nearest passage's opening sentences (bench/README.md, grounded answers)."""
    script = question.script
    other = [_script(s) not in (script, "all") for s in sentences]
    words = dictionary.looked_up(question) if any(other) else []
    sets = [[a for r in w.renderings for a in dictionary.term_sets(r)] for w in words if w.renderings]
    if not sets:
        return [0.0] * len(sentences)
    held: list[list[bool]] = []
    for text, away in zip(texts, other, strict=True):
        # Renderings are held by a word or its stem, as ingest stores them (terms.index_terms).
        ts = _terms(text) if away else frozenset()
        held.append([bool(ts) and any(all(x in ts for x in a) for a in alts) for alts in sets])
    weights = [math.log(1 + len(sentences) / (1 + sum(h[i] for h in held))) for i in range(len(sets))]
    total = sum(weights)
    return [sum(w for w, hit in zip(weights, h, strict=True) if hit) / total for h in held]


_CJK_END = re.compile(r"([。！？；]+)$")


def _cited(text: str, n: int) -> str:
    """One sentence with its citation: before a CJK sentence's closing mark (「……日本海[2]。」), after a Latin one."""
    m = _CJK_END.search(text)
    if m:
        return f"{text[:m.start()]}[{n}]{m.group(1)}"
    return f"{text}[{n}]" if _is_cjk(text[-1:]) else f"{text} [{n}]"


def render(chosen: list[Sentence]) -> str:
    """Sentences with their citations, a colon's list on lines of its own, CJK sentences joined without spaces."""
    out = ""
    for c in chosen:
        if out and not out.endswith("\n"):
            out += "\n" if c.follows else ("" if _is_cjk(c.text) and _is_cjk(out[-2:]) else " ")
        if c.follows:
            out += c.text + "\n" + "\n".join(_cited(f.text, f.passage) for f in c.follows) + "\n"
            # The list's items carry the citation: its opening sentence ends in a colon.
            continue
        out += c.text if c.leads else _cited(c.text, c.passage)
    return out.strip()


def _is_cjk(text: str) -> bool:
    return bool(re.search(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]", text))
