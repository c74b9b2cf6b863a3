"""A proposed web entry read against the space's own material (issue 59: "a sentence that asserts an answer the
space's own material contradicts is shown as such").

For each sentence of the entry: the space's nearest passages (retrieved as ``WebFallback.nearest`` does, no cut),
their sentences read by their stored vectors (issue 57: services/sentence_vectors.py, no embedding of the space's
text), and those about the same subject — cosine at least ``SAME_SUBJECT`` to the web sentence — compared by
``web/contradiction.py``: a different number, name or a negation. The closest such sentence is recorded with its
document and page; approving the entry then needs a confirmation naming the web sentence.

With a model configured it is asked a second opinion on each pair found (``second_opinion``): a reply "no" removes
the mark; no reply, or anything else, keeps it (the rule decides; the model can only clear its own doubts).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from biny.core.embed.sentences import sentence_texts
from biny.core.llm.base import ChatModel, LLMError, Message, as_data
from biny.core.results import Hit
from biny.core.services.models import Models
from biny.core.services.retrieval import Retriever
from biny.core.web.contradiction import Conflict, conflict

SAME_SUBJECT = 0.86  # cosine of two sentences' passage vectors (bundled model): bench/contradiction.py
NEAREST = 5  # passages read per web sentence

SECOND_OPINION = (
    "Two sentences follow: A from a public web page, B from the user's own documents. Do they state different "
    "values for the same thing (a different number, date, amount or name, or one denies what the other says)? "
    "Reply with one word: yes or no.")


@dataclass(slots=True)
class Contradiction:
    sentence: str  # the entry's sentence
    mine: str  # the space's sentence that states otherwise
    doc_id: str
    title: str
    page: int | None
    kind: str  # number | name | negation
    web_value: str
    mine_value: str
    similarity: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def where(self) -> str:
        return f"{self.title}, p. {self.page}" if self.page else self.title


def contradictions(retriever: Retriever, models: Models, space: str, sentences: list[str]) -> list[Contradiction]:
    """The entry's sentences the space's own material states otherwise, each with the closest such sentence."""
    if not sentences:
        return []
    row = retriever.folder.catalog.spaces.named(space)
    params = retriever.params(NEAREST)
    params.use_threshold = params.use_structured = params.use_second_pass = params.use_rerank = False
    web = models.embedder.embed_passages(sentences)
    out = []
    for text, vector in zip(sentences, web, strict=True):
        hits = retriever.ask(space, text, params=params).chunks[:NEAREST]
        if not hits:
            continue
        stored, _ = retriever.stored_sentences.for_hits(row, retriever.matrix(row), hits)
        found = _closest(text, np.asarray(vector, dtype=np.float32), hits, stored)
        if found is not None:
            out.append(found)
    if models.llm is not None:
        out = [c for c in out if second_opinion(models.llm, c)]
    return out


def _closest(text: str, vector: np.ndarray, hits: list[Hit], stored: list[Any]) -> Contradiction | None:
    best: tuple[float, Contradiction] | None = None
    for hit, vectors in zip(hits, stored, strict=True):
        units = sentence_texts(hit.text)[0]
        if vectors is None or len(units) != len(vectors):
            continue
        sims = np.asarray(vectors, dtype=np.float32) @ vector
        for unit, sim in zip(units, sims, strict=True):
            if sim < SAME_SUBJECT or (best is not None and sim <= best[0]):
                continue
            found: Conflict | None = conflict(text, unit)
            if found is not None:
                best = (float(sim), Contradiction(text, unit.strip(), hit.doc_id, hit.document, hit.page,
                                                  found.kind, found.web, found.mine, round(float(sim), 3)))
    return best[1] if best else None


def second_opinion(llm: ChatModel, found: Contradiction) -> bool:
    """Does the model agree the pair contradicts? Only a clear "no" clears the mark."""
    try:
        reply = llm.complete([Message("system", SECOND_OPINION),
                              Message("user", as_data(f"A: {found.sentence}\nB: {found.mine}"))],
                             max_tokens=3, timeout_s=15.0)
    except LLMError:
        return True
    return not reply.strip().casefold().startswith(("no", "不", "nein", "いいえ"))
