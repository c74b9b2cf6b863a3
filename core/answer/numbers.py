"""Every number in an answer must be traceable to a cited passage or the question (SPEC W5).

Numbers are compared by value, not by spelling: 1,000 = 1000 = 1 000, ¥49 = 49 元 = 49.00,
30% = 百分之三十 = 三十, 3万 = 30000; a date is its parts (2024-05-01 = 2024年5月1日).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from biny.core.text.identifiers import cn_to_int

_CITATION = re.compile(r"[\[［]\s*\d+(?:\s*[,，、]\s*\d+)*\s*[\]］]")
_PLACEHOLDER = re.compile(r"⟦[^⟧]*⟧")
# 1,234,567.89 | 1 234 | 1234.5 | .5 ; then an optional 万/亿/k multiplier
_ARABIC = re.compile(r"(?<![A-Za-z0-9.])(\d{1,3}(?:[,\u202f\u00a0 ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
                     r"(\s?(?:万|亿|[kK](?![a-zA-Z])))?")
_CN_NUM = re.compile(r"[零〇一二两三四五六七八九十百千万亿]{1,12}")
_MULTIPLIER = {"万": Decimal(10_000), "亿": Decimal(100_000_000), "k": Decimal(1000), "K": Decimal(1000)}


@dataclass(frozen=True, slots=True)
class NumberMention:
    surface: str
    value: str  # canonical decimal text: "1000", "4.5"


def _canonical(d: Decimal) -> str:
    q = d.normalize()
    text = format(q, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def numbers_in(text: str) -> list[NumberMention]:
    """The numbers a text states (citation markers and placeholders are not numbers)."""
    text = unicodedata.normalize("NFKC", text)
    text = _PLACEHOLDER.sub(" ", _CITATION.sub(" ", text))
    out: list[NumberMention] = []
    for m in _ARABIC.finditer(text):
        raw = re.sub(r"[,\u202f\u00a0 ]", "", m.group(1))
        try:
            value = Decimal(raw)
        except InvalidOperation:
            continue
        mult = (m.group(2) or "").strip()
        if mult:
            value *= _MULTIPLIER[mult]
        out.append(NumberMention(m.group(0).strip(), _canonical(value)))
    for m in _CN_NUM.finditer(text):
        surface = m.group(0)
        if surface in {"万", "亿", "千", "百"}:
            continue  # a unit word alone ("万一", "千万别") is not a number
        n = _cn_value(surface)
        if n is not None:
            out.append(NumberMention(surface, _canonical(Decimal(n))))
    return out


def _cn_value(surface: str) -> int | None:
    if "亿" in surface or "万" in surface:
        unit = "亿" if "亿" in surface else "万"
        mult = int(_MULTIPLIER[unit])
        head, _, tail = surface.partition(unit)
        h = cn_to_int(head) if head else 1
        t = cn_to_int(tail) if tail else 0
        return None if h is None or t is None else h * mult + t
    return cn_to_int(surface)


def untraced(answer: str, sources: list[str]) -> list[str]:
    """Surfaces of the answer's numbers whose value occurs in none of ``sources``."""
    known = {n.value for s in sources for n in numbers_in(s)}
    seen: set[str] = set()
    out = []
    for n in numbers_in(answer):
        if n.value not in known and n.surface not in seen:
            seen.add(n.surface)
            out.append(n.surface)
    return out
