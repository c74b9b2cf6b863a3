"""Translated words: a Chinese question's words judge English passages through a dictionary (R2, R9; issue 20).

Across scripts the word check stands aside (the space knows none of the question's words) and the model's
distances bunch together, so distance alone kept passages for 7 in 10 Chinese questions about articles an
English space lacks. Looking the question's words up (text/dictionary.py, CC-CEDICT) lets words judge again:
an English passage kept by its cut must hold renderings of ``translated_min`` of the question's weight, each word
weighing as its commonest rendering does in the space (IDF), a word the dictionary lacks weighing
``UNKNOWN_SHARE`` of the rarest term's weight and never found — the name of a subject the material lacks is the
usual such word. Measured before choosing (``bench/eval_retrieval.py``, K=5): that refusal 0.325 → 0.600 with
every zh→en answer kept (0.865) and 3.40 → 2.8 passages; see bench/README.md.

Terms are the stored, possibly blinded, term sets: no passage text is read (R7).
"""

from __future__ import annotations

import math

from biny.core.crypto.blind import BlindIndex
from biny.core.i18n import t
from biny.core.retrieve.candidates import Candidate, RetrievalParams
from biny.core.store.vectors import VectorMatrix
from biny.core.text import dictionary
from biny.core.text.scripts import script_of
from biny.core.text.terms import stem_of

# The dictionary's side: the passages it can judge are those recorded as English (text/language.py).
TARGET = "en"
# A word the dictionary lacks weighs this share of the rarest term's weight (log(1 + passages)).
UNKNOWN_SHARE = 0.5


def applies(query: str, params: RetrievalParams) -> bool:
    """For a question written in Chinese characters (not Japanese: kana decide, text/scripts.py)."""
    return params.translated_words and params.use_threshold and params.max_distance is None \
        and script_of(query) == "han"


def check(query: str, pool: list[Candidate], reasons: dict[int, str | None], cross_script: set[int],
          params: RetrievalParams, vm: VectorMatrix, blind: BlindIndex, data: dict[str, object]) -> str:
    """Drop English passages, kept so far, that hold too little of the question's translated weight — unless a
    candidate of their document holds enough (a document names its subject once). Returns a sentence for the
    trace; ``data["translated"]`` receives the words looked up and each judged passage's share."""
    english = blind.aspect(f"lang:{TARGET}")
    judged = [c for c in pool if c.row in cross_script and reasons[c.row] is None and english in vm.aspects[c.row]]
    words = dictionary.words(query) if judged else []
    if not any(w.english for w in words):
        return ""
    n = max(len(vm), 1)

    def idf(term: str) -> float:
        return math.log(1 + n / (1 + vm.df.get(blind(term), 0)))

    def units(rendering: str) -> list[str]:
        stem = stem_of(rendering)
        return [rendering] if stem is None else [rendering, stem]

    unknown = UNKNOWN_SHARE * math.log(1 + n)
    weighed = [(min(max(idf(u) for u in units(r)) for r in w.english) if w.english else unknown,
                {blind(u) for r in w.english for u in units(r)}) for w in words]
    total = sum(weight for weight, _ in weighed)
    shares = {c.row: sum(weight for weight, codes in weighed if any(code in vm.terms[c.row] for code in codes))
              / total for c in judged}
    vouched = {c.doc_id for c in judged if shares[c.row] >= params.translated_min}
    for c in judged:
        if shares[c.row] < params.translated_min and c.doc_id not in vouched:
            reasons[c.row] = t("in English and holds renderings of {share} of the weight of the question's words "
                               "(needs {needed})").format(share=f"{shares[c.row]:.0%}",
                                                      needed=f"{params.translated_min:.0%}")
    data["translated"] = {"words": {w.chinese: list(w.english) for w in words},
                          "shares": {c.chunk_id: round(shares[c.row], 3) for c in judged},
                          "needed": params.translated_min}
    looked_up = ", ".join(f"{w.chinese} ({'/'.join(w.english[:3]) or '?'})" for w in words)
    return t("passages in English must hold renderings of {needed} of the weight of the question's words "
             "(dictionary: {words})").format(needed=f"{params.translated_min:.0%}", words=looked_up)
