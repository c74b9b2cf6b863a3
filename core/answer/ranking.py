"""Which of the context's sentences answers first: a fitted ranker over the extracted answer's evidence (issue 55).

The extracted answer (answer/extractive.py) reads each sentence's evidence — the question's words it holds and those
beside it, their renderings across Chinese ↔ English, the identifier, the asked aspect and form, its nearness in
meaning against the context's other sentences, where it sits — and summed them with hand-set weights, each fitted to
one benchmark's shape. Asked in their own words, people got the wrong sentence first half the time on technical
documents. The weights are now *fitted* (``bench/fit_sentences.py``: logistic regression on sentences that hold the
gold answer and sentences of the same context that do not, from the corpora and the natural questions' development
split — never their test split) and ship as ``resources/judge/sentences.json``. Which sentences may answer at all is
still the evidence's (answer/extractive.py ``choose``): the ranker only orders them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from biny.core import state

# The evidence of one sentence, in the order the fitted weights are stored:
FEATURES: tuple[str, ...] = (
    "words",           # IDF-weighted share (within the context) of the question's words the sentence holds
    "beside",          # the share held only beside it: the sentence before it in its paragraph, or its heading
    "across",          # the share of the question's words looked up across Chinese ↔ English that it holds
    "identifier",      # 1: it holds the article / RFC / part number the question names
    "aspect",          # 1: it holds the asked price, duration, contact …
    "form",            # 1: it holds the form the question word asks for (a year, a count, a name)
    "elsewhere",       # 1: its surroundings lack every word naming what the question is about, others have one
    "meaning",         # its nearness to the question against the context's other sentences (a z-score)
    "meaning_across",  # the same for a sentence in another script than the question
    "passage",         # 1 / its passage's place in the context (retrieval's order)
    "position",        # 1 / (1 + its place in its passage)
    "length",          # log(1 + characters)
    "figure",          # 1: text read from a figure
)


@dataclass(frozen=True, slots=True)
class Ranker:
    version: str
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    trained_on: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Ranker:
        if tuple(d["features"]) != FEATURES:
            raise ValueError(f"sentence ranker {d.get('version')} was fitted on other features: {d['features']}")
        return cls(str(d["version"]), tuple(map(float, d["mean"])), tuple(map(float, d["scale"])),
                   tuple(map(float, d["coef"])), float(d["intercept"]), str(d.get("trained_on", "")))

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "features": list(FEATURES), "mean": list(self.mean),
                "scale": list(self.scale), "coef": list(self.coef), "intercept": self.intercept,
                "trained_on": self.trained_on}

    def score(self, features: dict[str, float]) -> float:
        """The log-odds that the sentence holds the answer (a missing feature is 0: absent evidence)."""
        z = self.intercept + sum(c * (features.get(name, 0.0) - m) / s
                                 for name, m, s, c in zip(FEATURES, self.mean, self.scale, self.coef, strict=True))
        return z if math.isfinite(z) else 0.0


BUNDLED: state.Once[Ranker | None] = state.Once(f"{__name__}.BUNDLED",
                                                lambda: state.fitted("sentences.json", Ranker.from_dict))


def bundled() -> Ranker | None:
    """The shipped ranker, read once per process; None when none ships (the evidence's own sum orders)."""
    return BUNDLED.get()
