"""Where a passage sits on its PDF pages: the rectangles of its characters (issue 61).

A passage is an exact slice of the document text assembled from the pages' text blocks (chunking/splitter.py),
each block's lines joined by ``ingest/lines.py`` (whitespace and a line-end hyphen dropped). So the passage's
characters, whitespace and hyphens left out, appear in that order in the page's own character stream, read with
PyMuPDF's ``rawdict`` (one bounding box per character). Each paragraph of the passage is looked up there exactly,
moving forward so a repeated phrase pairs with the right place; a paragraph not found whole (a repaired garbled
span, a table restated as lines) is matched piece by piece. ``coverage`` says which share of the passage's
characters were placed: the caller shows it, never a rectangle it could not place.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from biny.core.ingest.visual import mupdf
from biny.core.text.units import FIGURE

Rect = tuple[float, float, float, float]
# Left out of both sides of the comparison: whitespace (lines are re-joined), hyphens (a line-end hyphen joins a
# word), soft hyphens and zero-width characters.
_SKIP = re.compile(r"[\s\-\u00ad\u200b-\u200d\u2010\u2011\ufeff]")
# A paragraph shorter than this (normalised) is matched only right after the previous one: "1." alone would pair
# with the first "1." on the page.
_SHORT = 6
# The shortest run of a paragraph not found whole that is placed on its own.
_RUN = 8


def normalise(text: str) -> str:
    """What two renderings of the same text share: NFKC, case-folded, without whitespace and hyphens."""
    return _SKIP.sub("", unicodedata.normalize("NFKC", text).casefold())


@dataclass(slots=True)
class PageChars:
    """A page's characters as one normalised string, each with its box and its line."""

    page: int  # 1-based
    text: str
    boxes: list[Rect]
    lines: list[int]


@dataclass(slots=True)
class Located:
    rects: dict[int, list[Rect]] = field(default_factory=dict)  # 1-based page → line rectangles, in reading order
    coverage: float = 0.0  # share of the passage's (normalised) characters placed


def page_chars(page: Any) -> PageChars:
    """The page's characters in PyMuPDF's reading order (``sort``), normalised one by one."""
    text: list[str] = []
    boxes: list[Rect] = []
    lines: list[int] = []
    line_no = 0
    raw = page.get_text("rawdict", sort=True)
    for block in raw.get("blocks", []):
        for line in block.get("lines", []):
            line_no += 1
            for span in line.get("spans", []):
                for ch in span.get("chars", []):
                    norm = normalise(ch["c"])
                    for c in norm:  # NFKC may widen one character ("ﬁ" → "fi"): each keeps the box
                        text.append(c)
                        boxes.append(tuple(ch["bbox"]))
                        lines.append(line_no)
    return PageChars(page.number + 1, "".join(text), boxes, lines)


# A figure's reading (text/units.py ``FIGURE``) is text of an image, not of the page's text layer.


def text_pieces(passage: str) -> list[str]:
    """The passage's lines from the page's text layer (figure readings left out), normalised, empty ones dropped."""
    out = [normalise(p) for p in re.split(r"\n+", passage) if not FIGURE.match(p.strip())]
    return [p for p in out if p]


def _match(stream: str, piece: str, cursor: int) -> list[tuple[int, int]]:
    """Spans of ``stream`` (start, length) that hold ``piece``: exact after ``cursor``, else anywhere (long
    pieces), else the longest common runs of the piece in the stream from ``cursor`` on."""
    at = stream.find(piece, cursor)
    if at < 0 and len(piece) >= _SHORT:
        at = stream.find(piece)
    if at >= 0:
        return [(at, len(piece))]
    window = stream[cursor: cursor + max(4 * len(piece), 400)] if cursor < len(stream) else stream
    base = cursor if cursor < len(stream) else 0
    matcher = difflib.SequenceMatcher(None, window, piece, autojunk=False)
    # Runs shorter than this pair with any page's common words and marks: a run that short is no evidence.
    return [(base + m.a, m.size) for m in matcher.get_matching_blocks() if m.size >= _RUN]


def locate(pages: list[PageChars], passage: str) -> Located:
    """The rectangles of ``passage`` on ``pages`` (its first to last page, in order)."""
    stream = "".join(p.text for p in pages)
    owner: list[tuple[int, int]] = [(k, i) for k, p in enumerate(pages) for i in range(len(p.text))]
    pieces = text_pieces(passage)
    total = sum(len(p) for p in pieces)
    placed: set[int] = set()
    cursor = 0
    for piece in pieces:
        spans = _match(stream, piece, cursor)
        for start, size in spans:
            placed.update(range(start, start + size))
        if spans:
            cursor = max(s + n for s, n in spans)
    out = Located(coverage=min(1.0, len(placed) / total) if total else 0.0)
    for k, p in enumerate(pages):
        chosen = sorted(i for g, (kk, i) in enumerate(owner) if kk == k and g in placed)
        if chosen:
            out.rects[p.page] = _line_rects(p, chosen)
    return out


def _line_rects(page: PageChars, chosen: list[int]) -> list[Rect]:
    """One rectangle per run of placed characters on the same line."""
    rects: list[Rect] = []
    prev_line, prev_i = -1, -2
    for i in chosen:
        x0, y0, x1, y1 = page.boxes[i]
        if page.lines[i] == prev_line and i == prev_i + 1 and rects:
            a0, b0, a1, b1 = rects[-1]
            rects[-1] = (min(a0, x0), min(b0, y0), max(a1, x1), max(b1, y1))
        else:
            rects.append((x0, y0, x1, y1))
        prev_line, prev_i = page.lines[i], i
    return rects


# A scanned page's OCR text line: (x0, y0, x1, y1, text) in PDF points (ingest/reading.py keeps them).
Line = tuple[float, float, float, float, str]


def ocr_key(content_hash: str, page: int) -> str:
    """Under what a scanned page's OCR lines are kept (with the file's stored content hash: a changed file's
    lines are never taken for its new pages)."""
    return f"ocr-lines:{content_hash}:{page}"


def _width(ch: str) -> float:
    """A character's share of its line's width: a CJK (wide) character takes about two of a Latin one's."""
    return 2.0 if unicodedata.east_asian_width(ch) in "WF" else 0.5 if ch.isspace() else 1.0


def ocr_chars(page: int, lines: list[Line]) -> tuple[PageChars, list[Line]]:
    """A scanned page's characters from its OCR lines, each line's box shared among its characters by their
    width (OCR gives a box per line, not per character), and the page's words (space-separated runs) with theirs.
    ``locate`` then places a passage on them as on a text layer."""
    text: list[str] = []
    boxes: list[Rect] = []
    numbers: list[int] = []
    words: list[Line] = []
    for n, (x0, y0, x1, y1, line) in enumerate(lines, 1):
        total = sum(_width(c) for c in line) or 1.0
        at, word, w0 = x0, "", x0
        for ch in line + " ":
            step = (x1 - x0) * _width(ch) / total
            if ch.isspace():
                if word:
                    words.append((w0, y0, at, y1, word))
                word = ""
            else:
                if not word:
                    w0 = at
                word += ch
                for c in normalise(ch):
                    text.append(c)
                    boxes.append((at, y0, at + step, y1))
                    numbers.append(n)
            at += step
    return PageChars(page, "".join(text), boxes, numbers), words


def open_pdf(path: str) -> Any:
    """A PDF opened for reading, an empty user password tried (the ingest parser does the same)."""
    doc = mupdf().open(path)
    if doc.needs_pass:
        doc.authenticate("")
    return doc


def locate_in_file(path: str, page: int, page_end: int | None, passage: str) -> Located:
    """Open the PDF and place ``passage`` on its pages ``page``..``page_end`` (1-based). The page before is read
    too: a passage's page is where its own text starts, and its overlap with the one before may begin a page
    earlier."""
    with open_pdf(path) as doc:
        last = min(page_end or page, doc.page_count)
        pages = [page_chars(doc[n - 1]) for n in range(max(1, page - 1), last + 1)]
    return locate(pages, passage)
