"""Decide a file's format from its bytes (not its name) and enforce size limits.

A renamed ``.exe`` must not reach MuPDF; an empty file must not become an empty
document. Every refusal says what the file looked like and what to do.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import Literal

from biny.core.config import LimitSettings
from biny.core.document import SourceKind
from biny.core.errors import CorruptDocument, DocumentTooLarge, EmptyDocument, UnsupportedFormat
from biny.core.i18n import N_, t

TEXT_SUFFIXES = {".txt", ".text", ".md", ".markdown", ".rst", ".log"}
# Tables: one document per row (ingest/rows.py).
ROW_SUFFIXES = {".csv", ".tsv", ".jsonl", ".ndjson", ".xlsx"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}

_BINARY_SIGNATURES: list[tuple[bytes, str]] = [
    (b"MZ", N_("a Windows executable")),
    (b"\x7fELF", N_("a Linux executable")),
    (b"\xcf\xfa\xed\xfe", N_("a macOS executable")),
    (b"\xd0\xcf\x11\xe0", N_("a legacy Office file (.doc/.xls/.ppt); save it as .docx or PDF")),
    (b"\x89PNG", N_("a PNG image; image files are not ingested on their own yet")),
    (b"\xff\xd8\xff", N_("a JPEG image; image files are not ingested on their own yet")),
    (b"GIF8", N_("a GIF image")),
    (b"Rar!", N_("a RAR archive")),
    (b"7z\xbc\xaf", N_("a 7-Zip archive")),
    (b"\x1f\x8b", N_("a gzip archive")),
]


def sniff(path: Path, limits: LimitSettings) -> SourceKind | Literal["rows"]:
    """Return ``"pdf" | "docx" | "rows" | "html" | "markdown" | "text"`` or raise a DocumentError."""
    from biny.core.ingest.bounds import regular_file

    size = regular_file(path).st_size  # a pipe or a device is refused by type, never opened
    if size == 0:
        raise EmptyDocument(t("{name} is empty (0 bytes). Check the file was saved completely.").format(name=path.name))
    if size > limits.max_file_mb * 1024 * 1024:
        raise DocumentTooLarge(
            t("{name} is {size} MB, over the {limit} MB limit. Split it, or raise limits.max_file_mb in config.toml.")
            .format(name=path.name, size=f"{size / 1e6:.0f}", limit=limits.max_file_mb)
        )
    with path.open("rb") as fh:
        head = fh.read(1024)
    suffix = path.suffix.lower()
    # A PDF begins with its magic; one with bytes before it (allowed within the first KB) is read as PDF only when
    # its name agrees — a Markdown note that merely mentions "%PDF-" is text (issue 59).
    if head.startswith(b"%PDF-") or (suffix == ".pdf" and b"%PDF-" in head):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(path)
    for sig, what in _BINARY_SIGNATURES:
        if head.startswith(sig):
            raise UnsupportedFormat(t("{name} is {what}, not a document biny can read.")
                                     .format(name=path.name, what=t(what)))
    if suffix == ".pdf":
        raise UnsupportedFormat(
            t("{name} is named .pdf but does not contain a PDF header. It is probably another kind of file renamed; "
              "export it again as PDF.").format(name=path.name)
        )
    if suffix == ".docx":
        raise UnsupportedFormat(t("{name} is named .docx but is not a Word (zip) file.").format(name=path.name))
    if b"\x00" in head and not _looks_utf16(head):
        raise UnsupportedFormat(
            t("{name} looks binary (it contains NUL bytes) and is not PDF, DOCX, HTML or text.")
             .format(name=path.name)
        )
    if size > limits.max_text_mb * 1024 * 1024 and suffix != ".xlsx":
        raise DocumentTooLarge(
            t("{name} is {mb:.0f} MB of text, over the {max_text_mb} MB limit for text files (about {million:.0f} "
              "million tokens to embed). Split it, or raise limits.max_text_mb in config.toml if it should be "
              "ingested whole.")
             .format(name=path.name, mb=size / 1e6, max_text_mb=limits.max_text_mb, million=size / 4e6)
        )
    if suffix in ROW_SUFFIXES:
        return "rows"
    lowered = head.lstrip().lower()
    if suffix in HTML_SUFFIXES or lowered.startswith((b"<!doctype html", b"<html")):
        return "html"
    if suffix in {".md", ".markdown"}:
        return "markdown"
    if suffix in TEXT_SUFFIXES or suffix == "":
        return "text"
    # Unknown extension but textual content: accept as text rather than guess harder.
    return "text"


def utf16_without_bom(head: bytes) -> str | None:
    """"utf-16-be" / "utf-16-le" for BOM-less UTF-16 text (mostly Latin: a NUL in every other byte)."""
    pairs = len(head) // 2
    if pairs < 8:
        return None
    even = sum(1 for i in range(0, pairs * 2, 2) if head[i] == 0)
    odd = sum(1 for i in range(1, pairs * 2, 2) if head[i] == 0)
    if even >= 0.4 * pairs and odd <= 0.02 * pairs:
        return "utf-16-be"
    if odd >= 0.4 * pairs and even <= 0.02 * pairs:
        return "utf-16-le"
    return None


def _looks_utf16(head: bytes) -> bool:
    return head.startswith((b"\xff\xfe", b"\xfe\xff")) or utf16_without_bom(head) is not None


def _zip_kind(path: Path) -> Literal["docx", "rows"]:
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
    except zipfile.BadZipFile as exc:
        raise UnsupportedFormat(t("{name} is a damaged zip container ({detail}).")
                                .format(name=path.name, detail=exc)) from exc
    if "word/document.xml" in names:
        return "docx"
    if "xl/workbook.xml" in names and path.suffix.lower() == ".xlsx":
        return "rows"
    if "xl/workbook.xml" in names or "ppt/presentation.xml" in names:
        raise UnsupportedFormat(
            t("{name} is an Excel/PowerPoint file; save a workbook as .xlsx (read as a table, one document per row) "
              "or export it as PDF.").format(name=path.name)
        )
    raise UnsupportedFormat(t("{name} is a zip archive, not a document. Unpack it first.").format(name=path.name))


# An XML part parses to ~7× its size in memory (measured: a 26 MB document.xml → 192 MB RSS), so one
# larger than this would take the ingest past ~1 GB (issue 22: memory bounded for any single input).
MAX_XML_PART_MB = 100


def check_zip_bomb(path: Path, limits: LimitSettings) -> None:
    """Refuse archives whose members expand past the configured size or ratio — measured while
    decompressing, whatever the headers declare, and stopped at the limit (issue 22)."""
    limit = limits.max_unzipped_mb * 1024 * 1024
    total = 0
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                got = 0
                with zf.open(info) as fh:
                    while block := fh.read(1 << 20):
                        got += len(block)
                        total += len(block)
                        ratio = got / max(info.compress_size, 1)
                        if got > 10 * 1024 * 1024 and ratio > limits.max_zip_ratio:
                            raise DocumentTooLarge(
                                t("{name}: member {filename} expands {ratio:.0f}× or more (limit {max_zip_ratio}×); "
                                  "this looks like a zip bomb and was not opened.")
                                 .format(name=path.name, filename=info.filename, ratio=ratio,
                                         max_zip_ratio=limits.max_zip_ratio))
                        if total > limit:
                            raise DocumentTooLarge(
                                t("{name} expands to more than {max_unzipped_mb} MB; not opened. Raise "
                                  "limits.max_unzipped_mb if the file is genuine.")
                                 .format(name=path.name, max_unzipped_mb=limits.max_unzipped_mb))
                        if info.filename.endswith((".xml", ".rels")) and got > MAX_XML_PART_MB * 1024 * 1024:
                            raise DocumentTooLarge(
                                t("{name}: its part {filename} is over {limit} MB of XML, more than can be "
                                  "read safely here; split the document or export it as PDF.")
                                 .format(name=path.name, filename=info.filename, limit=MAX_XML_PART_MB))
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        # A member that does not inflate to what its header says (a lying size fails its CRC), or damage.
        raise CorruptDocument(t("{name} is a damaged zip container ({detail}). Open and save it again, or export it "
                                "as PDF.").format(name=path.name, detail=exc)) from exc