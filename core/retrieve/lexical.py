"""Lexical evidence beside distance: does a passage share the question's words? (R2, R9)

Measured with ``bench/threshold_rules.py`` on XQuAD, CMRC and unrelated-corpus sets:
distance alone let through 10–25% of unrelated questions written in the space's own
language and script (e.g. CMRC questions asked of the Chinese laws: 22%), because a
question of the knowledge kind sits closer to any encyclopedic text than the bundled
everyday questions that set the cut. Yet an answering passage shares the question's
informative words (answerable zh→zh: ≥22% of the IDF weight in 9 of 10 cases; unrelated
same-script questions: ~0% in 9 of 10), so the cut asks for both — when the space
knows the question's words, or is written in the question's script at all
(``familiarity``). Across scripts (a Chinese question over English text) the space
knows none of them and distance decides alone. Question terms are cleaned first
(``terms.query_terms``: no bigrams across Chinese word seams, no question words), and
whether the space knows "the question's words" is judged on its main kind of term,
so the Latin names in a Chinese question do not make an English space count.

Terms are the stored, possibly blinded, term sets (words with their combining marks, their stems (terms.stem_of);
CJK bigrams; 4-grams of scripts written without spaces): no chunk text is read (R7). An exact word form
counts whole, another form of it (the stem alone) half (issue 20: Russian, German, Arabic answers).
"""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass, field

from biny.core.crypto.blind import BlindIndex
from biny.core.store.vectors import VectorMatrix
from biny.core.text.question import Question
from biny.core.text.scripts import script_of
from biny.core.text.terms import is_cjk, stem_of


@dataclass(frozen=True, slots=True)
class LexicalEvidence:
    weights: dict[str, float]  # (blinded) question term → IDF in this space
    known_share: float  # share of the question's terms that occur anywhere in the space
    # Script of the terms ``known_share`` was judged on (text/scripts.py script_of; "all" = digits only):
    # a passage without it cannot share them.
    script: str = "all"
    # Row → coverage, filled by ``coverages`` (this evidence belongs to one question and one matrix).
    shares: dict[int, float] = field(default_factory=dict, compare=False, repr=False)

    def coverage(self, row_terms: Container[str]) -> float:
        """IDF-weighted share of the question's terms present in a chunk (0–1)."""
        total = sum(self.weights.values())
        if total <= 0:
            return 0.0
        return sum(w for t, w in self.weights.items() if t in row_terms) / total

    def coverages(self, vm: VectorMatrix, rows: list[int]) -> list[float]:
        """``coverage`` of each of ``rows``, read from the matrix's term codes in one pass; rows already
        weighed for this question (the threshold's, again in the reranker) are remembered."""
        total = sum(self.weights.values())
        if total <= 0:
            return [0.0] * len(rows)
        new = [r for r in dict.fromkeys(rows) if r not in self.shares]
        if new:
            self.shares.update(zip(new, (float(x) for x in vm.terms.weigh(new, self.weights) / total), strict=True))
        return [self.shares[r] for r in rows]

    def applies(self, min_known: float) -> bool:
        """Is word overlap informative here? Not when the space knows (almost) none of the words."""
        return self.known_share > min_known


# The part of a word's weight its stem carries (the exact form carries the rest).
STEM_SHARE = 0.5


def familiarity(questions: list[str], vm: VectorMatrix, blind: BlindIndex) -> float:
    """Share of the words of everyday questions in one script that the space knows (0–1).

    Says whether the space is written in that script at all, apart from any one question:
    measured on the bench spaces, 0.18–0.49 for the bundled questions of the space's own
    script and ≤ 0.02 for every other script. A question none of whose words the space
    knows is then evidence of "not in your material", not of another language.
    """
    # Words only: whether a space is written in a script is a matter of its words, and Vietnamese syllable pairs
    # (text/terms.py) would add a term the other Latin-script spaces never hold for each pair of them.
    terms = {blind(t) for q in questions for t in units(set(Question.parse(q).terms), vm, blind) if " " not in t}
    return sum(1 for t in terms if vm.df.get(t, 0) > 0) / len(terms) if terms else 0.0


def units(plain: set[str], vm: VectorMatrix, blind: BlindIndex) -> set[str]:
    """The question's terms as the space can match them: each word by its stem (``terms.stem_of``: "элемента"
    meets "элементом") where the space was indexed with stems, else by itself (spaces ingested before stems).

    Whether it was is read off the space: a chunk holding a word of ``STEM_LEN`` or more letters holds its stem,
    so a space that knows any of the question's stems has them; one that knows none matches whole words as before.
    """
    return set(_unit_of(plain, vm, blind).values())


def _unit_of(plain: set[str], vm: VectorMatrix, blind: BlindIndex) -> dict[str, str]:
    """Question term → the unit it is matched by (``units``)."""
    stems = {t: stem_of(t) for t in plain}
    if not any(s is not None and vm.df.get(blind(s), 0) > 0 for s in stems.values()):
        return {t: t for t in plain}
    return {t: s if s is not None else t for t, s in stems.items()}


def evidence(question: Question, vm: VectorMatrix, blind: BlindIndex) -> LexicalEvidence:
    """The question's terms weighed by their IDF in this space. Made once per ask by ``Context.words`` (the
    threshold and the reranker read the same one); nothing here outlives the ask, blinded terms included."""
    return _evidence(question, vm, blind)


def _evidence(question: Question, vm: VectorMatrix, blind: BlindIndex) -> LexicalEvidence:
    unit_of = _unit_of(set(question.terms), vm, blind)
    plain = set(unit_of.values())
    if not plain:
        return LexicalEvidence({}, 0.0)
    n = max(len(vm), 1)
    df = {t: vm.df.get(blind(t), 0) for t in plain}
    weights = {blind(t): math.log(1 + n / (1 + f)) for t, f in df.items()}
    # A passage with the question's very word form carries its whole weight, one with another form of it (the
    # stem alone) half: inflected answers pass the check, while a passage of the same topic that merely shares
    # word beginnings ("government" / "governor") gains less than a full match (bench/README.md, issue 20).
    for w, stem in unit_of.items():
        if stem != w and w not in plain:
            weights[blind(stem)] *= STEM_SHARE
            weights[blind(w)] = math.log(1 + n / (1 + vm.df.get(blind(w), 0))) * (1 - STEM_SHARE)
    # Is the space written in the question's language? Judged on the question's main kind
    # of term (CJK bigrams or words): a Chinese question over English text shares its Latin
    # names and numbers, which must not make the check apply when none of its Chinese is known.
    cjk = [t for t in plain if is_cjk(t)]
    main = cjk if len(cjk) * 2 >= len(plain) else [t for t in plain if not is_cjk(t)]
    known = sum(1 for t in main if df[t] > 0) / len(main)
    return LexicalEvidence(weights, known, script_of(" ".join(main)))
