"""The sentences a passage is read in by the no-model answer, with where each lies in the passage.

One split, shared: the answer (answer/extractive.py) reads these units, and ingest embeds exactly these (the stored
sentence vectors, embed/sentences.py, issue 57) — a vector is found again by its unit's position, so the two must
never split differently. A unit is a sentence (text/sentences.py) of one paragraph, or a run of clauses of one
longer than an answer shows, cut at its semicolons; its text is at most ``MAX_CHARS`` characters.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from biny.core.text.sentences import LIST_ITEM, sentences_of

MAX_CHARS = 400
_PARAGRAPH = re.compile(r"\n\s*\n")
_HEADING = re.compile(r"^\s*#{1,6}\s+|^[^\n.。!?！？:：;；]{1,60}$")
_CLAUSE_END = re.compile(r"(?<=[;；])\s*")
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]")
_NUMBERED_ITEM = re.compile(r"\d{1,3}\.\s")
_PROBE = 12  # characters of a unit's head and tail looked for to place it in the passage
# A figure's reading (ingest/reading.py writes it as one paragraph, "[Figure (page 3)] …"): text of an image.
FIGURE = re.compile(r"^\[(?:Figure|图|図)[^\]]*\]")


@dataclass(frozen=True, slots=True)
class Unit:
    text: str  # as read and embedded (at most MAX_CHARS)
    start: int  # where it lies in the passage: from its first character found to its last
    end: int
    item: bool  # a list item
    previous: str  # the unit before it in its paragraph ("" for the first)
    heading: str  # its section's heading
    figure: bool = False  # read from a figure: every sentence of its paragraph, not only the one with the label


@functools.lru_cache(maxsize=4096)
def units_of(text: str) -> tuple[Unit, ...]:
    """The passage's units in reading order, each with its paragraph's previous unit and its section's heading. Kept
    per text: the answer reads a passage's units for every question it answers, and checks them against its stored
    vectors."""
    out: list[Unit] = []
    heading = ""
    at = 0
    for para, offset in _paragraphs(text):
        stripped = para.strip()
        found = sentences_of(para)
        if not found:
            if stripped and _HEADING.search(stripped):
                heading = stripped.lstrip("# ").strip()
            continue
        previous = ""
        cursor = 0
        figure = FIGURE.match(stripped) is not None
        for s in (part for sentence in found for part in clauses(sentence)):
            line = next((ln for ln in para.splitlines() if s[:20] in ln), "")
            start, cursor = _place(para, s, cursor)
            at = offset + start
            # An item on a line of its own, or one of a numbered list a PDF read as one line ("1. Master control
            # MCU: CH32V003F4P6", its number given back by sentences_of).
            item = bool(LIST_ITEM.match(line) or _NUMBERED_ITEM.match(s))
            out.append(Unit(s[:MAX_CHARS], at, offset + cursor, item, previous, heading, figure))
            previous = s
    return tuple(out)


def _paragraphs(text: str) -> list[tuple[str, int]]:
    """The passage's paragraphs with the offset of each."""
    out: list[tuple[str, int]] = []
    start = 0
    for m in _PARAGRAPH.finditer(text):
        out.append((text[start:m.start()], start))
        start = m.end()
    out.append((text[start:], start))
    return out


def _place(para: str, unit: str, cursor: int) -> tuple[int, int]:
    """(start, end) of a unit in its paragraph, from ``cursor`` on. A unit is the paragraph's text up to whitespace
    (a wrapped line joined with a space, a bullet stripped): its head and tail are found as written."""
    start = para.find(unit[:_PROBE], cursor)
    if start < 0:
        start = min(cursor, len(para))
    tail = unit[-_PROBE:]
    end = para.find(tail, start + max(0, len(unit) - len(tail) - len(unit) // 4))
    end = end + len(tail) if end >= 0 else min(len(para), start + len(unit))
    return start, max(end, start)


def clauses(sentence: str) -> list[str]:
    """A sentence longer than an answer shows, cut at its semicolons into runs of clauses that fit: a list of
    airports written as one 600-character sentence otherwise loses every clause past the 400th character."""
    if len(sentence) <= MAX_CHARS:
        return [sentence]
    out: list[str] = []
    for clause in filter(None, _CLAUSE_END.split(sentence)):
        if out and len(out[-1]) + len(clause) + 1 <= MAX_CHARS:
            out[-1] = f"{out[-1]} {clause}" if not _CJK.search(clause) else out[-1] + clause
        else:
            out.append(clause)
    return out
