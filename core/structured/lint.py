"""S7: numbers are not meaning — chunks that state attributes only as bare values.

"Reading level: 1 · Age: 5" embeds as a list of labels; a question asked in words
("books for five-year-olds") lands far from it. Such chunks are flagged with a
sentence that says the same in words, to add to the source (and keep the fields for
filtering). The distance change is measured in bench/eval_structured.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_ATTR = re.compile(r"^\s*[-*•]?\s*([^\W_][\w .()/#&'+-]{0,39}?)\s*[:：=]\s*(\S.{0,59}?)\s*$")
_INLINE = re.compile(r"\s*[·|;；]\s*")
_CJK = re.compile(r"[\u3400-\u9fff]")
# A chunk is flagged with this many bare attributes at least: one "Key: value" line is too often a label.
MIN_ATTRIBUTES = 2
MIN_SHARE = 0.6  # of the chunk's non-blank lines (or "·"-separated parts)
# A bare value is a few words ("5", "Hardcover"); a longer one is already said in words. No measurement is recorded.
MAX_VALUE_WORDS = 5
# Attributes said in the suggested sentence: a bound on its length, not tuned.
_SAID_ATTRIBUTES = 6


@dataclass(slots=True)
class LintItem:
    chunk_id: str
    doc_id: str
    title: str
    attributes: list[tuple[str, str]]
    share: float
    suggestion: str

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "doc_id": self.doc_id, "title": self.title,
                "attributes": [list(a) for a in self.attributes], "share": round(self.share, 3),
                "suggestion": self.suggestion}


def _parts(text: str) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        if line.strip():
            out += [p for p in _INLINE.split(line) if p.strip()]
    return out


def bare_attributes(text: str) -> tuple[list[tuple[str, str]], float]:
    """(attribute, value) pairs stated as bare values, and their share of the chunk's parts."""
    parts = _parts(text)
    attrs: list[tuple[str, str]] = []
    for p in parts:
        m = _ATTR.match(p)
        if m and len(m.group(2).split()) <= MAX_VALUE_WORDS and not m.group(2).startswith("http"):
            attrs.append((m.group(1).strip(), m.group(2).strip()))
    return attrs, len(attrs) / max(len(parts), 1)


def suggest(title: str, attrs: list[tuple[str, str]]) -> str:
    """The same attributes said in a sentence, in the chunk's script."""
    shown = attrs[:_SAID_ATTRIBUTES]
    subject = title or "This item"
    if _CJK.search(title + "".join(v for _, v in shown)):
        return f"{subject}的" + "，".join(f"{n}是{v}" for n, v in shown) + "。"
    said = "; ".join(f"its {n.replace('_', ' ')} is {v}" for n, v in shown)
    return f"{subject}: {said}."


def lint_chunk(chunk_id: str, doc_id: str, title: str, text: str) -> LintItem | None:
    attrs, share = bare_attributes(text)
    if len(attrs) < MIN_ATTRIBUTES or share < MIN_SHARE:
        return None
    return LintItem(chunk_id, doc_id, title, attrs, share, suggest(title, attrs))
