"""The fact recall chain, box by box as on the card (SPEC M1–M7).

M1 the current question → M2 optional rewrite (≤3 s, ≤128 tokens, falls back) →
M3 query embedding (multilingual-e5-small, 384-d) → M4 top-K (default 5) with a
threshold (default 0.1) → M5 scope and fact-version re-check (deleted, archived or
revision changed → dropped; the slot is not refilled) → M6 budget (12,000
characters, whole entries only) → M7 a reference block for the current turn, not
part of the canonical history.

The score of M4 is a calibrated similarity, so that 0.1 means the same thing on
any model: ``score = 1 − d / d_ref``, where ``d`` is the cosine distance from the
question to the fact and ``d_ref`` is the 10th percentile of the distances from a
bundled set of everyday questions (which no memory is about) to their nearest
fact in the store. 0 = as close as the closest tenth of unrelated questions get;
1 = identical. 0.1 keeps facts at least 10% closer than that. Measured on a
12-fact store with the bundled model: with the median as d_ref, 14.6% of the 144
unrelated questions recalled a fact at 0.1; with p10, 0.7% — while 5 of 5 relevant
questions were recalled either way (scores 0.37–0.53 with p10).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from biny.core.chunking.ratio import estimate_tokens
from biny.core.embed.base import Embedder, Vectors
from biny.core.i18n import N_, Said, msg, t
from biny.core.llm.base import ChatModel
from biny.core.memory.facts import Fact, check_scope
from biny.core.retrieve.budget import fit_whole
from biny.core.retrieve.rewrite import rewrite

DEFAULT_K = 5
DEFAULT_THRESHOLD = 0.1
DEFAULT_MAX_CHARS = 12000
DEFAULT_MAX_TOKENS = 4000


class FactSource(Protocol):
    """What the chain reads of a fact store (``engine.memory`` is one)."""

    def candidates(self, scope: str) -> tuple[list[tuple[str, int]], Vectors]:
        """(fact_id, revision) and vectors of a scope's active facts, as of now."""
        ...

    def current(self, fact_ids: list[str]) -> dict[str, Fact]:
        """One consistent read of the facts' present state (for the M5 re-check)."""
        ...

    def all_vectors(self) -> Vectors:
        """Vectors of every active fact (for d_ref)."""
        ...


@dataclass(slots=True)
class RecalledFact:
    fact_id: str
    text: str
    score: float
    revision: int
    distance: float


@dataclass(slots=True)
class DroppedFact:
    fact_id: str
    reason: Said
    score: float | None = None


@dataclass(slots=True)
class Step:
    box: str  # M1..M7
    name: str  # English, as data; ``label`` is what a person reads
    summary: Said
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return t(self.name)


@dataclass(slots=True)
class RecallResult:
    question: str
    scope: str
    facts: list[RecalledFact]
    dropped: list[DroppedFact]
    reference_block: str
    trace: list[Step]

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question, "scope": self.scope,
            "facts": [{"id": f.fact_id, "text": f.text, "score": round(f.score, 4), "revision": f.revision}
                      for f in self.facts],
            "dropped": [{"id": d.fact_id, "reason": str(d.reason)} for d in self.dropped],
            "reference_block": self.reference_block,
            "trace": [{**asdict(s), "summary": str(s.summary)} for s in self.trace],
        }


def _recheck(store: FactSource, ranked: list[tuple[str, int, float, float]], scope: str,
             dropped: list[DroppedFact]) -> list[tuple[Fact, float, float]]:
    """M5: the ranked facts still current in ``scope`` (the rest appended to ``dropped`` with why)."""
    current = store.current([f for f, _, _, _ in ranked])
    kept: list[tuple[Fact, float, float]] = []
    for fid, rev, score, d in ranked:
        now_fact = current.get(fid)
        if now_fact is None or now_fact.status == "deleted":
            dropped.append(DroppedFact(fid, msg("deleted since ranking"), score))
        elif now_fact.scope != scope:
            dropped.append(DroppedFact(fid, msg("out of scope"), score))
        elif now_fact.status == "archived":
            dropped.append(DroppedFact(fid, msg("archived"), score))
        elif now_fact.revision != rev:
            dropped.append(DroppedFact(fid, msg("revision changed ({rev} → {revision})")
                                       .format(rev=rev, revision=now_fact.revision), score))
        else:
            kept.append((now_fact, score, d))
    return kept


def reference_distance(store: FactSource, question_vectors: Vectors) -> float | None:
    """d_ref: p10 of the distances from unrelated questions to their nearest fact (None if no facts)."""
    facts = store.all_vectors()
    if len(facts) == 0:
        return None
    nearest = 1.0 - (question_vectors @ facts.T).max(axis=1)
    return float(np.quantile(nearest, 0.10))


def _ranked(ids: list[tuple[str, int]], vecs: Vectors, qvec: Vectors, d_ref: float | None, k: int, threshold: float
            ) -> tuple[list[tuple[str, int, float, float]], list[DroppedFact]]:
    """M4: the K nearest facts, scored against d_ref (1 − distance / d_ref); below the threshold, dropped with why."""
    dropped: list[DroppedFact] = []
    ranked: list[tuple[str, int, float, float]] = []
    if len(ids) and d_ref:
        dist = 1.0 - vecs @ qvec
        order = np.argsort(dist, kind="stable")[:k]
        for i in order:
            score = 1.0 - float(dist[i]) / d_ref
            fid, rev = ids[int(i)]
            if score >= threshold:
                ranked.append((fid, rev, score, float(dist[i])))
            else:
                dropped.append(DroppedFact(fid, msg("score {score:.3f} below threshold {threshold}")
                                           .format(score=score, threshold=threshold), score))
    return ranked, dropped


def recall(
    question: str,
    scope: str,
    *,
    store: FactSource,
    embedder: Embedder,
    d_ref: float | None,
    history: list[str] | None = None,
    model: ChatModel | None = None,
    k: int = DEFAULT_K,
    threshold: float = DEFAULT_THRESHOLD,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    between_rank_and_check: Any = None,  # test seam: runs after M4, before M5
) -> RecallResult:
    scope = check_scope(scope)
    trace: list[Step] = [Step("M1", N_("question"), question)]
    # M2: only the retrieval query changes; failures fall back to the original.
    rw = rewrite(question, list(history or []), model, fallback="none")
    trace.append(Step("M2", N_("rewrite"), rw.method + ": " + rw.reason, {"query": rw.query}))
    # M3
    t0 = time.perf_counter()
    qvec = embedder.embed_queries([rw.query])[0]
    trace.append(Step("M3", N_("embed"), msg("{model_id}, {dim} dimensions")
                                      .format(model_id=embedder.model_id, dim=embedder.dim),
                      {"ms": round((time.perf_counter() - t0) * 1000, 1)}))
    # M4: top-K by calibrated score, then the threshold.
    ids, vecs = store.candidates(scope)
    ranked, dropped = _ranked(ids, vecs, qvec, d_ref, k, threshold)
    trace.append(Step("M4", N_("top-k"), msg("{ranked} of top {k} at score ≥ {threshold} ({active} active facts in "
                                       "scope; d_ref {d_ref})")
                      .format(ranked=len(ranked), k=k, threshold=threshold, active=len(ids),
                              d_ref=d_ref if d_ref is None else round(d_ref, 4)),
                      {"ranked": [(f, r, round(s, 4)) for f, r, s, _ in ranked]}))
    if between_rank_and_check is not None:
        between_rank_and_check()
    # M5: re-check against the store as it is now; a dropped slot is not refilled.
    kept = _recheck(store, ranked, scope, dropped)
    trace.append(Step("M5", N_("re-check"), msg("{kept} of {ranked} still current; freed slots not refilled")
                                         .format(kept=len(kept), ranked=len(ranked))))
    # M6: whole entries within the character and token budget.
    fit = fit_whole(kept, lambda e: (len(e[0].text), int(estimate_tokens(e[0].text) + 0.5)), max_chars, max_tokens)
    over = msg("over the budget (kept whole, not cut)")
    dropped.extend(DroppedFact(f.fact_id, over, score) for f, score, _ in fit.over)
    facts = [RecalledFact(f.fact_id, f.text, score, f.revision, d) for f, score, d in fit.kept]
    chars = fit.chars
    trace.append(Step("M6", N_("budget"), msg("{count} fact(s), {chars} of {max_chars} characters")
                                       .format(count=len(facts), chars=chars, max_chars=max_chars)))
    # M7: a reference block for this turn only.
    block = ""
    if facts:
        block = "Reference material from memory (not part of the conversation):\n" + "\n".join(
            f"- {f.text}" for f in facts)
    trace.append(Step("M7", N_("inject"), msg("reference block for the current turn; not added to the history")
                      if facts else msg("nothing to inject")))
    return RecallResult(question, scope, facts, dropped, block, trace)
