"""One relevance judge over explicit features (issue 55; SPEC R2, R3, R9).

Whether a passage answers a question was decided by a tower of hand-set rules, each fitted to one benchmark's
shape (the per-passage cut, word share, the name rescue, the space-wide gate, translated words, the sentence
check …). The judge reads the same evidence as features of one passage and one question and combines them with
weights *fitted* on labelled pairs (``bench/fit_judge.py``: logistic regression on passages that hold the answer
and passages that do not, from ../shared/corpora and hand-written questions; the questions figures are reported on
are never trained on). Each feature's contribution to the score is kept, so "why kept / why dropped" reads at a
glance in the trace, ``ask --json`` and the Inspector.

The fitted weights ship as a small versioned file (``resources/judge/relevance.json``). Features are relative to
what the space measures (R9): distances in units of the space's own unrelated-question spread, never raw cosine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from biny.core import state
from biny.core.crypto.blind import BlindIndex
from biny.core.embed.sentences import placed_similarities
from biny.core.retrieve.baseline import Distribution
from biny.core.retrieve.candidates import Candidate
from biny.core.retrieve.lexical import LexicalEvidence
from biny.core.store.vectors import VectorMatrix
from biny.core.text.question import Question
from biny.core.trace.records import RelevanceRecord, Verdict

# The features, in the order the model's weights are stored. Each is one sentence of evidence:
FEATURES: tuple[str, ...] = (
    "inside_cut",      # how far inside its own cut the passage lies (cut − distance), in reference spreads
    "below_median",    # how far nearer than the unrelated questions' median distance, in spreads
    "behind_nearest",  # how far behind the nearest passage of the pool, in spreads
    "words",           # IDF-weighted share of the question's words (stems at half weight) it holds
    "words_unasked",   # 1 when words are no evidence here (the space does not know the question's language)
    "rare_words",      # share of the weight of the question's rare words (a name) it holds
    "rare_missing",    # 1 when the question names a rare word and the passage holds none of them
    "aspect",          # +1 it holds the asked form (price, duration, contact), −1 asked and absent, 0 not asked
    "identifier",      # 1 when it holds an identifier the question names (article, RFC, part number)
    "elsewhere",       # 1 when written in another script or language than the question
    "translated",      # share of the question's looked-up words (dictionary renderings) it holds, across languages
    "known",           # share of the question's words the space knows at all (a question-level fact)
    "best_sentence",   # how far nearer than the unrelated median its nearest sentence (alone or after the one
                       # before) lies, in spreads: a passage covering several subjects answers by one sentence
    "sentence_gain",   # how much nearer that sentence is than the passage whole, in spreads
    "inside_elsewhere",  # inside_cut for a passage in another script or language (0 otherwise): distances across
                         # languages bunch apart from one language's, so they weigh apart
    "sentence_elsewhere",  # best_sentence likewise
)
RARE_DF = 3  # a word held by at most this many passages of the space names something (issue 45's measurement)


@dataclass(frozen=True, slots=True)
class RelevanceModel:
    """A fitted logistic model over ``FEATURES``: standardisation, weights, and the operating points."""

    version: str
    features: tuple[str, ...]
    mean: npt.NDArray[np.float64]
    scale: npt.NDArray[np.float64]
    coef: npt.NDArray[np.float64]
    intercept: float
    # Strictness → the probability a passage must reach (one operating point per setting value).
    thresholds: dict[str, float]
    trained_on: str = ""

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RelevanceModel:
        feats = tuple(d["features"])
        if feats != FEATURES:
            raise ValueError(f"judge model {d.get('version')} was fitted on other features: {feats}")
        return cls(str(d["version"]), feats, np.asarray(d["mean"], dtype=np.float64),
                   np.asarray(d["scale"], dtype=np.float64), np.asarray(d["coef"], dtype=np.float64),
                   float(d["intercept"]), {str(k): float(v) for k, v in d["thresholds"].items()},
                   str(d.get("trained_on", "")))

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "features": list(self.features), "mean": self.mean.tolist(),
                "scale": self.scale.tolist(), "coef": self.coef.tolist(), "intercept": self.intercept,
                "thresholds": self.thresholds, "trained_on": self.trained_on}

    def threshold(self, strictness: float) -> float:
        """The probability cut for a strictness in [0, 1]: interpolated between the fitted operating points."""
        points = sorted((float(k), v) for k, v in self.thresholds.items())
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return float(np.interp(strictness, xs, ys))

    def contributions(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        return ((x - self.mean) / self.scale) * self.coef

    def score(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        z = self.contributions(x).sum(axis=-1) + self.intercept
        return np.asarray(1.0 / (1.0 + np.exp(-z)))


BUNDLED: state.Once[RelevanceModel | None] = state.Once(
    f"{__name__}.BUNDLED", lambda: state.fitted("relevance.json", RelevanceModel.from_dict))


def bundled_model() -> RelevanceModel | None:
    """The shipped model (resources/judge/relevance.json), loaded once per process; None when absent."""
    return BUNDLED.get()


@dataclass(slots=True)
class Evidence:
    """What the threshold stage measured for one question, the judge's inputs."""

    query: Question
    ref: Distribution
    spread: float
    words: LexicalEvidence
    words_apply: bool  # whether the question's words are evidence in this space (retrieve/threshold.py word_check)
    shares: list[float | None]  # per pool passage, its word share (None: not asked)
    translated: dict[str, float]  # chunk id → share of looked-up words held (passages in the other language)
    query_vector: npt.NDArray[np.float32] | None = None
    sentences: list[npt.NDArray[np.float32] | None] | None = None  # per pool passage, its stored sentence vectors


def feature_matrix(ev: Evidence, pool: list[Candidate], vm: VectorMatrix,
                   blind: BlindIndex) -> npt.NDArray[np.float64]:
    """One row of ``FEATURES`` per pool passage (pool order)."""
    n = len(pool)
    x = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if not n:
        return x
    spread = max(ev.spread, 1e-6)
    d = np.array([c.distance for c in pool])
    cut = np.array([c.cut if c.cut is not None else ev.ref.median for c in pool])
    col = {name: i for i, name in enumerate(FEATURES)}
    x[:, col["inside_cut"]] = (cut - d) / spread
    x[:, col["below_median"]] = (ev.ref.median - d) / spread
    x[:, col["behind_nearest"]] = (d - d.min()) / spread
    x[:, col["words"]] = [s or 0.0 for s in ev.shares]
    x[:, col["words_unasked"]] = [1.0 if s is None else 0.0 for s in ev.shares]
    rows = [c.row for c in pool]
    rare = {t: w for t, w in ev.words.weights.items() if 0 < vm.df.get(t, 0) <= RARE_DF} if ev.words_apply else {}
    if rare:
        held = vm.terms.weigh(rows, rare) / sum(rare.values())
        x[:, col["rare_words"]] = held
        x[:, col["rare_missing"]] = (held <= 0).astype(np.float64)
    x[:, col["known"]] = ev.words.known_share
    asked = {blind.aspect(a) for a in ev.query.aspects if not a.startswith("topic:")}
    if asked:
        x[:, col["aspect"]] = [1.0 if asked & vm.aspects[r] else -1.0 for r in rows]
    keys = {blind(i.key) for i in ev.query.keys}
    if keys:
        holding = {r for k in keys for r, _ in vm.id_index.get(k, [])}
        x[:, col["identifier"]] = [1.0 if r in holding else 0.0 for r in rows]
    x[:, col["elsewhere"]] = [1.0 if c.elsewhere else 0.0 for c in pool]
    x[:, col["translated"]] = [ev.translated.get(c.chunk_id, 0.0) for c in pool]
    nearest = nearest_sentences(ev, d)
    x[:, col["best_sentence"]] = (ev.ref.median - nearest) / spread
    x[:, col["sentence_gain"]] = (d - nearest) / spread
    away = x[:, col["elsewhere"]]
    x[:, col["inside_elsewhere"]] = x[:, col["inside_cut"]] * away
    x[:, col["sentence_elsewhere"]] = x[:, col["best_sentence"]] * away
    return x


def nearest_sentences(ev: Evidence, whole: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Per pool passage, the distance of its nearest sentence to the question — alone, or read after the one
    before it (embed/sentences.py ``placed``, as the answer reads it); the passage's own distance where it has
    fewer than two sentences or none stored (nothing finer to read)."""
    out = whole.copy()
    if ev.query_vector is None or ev.sentences is None:
        return out
    read = [(i, v) for i, v in enumerate(ev.sentences) if v is not None and len(v) >= 2]
    if not read:
        return out
    q = np.asarray(ev.query_vector, dtype=np.float32).reshape(-1)
    # Every passage's sentences in one matrix, read in two products instead of two per passage (issue 57: a
    # question's pool is ≈40 passages, ≈1,500 sentences; bench/question_python.py --profile).
    stacked = np.concatenate([np.asarray(v, dtype=np.float32) for _, v in read])
    starts = np.cumsum([0] + [len(v) for _, v in read[:-1]])
    alone = np.maximum.reduceat(stacked @ q, starts)
    after = placed_similarities(stacked, q)  # pair p: sentence p + 1 read after sentence p
    after[starts[1:] - 1] = -np.inf  # a pair across two passages is no reading of either
    paired = np.maximum.reduceat(after, starts)
    for (i, _), a, b in zip(read, alone, paired, strict=True):
        out[i] = min(float(whole[i]), 1.0 - max(float(a), float(b)))
    return out


def record(ev: Evidence, pool: list[Candidate], vm: VectorMatrix, blind: BlindIndex, strictness: float,
           decides: bool, model: RelevanceModel | None = None) -> RelevanceRecord | None:
    """Judge every pool passage (each candidate's ``verdict`` set) and the record the trace keeps; None without a
    fitted model."""
    model = model or bundled_model()
    if model is None:
        return None
    verdicts = judge(model, ev, pool, vm, blind, strictness)
    for c, v in zip(pool, verdicts, strict=True):
        c.verdict = v
    return RelevanceRecord(model.version, strictness, model.threshold(strictness), decides,
                           {c.chunk_id: v for c, v in zip(pool, verdicts, strict=True)})


def judge(model: RelevanceModel, ev: Evidence, pool: list[Candidate], vm: VectorMatrix, blind: BlindIndex,
          strictness: float) -> list[Verdict]:
    """Each pool passage's verdict at ``strictness`` (pool order)."""
    x = feature_matrix(ev, pool, vm, blind)
    if not len(pool):
        return []
    scores = model.score(x)
    parts = model.contributions(x)
    cut = model.threshold(strictness)
    # ``tolist`` makes every Python float in one call, not one by one (issue 57, bench/question_python.py --profile).
    return [Verdict(s, dict(zip(FEATURES, row, strict=True)), dict(zip(FEATURES, part, strict=True)), s >= cut)
            for s, row, part in zip(np.asarray(scores, dtype=np.float64).tolist(), x.tolist(),
                                    np.asarray(parts, dtype=np.float64).tolist(), strict=True)]


def logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))
