"""HTML: main content only (no menus, footers, cookie banners) via trafilatura."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import trafilatura

from biny.core.document import ParsedDocument
from biny.core.errors import EmptyDocument
from biny.core.i18n import t
from biny.core.ingest.text import decode_bytes, parse_text_string


def parse_html(path: Path) -> ParsedDocument:
    html = decode_bytes(path.read_bytes(), path.name)
    return parse_html_string(html, fallback_title=path.stem, name=path.name)


def parse_html_string(html: str, *, fallback_title: str, name: str) -> ParsedDocument:
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
    meta = trafilatura.extract_metadata(html)
    title = (meta.title if meta is not None and meta.title else "") or fallback_title
    doc = parse_text_string(body, kind="html", fallback_title=title, name=name)
    doc.title = title
    return doc


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

