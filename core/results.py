"""What the engine hands back: spaces, ingest reports, answers with their hits (SPEC C2).

Plain data, shared by the CLI (``--json``) and the console; no store access.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from biny.core.retrieve.trace import Trace

__all__ = ["AskResult", "FileOutcome", "Hit", "IngestReport", "SpaceInfo"]


@dataclass(slots=True)
class FileOutcome:
    path: str
    outcome: str  # ingested | unchanged | failed | cancelled
    message: str = ""
    doc_id: str | None = None
    title: str = ""
    chunks: int = 0
    # Seconds per stage (parse, chunk, embed, encrypt, write) — for benchmarks and the log.
    timings: dict[str, float] = field(default_factory=dict)
    tokens: int = 0


@dataclass(slots=True)
class SpaceInfo:
    name: str
    space_id: str
    created_at: Any
    embed_model: str
    dim: int
    encrypted: bool
    documents: int
    chunks: int
    tenant: str = "default"
    owner: str = ""
    locked: bool = False  # encrypted and no passphrase available in this session


@dataclass(slots=True)
class IngestReport:
    files: list[FileOutcome] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0

    def by(self, outcome: str) -> list[FileOutcome]:
        return [f for f in self.files if f.outcome == outcome]

    @property
    def ok(self) -> bool:
        return not self.by("failed") and not self.cancelled


@dataclass(slots=True)
class Hit:
    chunk_id: str
    doc_id: str
    document: str
    source: str
    text: str
    distance: float
    calibrated: float | None
    pinned: bool
    page: int | None
    ordinal: int
    heading_path: list[str]
    char_start: int
    char_end: int
    # The distance this passage had to beat (R2/R9: cuts are per passage); None if none applied.
    cut: float | None = None
    # IDF-weighted share of the question's words this passage carries; None where words were not asked.
    word_share: float | None = None


@dataclass(slots=True)
class AskResult:
    question: str
    chunks: list[Hit]
    baseline: float | None
    max_distance: float | None
    reference: str
    trace: Trace
    turn_id: str = ""
    more_available: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "chunks": [
                {
                    "text": h.text,
                    "document": h.document,
                    "source": h.source,
                    "distance": round(h.distance, 4),
                    "calibrated": None if h.calibrated is None else round(h.calibrated, 4),
                    "pinned": h.pinned,
                    "page": h.page,
                    "chunk_id": h.chunk_id,
                    "ordinal": h.ordinal,
                    "heading_path": h.heading_path,
                    "cut": None if h.cut is None else round(h.cut, 4),
                    "word_share": None if h.word_share is None else round(h.word_share, 3),
                }
                for h in self.chunks
            ],
            "baseline": self.baseline,
            "max_distance": self.max_distance,
            "reference": self.reference,
            "trace": self.trace.to_dict(),
            "turn_id": self.turn_id,
            "more_available": self.more_available,
        }
