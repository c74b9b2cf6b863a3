"""Entry point: any supported file → ``ParsedDocument`` or a ``DocumentError``."""

from __future__ import annotations

from pathlib import Path

from biny.core.config import LimitSettings
from biny.core.document import ParsedDocument
from biny.core.errors import DocumentError, UnsupportedFormat
from biny.core.i18n import t
from biny.core.ingest.bounds import PIECE_CHARS, bounded_blocks, regular_file
from biny.core.ingest.pdf import parse_pdf
from biny.core.ingest.reading import VisualReader
from biny.core.ingest.sniff import HTML_SUFFIXES, ROW_SUFFIXES, TEXT_SUFFIXES, sniff
from biny.core.ingest.text import parse_text

SUPPORTED_SUFFIXES = frozenset({".pdf", ".docx"} | TEXT_SUFFIXES | HTML_SUFFIXES | ROW_SUFFIXES)


def parse_file(path: Path, limits: LimitSettings, reader: VisualReader | None = None) -> ParsedDocument:
    """``reader`` reads scanned pages, figures and DOCX images (I2–I4); None: text layers only."""
    regular_file(path)  # a pipe, a device, a socket: refused by type before opening (issue 59)
    try:
        kind = sniff(path, limits)
        if kind == "rows":
            raise UnsupportedFormat(t("{name} is a table; it is ingested one document per row.")
                                     .format(name=path.name))
        if kind == "pdf":
            doc = parse_pdf(path, limits, reader)
        elif kind == "docx":
            # python-docx, lxml and trafilatura load when such a file is read, not with every command (issue 58:
            # `biny ask` paid for them at start-up).
            from biny.core.ingest.docx import parse_docx

            doc = parse_docx(path, limits, reader)
        elif kind == "html":
            from biny.core.ingest.html import parse_html

            doc = parse_html(path)
        else:
            doc = parse_text(path, kind)
        doc.blocks, cut = bounded_blocks(doc.blocks)
        if cut:
            doc.warnings.append(t("{n} stretch(es) of text without sentences or line breaks were cut into pieces "
                                  "of about {chars} characters.").format(n=cut, chars=PIECE_CHARS))
        return doc
    except DocumentError:
        raise
    except OSError as exc:
        raise DocumentError(t("{name} could not be read ({reason}).")
                             .format(name=path.name, reason=exc.strerror or exc)) from exc
