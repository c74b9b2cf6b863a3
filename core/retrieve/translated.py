"""Translated words: a question's words judge passages in the other language through a dictionary (R2, R9;
issue 20).

Across scripts the word check stands aside (the space knows none of the question's words) and the model's
distances bunch together: distance alone kept passages for 7 in 10 Chinese questions about articles an English
space lacks, and — the other way round — refused 8 in 10 English questions whose answer a Chinese passage holds.
Looking the question's words up (text/dictionary.py, CC-CEDICT, Chinese ↔ English) lets words judge again. A
passage in the other language is weighed by the renderings of the question's words it holds, each word weighing
as its commonest rendering does in the space (IDF); a word the dictionary lacks (usually the name of a subject)
weighs ``UNKNOWN_SHARE`` of the rarest term's weight and is never found. Then:

- for a Chinese question, kept by its cut but holding less than ``translated_min`` of the weight → dropped,
  unless a candidate of its document holds enough (a document names its subject once); within
  ``translated_near`` reference spreads of its cut, where distance is unsure, ``translated_near_min`` is needed;
  and as unsure just beyond it: up to ``translated_beyond`` spreads beyond, holding ``translated_beyond_min`` → kept
  (twelfth pass: zh→en answers +2 points, refusals across languages −0.5 to −1);
- for an English question, beyond its cut by at most ``translated_reach`` reference spreads and holding
  ``translated_rescue`` of the weight or more → kept (twice the minimum, as the word check's rescue is); within
  the cut everyday English questions alone set it (the language pair's reference, ``threshold.local_cuts``),
  ``translated_min`` is enough.

A Chinese question's numbers and Latin-script names (``shared_terms``) are written alike in English: each counts
as a word that is its own rendering (eleventh pass: zh→en answers +0.5 point, refusals across languages +0.5).

Measured (``bench/eval_retrieval.py``, K=5): see bench/README.md, "Translated words". Terms are the stored,
possibly blinded, term sets: no passage text is read (R7).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from biny.core.crypto.blind import BlindIndex
from biny.core.i18n import Said, msg
from biny.core.results import Kept
from biny.core.retrieve.candidates import Candidate, Judging, RetrievalParams
from biny.core.store.vectors import VectorMatrix
from biny.core.text import dictionary
from biny.core.text.question import Question
from biny.core.text.scripts import script_of
from biny.core.trace.records import TranslatedRecord

# A word the dictionary lacks weighs this share of the rarest term's weight (log(1 + passages)).
UNKNOWN_SHARE = 0.5
# A word's dictionary renderings kept in the trace (the check itself uses all): a display bound that keeps the
# trace short; its sentence names the first 3. Not a tuned value.
RECORDED_RENDERINGS = 20
SHOWN_RENDERINGS = 3
SHARED_MIN_DIGITS = 3  # "19" is a century, an age or a count in any text; "1939" names one year


def shared_terms(question: Question, script: str) -> set[str]:
    """The question's terms written alike in any language: numbers of ``SHARED_MIN_DIGITS`` or more digits and,
    when the question is not written in the Latin script (``script``: its main terms'), its Latin-script words —
    the names, codes and units a Chinese or Russian question keeps in Latin letters."""
    return {w for w in question.terms
            if (len(w) >= SHARED_MIN_DIGITS if w.isdigit() else script != "latin" and script_of(w) == "latin")}


@dataclass(frozen=True, slots=True)
class Direction:
    """Which passages a question's looked-up words judge, and how far beyond its cut one holding them is kept."""

    # The question's words with their renderings, looked up only when there are passages to judge: an English
    # question over English material never waits for the dictionary.
    words: Callable[[Question], list[dictionary.Word]]
    mark: str  # the passages judged carry it ("lang:en")...
    not_marks: tuple[str, ...] = ()  # ...and none of these
    # Reference spreads beyond its cut a passage holding ``rescue`` of the weight is still kept (0: none).
    reach: float = 0.0
    rescue: float = 1.0
    # Judge marked passages that are also written partly in the question's script (a Chinese passage naming
    # English names), not only those wholly in another script.
    mixed: bool = False
    # Drop passages kept by their cut that hold too little of the weight.
    drop: bool = True


def direction(query: Question, params: RetrievalParams) -> Direction | None:
    """Chinese question (not Japanese: kana decide, text/scripts.py) → English passages; English question →
    Chinese passages (Chinese characters, no kana).

    Each direction is helped where distance fails it, as measured. Chinese questions over English text keep their
    answers by distance (0.865 of 0.875 without a threshold) but keep passages for unanswerable ones too: words
    drop there, and keeping passages beyond the cut let the unanswerable through (refused 0.610 → 0.190 at 4
    spreads and a quarter of the weight). English questions over Chinese text lose their answers to distance
    (0.200 of 0.885): words keep there, and do not drop — an English question naming a Chinese law ("What does
    the 劳动法 say about overtime pay?") lost its passages to generic words ("say") the dictionary renders only
    by phrases the law does not use."""
    if not (params.translated_words and params.use_threshold and params.max_distance is None):
        return None
    side = dictionary.side_of(query)
    if side == "zh":
        return Direction(dictionary.chinese_words, "lang:en", reach=params.translated_beyond,
                         rescue=params.translated_beyond_min)
    if side == "en":
        return Direction(dictionary.english_words, "script:han", ("script:kana",),
                         reach=params.translated_reach, rescue=params.translated_rescue, mixed=True, drop=False)
    return None


def check(j: Judging, cross_script: set[int], paired: dict[int, float]) -> tuple[Said, TranslatedRecord | None]:
    """Judge the passages in the other language (module doc); returns a sentence for the trace, and the words
    looked up, each judged passage's share and the passages kept.
    ``paired``: row → the cut the language pair's reference sets it (threshold.local_cuts), where there is one."""
    query, pool, reasons, params, vm, blind, ref = j.query, j.pool, j.reasons, j.params, j.vm, j.blind, j.ref
    way = direction(query, params)
    mark, not_marks = (blind.aspect(way.mark), [blind.aspect(m) for m in way.not_marks]) if way else ("", [])
    judged = [c for c in pool if way is not None and (way.mixed or c.row in cross_script)
              and mark in vm.aspects[c.row] and not any(m in vm.aspects[c.row] for m in not_marks)]
    words = _words(way, query, params) if way is not None and judged else []
    if way is None or not any(w.renderings for w in words):
        return "", None
    weighed = [_weighed(w, vm, blind) for w in words]
    total = sum(weight for weight, _ in weighed)
    found = {c.row: [i for i, (_, alts) in enumerate(weighed) if any(map(vm.terms[c.row].holds, alts))]
             for c in judged}
    shares = {row: sum(weighed[i][0] for i in held_words) / total for row, held_words in found.items()}
    needed = params.translated_min
    spread = ref.median - ref.quantile(params.threshold_quantile) if ref else 0.0
    reach, near = way.reach * spread, params.translated_near * spread
    near_needed = max(needed, params.translated_near_min)

    def needs(c: Candidate) -> float:
        # Near its cut a passage must hold more of the renderings (``translated_near_min``): the cut is unsure there,
        # and the two signals must agree more firmly — as the space gate asks words of passages beyond its gate.
        # Measured: the English passages kept for Chinese questions about articles the space lacks lay a median 0.75
        # spread inside their cut, the passages answering them 3.2 (bench/README.md, tenth pass).
        if way is not None and way.drop and near > 0 and c.cut is not None and c.distance > c.cut - near:
            return near_needed
        return needed

    beyond = [c for c in judged if reasons[c.row] is not None and c.cut is not None and c.cut < c.distance]
    # Within the language pair's cut a quarter of the weight vouches; further out, up to the reach, way.rescue does.
    by_pair = [c for c in beyond if shares[c.row] >= needed and c.distance <= paired.get(c.row, -math.inf)]
    rescued = by_pair + [c for c in beyond if c not in by_pair and shares[c.row] >= way.rescue
                         and c.distance <= (c.cut or 0.0) + reach]
    for c in rescued:
        reasons[c.row] = None
        c.kept_as = Kept("translated words", share=shares[c.row])
    vouched = {c.doc_id for c in judged if reasons[c.row] is None and shares[c.row] >= needs(c)}
    for c in judged if way.drop else ():
        if reasons[c.row] is None and shares[c.row] < needs(c) and c.doc_id not in vouched:
            reasons[c.row] = msg("in the other language and holds renderings of {share} of the weight of the "
                                 "question's words (needs {needed})").format(share=f"{shares[c.row]:.0%}",
                                                                          needed=f"{needs(c):.0%}")
    record = TranslatedRecord(
        {w.word: list(w.renderings[:RECORDED_RENDERINGS]) for w in words},
        {w.word: round(x, 3) for w, (x, _) in zip(words, weighed, strict=True)},
        {c.chunk_id: [words[i].word for i in found[c.row]] for c in judged},
        {c.chunk_id: round(shares[c.row], 3) for c in judged},
        needed if way.drop else None, near_needed if way.drop and near else None,
        round(near, 4) if way.drop else None, way.rescue if reach > 0 else None, [c.chunk_id for c in rescued],
        {c.chunk_id: round(paired[c.row], 4) for c in judged if c.row in paired}, [c.chunk_id for c in by_pair])
    return _how(way, words, params, (near, near_needed), reach, len(rescued) - len(by_pair), len(by_pair),
                any(c.row in paired for c in judged)), record


_WEIGHED: dict[tuple[int, dictionary.Word], tuple[float, list[frozenset[int]]]] = {}
_WEIGHED_MOST = 4096  # words kept weighed; emptied whole when full


def _weighed(word: dictionary.Word, vm: VectorMatrix, blind: BlindIndex) -> tuple[float, list[frozenset[int]]]:
    """``_weigh``, each held rendering as one set of term codes (compared with a row's in one step: a common English
    word has hundreds of renderings, and looking each term up row by row was most of this check's time), kept per
    loaded matrix: the weights read its frequencies, and the same words come back question after question (issue
    57). A matrix's generation is new after every write, so nothing kept outlives what it was read from."""
    key = (vm.generation, word)
    got = _WEIGHED.get(key)
    if got is None:
        weight, held = _weigh(word, vm, blind)
        got = (weight, [codes for a in held if (codes := _coded(a, vm)) is not None])
        if len(_WEIGHED) >= _WEIGHED_MOST:
            _WEIGHED.clear()
        _WEIGHED[key] = got
    return got


def _coded(terms: tuple[str, ...], vm: VectorMatrix) -> frozenset[int] | None:
    """A rendering's terms as their codes in the space's vocabulary; None if one is in no stored row."""
    codes = [vm.terms.code(t) for t in terms]
    return None if None in codes else frozenset(c for c in codes if c is not None)


def _weigh(word: dictionary.Word, vm: VectorMatrix, blind: BlindIndex) -> tuple[float, list[tuple[str, ...]]]:
    """A word's weight — its commonest rendering's (each rendering as rare as its rarest term) — and the renderings,
    as term codes, the space holds at all: a common English word has hundreds of Chinese renderings, and only those
    the space knows are looked for in passages. A word the dictionary lacks weighs ``UNKNOWN_SHARE`` of the rarest."""
    n = max(len(vm), 1)
    if not word.renderings:
        return UNKNOWN_SHARE * math.log(1 + n), []
    weight, held = math.inf, []
    for r in word.renderings:
        rarest = 0.0
        for a in dictionary.term_sets(r):
            codes = tuple(blind(x) for x in a)
            df = [vm.df.get(code, 0) for code in codes]
            rarest = max(rarest, max(math.log(1 + n / (1 + f)) for f in df))
            if all(df):
                held.append(codes)
        weight = min(weight, rarest)
    return weight, held


def _words(way: Direction, query: Question, params: RetrievalParams) -> list[dictionary.Word]:
    """The question's words looked up. A Chinese question's numbers and Latin-script names are written alike in
    English: each is a word of its own rendering, weighed as rare as it is in the space ("科斯塔v ENEL案" → "enel"),
    not a word nobody knows (bench/README.md, eleventh pass)."""
    words = way.words(query)
    if way.drop and params.shared_terms:
        words = [*words, *(dictionary.Word(w, (w,)) for w in sorted(shared_terms(query, "han")))]
    return words


def _how(way: Direction, words: list[dictionary.Word], params: RetrievalParams, near: tuple[float, float],
         reach: float, beyond: int, within_pair: int, paired: bool) -> Said:
    """The trace's sentence for ``check``: the rule of the direction, the words looked up and what they kept.
    ``near``: the window near the cut and the share needed within it."""
    needed = params.translated_min
    looked_up = ", ".join(f"{w.word} ({'/'.join(w.renderings[:SHOWN_RENDERINGS]) or '?'})" for w in words)
    if way.drop:
        how = msg("passages in the other language must hold renderings of {needed} of the weight of the question's "
                  "words (dictionary: {words})").format(needed=f"{needed:.0%}", words=looked_up)
        if near[0] > 0:
            how += "; " + msg("{needed} when within {near} of their cut").format(
                needed=f"{near[1]:.0%}", near=f"{near[0]:.3f}")
        if reach > 0:
            how += "; " + msg("one holding {share} is kept up to {reach} beyond its cut ({kept} kept so)").format(
                share=f"{way.rescue:.0%}", reach=f"{reach:.3f}", kept=beyond)
    else:
        how = msg("a passage in the other language holding renderings of {share} of the weight of the question's words "
                  "is kept up to {reach} beyond its cut ({kept} kept so; dictionary: {words})").format(
            share=f"{way.rescue:.0%}", reach=f"{reach:.3f}", kept=beyond, words=looked_up)
    if paired:
        how += "; " + msg("within the cut everyday questions in the question's language alone set (the language "
                          "pair's reference), {needed} is enough ({kept} kept so)").format(
            needed=f"{needed:.0%}", kept=within_pair)
    return how
