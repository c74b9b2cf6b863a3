"""Lexical evidence beside distance: does a passage share the question's words? (R2, R9)

Measured with ``bench/threshold_rules.py`` on XQuAD, CMRC and unrelated-corpus sets:
distance alone let through 10–25% of unrelated questions written in the space's own
language and script (e.g. CMRC questions asked of the Chinese laws: 22%), because a
question of the knowledge kind sits closer to any encyclopedic text than the bundled
everyday questions that set the cut. Yet an answering passage shares the question's
informative words (answerable zh→zh: ≥22% of the IDF weight in 9 of 10 cases; unrelated
same-script questions: ~0% in 9 of 10), so the cut asks for both — when the space
knows the question's words at all. Across scripts (a Chinese question over English
text) the space knows none of them and distance decides alone.

Terms are the stored, possibly blinded, term sets (words; CJK bigrams): no chunk text
is read (R7).
"""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass

from biny.core.crypto.blind import BlindIndex
from biny.core.retrieve.terms import query_terms
from biny.core.store.vectors import VectorMatrix


@dataclass(frozen=True, slots=True)
class LexicalEvidence:
    weights: dict[str, float]  # (blinded) question term → IDF in this space
    known_share: float  # share of the question's terms that occur anywhere in the space

    def coverage(self, row_terms: Container[str]) -> float:
        """IDF-weighted share of the question's terms present in a chunk (0–1)."""
        total = sum(self.weights.values())
        if total <= 0:
            return 0.0
        return sum(w for t, w in self.weights.items() if t in row_terms) / total

    def applies(self, min_known: float) -> bool:
        """Is word overlap informative here? Not when the space knows (almost) none of the words."""
        return self.known_share > min_known


def evidence(question: str, vm: VectorMatrix, blind: BlindIndex) -> LexicalEvidence:
    terms = {blind(t) for t in query_terms(question)}
    if not terms:
        return LexicalEvidence({}, 0.0)
    n = max(len(vm), 1)
    weights = {t: math.log(1 + n / (1 + vm.df.get(t, 0))) for t in terms}
    known = sum(1 for t in terms if vm.df.get(t, 0) > 0) / len(terms)
    return LexicalEvidence(weights, known)
