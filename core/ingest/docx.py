"""DOCX via python-docx: paragraphs and tables in reading order, headings kept."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from biny.core.config import LimitSettings
from biny.core.errors import CorruptDocument, EmptyDocument
from biny.core.ingest.model import Block, ParsedDocument
from biny.core.ingest.sniff import check_zip_bomb

_HEADING_STYLE = re.compile(r"^(?:Heading|标题|見出し)\s*(\d)", re.I)


def parse_docx(path: Path, limits: LimitSettings) -> ParsedDocument:
    check_zip_bomb(path, limits)
    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
        # A damaged or hostile part (broken XML, an entity bomb): this file fails, the run goes on.
        raise CorruptDocument(f"{path.name} is not a readable Word file ({type(exc).__name__}: {exc}). "
                              "Open and save it again in Word, or export it as PDF.") from exc
    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            style = item.style.name if item.style is not None and item.style.name else ""
            level = 0
            if style == "Title":
                level = 1
            elif m := _HEADING_STYLE.match(style):
                level = int(m.group(1))
            blocks.append(Block(text, heading_level=level))
        elif isinstance(item, Table):
            rows = _table_rows(item)
            if rows:
                blocks.append(Block("\n".join(rows)))
    if not blocks:
        raise EmptyDocument(f"{path.name} contains no text.")
    title = (document.core_properties.title or "").strip()
    if not title:
        heads = [b for b in blocks[:8] if b.heading_level]
        title = heads[0].text if heads else path.stem
    return ParsedDocument(title=title, kind="docx", blocks=blocks)


def _table_rows(table: Table) -> list[str]:
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            # Merged cells repeat the same object; keep one copy per row.
            if not cells or cells[-1] != text:
                cells.append(text)
        line = " | ".join(c for c in cells)
        if line.strip(" |"):
            rows.append(line)
    return rows
