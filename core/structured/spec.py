"""What a space's index is made of: its fields, their types, which are exact (SPEC S1, S6)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from biny.core.i18n import Said
from biny.core.structured.values import NUMERIC


@dataclass(slots=True)
class FieldSpec:
    name: str  # as the header writes it
    type: str  # values.TYPES
    separator: str = ""  # list fields
    exact: bool = False  # S6: carried only through placeholders, never retyped
    coverage: float = 0.0

    @property
    def numeric(self) -> bool:
        return self.type in NUMERIC


@dataclass(slots=True)
class IndexSpec:
    fields: list[FieldSpec]
    title_field: str  # the field naming each row ("title", "Product Name")
    documents: int = 0
    generation: int = 0  # bumped at every build, so cached query tables know they are stale
    built_at: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> FieldSpec | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    @property
    def exact_names(self) -> list[str]:
        return [f.name for f in self.fields if f.exact]

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str) -> IndexSpec:
        data = json.loads(raw)
        data["fields"] = [FieldSpec(**f) for f in data["fields"]]
        return cls(**data)


@dataclass(slots=True)
class ProposedField:
    name: str
    type: str
    coverage: float  # share of the space's active documents carrying it
    kept: bool
    reason: Said
    examples: list[str]
    present: int = 0
    bad: int = 0  # values that do not fit the type
    separator: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "coverage": round(self.coverage, 4), "kept": self.kept,
                "reason": str(self.reason), "examples": self.examples, "present": self.present, "bad": self.bad}


@dataclass(slots=True)
class Opening:
    """A document's first lines, shown when no header was found (what a curator needs to see why)."""

    doc_id: str
    title: str
    lines: list[str]
    header: bool = False  # whether a header was read from it

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "title": self.title, "lines": self.lines, "header": self.header}


@dataclass(slots=True)
class Proposal:
    documents: int
    fields: list[ProposedField]
    title_field: str = ""
    reason: Said = ""  # S4: why there is no index, when no field is kept
    with_header: int = 0  # documents that open with a machine-readable header
    # Issue 63: what was read and how (several tables on a page: which one was the header).
    notes: list[Said] = field(default_factory=list)
    # Issue 63, a "no" explained: the forms looked for, the first documents' opening lines, what to do next.
    looked_for: list[Said] = field(default_factory=list)
    openings: list[Opening] = field(default_factory=list)
    next_step: Said = ""

    @property
    def kept(self) -> list[ProposedField]:
        return [f for f in self.fields if f.kept]

    def to_dict(self) -> dict[str, Any]:
        return {"documents": self.documents, "fields": [f.to_dict() for f in self.fields],
                "title_field": self.title_field, "with_header": self.with_header, "reason": str(self.reason),
                "notes": [str(n) for n in self.notes], "next_step": str(self.next_step),
                "evidence": {"looked_for": [str(f) for f in self.looked_for],
                             "openings": [o.to_dict() for o in self.openings]}}
