"""What the retrieval stages pass along: candidates, parameters, the query's distances.

Stages work on candidates (row indices and distances) — never on chunk text — so
only the chunks that end up in the context are read back and decrypted (R7), and the
few the sentence check reads near their cut. A
candidate carries the verdict data it earned (its own distance cut, its word share);
the trace only records them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from biny.core.config import RetrievalSettings
from biny.core.crypto.blind import BlindIndex
from biny.core.embed.base import Vectors
from biny.core.i18n import Said
from biny.core.llm.base import ChatModel
from biny.core.results import Kept
from biny.core.retrieve.baseline import Distribution
from biny.core.retrieve.lexical import LexicalEvidence, evidence
from biny.core.retrieve.rerankers import Reranker, RRFReranker
from biny.core.store.vectors import VectorMatrix
from biny.core.text.question import Question
from biny.core.trace import Trace
from biny.core.trace.records import Verdict


@dataclass(slots=True)
class Candidate:
    row: int
    chunk_id: str
    doc_id: str
    distance: float
    pinned: bool = False
    source: str = "vector"  # vector | identifier | second_pass
    # R2/R9: the distance this passage had to beat (None: no cut applied to it).
    cut: float | None = None
    # IDF-weighted share of the question's words this passage carries (None: not asked).
    word_share: float | None = None
    # Written in another script or language than the question's, or in two scripts (judged across languages).
    elsewhere: bool = False
    # The space-wide gate that dropped this passage, when it alone did (retrieve/threshold.py space_gate).
    gated: float | None = None
    # Holds a rare word of the question and most of its word weight (retrieve/threshold.py named_rows, issue 45).
    named: bool = False
    # The relevance judge's reading of this passage (retrieve/relevance.py, issue 55); None where it did not judge.
    verdict: Verdict | None = None
    # Why a stage kept it beyond the plain cut, said by that stage as it kept it (retrieve/kept.py); None: the cut.
    kept_as: Kept | None = None


@dataclass(slots=True)
class RetrievalParams(RetrievalSettings):
    """One question's retrieval parameters: every retrieval setting, as ``config.RetrievalSettings`` declares it
    (one schema: its defaults, bounds and documentation — issue 47), plus what a caller switches for one question."""

    # Words asked only of passages in the question's script (off: of every passage; an experiment's switch).
    lexical_own_script: bool = True
    # An explicit cut (console control, experiments); None = from the measured reference.
    max_distance: float | None = None
    # Stage switches (the evaluation harness ablates each; the lexical check is the setting ``lexical_check``).
    use_threshold: bool = True
    use_identifiers: bool = True
    use_second_pass: bool = True
    # Issue 55: a name the question asks about that no passage of the space mentions refuses (retrieve/mentions.py).
    use_mentions: bool = True
    use_rerank: bool = True
    keep_nearest: bool = True
    # S5: questions the space's structured index can answer exactly go to it first.
    use_structured: bool = True

    @classmethod
    def of(cls, settings: RetrievalSettings, *, k: int | None = None,
           max_distance: float | None = None) -> RetrievalParams:
        """The settings as configured, for one question (``k``: another number of passages)."""
        values = {f.name: getattr(settings, f.name) for f in dataclasses.fields(RetrievalSettings)}
        if k:
            values["k"] = k
        return cls(**values, max_distance=max_distance)


@dataclass(slots=True)
class Context:
    """What stages need beyond the vectors: titles (glossary, scoping), a query embedder, a model."""

    titles: dict[str, str]
    glossary: list[str]
    embed_queries: Callable[[list[str]], Vectors]
    reranker: Reranker = field(default_factory=RRFReranker)
    # Encrypted spaces store HMACs of keys/terms/aspects; the question's are blinded alike.
    blind: BlindIndex = field(default_factory=lambda: BlindIndex(None))
    # R1: the chat model for follow-up rewrites (None: the no-model fallback).
    model: ChatModel | None = None
    followup_fallback: str = "previous+current"
    # Titles and glossary terms folded (text/terms.py fold), made once per matrix generation by the caller.
    folded_titles: dict[str, str] | None = None
    folded_glossary: list[tuple[str, str]] | None = None
    # Folded glossary term → documents whose folded title holds it, filled as questions name terms (pin.py).
    titled: dict[str, frozenset[str]] | None = None
    # Rows → the vectors of each one's sentences and sentence pairs (None: fewer than two sentences), read and
    # embedded on demand for the sentence check (retrieve/sentences.py); None: the check is skipped. R7 counts reads.
    sentence_vectors: Callable[[list[int]], list[Vectors | None]] | None = None
    # (Rows, embed those stored without them?) → their sentences' vectors as stored at ingest (None: none stored
    # and none made), for the relevance judge's best-sentence feature (retrieve/relevance.py); only the sealed
    # vectors are opened (R7). An older space's passages are embedded only when the judge decides: a verdict
    # recorded beside the rules is not worth a model call on every question.
    stored_sentences: Callable[[list[int], bool], list[Vectors | None]] | None = None
    # Rows → their text ("" where it cannot be read), for the relevance judge (retrieve/judge.py); R7 counts reads.
    passage_texts: Callable[[list[int]], list[str]] | None = None
    judge_timeout_s: float = 10.0
    # The question's word evidence, made once per ask for the threshold and the reranker (issue 47: per-ask state,
    # not a module-global memo; it holds blinded terms and goes with the ask).
    lexical: dict[tuple[str, int], LexicalEvidence] = field(default_factory=dict)

    def words(self, question: Question, vm: VectorMatrix) -> LexicalEvidence:
        key = (question.text, vm.generation)
        made = self.lexical.get(key)
        if made is None:
            made = self.lexical[key] = evidence(question, vm, self.blind)
        return made


@dataclass(slots=True)
class Retrieval:
    final: list[Candidate]
    remaining: list[Candidate]  # the rest of the ranked pool, for "more material" (R6)
    max_distance: float | None
    reference: str
    trace: Trace
    pool: list[Candidate] = field(default_factory=list)  # the judged pool: on a refusal, what came closest
    nearest: str = ""  # the nearest kept passage's chunk id (R5), "" when none was kept
    # Names the question asks about that no passage of the space mentions, as written (retrieve/mentions.py).
    unmentioned: list[str] = field(default_factory=list)


class QueryDistances:
    """Exact distances from the question to rows, computed only for rows asked about.

    On a large space the pool comes from an ANN graph, so no full distance array
    exists; pins and second-pass hits outside the pool are measured here on demand.
    Pool candidates are remembered, so a later stage naming the same row gets the
    candidate with its cut and word share.
    """

    def __init__(self, vm: VectorMatrix, query: Vectors) -> None:
        self.vm = vm
        self.query = query
        self._known: dict[int, float] = {}
        self._pool: dict[int, Candidate] = {}
        self.seen: dict[str, str] = {}  # chunk id → doc id of every candidate made, for the trace

    def note(self, rows: npt.NDArray[np.int64], dists: npt.NDArray[np.float32]) -> None:
        self._known.update(zip(map(int, rows), map(float, dists), strict=True))

    def many(self, rows: list[int]) -> list[float]:
        missing = [r for r in rows if r not in self._known]
        if missing:  # one gather and product, not one per row (an identifier may hit thousands)
            self.note(np.asarray(missing, dtype=np.int64), self.vm.distances_at(self.query, missing))
        return [self._known[r] for r in rows]

    def __getitem__(self, row: int) -> float:
        d = self._known.get(row)
        if d is None:
            d = float(self.vm.distances_at(self.query, [row])[0])
            self._known[row] = d
        return d

    def candidate(self, row: int, *, pinned: bool = False, source: str = "vector") -> Candidate:
        """The candidate for ``row``: the pool's (with its verdict data) if it was there."""
        known = self._pool.get(row)
        if known is not None:
            return known if (pinned, source) == (known.pinned, known.source) else \
                dataclasses.replace(known, pinned=pinned, source=source)
        c = Candidate(row, self.vm.chunk_ids[row], self.vm.doc_ids[row], self[row], pinned, source)
        self.seen[c.chunk_id] = c.doc_id
        if source == "vector":
            self._pool[row] = c
        return c


@dataclass(slots=True)
class Judging:
    """One question's cut in progress (retrieve/threshold.py): what every check reads, and each passage's verdict
    (``reasons``: row → why it is dropped, None while kept). The checks take it whole and return what they record."""

    query: Question
    pool: list[Candidate]
    params: RetrievalParams
    vm: VectorMatrix
    blind: BlindIndex
    ref: Distribution | None
    group: str
    reasons: dict[int, Said | None] = field(default_factory=dict)
    words: LexicalEvidence | None = None  # the question's word evidence, when the ask made it already
