"""PDF text layer via PyMuPDF, parsed in a child process.

MuPDF is C code fed with untrusted bytes: a crash or an endless repair loop must
fail that one document, not the app (SPEC I1). The child returns plain tuples; the
parent enforces a time limit and turns every failure into a ``DocumentError``.
"""

from __future__ import annotations

from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from biny.core.config import LimitSettings
from biny.core.document import Block, ParsedDocument
from biny.core.errors import (
    CorruptDocument,
    DocumentError,
    DocumentTooLarge,
    EmptyDocument,
    EncryptedDocument,
    ParserCrashed,
)
from biny.core.i18n import language, set_language, t
from biny.core.ingest.child import spawned
from biny.core.ingest.lines import join_lines
from biny.core.ingest.mojibake import repair_mojibake
from biny.core.ingest.reading import VisualReader, read_into
from biny.core.ingest.tables import key_values, lines_of, state_header
from biny.core.ingest.visual import VisualSpec, mupdf, plan_pages, running_lines

_ERRORS: dict[str, type[DocumentError]] = {
    "encrypted": EncryptedDocument,
    "corrupt": CorruptDocument,
    "too_large": DocumentTooLarge,
    "empty": EmptyDocument,
}




def _refused(doc: Any, max_pages: int) -> tuple[str, str] | None:
    """Why an opened PDF is not read (kind, message), or None: a password, too many pages, no page."""
    if doc.needs_pass and not doc.authenticate(""):
        return "encrypted", t("is protected by a password")
    if doc.page_count > max_pages:
        return "too_large", t("has {pages} pages (limit {max_pages})").format(pages=doc.page_count,
                                                                          max_pages=max_pages)
    if doc.page_count == 0:
        return "empty", t("has no pages")
    return None


def _worker(path: str, max_pages: int, lang: str, conn: Connection) -> None:
    """Child-process body: send ("ok", payload) or ("error", kind, message in the parent's language ``lang``)."""
    set_language(lang)
    try:
        pymupdf = mupdf()

        open_pdf: Any = pymupdf.open  # PyMuPDF is untyped; keep the Any in one place
        try:
            doc = open_pdf(path)
        except Exception as exc:  # noqa: BLE001 — MuPDF raises several types for bad files
            conn.send(("error", "corrupt", t("cannot be opened as PDF ({detail})").format(detail=exc)))
            return
        refused = _refused(doc, max_pages)
        if refused is not None:
            conn.send(("error", *refused))
            return
        blocks: list[tuple[str, int]] = []
        page_blocks: list[list[tuple[Any, str]]] = []
        garbled: list[int] = []
        repaired = 0
        empty_pages = 0
        tables: list[tuple[int, str, list[tuple[str, str]]]] = []
        for page in doc:
            mine: list[tuple[Any, str]] = []
            bad = 0
            for b in page.get_text("blocks", sort=True):
                if b[6] != 0:
                    continue
                text, fixed, left = repair_mojibake(join_lines(b[4].split("\n")))
                repaired += fixed
                bad += left
                if text:
                    mine.append((pymupdf.Rect(b[:4]), text))
            if page.number < TABLE_PAGES and mine:
                mine = _spec_tables(page, mine, tables)
            if not mine:
                empty_pages += 1
            page_blocks.append(mine)
            garbled.append(bad)
            blocks.extend((text, page.number + 1) for _, text in mine)
        running = running_lines(page_blocks, [page.rect.height for page in doc])
        framed = sorted({pno + 1 for pno, _ in running})
        if running:
            page_blocks = [[b for i, b in enumerate(blocks) if (pno, i) not in running]
                           for pno, blocks in enumerate(page_blocks)]
            blocks = [(text, pno + 1) for pno, mine in enumerate(page_blocks) for _, text in mine]
        plan = plan_pages(doc, page_blocks, garbled)
        plan.decorations = sorted(plan.decorations + framed)
        title = (doc.metadata or {}).get("title") or ""
        conn.send(("ok", {"blocks": blocks, "pages": doc.page_count, "empty_pages": empty_pages,
                          "title": title, "repaired": bool(doc.is_repaired), "mojibake": repaired,
                          "specs": [(s.page, s.kind, s.clip, s.context, s.after_block) for s in plan.specs],
                          "decorations": plan.decorations, "garbled": plan.garbled_pages, "tables": tables}))
    except Exception as exc:  # noqa: BLE001 — report anything to the parent, never die silently
        conn.send(("error", "corrupt", t("could not be read ({kind}: {detail})")
                   .format(kind=type(exc).__name__, detail=exc)))
    finally:
        conn.close()


# Spec tables are looked for on the first pages only: a header is stated near the top, and the table finder
# costs a fraction of a second per page (a 500-page manual would pay minutes for tables that are no header).
TABLE_PAGES = 3


def _spec_tables(page: Any, mine: list[tuple[Any, str]],
                 tables: list[tuple[int, str, list[tuple[str, str]]]]) -> list[tuple[Any, str]]:
    """The page's text blocks with each two-column key–value table (PyMuPDF's table finder) stated as
    "Field: value" lines in its place, instead of its cells' blocks; found tables added to ``tables``."""
    try:
        try:
            # The ruled-lines finder alone: gated by the layout model (pymupdf-layout, when installed) it cost over
            # a second per page here, and joined two tables one above the other into one.
            found = page.find_tables(use_layout=False).tables
        except TypeError:  # a PyMuPDF without the layout option
            found = page.find_tables().tables
    except Exception:  # noqa: BLE001 — the finder is a heuristic over untrusted drawings: no table, not no page
        return mine
    for table in found:
        if table.col_count != 2:
            continue
        # Each cell read from its own box: the finder's own extract() runs words together in some fonts
        # ("$12.50" came back as "$1250 ."). An empty row splits the table: the finder joins two ruled tables
        # one above the other into one, the gap between them read as an empty row.
        segments: list[list[tuple[Any, list[str]]]] = [[]]
        for row in table.rows:
            cells = [" ".join(join_lines(page.get_textbox(c).split("\n")).split()) if c is not None else ""
                     for c in row.cells]
            if any(cells):
                segments[-1].append((row.bbox, cells))
            elif segments[-1]:
                segments.append([])
        for rows in segments:
            pairs = key_values([cells for _, cells in rows]) if rows else None
            if pairs is None:
                continue
            box = mupdf().Rect(rows[0][0]) | mupdf().Rect(rows[-1][0])
            inside = [i for i, (rect, _) in enumerate(mine) if box.contains((rect.tl + rect.br) / 2)]
            if not inside:
                continue
            text = lines_of(pairs)
            rest = [b for i, b in enumerate(mine) if i > inside[0] and i not in inside]
            mine = [*mine[: inside[0]], (box, text), *rest]
            tables.append((page.number + 1, text, pairs))
    return mine


def _looks_truncated(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - 2048))
        tail = fh.read()
    return b"%%EOF" not in tail


def parse_pdf(path: Path, limits: LimitSettings, reader: VisualReader | None = None) -> ParsedDocument:
    msg: Any = None
    with spawned(_worker, str(path), limits.max_pages, language()) as (proc, conn):
        try:
            if conn.poll(limits.parse_timeout_s):
                msg = conn.recv()
        except EOFError:
            msg = None
    if msg is None:
        if proc.exitcode not in (0, None) and proc.exitcode != -9:
            raise ParserCrashed(
                t("{name}: the PDF parser crashed (exit code {exitcode}). The file is probably damaged; try "
                  "re-exporting it.").format(name=path.name, exitcode=proc.exitcode)
            )
        raise ParserCrashed(
            t("{name}: parsing took longer than {parse_timeout_s} s and was stopped. Raise limits.parse_timeout_s "
              "for very large files, or split the PDF.")
             .format(name=path.name, parse_timeout_s=limits.parse_timeout_s)
        )
    if msg[0] == "error":
        _, kind, text = msg
        if kind in {"empty", "corrupt"} and _looks_truncated(path):
            raise CorruptDocument(
                t("{name} looks truncated (no end-of-file marker) and {text}. Download or export it again.")
                 .format(name=path.name, text=text)
            )
        hint = {
            "encrypted": t("Remove the password (or print to a new PDF) and add it again."),
            "corrupt": t("The file is damaged; download or export it again."),
            "too_large": t("Split it, or raise limits.max_pages in config.toml."),
            "empty": t("Check the file."),
        }[kind]
        raise _ERRORS[kind](t("{name} {text}. {hint}").format(name=path.name, text=text, hint=hint))
    payload = msg[1]
    if payload["repaired"] and _looks_truncated(path):
        raise CorruptDocument(
            t("{name} looks truncated (no end-of-file marker; MuPDF had to repair it). Download or export it again; "
              "pages may be missing.").format(name=path.name)
        )
    blocks = [Block(text=text, page=p) for text, p in payload["blocks"]]
    doc = ParsedDocument(
        title=payload["title"].strip() or path.stem,
        kind="pdf",
        blocks=blocks,
        pages=payload["pages"],
        pages_without_text=payload["empty_pages"],
    )
    if payload["mojibake"]:
        doc.warnings.append(t("{payload} garbled text span(s) (East-Asian text stored as Latin-1) decoded")
                             .format(payload=payload['mojibake']))
    doc.decoration_pages = list(payload["decorations"])
    doc.decorations_skipped = len(doc.decoration_pages)
    moved = state_header(doc, _table_blocks(blocks, payload["tables"]))
    specs = [VisualSpec(page, kind, clip, context, moved(after))
             for page, kind, clip, context, after in payload["specs"]]
    doc.planned = [(s.page, s.kind) for s in specs]
    read_into(doc, path, specs, reader)
    _warn_unread(doc, specs, reader)
    return doc


def _warn_unread(doc: ParsedDocument, specs: list[VisualSpec], reader: VisualReader | None) -> None:
    """Say which pages gave no text: all of them, or the scanned ones left unread because OCR is off."""
    if not doc.blocks:
        doc.warnings.append(
            t("no text layer on any of {pages} pages (scanned?); OCR is needed to read it").format(pages=doc.pages)
            if reader is None else t("nothing could be read on any of {pages} pages").format(pages=doc.pages)
        )
    elif reader is None and specs:
        scans = [s.page for s in specs if s.kind == "scan"]
        if scans:
            doc.warnings.append(t("{count} page(s) without a usable text layer were not read (OCR is off): {value}")
                                 .format(count=len(scans), value=_pages(scans)))


def _table_blocks(blocks: list[Block], tables: list[tuple[int, str, list[tuple[str, str]]]],
                  ) -> list[tuple[int, list[tuple[str, str]]]]:
    """Where each spec table's block landed, in reading order (a table taken for a running line is gone)."""
    out: list[tuple[int, list[tuple[str, str]]]] = []
    start = 0
    for page, text, pairs in tables:
        for i in range(start, len(blocks)):
            if blocks[i].page == page and blocks[i].text == text:
                out.append((i, [(n, v) for n, v in pairs]))
                start = i + 1
                break
    return out


def _pages(pages: list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:12])
    return shown + (f" and {len(pages) - 12} more" if len(pages) > 12 else "")
