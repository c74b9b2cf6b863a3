"""What every retrieval stage did: kept, dropped and why, with distances (SPEC C2).

The console's inspector and the CLI's ``--json`` print this same object.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from biny.core.trace.records import Record

R = TypeVar("R", bound=Record)


@dataclass(slots=True)
class Dropped:
    chunk_id: str
    reason: str
    distance: float | None = None


@dataclass(slots=True)
class Stage:
    name: str
    summary: str
    kept: list[str] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    data: Record | None = None  # what the stage records beside its summary (trace/records.py)
    ms: float = 0.0


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
            stage["data"] = stage["data"] or {}  # a stage without a record: {} as ``--json`` always gave
        return out
