"""Entry point: any supported file → ``ParsedDocument`` or a ``DocumentError``."""

from __future__ import annotations

from pathlib import Path

from biny.core.config import LimitSettings
from biny.core.document import ParsedDocument
from biny.core.errors import DocumentError, UnsupportedFormat
from biny.core.i18n import t
from biny.core.ingest.docx import parse_docx
from biny.core.ingest.html import parse_html
from biny.core.ingest.pdf import parse_pdf
from biny.core.ingest.reading import VisualReader
from biny.core.ingest.sniff import HTML_SUFFIXES, ROW_SUFFIXES, TEXT_SUFFIXES, sniff
from biny.core.ingest.text import parse_text

SUPPORTED_SUFFIXES = frozenset({".pdf", ".docx"} | TEXT_SUFFIXES | HTML_SUFFIXES | ROW_SUFFIXES)


def parse_file(path: Path, limits: LimitSettings, reader: VisualReader | None = None) -> ParsedDocument:
    """``reader`` reads scanned pages, figures and DOCX images (I2–I4); None: text layers only."""
    if not path.is_file():
        raise UnsupportedFormat(t("{path} is not a file.").format(path=path))
    try:
        kind = sniff(path, limits)
        if kind == "pdf":
            return parse_pdf(path, limits, reader)
        if kind == "docx":
            return parse_docx(path, limits, reader)
        if kind == "html":
            return parse_html(path)
        if kind == "rows":
            raise UnsupportedFormat(t("{name} is a table; it is ingested one document per row.")
                                     .format(name=path.name))
        return parse_text(path, kind)
    except DocumentError:
        raise
    except OSError as exc:
        raise DocumentError(t("{name} could not be read ({reason}).")
                             .format(name=path.name, reason=exc.strerror or exc)) from exc
