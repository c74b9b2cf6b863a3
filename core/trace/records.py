"""What each retrieval stage records beside its summary, typed (issue 47): the Inspector, ``kept.py`` and
``--json`` read fields, never string keys. ``Trace.record(Kind)`` finds a stage's record by its type.

Field names are the JSON keys ``ask --json`` has always carried under ``trace.stages[].data``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from biny.core.i18n import Said


@dataclass(slots=True)
class RewriteRecord:
    original: str
    retrieval_query: str
    method: str  # none | model | fallback:<rule>


@dataclass(slots=True)
class IdentifierPin:
    identifier: str
    key: str
    hits: int
    tier: str  # def | ref
    scoped_to_named_documents: bool
    pinned: int
    rule: str


@dataclass(slots=True)
class PinRecord:
    identifiers: list[IdentifierPin] = field(default_factory=list)


@dataclass(slots=True)
class PoolRecord:
    distances: list[float]
    searched: int
    per_script_added: int
    standout: float | None


@dataclass(slots=True)
class SpaceGateRecord:
    gate: float
    words_needed: float
    dropped: list[str]
    kept_by_words: list[str]


@dataclass(slots=True)
class SharedTermsRecord:
    terms: list[str]
    holding: list[str]


@dataclass(slots=True)
class TranslatedRecord:
    words: dict[str, list[str]]  # the question's words → their renderings looked up
    weights: dict[str, float]
    found: dict[str, list[str]]  # chunk id → the words whose renderings it holds
    shares: dict[str, float]  # chunk id → share of the words' weight held
    needed: float | None
    needed_near_cut: float | None
    near: float | None
    rescue: float | None
    kept_beyond_cut: list[str]
    pair_cuts: dict[str, float]
    kept_within_pair_cut: list[str]


@dataclass(slots=True)
class LexicalRecord:
    applies: bool
    known_share: float
    script_familiarity: float
    other_script: list[str]
    question_language: str | None
    coverage: dict[str, float]  # chunk id → share of the question's word weight
    rescue_distance: float | None
    override_inside_by: float | None
    # Passages holding a rare word of the question and most of its weight, kept up to name_rescue (issue 45).
    named: list[str] = field(default_factory=list)
    name_rescue_distance: float | None = None


@dataclass(slots=True)
class ThresholdRecord:
    max_distance: float | None
    reference: str
    quantile: float
    cuts: dict[str, float]  # chunk id → its distance cut
    # Passages whose cut also counts the encyclopedia questions (issue 20); the rest: everyday only.
    encyclopedia_reference: list[str]
    lexical: LexicalRecord
    # The space-wide gate and the passages it dropped; the question's numbers and Latin-script names asked across
    # scripts and who held one; its words looked up for passages in the other language (retrieve/translated.py).
    space_gate: SpaceGateRecord | None = None
    shared_terms: SharedTermsRecord | None = None
    translated: TranslatedRecord | None = None


@dataclass(slots=True)
class SentencesRecord:
    window: float
    nearest_sentences: dict[str, float]  # chunk id → its nearest sentence's distance
    firm: str | None = None  # the passage firmly inside its cut (none read by sentence)
    words_needed: float | None = None


@dataclass(slots=True)
class JudgeRecord:
    band: float
    model: str
    judged: list[str]
    answering: list[str] = field(default_factory=list)
    kept_by_model: list[str] = field(default_factory=list)
    error: str = ""


@dataclass(slots=True)
class SecondPassRecord:
    terms: list[str] = field(default_factory=list)
    missing_terms: list[str] = field(default_factory=list)
    aspects: list[str] = field(default_factory=list)
    missing_aspects: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StructuredRecord:
    evidence: list[Said]
    query: str
    call: dict[str, Any]


@dataclass(slots=True)
class IntegrityRecord:
    damaged_documents: dict[str, str]  # title → why
    unopened: list[str]
    unreadable_vectors: list[str]


@dataclass(slots=True)
class AnswerRecord:
    mode: str
    cited: list[int]
    untraced_numbers: list[str]
    removed_citations: list[str]
    removed_placeholders: list[str]
    language: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judge's reading of one passage: the probability it answers, each feature's value and its contribution
    to the log-odds (weight × standardised value), and whether it is kept at the operating point."""

    score: float
    features: dict[str, float]
    contributions: dict[str, float]
    kept: bool

    def to_dict(self) -> dict[str, Any]:
        return {"score": round(self.score, 4), "kept": self.kept,
                "features": {k: round(v, 4) for k, v in self.features.items()},
                "contributions": {k: round(v, 4) for k, v in self.contributions.items()}}


@dataclass(slots=True)
class RelevanceRecord:
    """The relevance judge's reading of the pool (retrieve/relevance.py): its model version and operating point,
    and each passage's verdict; ``decided`` says whether the verdicts kept and dropped or were only recorded."""

    model: str
    strictness: float
    threshold: float
    decided: bool
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # chunk id → verdict


Record = (RewriteRecord | PinRecord | PoolRecord | ThresholdRecord | SentencesRecord | JudgeRecord | SecondPassRecord
          | StructuredRecord | IntegrityRecord | AnswerRecord | RelevanceRecord)
