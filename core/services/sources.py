"""A cited passage at its place in its source (issue 61): ``Engine.source`` and what ``biny show`` prints.

Everything is read on demand and nothing is written: in an encrypted space the passage and its neighbours are
opened in memory only, and the original file is read where it lies (a PDF page is placed and rendered from it,
never copied). The document's text around the span is put back together from the neighbouring passages, which
are exact slices of it (chunking/splitter.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from biny.core.crypto.space import SpaceCrypto
from biny.core.errors import BinyError, DataTampered
from biny.core.i18n import t
from biny.core.ingest.job import file_hash
from biny.core.ingest.locate import Located, locate, locate_in_file, ocr_chars, ocr_key, open_pdf
from biny.core.results import SourceView
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.store.catalog import DocumentRow, SpaceRow
from biny.core.store.lance import ChunkRecord

# Characters of the document shown before and after the span.
AROUND = 400
_ID = re.compile(r"^[0-9a-f]{6,32}$")
# A table row's text is its "field: value" lines (ingest/rows.py).
_FIELD = re.compile(r"^([^:\n]{1,80}):\s?(.*)$")


class Sources:
    def __init__(self, folder: DataFolder, keys: KeySession) -> None:
        self.folder = folder
        self.keys = keys

    # ---- finding the passage ------------------------------------------------------------------
    def resolve(self, ref: str, space: str | None = None) -> tuple[str, str]:
        """(space, chunk_id) of a citation reference: a chunk id or a unique prefix of one (6+ hex digits),
        optionally ``SPACE:`` in front; looked up in ``space`` or, without one, in every space."""
        ref = ref.strip()
        if ":" in ref and space is None:
            space, ref = ref.rsplit(":", 1)
        ref = ref.lower()
        if not _ID.match(ref):
            raise BinyError(t("{ref!r} is not a passage id (6 to 32 hexadecimal digits).").format(ref=ref))
        rows = [self.folder.catalog.spaces.named(space)] if space else self.folder.catalog.spaces.all()
        found: list[tuple[str, str]] = []
        for row in rows:
            if self.folder.chunks.count(row.space_id) == 0:
                continue
            ids = self.folder.chunks.scan(row.space_id, ["chunk_id"], f"starts_with(chunk_id, '{ref}')")
            found += [(row.name, c) for c in ids.column("chunk_id").to_pylist()]
        if not found:
            raise BinyError(t("No passage {ref} in {where}.").format(
                ref=ref, where=repr(space) if space else t("any space")))
        if len(found) > 1:
            raise BinyError(t("{ref} names {n} passages; give more of its digits.").format(ref=ref, n=len(found)))
        return found[0]

    def _record(self, row: SpaceRow, chunk_id: str) -> ChunkRecord:
        got = self.folder.chunks.fetch(row.space_id, [chunk_id])
        if chunk_id not in got:
            raise BinyError(t("No passage {ref} in {where}.").format(ref=chunk_id, where=repr(row.name)))
        return got[chunk_id]

    # ---- the view -----------------------------------------------------------------------------
    def view(self, space: str, chunk_id: str) -> SourceView:
        row = self.folder.catalog.spaces.named(space)
        crypto = self.keys.crypto(row)
        rec = crypto.open_record(self._record(row, chunk_id))
        doc = self.folder.catalog.docs.get(rec.doc_id)
        if doc is None:
            raise BinyError(t("Passage {ref} belongs to no document.").format(ref=chunk_id))
        doc = crypto.open_meta(doc)
        touched = self.folder.catalog.passages.touched(row.space_id).get(chunk_id, set())
        original = self._original(row, crypto, chunk_id) if "edit" in touched else ""
        out = SourceView(space=space, chunk_id=chunk_id, doc_id=doc.doc_id, document=doc.title, kind=doc.kind,
                         path=doc.path, present=self._present(doc, crypto), page=rec.page, page_end=rec.page_end,
                         heading_path=list(rec.heading_path), span=(rec.char_start, rec.char_end), text=rec.text,
                         disabled="disable" in touched, edited="edit" in touched, note="note" in touched,
                         original=original)
        if not out.note:
            out.before, out.after = self._around(row, crypto, rec)
        if doc.kind == "row":
            out.fields = [(m.group(1).strip(), m.group(2)) for line in rec.text.split("\n")
                          if (m := _FIELD.match(line))]
        if doc.kind == "pdf" and out.present and rec.page and not out.note:
            self._place(out, doc, original or rec.text, crypto)
        return out

    def _present(self, doc: DocumentRow, crypto: SpaceCrypto) -> bool:
        """Is the original file still where it was, with the content that was ingested?"""
        path = Path(doc.path)
        try:
            return path.is_file() and crypto.stored_hash(file_hash(path)) == doc.content_hash
        except (OSError, BinyError):
            return False

    def _around(self, row: SpaceRow, crypto: SpaceCrypto, rec: ChunkRecord) -> tuple[str, str]:
        """The document's text just before and after the span, from the passages that overlap that stretch."""
        lo, hi = max(0, rec.char_start - AROUND), rec.char_end + AROUND
        where = (f"doc_id = '{rec.doc_id}' AND char_end > {int(lo)} AND char_start < {int(hi)}")
        cols = ["chunk_id", "doc_id", "text", "char_start", "char_end", "ct"]
        text: dict[int, str] = {}
        for r in self.folder.chunks.scan(row.space_id, cols, where).to_pylist():
            try:
                body = crypto.open_text(r["chunk_id"], r["doc_id"], r["text"], r["ct"])
            except DataTampered:
                continue
            if len(body) != r["char_end"] - r["char_start"]:
                continue  # an edited passage or a note: no longer a slice of the document
            for i, ch in enumerate(body):
                text.setdefault(r["char_start"] + i, ch)
        before = "".join(text.get(i, "") for i in range(lo, rec.char_start))
        after = "".join(text.get(i, "") for i in range(rec.char_end, hi))
        return before, after

    def _original(self, row: SpaceRow, crypto: SpaceCrypto, chunk_id: str) -> str:
        """The text ingest stored for an edited passage (its first edit's ``before``)."""
        from biny.core.store.passages import row_record

        for entry in self.folder.catalog.passages.of(row.space_id, chunk_id):
            if entry.action == "edit" and entry.before:
                return crypto.open_record(row_record(entry.before)).text
        return ""

    def _place(self, out: SourceView, doc: DocumentRow, text: str, crypto: SpaceCrypto) -> None:
        """PDF: the passage's rectangles on its pages and their sizes; on a scanned page, on its OCR lines."""
        assert out.page is not None
        ocr = set(doc.visual_pages.get("pages_ocr", []))
        out.scanned = any(p in ocr for p in range(out.page, (out.page_end or out.page) + 1))
        try:
            found = (self._on_ocr(out, doc, text, crypto, ocr) if out.scanned else
                     locate_in_file(doc.path, out.page, out.page_end, text))
            with open_pdf(doc.path) as pdf:
                first, last = max(1, out.page - 1), min(out.page_end or out.page, pdf.page_count)
                out.page_sizes = {n: (float(pdf[n - 1].rect.width), float(pdf[n - 1].rect.height))
                                  for n in range(first, last + 1)}
        except Exception:  # noqa: BLE001 — MuPDF raises many types; the view still shows the text and its place
            return
        out.rects, out.coverage = found.rects, found.coverage

    def _on_ocr(self, out: SourceView, doc: DocumentRow, text: str, crypto: SpaceCrypto, ocr: set[int]) -> Located:
        """A scanned passage placed on the OCR lines ingest kept for its pages (and the page before, as for a text
        layer); each page's words go into the view, drawn over the page image."""
        assert out.page is not None
        pages = []
        for n in range(max(1, out.page - 1), (out.page_end or out.page) + 1):
            stored = crypto.stored_hash(ocr_key(doc.content_hash, n))
            kept = self.folder.catalog.notes.get(stored) if n in ocr else None
            if kept is None:
                continue  # a page with a text layer, or ingested before the lines were kept: nothing to place on
            chars, out.words[n] = ocr_chars(n, [tuple(b) for b in json.loads(crypto.open_note(stored, kept))])
            pages.append(chars)
        return locate(pages, text) if pages else Located()

