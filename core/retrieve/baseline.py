"""Distances mean something only against the model's unrelated baseline (SPEC R9).

Each space measures two distributions and stores them in the catalog:

* ``passage_pairs`` — cosine distance between chunks of *different* documents,
  sampled. What the star map and inspector draw as "unrelated".
* ``question_nearest:<script>`` — for a bundled set of everyday questions the space
  is not about, embedded with the ``query:`` prefix, the distance to their nearest
  chunk in this space. A question sits much closer to unrelated passages than
  two unrelated passages sit to each other (measured with multilingual-e5-small:
  0.147 vs 0.254), and the level depends on the question's script, so the
  retrieval threshold is set against this distribution, per script group.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from biny.core.embed.base import Embedder, Vectors
from biny.core.store.vectors import VectorMatrix
from biny.core.text.question import Question
from biny.core.text.scripts import LANG_SCRIPT

QUANTILES = (0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90)
# Distances kept per distribution for the analysts' plots and the share-above figure: 400 evenly spaced values
# resolve a quantile to 0.25 %, finer than any cut the settings allow (R9), at a few KB per space.
KEPT_VALUES = 400
# Unrelated questions averaged per passage in the local reference: the mean of the 3 nearest is steady where the
# single nearest swings with one odd question (CSLS, Conneau et al. 2018, use 10 over a dictionary's thousands;
# the bundled sets hold 25–60 questions per script).
NEAREST_QUESTIONS = 3
# Cross-document passage pairs sampled for the unrelated-pair baseline (a median's standard error shrinks as
# 1/√n: 3,000 pairs put it well under the analysts' plot resolution), drawn with a fixed seed so a space's baseline
# is reproducible. Three draws per kept pair leave enough after the same-document pairs are dropped even when one
# document holds most passages.
BASELINE_PAIRS = 3000
BASELINE_SEED = 7
PAIR_DRAWS = 3
# A script group (or language) gets its own reference only with this many bundled questions: fewer make a
# quantile of noise, and the group falls back to all questions.
MIN_GROUP_QUESTIONS = 8
# Rows per block of the question × passage product: 65,536 × 384 float32 is 100 MB, bounded at 1M passages.
SIMILARITY_BLOCK = 65536


@dataclass(slots=True)
class Distribution:
    n: int
    median: float
    quantiles: dict[str, float]
    values: list[float] = field(default_factory=list)
    # Quantiles already computed: every question asks the same few (issue 23: ask overhead).
    _memo: dict[float, float] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, values: np.ndarray[Any, np.dtype[np.float32]], keep: int = KEPT_VALUES) -> Distribution:
        v = np.sort(values.astype(np.float64))
        qs = {f"p{round(q * 100):02d}": float(np.quantile(v, q)) for q in QUANTILES}
        step = max(1, len(v) // keep)
        return cls(len(v), float(np.median(v)), qs, [round(float(x), 4) for x in v[::step]])

    def quantile(self, q: float) -> float:
        if not self.values:
            return self.median
        got = self._memo.get(q)
        if got is None:
            got = self._memo[q] = float(np.quantile(np.asarray(self.values), q))
        return got

    def share_above(self, distance: float) -> float | None:
        """Share of the distribution farther than ``distance`` (for "closer than 93% of unrelated questions")."""
        if not self.values:
            return None
        at_or_below = int(np.searchsorted(np.asarray(self.values), distance, side="right"))
        return 1.0 - at_or_below / len(self.values)

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "median": self.median, "quantiles": self.quantiles, "values": self.values}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Distribution:
        return cls(int(d["n"]), float(d["median"]), dict(d["quantiles"]), list(d.get("values", [])))


@dataclass(slots=True)
class Baselines:
    chunk_count: int
    passage_pairs: Distribution | None
    question_nearest: dict[str, Distribution]
    # The unrelated questions themselves, per script group (in memory only): each
    # candidate passage is measured against them at query time (``local_reference``).
    questions: dict[str, Vectors] = field(default_factory=dict)
    # Per script group: those questions with the bundled *knowledge* questions of that language
    # added (resources/baseline/knowledge.jsonl — encyclopedia-style, written for biny, disjoint
    # from every evaluation set). A question of the same kind as the material sits closer to it
    # than everyday questions do, so passages in the question's own script are measured against
    # these (issue 20: a Chinese encyclopedia question about an article the space lacks).
    knowledge: dict[str, Vectors] = field(default_factory=dict)
    # Per language (``en``, ``de`` …, those with enough questions): the everyday questions of that language. A
    # passage in another language of the question's script is measured against the question's language only, as
    # a passage in another script is against the question's script (issue 20: a German question over English
    # text met the English questions nearest every English passage and lost its answers).
    languages: dict[str, Vectors] = field(default_factory=dict)
    # Per script group: how much of those questions' vocabulary the space knows
    # (retrieve/lexical.py: familiarity), filled on first use.
    familiar: dict[str, float] = field(default_factory=dict)
    # Row masks of the scripts the space is written in (retrieve/pool.py), filled on first use.
    script_rows: dict[frozenset[str], npt.NDArray[np.int64]] | None = None

    def local_reference(self, group: str, matrix: Vectors, rows: list[int], nearest: int = NEAREST_QUESTIONS,
                        own: npt.NDArray[np.bool_] | None = None,
                        language: tuple[str, npt.NDArray[np.bool_]] | None = None) -> np.ndarray:
        """Per passage: mean distance of its ``nearest`` closest unrelated questions of ``group``.

        Some passages sit close to every question (short, generic, or in the question's
        language where the rest are not — the "hubs" of cross-lingual retrieval); a
        question must come closer to a passage than unrelated questions already do to
        that same passage (R2/R9; cf. CSLS, Conneau et al. 2018).

        ``own`` marks the rows written in the question's script: those are measured against the
        everyday *and* knowledge questions of ``group`` (``knowledge``); the rest against the everyday
        ones only — across scripts the knowledge questions cost answers (bench/README.md, issue 20).
        ``language`` = (the question's language, rows written in another language of its script): those rows are
        measured against the everyday questions of the question's language alone (``languages``).
        """
        qs = self.questions.get(group)
        if qs is None:
            qs = self.questions.get("all")
        if qs is None or not rows:
            return np.full(len(rows), np.inf)
        at = np.asarray(rows, dtype=np.int64)
        out = self._nearest_mean(qs, matrix[at], nearest)
        wide = self.knowledge.get(group)
        if own is not None and wide is not None and own.any():
            out[own] = self._nearest_mean(wide, matrix[at[own]], nearest)
        if language is not None and language[0] in self.languages and language[1].any():
            out[language[1]] = self.language_reference(language[0], matrix, at[language[1]], nearest)
        return out

    def language_reference(self, language: str, matrix: Vectors, rows: list[int] | npt.NDArray[np.int64],
                           nearest: int = NEAREST_QUESTIONS) -> np.ndarray:
        """Per passage: mean distance of its ``nearest`` closest everyday questions in ``language`` alone
        (``languages``; the caller checks it has them)."""
        return self._nearest_mean(self.languages[language], matrix[np.asarray(rows, dtype=np.int64)], nearest)

    @staticmethod
    def _nearest_mean(qs: Vectors, vecs: Vectors, nearest: int) -> np.ndarray:
        d = 1.0 - qs @ vecs.T  # (questions, rows)
        m = min(nearest, len(qs))
        return np.asarray(np.sort(d, axis=0)[:m].mean(axis=0))

    def reference_for(self, question: Question) -> tuple[str, Distribution | None]:
        group = question.script
        if group in self.question_nearest:
            return group, self.question_nearest[group]
        return "all", self.question_nearest.get("all")

    def calibrated(self, distance: float) -> float | None:
        """1 at distance 0, 0 at the unrelated-pair median, negative beyond it."""
        if self.passage_pairs is None or self.passage_pairs.median <= 0:
            return None
        return 1.0 - distance / self.passage_pairs.median


@functools.cache
def _question_rows(name: str) -> tuple[tuple[str, str], ...]:
    """(language code, question) of a bundled reference set, read once."""
    text = resources.files("biny.resources").joinpath(f"baseline/{name}.jsonl").read_text("utf-8")
    rows = (json.loads(line) for line in text.splitlines() if line.strip())
    return tuple((row["lang"], row["question"]) for row in rows)


@functools.cache
def question_languages(name: str = "questions") -> tuple[str, ...]:
    """The language code of each question of a bundled reference set, in ``load_questions`` order."""
    return tuple(lang for lang, _ in _question_rows(name))


@functools.cache
def load_questions(name: str = "questions") -> list[tuple[str, str]]:
    """(script group, question) of a bundled reference set — ``questions`` (everyday) or ``knowledge``
    (encyclopedia-style); callers must not modify it."""
    return [(LANG_SCRIPT.get(lang, "all"), q) for lang, q in _question_rows(name)]


# Process-wide: the vectors depend only on the model and the bundled questions, so every
# engine opened in a process (a test session opens dozens) shares one embedding of them.
_QUESTION_VECTORS: dict[str, Vectors] = {}


# Hex digits of the vectors' key: 64 bits, no collision between a handful of models and sets.
KEY_CHARS = 16


def _vectors_key(embedder: Embedder, questions: list[tuple[str, str]]) -> str:
    """The model and the questions' exact text: a changed set or another model never reads stale vectors."""
    text = embedder.model_id + "\n" + "\n".join(q for _, q in questions)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_CHARS]


def bundled_vectors_name(key: str) -> str:
    """The file under resources/baseline/vectors/ holding a set's vectors for one model, shipped for the default
    embedder: a fresh data folder then embeds no reference question (4 s on two idle cores, several times that
    under load — every first `biny ask` in a new folder paid it)."""
    return f"vectors/questions-{key}.npy"


def _bundled(key: str) -> Vectors | None:
    try:
        with resources.files("biny.resources.baseline").joinpath(bundled_vectors_name(key)).open("rb") as fh:
            vecs: Vectors = np.load(fh)
    except (FileNotFoundError, OSError, ValueError):
        return None  # another model, or an edited question set: embedded below
    return vecs


def question_vectors(embedder: Embedder, cache_dir: Path, name: str = "questions") -> tuple[list[str], Vectors]:
    """Embed a bundled question set once per model: kept in memory, shipped for the default model, and otherwise
    kept on disk in the data folder by content hash."""
    questions = load_questions(name)
    key = _vectors_key(embedder, questions)
    vecs = _QUESTION_VECTORS.get(key)
    if vecs is None:
        vecs = _bundled(key)
    if vecs is None:
        path = cache_dir / f"baseline-questions-{key}.npy"
        if path.exists():
            vecs = np.load(path)
        else:
            vecs = embedder.embed_queries([q for _, q in questions])
            try:
                cache_dir.mkdir(parents=True, exist_ok=True)
                np.save(path, vecs)
            except OSError:
                pass  # a read-only or full disk: the in-memory copy serves this process
    if key not in _QUESTION_VECTORS:
        vecs.setflags(write=False)  # shared between engines: nobody may change it
        _QUESTION_VECTORS[key] = vecs
    return [s for s, _ in questions], vecs


def ship_question_vectors(embedder: Embedder, folder: Path) -> list[Path]:
    """Write every bundled set's vectors for ``embedder`` into ``folder`` (resources/baseline/vectors/ in the
    source tree): run again whenever a set's questions or the default model change; a test compares them."""
    written = []
    for name in ("questions", "knowledge"):
        questions = load_questions(name)
        path = folder / Path(bundled_vectors_name(_vectors_key(embedder, questions))).name
        folder.mkdir(parents=True, exist_ok=True)
        np.save(path, embedder.embed_queries([q for _, q in questions]).astype(np.float32))
        written.append(path)
    return written


def measure(
    vm: VectorMatrix, scripts: list[str], qvecs: Vectors, *, pairs: int = BASELINE_PAIRS, seed: int = BASELINE_SEED,
    knowledge: tuple[list[str], Vectors] | None = None, languages: tuple[str, ...] = (),
) -> Baselines:
    n = len(vm)
    if n == 0:
        return Baselines(0, None, {})
    rng = np.random.default_rng(seed)
    pair_dist: Distribution | None = None
    docs = np.asarray(vm.doc_ids)
    if len(set(vm.doc_ids)) > 1:
        a = rng.integers(0, n, size=pairs * PAIR_DRAWS)
        b = rng.integers(0, n, size=pairs * PAIR_DRAWS)
        ok = docs[a] != docs[b]
        a, b = a[ok][:pairs], b[ok][:pairs]
        if len(a):
            d = 1.0 - np.einsum("ij,ij->i", vm.matrix[a], vm.matrix[b])
            pair_dist = Distribution.of(d.astype(np.float32))
    nearest = 1.0 - _max_similarity(qvecs, vm.matrix)
    groups: dict[str, Distribution] = {"all": Distribution.of(nearest.astype(np.float32))}
    questions: dict[str, Vectors] = {"all": qvecs}
    script_arr = np.asarray(scripts)
    for group in sorted(set(scripts)):
        sel = nearest[script_arr == group]
        if len(sel) >= MIN_GROUP_QUESTIONS:
            groups[group] = Distribution.of(sel.astype(np.float32))
            questions[group] = qvecs[script_arr == group]
    wide: dict[str, Vectors] = {}
    if knowledge is not None:
        k_scripts = np.asarray(knowledge[0])
        for group, own in questions.items():
            extra = knowledge[1][k_scripts == group]
            if group != "all" and len(extra):
                wide[group] = np.vstack([own, extra])
    langs = np.asarray(languages)
    by_language = {lang: qvecs[langs == lang] for lang in sorted(set(languages))
                   if len(languages) == len(qvecs) and int((langs == lang).sum()) >= MIN_GROUP_QUESTIONS}
    return Baselines(n, pair_dist, groups, questions, knowledge=wide, languages=by_language)


def _max_similarity(qvecs: Vectors, matrix: Vectors, block: int = SIMILARITY_BLOCK) -> np.ndarray:
    """Each question's best similarity over all rows, in blocks (bounded memory at 1M rows)."""
    best = np.full(len(qvecs), -np.inf, dtype=np.float32)
    for s in range(0, len(matrix), block):
        best = np.maximum(best, (qvecs @ matrix[s:s + block].T).max(axis=1))
    return best
