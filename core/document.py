"""What every parser returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

# What a stored document was read from (issue 56: one vocabulary for core and console, which names each one —
# tests/console/test_vocabulary.py): a parser's format, or "row", one row of a table (CSV, TSV, XLSX, JSONL).
SourceKind = Literal["pdf", "docx", "markdown", "html", "text", "row"]
SOURCE_KINDS: tuple[SourceKind, ...] = get_args(SourceKind)


@dataclass(slots=True)
class Block:
    """A paragraph-level unit in reading order.

    ``heading_level`` > 0 marks a heading (1 = top). ``page`` is 1-based for paged
    formats and ``None`` elsewhere.
    """

    text: str
    page: int | None = None
    heading_level: int = 0


@dataclass(slots=True)
class ParsedDocument:
    title: str
    kind: SourceKind
    blocks: list[Block]
    pages: int = 0
    # I5/C1 counters; the figure pipeline fills the last three.
    pages_without_text: int = 0
    pages_ocr: int = 0
    figures_described: int = 0
    decorations_skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    # Where each I2–I5 counter came from (1-based pages; for DOCX, image ordinals).
    ocr_pages: list[int] = field(default_factory=list)
    # A scanned page's OCR text lines, (x0, y0, x1, y1, text) in PDF points: kept, sealed, for the source viewer.
    ocr_boxes: dict[int, list[tuple[float, float, float, float, str]]] = field(default_factory=dict)
    figure_pages: list[int] = field(default_factory=list)
    decoration_pages: list[int] = field(default_factory=list)
    # What the page analysis found worth reading, (page or image ordinal, "scan" | "figure"), read or not.
    planned: list[tuple[int, str]] = field(default_factory=list)
    # Issue 63: the key–value table the parser read as the header (name, value as the cell shows it), stated
    # at the top of ``blocks`` as "name: value" lines; and how many such tables the document holds.
    # Not stored as such: the header reader reads it back from the stored text, so no catalog change.
    header: list[tuple[str, str]] = field(default_factory=list)
    header_tables: int = 0
