"""Evaluation runs (SPEC C3/R9 for analysts): a question set against a space, with ablations.

A set is JSONL or CSV; each item has ``question`` and, to be judged, one of ``expected_text`` (a
passage's words), ``expected_document`` (a document title), ``answer`` (a string the context must
contain) or ``unanswerable`` (true: the right result is no passage at all). A question with none
of them — the file ``biny ask --questions`` reads, or a bare string per line — runs unjudged: its
chunks and distances are kept, it counts in no rate. Each question runs
with the full pipeline and with one stage off at a time; the run keeps, per question and
variant, the chunks returned, whether it was a hit, and the top distance against the
reference — so two runs can be compared question by question.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biny.core.errors import BinyError
from biny.core.i18n import os_reason, t

VARIANTS: dict[str, dict[str, bool]] = {
    "full": {},
    "no threshold": {"use_threshold": False},
    "no identifiers": {"use_identifiers": False},
    "no second pass": {"use_second_pass": False},
    "no rerank": {"use_rerank": False},
}


@dataclass(slots=True)
class EvalItem:
    question: str
    expected_text: str = ""
    expected_document: str = ""
    answer: str = ""
    unanswerable: bool = False

    @property
    def answerable(self) -> bool:
        return not self.unanswerable

    @property
    def judged(self) -> bool:
        """Whether the item says what the right result is (else only its distances are reported)."""
        return self.unanswerable or bool(self.expected_text or self.expected_document or self.answer)


def _truthy(v: Any) -> bool:
    return v is True or str(v).strip().lower() in {"1", "true", "yes", "y"}


def _item(data: dict[str, Any], where: str) -> EvalItem:
    q = str(data.get("question") or "").strip()
    if not q:
        raise BinyError(t("{where}: no \"question\".").format(where=where))
    return EvalItem(q, str(data.get("expected_text") or data.get("passage") or ""),
                    str(data.get("expected_document") or data.get("document") or ""),
                    str(data.get("answer") or ""), _truthy(data.get("unanswerable", False)))


def load(path: Path) -> list[EvalItem]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BinyError(t("Cannot read {path}: {reason}").format(path=path, reason=os_reason(exc))) from exc
    items = []
    if path.suffix.lower() == ".csv":
        for n, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
            items.append(_item(row, f"{path.name}:{n}"))
    else:
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BinyError(t("{name}:{n} is not JSON ({msg}).").format(name=path.name, n=n, msg=exc.msg)) from exc
            items.append(_item(data if isinstance(data, dict) else {"question": data}, f"{path.name}:{n}"))
    if not items:
        raise BinyError(t("{name} holds no questions.").format(name=path.name))
    return items


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def judge(item: EvalItem, texts: list[str], documents: list[str]) -> bool | None:
    """Was the expected material in the returned context? None for an unanswerable or unjudged item."""
    if item.unanswerable or not item.judged:
        return None
    joined = _norm(" ".join(texts))
    if item.expected_text:
        want = _norm(item.expected_text)
        probe = want[: min(len(want), 120)]
        if probe and probe in joined:
            return True
    if item.expected_document and _norm(item.expected_document) in {_norm(d) for d in documents}:
        return True
    return bool(item.answer) and _norm(item.answer) in joined


@dataclass(slots=True)
class Outcome:
    chunks: int
    hit: bool | None
    top_distance: float | None
    top_closer_than: float | None
    chunk_ids: list[str] = field(default_factory=list)


def metrics(items: list[EvalItem], outcomes: list[Outcome]) -> dict[str, Any]:
    answerable = [o for i, o in zip(items, outcomes, strict=True) if i.answerable and i.judged]
    unanswerable = [o for i, o in zip(items, outcomes, strict=True) if not i.answerable]
    closer = [o.top_closer_than for o in answerable if o.top_closer_than is not None]
    return {
        "questions": len(items),
        "unjudged": sum(not i.judged for i in items),
        "hit_rate": round(sum(bool(o.hit) for o in answerable) / len(answerable), 4) if answerable else None,
        "zero_chunk_rate": round(sum(o.chunks == 0 for o in unanswerable) / len(unanswerable), 4)
        if unanswerable else None,
        "mean_chunks": round(sum(o.chunks for o in outcomes) / len(outcomes), 3) if outcomes else 0.0,
        "mean_top_closer_than": round(sum(closer) / len(closer), 4) if closer else None,
    }


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, list[str]]:
    """Questions that got better or worse from run ``a`` to run ``b`` (full pipeline)."""
    def verdicts(run: dict[str, Any]) -> dict[str, bool]:
        out = {}
        for r in run["results"]:
            o = r["variants"]["full"]
            if r["unanswerable"] or o["hit"] is not None:  # an unjudged question is neither better nor worse
                out[r["question"]] = o["chunks"] == 0 if r["unanswerable"] else bool(o["hit"])
        return out

    va, vb = verdicts(a), verdicts(b)
    common = [q for q in va if q in vb]
    return {"better": [q for q in common if vb[q] and not va[q]], "worse": [q for q in common if va[q] and not vb[q]],
            "only_in_first": [q for q in va if q not in vb], "only_in_second": [q for q in vb if q not in va]}
