"""HTML: main content only (no menus, footers, cookie banners) via trafilatura."""

from __future__ import annotations

from pathlib import Path

import trafilatura

from biny.core.errors import EmptyDocument
from biny.core.ingest.model import ParsedDocument
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
    if not body or not body.strip():
        raise EmptyDocument(f"{name}: no main text found in this HTML page.")
    meta = trafilatura.extract_metadata(html)
    title = (meta.title if meta is not None and meta.title else "") or fallback_title
    doc = parse_text_string(body, kind="html", fallback_title=title, name=name)
    doc.title = title
    return doc
