"""A structured-index call and what it gave, as plain values (SPEC S5; issue 56).

The router (structured/route.py) makes a ``ToolCall`` or says why not (``Routed``, ``Refusal``); the tools
(structured/tools.py) run it into a ``ToolResult``. Answers and the trace carry these values, so they sit below
``results`` in the layers, beside the trace: nothing here reads a store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from biny.core.i18n import Said, language

__all__ = ["Condition", "Refusal", "Routed", "ToolCall", "ToolResult", "describe"]


@dataclass(slots=True)
class Condition:
    field: str
    op: str
    value: Any  # a number, a string, [low, high] for between, a list of strings for in

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "op": self.op, "value": self.value}


@dataclass(slots=True)
class ToolCall:
    tool: str
    field: str | None = None  # group / top / lookup
    conditions: list[Condition] = dc_field(default_factory=list)
    order: str = "desc"  # top: desc = highest first; group: desc = most frequent first
    doc_id: str | None = None  # lookup: the row named by its title
    matched: str = ""  # lookup: the words of the question that named the row

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "field": self.field, "conditions": [c.to_dict() for c in self.conditions],
                "order": self.order, "doc_id": self.doc_id}


@dataclass(slots=True)
class ToolResult:
    call: ToolCall
    sql: str
    params: list[Any]
    result: Any
    rows: list[dict[str, Any]]
    total: int  # rows the conditions matched (count / filter / top), groups (group)
    groups: list[tuple[str, int]] = dc_field(default_factory=list)
    ties: list[str] = dc_field(default_factory=list)  # other keys or titles sharing the winning value
    ms: float = 0.0
    # What the answer was computed over: the index's documents, the space's (services fill it: a document
    # without a header has no row), and per filtered field the rows that give no value and so cannot match.
    over: int = 0
    documents: int = 0
    lacking: dict[str, int] = dc_field(default_factory=dict)

    @property
    def filter_text(self) -> str:
        """The conditions in the interface's language, for screens (answers follow the question's)."""
        return describe(self.call.conditions, zh=language() == "zh_CN")

    @property
    def query(self) -> str:
        return self.sql + (f"  -- params: {self.params}" if self.params else "")

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.call.tool, "query": self.query, "result": self.result, "rows": self.rows,
                "call": self.call.to_dict(), "total": self.total,
                "groups": [[k, n] for k, n in self.groups], "ties": self.ties,
                "filter": describe(self.call.conditions), "counted_over": self.over, "documents": self.documents,
                "lacking": self.lacking}


_OPS_EN = {"=": "is", "<": "under", "<=": "at most", ">": "over", ">=": "at least", "in": "is",
           "contains": "contains", "between": "between"}
_OPS_ZH = {"=": "为", "<": "低于", "<=": "不超过", ">": "高于", ">=": "不低于", "in": "为", "contains": "包含",
           "between": "介于"}


def _shown(v: Any) -> str:
    if isinstance(v, list):
        return " / ".join(_shown(x) for x in v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def describe(conds: Sequence[Condition], zh: bool = False) -> str:
    """The conditions as a reader says them ("Category is Baby Products, Price under 15"); "" for none."""
    ops = _OPS_ZH if zh else _OPS_EN
    parts = []
    for c in conds:
        if c.op == "between":
            lo, hi = c.value
            parts.append(f"{c.field} {ops['between']} {_shown(lo)}–{_shown(hi)}")
        else:
            parts.append(f"{c.field} {ops[c.op]} {_shown(c.value)}")
    return ("，" if zh else ", ").join(parts)


@dataclass(slots=True)
class Refusal:
    """What the table lacks, said instead of another row's value (issue 64): a row no name matches, or a field the
    index does not hold. ``closest`` names the nearest row or field the table has."""

    kind: str  # "row" | "field" | "which" (rows named alike: ``closest`` lists them, " / " between)
    asked: str  # the question's words for it
    closest: str = ""
    row: str = ""  # a field refusal: the row the question named
    row_id: str = ""
    # A field refusal: the concept the asked words stand for ("weigh" → "weight"), said in the answer's language.
    concept: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "asked": self.asked, "closest": self.closest, "row": self.row,
                "concept": self.concept}


@dataclass(slots=True)
class Routed:
    call: ToolCall | None
    evidence: list[Said] = dc_field(default_factory=list)
    # Not routed, but the question names the index's fields or values: a model may map it (model_route.py).
    touched: bool = False
    refusal: Refusal | None = None  # not routed because the table lacks what is asked: say so
    # Not routed: the words the index looked for among its values, and the fields it looked in (issue 63).
    looked_for: str = ""
    looked_in: list[str] = dc_field(default_factory=list)
    others: list[str] = dc_field(default_factory=list)  # a lookup: rows named about as well, less closely
    # A name no row has, with a field asked of it: a refusal when the space holds only the table (services decide).
    absent_row: Refusal | None = None
    # Not routed: the row the question names, asked something no field holds ("the Peppa Pig clock's return
    # policy"). Retrieval answers it — never from another row of the table (issue 64).
    named_row: tuple[str, str] | None = None  # (doc id, title)
