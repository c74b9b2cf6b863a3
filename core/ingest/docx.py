"""DOCX via python-docx: paragraphs and tables in reading order, headings kept."""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path
from typing import Any

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph
from lxml import etree

from biny.core.config import LimitSettings
from biny.core.document import Block, ParsedDocument
from biny.core.errors import CorruptDocument, EmptyDocument
from biny.core.i18n import t
from biny.core.ingest.reading import VisualReader, read_into
from biny.core.ingest.sniff import check_zip_bomb
from biny.core.ingest.tables import key_values, lines_of, state_header
from biny.core.ingest.visual import (
    MAX_PHASH_PIXELS,
    MAX_PICTURE_PIXELS,
    VisualSpec,
    group_by_hash,
    open_bounded,
    phash64,
    picture_fits,
    picture_header,
)

_HEADING_STYLE = re.compile(r"^(?:Heading|标题|見出し)\s*(\d)", re.I)
_NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main",
       "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
       "v": "urn:schemas-microsoft-com:vml"}
# DrawingML pictures and legacy VML ones; mc:AlternateContent carries both for one picture.
_IMAGES = etree.XPath(".//a:blip/@r:embed | .//v:imagedata/@r:id", namespaces=_NS)
# Text boxes (captions, callouts) live inside drawings, outside the paragraph's own runs.
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_TEXTBOX_PARAS = etree.XPath(".//w:txbxContent//w:p", namespaces={"w": _W})
_TEXT = etree.XPath(".//w:t/text()", namespaces={"w": _W})
MIN_IMAGE_PX = 48  # icons, bullets and rules below this are decoration
REPEATED = 3  # an image shown this often is a logo or a banner, not a figure


def _images(item: Any) -> list[bytes]:
    """The distinct images of one paragraph or table, in reading order."""
    out: list[bytes] = []
    for rid in _IMAGES(item._element):
        try:
            blob = bytes(item.part.related_parts[rid].blob)
        except (KeyError, AttributeError):
            continue  # an external or broken link: nothing to read
        if blob not in out:
            out.append(blob)
    return out


def _textboxes(item: Any) -> list[str]:
    """Text of the text boxes drawn in one paragraph, once each (mc:AlternateContent repeats them)."""
    out: list[str] = []
    for para in _TEXTBOX_PARAS(item._element):
        text = " ".join("".join(_TEXT(para)).split())
        if text and text not in out:
            out.append(text)
    return out


def _header_images(document: Any) -> set[str]:
    digests: set[str] = set()
    for section in document.sections:
        for part in (section.header, section.footer, section.first_page_header, section.first_page_footer,
                     section.even_page_header, section.even_page_footer):
            if not part.is_linked_to_previous:
                digests |= {hashlib.sha256(b).hexdigest() for b in _images(part)}
    return digests


def _size(blob: bytes) -> tuple[int, int] | None:
    head = picture_header(blob)
    return None if head is None else head[:2]


def _phash(blob: bytes) -> int | None:
    img = open_bounded(blob, MAX_PHASH_PIXELS)  # a huge picture is grouped by its bytes only
    return None if img is None else phash64(img.convert("RGB"))


def plan_images(found: list[tuple[int, bytes]], header: set[str], doc: ParsedDocument) -> list[VisualSpec]:
    """(block index, bytes) of every body image → specs of the figures worth reading (SPEC I4, I5).

    Each distinct picture (same bytes or same perceptual hash) is read once, where it first appears.
    Decoration, never read: pictures of the header/footer, shown ``REPEATED`` times or more, or
    smaller than ``MIN_IMAGE_PX``; repeats of a picture already read are skipped too.
    """
    digests = [hashlib.sha256(b).hexdigest() for _, b in found]
    hashes = {d: h for d, (_, b) in zip(digests, found, strict=True) if (h := _phash(b)) is not None}
    group = group_by_hash(hashes)
    gid = [group.get(d, d) for d in digests]
    shown = {g: gid.count(g) for g in gid}
    header_groups = {group.get(d, d) for d in header}
    doc.decoration_pages.extend(0 for _ in header)  # each header/footer picture, skipped once
    specs: list[VisualSpec] = []
    read: set[Any] = set()
    for n, ((after, blob), g) in enumerate(zip(found, gid, strict=True), start=1):
        size = _size(blob)
        if size is None:
            doc.warnings.append(t("image {n} is in a format that cannot be read here (EMF/WMF?); skipped").format(n=n))
            continue
        if g in header_groups or shown[g] >= REPEATED or min(size) < MIN_IMAGE_PX or g in read:
            doc.decoration_pages.append(n)
            continue
        if not picture_fits(blob):  # decided from the header: the reader decodes it later
            doc.warnings.append(t("image {n} is {size}×{size2} pixels, too large to read safely here (limit {value} "
                                  "megapixels unless JPEG); skipped")
                                 .format(n=n, size=size[0], size2=size[1], value=MAX_PICTURE_PIXELS // 1000000))
            continue
        read.add(g)
        specs.append(VisualSpec(n, "figure", None, "", after, blob))
    return specs


def parse_docx(path: Path, limits: LimitSettings, reader: VisualReader | None = None) -> ParsedDocument:
    check_zip_bomb(path, limits)
    try:
        document = docx.Document(str(path))
    except (zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
        # A damaged or hostile part (broken XML, an entity bomb): this file fails, the run goes on.
        raise CorruptDocument(t("{name} is not a readable Word file ({kind}: {detail}). Open and save it again "
                                "in Word, or export it as PDF.")
                               .format(name=path.name, kind=type(exc).__name__, detail=exc)) from exc
    blocks: list[Block] = []
    found: list[tuple[int, bytes]] = []
    tables: list[tuple[int, list[tuple[str, str]]]] = []  # key–value tables (issue 63): block index, pairs
    # Style names by id, looked up once: ``Paragraph.style`` scans every style for the default on each
    # unstyled paragraph (a 335 KB file of 100k paragraphs took 117 s to read, issue 22).
    style_names = {s.style_id: s.name or "" for s in document.styles}
    for item in document.iter_inner_content():
        found.extend((len(blocks) - 1, blob) for blob in _images(item))
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                blocks.extend(Block(text) for text in _textboxes(item))
                continue
            style_id = item._p.style  # the pStyle value, None for the default paragraph style
            style = style_names.get(style_id, "") if style_id else ""
            level = 0
            if style == "Title":
                level = 1
            elif m := _HEADING_STYLE.match(style):
                level = int(m.group(1))
            blocks.append(Block(text, heading_level=level))
            blocks.extend(Block(text) for text in _textboxes(item))
        elif isinstance(item, Table):
            cells = _table_cells(item)
            pairs = key_values(cells)
            if pairs is not None:  # stated as "Field: value" lines, the first one as the header
                tables.append((len(blocks), pairs))
                blocks.append(Block(lines_of(pairs)))
                continue
            rows = [" | ".join(row) for row in cells if any(row)]
            if rows:
                blocks.append(Block("\n".join(rows)))
    title = (document.core_properties.title or "").strip()
    if not title:
        heads = [b for b in blocks[:8] if b.heading_level]
        title = heads[0].text if heads else path.stem
    doc = ParsedDocument(title=title, kind="docx", blocks=blocks)
    moved = state_header(doc, tables)
    found = [(moved(after), blob) for after, blob in found]
    specs = plan_images(found, _header_images(document), doc)
    for spec in specs:
        # The caption is usually the paragraph right after the picture, or the one before it.
        near = blocks[max(0, spec.after_block): spec.after_block + 2]
        spec.context = "\n".join(b.text[:300] for b in near)
    doc.planned = [(s.page, s.kind) for s in specs]
    read_into(doc, None, specs, reader)
    doc.decorations_skipped = len(doc.decoration_pages)
    if not doc.blocks:
        raise EmptyDocument((t("{name} contains no text and no readable pictures.") if specs
                             else t("{name} contains no text.")).format(name=path.name))
    return doc


def _table_cells(table: Table) -> list[list[str]]:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            # Merged cells repeat the same object; keep one copy per row.
            if not cells or cells[-1] != text:
                cells.append(text)
        rows.append(cells)
    return rows
