"""Rerankers (pluggable). The default fuses vector rank with a lexical rank (RRF).

The lexical side scores a chunk by the inverse document frequency of the
question's terms found in the chunk's stored term set — no chunk text needed (R7).
Whatever the reranker, the pipeline — not the reranker — enforces R4 (pins keep
their places) and R5 (the nearest chunk stays).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from biny.core.crypto.blind import BlindIndex
from biny.core.i18n import N_
from biny.core.retrieve.lexical import LexicalEvidence, evidence
from biny.core.store.vectors import VectorMatrix
from biny.core.text.question import Question


class Reranker(Protocol):
    name: str

    def order(self, question: Question, rows: list[int], distances: list[float], vm: VectorMatrix,
              blind: BlindIndex, words: LexicalEvidence | None = None) -> list[int]:
        """Return ``rows`` reordered, best first."""
        ...


# Reciprocal-rank fusion's damping constant: 60, as Cormack, Clarke & Büttcher (SIGIR 2009) found robust across
# collections; not refitted here.
RRF_K = 60


class RRFReranker:
    """Reciprocal-rank fusion of vector order and lexical (IDF-weighted term overlap) order."""

    name = N_("meaning and shared words combined (reciprocal-rank fusion)")  # translated where shown (rerank.py)

    def __init__(self, k: int = RRF_K) -> None:
        self.k = k

    def order(self, question: Question, rows: list[int], distances: list[float], vm: VectorMatrix,
              blind: BlindIndex, words: LexicalEvidence | None = None) -> list[int]:
        by_vec = sorted(range(len(rows)), key=lambda i: distances[i])
        # The same IDF-weighted overlap the threshold's word check uses (retrieve/lexical.py).
        lex = (words if words is not None else evidence(question, vm, blind)).coverages(vm, rows)
        by_lex = sorted(range(len(rows)), key=lambda i: -lex[i])
        score = [0.0] * len(rows)
        for rank, i in enumerate(by_vec):
            score[i] += 1.0 / (self.k + rank + 1)
        for rank, i in enumerate(by_lex):
            score[i] += 1.0 / (self.k + rank + 1)
        order = sorted(range(len(rows)), key=lambda i: (-score[i], distances[i]))
        return [rows[i] for i in order]


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder scoring (question, chunk text) pairs.

    Used when ``retrieval.reranker = "cross-encoder:<local folder or package>"``. It needs
    the candidates' text, so it reads (and in encrypted spaces decrypts) the rerank
    candidates — the trace's ``decrypted`` count shows it. Loaded offline only.
    """

    def __init__(self, name: str, texts: Callable[[list[int]], list[str]]) -> None:
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import CrossEncoder

        from biny.core.embed.sentence_transformers import _resolve

        self.name = f"cross-encoder({name})"
        self._model = _cross_encoders.get(name) or CrossEncoder(_resolve(name), device="cpu")
        _cross_encoders[name] = self._model
        self._texts = texts

    def order(self, question: Question, rows: list[int], distances: list[float], vm: VectorMatrix,
              blind: BlindIndex, words: LexicalEvidence | None = None) -> list[int]:
        texts = self._texts(rows)
        scores = self._model.predict([(question.text, t) for t in texts], convert_to_numpy=True)
        order = sorted(range(len(rows)), key=lambda i: (-float(scores[i]), distances[i]))
        return [rows[i] for i in order]


_cross_encoders: dict[str, Any] = {}
