"""Exact values are never retyped by a model (SPEC S6, generalised).

URLs, e-mail addresses, phone numbers, amounts with a currency, ISBNs and part/SKU
numbers in the context are replaced by placeholders (``⟦L3⟧``) before the prompt; the
model writes the placeholder and the output gets the stored value back, character for
character. A placeholder the model invents is removed and reported, and a value is only
ever shown with a citation of the passage it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from biny.core.answer.citations import cited_in

# Order matters: longer, more specific forms first (an e-mail before the URL-ish domain in it).
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("url", re.compile(r"https?://[^\s<>\"'）)\]】]+|www\.[^\s<>\"'）)\]】]+")),
    ("isbn", re.compile(r"\bISBN(?:-1[03])?:?\s*(?:97[89][-\s]?)?\d{1,5}[-\s]?\d{1,7}[-\s]?\d{1,7}[-\s]?[\dX]\b")),
    ("amount", re.compile(
        r"(?:[$€£¥￥₩₹]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:万|亿|[kKmM]\b))?"
        r"|\b(?:USD|EUR|GBP|CNY|RMB|JPY|CHF)\s?\d[\d,]*(?:\.\d+)?"
        r"|\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|CNY|RMB|JPY|CHF|元|美元|欧元|英镑|日元|円)(?![A-Za-z]))")),
    ("phone", re.compile(r"(?<![\w+.])\+?\(?\d[\d\s().-]{5,}\d(?!\w)(?!\.\d)")),
    ("part", re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,6}-?\d{2,}[A-Z0-9]*(?:-[A-Z0-9]+)*(?![A-Za-z0-9])")),
)
_TRAILING = ".,;:!?。，；：！？"
PLACEHOLDER = re.compile(r"⟦([A-Za-z]?\d+)⟧")


# Digits of a phone number: E.164 allows at most 15; an international one has at least 8, a national one 10 (or 7
# in the usual 3-4 + 4 grouping).
_PHONE_MAX = 15
_PHONE_INTERNATIONAL_MIN = 8
_PHONE_NATIONAL_MIN = 10
_PHONE_GROUPED_MIN = 7


def _is_phone(candidate: str) -> bool:
    """International (+), or ten or more digits, or the usual 3-4 + 4 grouping; never a date or a sum."""
    digits = sum(c.isdigit() for c in candidate)
    if candidate.startswith("+"):
        return _PHONE_INTERNATIONAL_MIN <= digits <= _PHONE_MAX
    if re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", candidate):
        return False
    return _PHONE_NATIONAL_MIN <= digits <= _PHONE_MAX or (bool(re.search(r"\d{3,4}[\s-]\d{4}$", candidate))
                                                           and digits >= _PHONE_GROUPED_MIN)


@dataclass(frozen=True, slots=True)
class ExactSpan:
    key: str  # "L3"
    value: str
    kind: str
    passage: int  # the numbered passage (1-based) it came from


@dataclass(slots=True)
class Masked:
    passages: list[str]
    spans: dict[str, ExactSpan] = field(default_factory=dict)


def mask(passages: list[str], exact: list[list[str]] | None = None) -> Masked:
    """Replace exact values in each passage by placeholders numbered across the whole context.

    ``exact`` holds, per passage, the values of fields a curator marked exact (S6) for the
    passage's own document: masked wherever they occur in it, before the generic patterns.
    """
    out = Masked([])
    by_value: dict[tuple[str, int], str] = {}
    for n, text in enumerate(passages, start=1):
        found: list[tuple[int, int, str]] = []
        for value in sorted((exact or [])[n - 1] if exact and n <= len(exact) else [], key=len, reverse=True):
            start = text.find(value)
            while value and start >= 0:
                if all(start + len(value) <= s or start >= e for s, e, _ in found):
                    found.append((start, start + len(value), "field"))
                start = text.find(value, start + len(value))
        for kind, rx in _PATTERNS:
            for m in rx.finditer(text):
                start, end = m.start(), m.end()
                while end > start and text[end - 1] in _TRAILING:
                    end -= 1  # "see https://x.org." — the full stop is not the link's
                if kind == "phone" and not _is_phone(text[start:end]):
                    continue
                if all(end <= s or start >= e for s, e, _ in found):
                    found.append((start, end, kind))
        pieces, last = [], 0
        for start, end, kind in sorted(found):
            value = text[start:end]
            key = by_value.get((value, n))
            if key is None:
                key = f"L{len(out.spans) + 1}"
                by_value[(value, n)] = key
                out.spans[key] = ExactSpan(key, value, kind, n)
            pieces += [text[last:start], f"⟦{key}⟧"]
            last = end
        out.passages.append("".join(pieces) + text[last:])
    return out


# Where a sentence ends: CJK end marks, ! ?, a full stop or semicolon before a space, a line break.
_SENTENCE_END = re.compile(r"[。！？!?]|[.;；](?=\s|$)|\n")


def _sentence_around(text: str, start: int, end: int) -> str:
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return text[before[-1] if before else 0 : after.end() if after else len(text)]


def unmask(text: str, spans: dict[str, ExactSpan]) -> tuple[str, list[str]]:
    """Put the stored values back; drop placeholders that name nothing. Returns (text, removed)."""
    removed: list[str] = []

    def put_back(m: re.Match[str]) -> str:
        span = spans.get(m.group(1))
        if span is None:
            removed.append(m.group(0))
            return ""
        # The value stands with its own passage: cite it if its sentence does not.
        cited = span.passage in cited_in(_sentence_around(text, m.start(), m.end()))
        return span.value if cited else f"{span.value} [{span.passage}]"

    return re.sub(r"[ \t]{2,}", " ", PLACEHOLDER.sub(put_back, text)).strip(), removed
