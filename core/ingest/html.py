"""HTML: main content only (no menus, footers, cookie banners) via trafilatura.

Key–value tables and ``<dl>`` lists are read from the page's own tree before trafilatura flattens them
(issue 63, core/ingest/tables.py): each becomes "Field: value" lines in its place, the first one the header.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import lxml.html
import trafilatura
from lxml import etree

from biny.core.document import Block, ParsedDocument
from biny.core.errors import EmptyDocument
from biny.core.i18n import t
from biny.core.ingest.tables import key_values, lines_of, state_header
from biny.core.ingest.text import decode_bytes, parse_text_string


def parse_html(path: Path) -> ParsedDocument:
    html = decode_bytes(path.read_bytes(), path.name)
    return parse_html_string(html, fallback_title=path.stem, name=path.name)


def parse_html_string(html: str, *, fallback_title: str, name: str) -> ParsedDocument:
    source = html
    html, tables = _mark_tables(html)
    body = trafilatura.extract(
        html,
        output_format="markdown",
        include_tables=True,
        include_comments=False,
        include_links=False,
        include_images=False,
        favor_recall=True,
    )
    if not body or not body.strip() or _nesting(html) > LIBXML_MAX_DEPTH:
        # trafilatura parses with libxml2, which drops what is nested deeper than it allows (a page of
        # 100k nested divs around one paragraph read as empty, issue 22); an event parser has no depth.
        body = _block_text(html)
    if not body.strip():
        raise EmptyDocument(t("{name}: no main text found in this HTML page.").format(name=name))
    meta = trafilatura.extract_metadata(source)
    title = (meta.title if meta is not None and meta.title else "") or fallback_title
    doc = parse_text_string(body, kind="html", fallback_title=title, name=name)
    doc.title = title
    _put_tables(doc, tables)
    return doc


# A key–value table's place in the page while trafilatura reads it: a paragraph of its own, replaced after.
_MARK = "biny-table-{n}-7f3a"
_MARKED = re.compile(r"biny-table-(\d+)-7f3a")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_OUTSIDE = {"nav", "header", "footer", "aside", "form", "script", "style", "noscript", "template"}


def _cells(row: Any) -> tuple[list[str], bool]:
    """A row's cell texts and whether all of them are <th>."""
    cells = [c for c in row if isinstance(c.tag, str) and c.tag in {"td", "th"}]
    return [" ".join(c.text_content().split()) for c in cells], bool(cells) and all(c.tag == "th" for c in cells)


def _table_rows(table: Any) -> list[list[str]]:
    rows = [_cells(r) for r in table.iter("tr")]
    # A first row of <th> over rows of <td> names the columns ("Spec | Value"), not a field.
    if len(rows) > 1 and rows[0][1] and not all(th for _, th in rows[1:]):
        rows = rows[1:]
    return [cells for cells, _ in rows]


def _dl_rows(dl: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    for child in dl.iterchildren():
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "div":  # HTML allows <div> around each dt/dd group
            rows += _dl_rows(child)
            continue
        text = " ".join(child.text_content().split())
        if tag == "dt":
            rows.append([text])
        elif tag == "dd" and rows:
            if len(rows[-1]) == 1:
                rows[-1].append(text)
            else:  # several <dd> of one <dt>: one value
                rows[-1][1] = f"{rows[-1][1]}; {text}" if text else rows[-1][1]
    return rows


def _mark_tables(html: str) -> tuple[str, list[list[tuple[str, str]]]]:
    """The page with each key–value <table> (innermost, outside navigation) and <dl> replaced by a marker
    paragraph, and their pairs in reading order; the page unchanged when it has none."""
    low = html.lower()
    if ("<table" not in low and "<dl" not in low) or _nesting(html) > LIBXML_MAX_DEPTH:
        return html, []
    try:
        # lxml refuses a str that declares its encoding (an XHTML page's <?xml … encoding="…"?>): it is decoded.
        tree = lxml.html.document_fromstring(_XML_DECLARATION.sub("", html, count=1))
    except (etree.ParserError, ValueError):
        return html, []
    found: list[list[tuple[str, str]]] = []
    for el in list(tree.iter("table", "dl")):
        if any(isinstance(a.tag, str) and a.tag in _OUTSIDE for a in el.iterancestors()):
            continue
        if el.tag == "table" and next(el.iterdescendants("table", "dl"), None) is not None:
            continue  # a layout table around others: its inner tables are read instead
        pairs = key_values(_table_rows(el) if el.tag == "table" else _dl_rows(el))
        if pairs is None:
            continue
        mark = lxml.html.Element("p")
        mark.text = _MARK.format(n=len(found))
        mark.tail = el.tail
        parent = el.getparent()
        if parent is None:
            continue
        parent.replace(el, mark)
        found.append(pairs)
    if not found:
        return html, []
    return lxml.html.tostring(tree, encoding="unicode"), found


def _put_tables(doc: ParsedDocument, tables: list[list[tuple[str, str]]]) -> None:
    """Each marker paragraph becomes its table's lines; the first table is stated at the top as the header
    even where the extractor dropped its marker (a page it judged all boilerplate but the table)."""
    if not tables:
        return
    blocks: list[Block] = []
    at: dict[int, int] = {}
    for b in doc.blocks:
        m = _MARKED.fullmatch(b.text.strip())
        if m is not None and int(m.group(1)) < len(tables):
            at[int(m.group(1))] = len(blocks)
            blocks.append(Block(lines_of(tables[int(m.group(1))]), b.page))
            continue
        text = _MARKED.sub("", b.text).strip("\n")  # a marker the extractor ran into a paragraph: its table is lost
        if text.strip():
            blocks.append(Block(text, b.page, b.heading_level))
    if 0 not in at:
        blocks.insert(0, Block(lines_of(tables[0])))
        at = {n: i + 1 for n, i in at.items()} | {0: 0}
    doc.blocks = blocks
    state_header(doc, [(at[n], tables[n]) for n in sorted(at)])


# libxml2's HTML parser stops building the tree at this depth (what lies deeper is lost).
LIBXML_MAX_DEPTH = 255
# Containers that are closed in practice (unclosed <p>/<li>/<td> would make a sloppy page look deep).
_CONTAINER = re.compile(r"<(/?)(?:div|span|section|article|main|ul|ol|table|blockquote)\b[^>]*>", re.I)


def _nesting(html: str) -> int:
    depth = deepest = 0
    for m in _CONTAINER.finditer(html):
        depth = max(0, depth - 1) if m.group(1) else depth + 1
        deepest = max(deepest, depth)
    return deepest


_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "pre", "blockquote", "dd", "dt",
           "figcaption", "caption"}
_SKIPPED = {"script", "style", "noscript", "nav", "header", "footer", "aside", "form", "template", "svg"}


class _BlockText(HTMLParser):
    """Text of block elements (paragraphs, headings, list items, cells), outside navigation and scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._open: list[str] = []  # the block elements and skipped regions we are inside
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED or tag in _BLOCKS:
            self._flush()
            self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            self._flush()
            while self._open and self._open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1] in _BLOCKS and not _SKIPPED.intersection(self._open):
            self._text.append(data)

    def _flush(self) -> None:
        text = " ".join("".join(self._text).split())
        if text:
            self.paragraphs.append(text)
        self._text = []

    def close(self) -> None:
        super().close()
        self._flush()


def _block_text(html: str) -> str:
    parser = _BlockText()
    parser.feed(html)
    parser.close()
    return "\n\n".join(parser.paragraphs)

