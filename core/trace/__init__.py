"""What every retrieval stage did: kept, dropped and why, with distances (SPEC C2).

The console's inspector and the CLI's ``--json`` print this same object. Summaries and reasons are ``Said``: a
``Msg`` is put into the reader's language when shown (``str()``), not when the stage ran (issue 56).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar, get_args

from biny.core.i18n import Said, worded
from biny.core.trace.records import Record

R = TypeVar("R", bound=Record)

# Every stage the engine can put in a trace, in the order an ask runs them (issue 56: one vocabulary for core and
# console; the console names each one, tests/console/test_vocabulary.py compares the two).
StageName = Literal["rewrite", "structured", "pool", "threshold", "relevance", "unmentioned", "sentences",
                    "gate_sentences", "judge", "identifiers", "second_pass", "rerank", "nearest", "budget", "final",
                    "more_material", "answer"]
STAGE_NAMES: tuple[StageName, ...] = get_args(StageName)


@dataclass(slots=True)
class Dropped:
    chunk_id: str
    reason: Said
    distance: float | None = None


@dataclass(slots=True)
class Stage:
    name: StageName
    summary: Said
    kept: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    data: Record | None = None  # what the stage records beside its summary (trace/records.py)
    ms: float = 0.0

    def __post_init__(self) -> None:
        # A stage outside the vocabulary would reach the console unnamed: a programming error, said at once.
        if self.name not in STAGE_NAMES:
            raise ValueError(f"unknown trace stage {self.name!r}: add it to StageName (core/trace/__init__.py) "
                             "and to the console's STAGES")


@dataclass(slots=True)
class Trace:
    question: str
    retrieval_query: str
    stages: list[Stage] = field(default_factory=list)
    decrypted: int = 0
    # chunk id → its document's title, for every chunk a stage names (the inspector labels the
    # trace with it; titles come from the opened document metadata, no chunk is decrypted).
    documents: dict[str, str] = field(default_factory=dict)

    def add(self, stage: Stage) -> Stage:
        self.stages.append(stage)
        return stage

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def record(self, kind: type[R]) -> R | None:
        """The record of the first stage that made one of ``kind``."""
        return next((s.data for s in self.stages if isinstance(s.data, kind)), None)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        for stage in out["stages"]:
            stage["data"] = worded(stage["data"] or {})  # a stage without a record: {} as ``--json`` always gave
            stage["summary"] = str(stage["summary"])  # rendered now, in the language of who asked for the JSON
            for dropped in stage["dropped"]:
                dropped["reason"] = str(dropped["reason"])
        return out
