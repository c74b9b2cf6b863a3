"""A curator's corrections of single passages (issue 61): ``engine.passages``.

``disable``/``enable`` take a passage out of retrieval and back (it stays stored); ``edit`` replaces its text,
re-embedding that passage alone; ``note`` adds a passage to a document; ``undo`` reverses the latest action on a
passage; ``history`` lists them with author and time. In an encrypted space the new text is sealed and its keys
blinded like any passage, and an edit's previous revision is kept as it was stored (sealed). The writes' order and
their recovery after a kill are store/passages.py's.
"""

from __future__ import annotations

import getpass
import uuid
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pyarrow as pa

from biny.core.chunking.header import embedding_input
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.ingest.keys import passage_keys
from biny.core.results import PassageChange
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.services.sources import Sources
from biny.core.store.catalog import DocumentRow, SpaceRow, now
from biny.core.store.catalog.passages import PassageEntry
from biny.core.store.lance import ChunkRecord, to_arrow
from biny.core.store.passages import row_bytes, row_record
from biny.core.text.terms import index_terms

ACTIONS = ("disable", "enable", "edit", "note")


def default_author() -> str:
    """Who made a change when nobody says: the operating system's user."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid (a container)
        return "unknown"


class Passages:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession,
                 forget: Callable[[str], None] | None = None,
                 reindex: Callable[[str, list[str]], int] | None = None) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        # What the session keeps per space beside the matrix (the retriever's sentence vectors of a passage, read
        # from its text): dropped after a change, so an edited passage is never checked by its old sentences.
        self.forget = forget or (lambda _space_id: None)
        # The structured index's rows of the documents whose text changed (services/structured.py refresh_rows): an
        # edited table row's fields are what the index counts and filters, so they follow the edit and its undo. A
        # note is no part of the row's text: it changes no field.
        self.reindex = reindex or (lambda _space, _doc_ids: 0)

    def resolve(self, ref: str, space: str | None = None) -> tuple[str, str]:
        """(space, chunk_id) of a passage named by its id or a unique prefix of it (services/sources.py)."""
        return Sources(self.folder, self.keys).resolve(ref, space)

    def _entry(self, row: SpaceRow, rec: ChunkRecord, action: str, author: str | None, state: str = "done",
               before: bytes | None = None) -> PassageEntry:
        return PassageEntry(uuid.uuid4().hex, 0, row.space_id, rec.chunk_id, rec.doc_id, action,
                            author or default_author(), now(), state, before)

    def _stored(self, row: SpaceRow, chunk_id: str) -> ChunkRecord:
        got = self.folder.chunks.fetch(row.space_id, [chunk_id])
        if chunk_id not in got:
            raise BinyError(t("No passage {ref} in {where}.").format(ref=chunk_id, where=repr(row.name)))
        return got[chunk_id]

    # ---- disable / enable -----------------------------------------------------------------------
    def disable(self, space: str, chunk_id: str, *, author: str | None = None) -> None:
        """Keep the passage stored but never retrieve it."""
        self._mark(space, chunk_id, "disable", author)

    def enable(self, space: str, chunk_id: str, *, author: str | None = None) -> None:
        self._mark(space, chunk_id, "enable", author)

    def _mark(self, space: str, chunk_id: str, action: str, author: str | None) -> None:
        self.folder.writer.check_writable()
        row = self.folder.catalog.spaces.named(space)
        rec = self._stored(row, chunk_id)
        if (chunk_id in self.folder.catalog.passages.disabled(row.space_id)) == (action == "disable"):
            return  # already so: nothing to log, nothing to undo
        self.folder.writer.curator.mark_passage(self._entry(row, rec, action, author))
        self.forget(row.space_id)

    def disabled(self, space: str) -> dict[str, str]:
        """chunk_id → doc_id of the space's disabled passages (the Library counts them per document)."""
        return self.folder.catalog.passages.disabled(self.folder.catalog.spaces.named(space).space_id)

    # ---- edit and note ----------------------------------------------------------------------------
    def edit(self, space: str, chunk_id: str, text: str, *, author: str | None = None) -> None:
        """Replace the passage's text: only it is re-embedded; the row as it was is kept for undo."""
        text = self._checked(text)
        self.folder.writer.check_writable()
        row = self.folder.catalog.spaces.named(space)
        self.models.check_space(row, self.folder.chunks)
        crypto = self.keys.crypto(row)
        stored = self._stored(row, chunk_id)
        before = row_bytes(self.folder.chunks.rows(row.space_id, [chunk_id]))
        plain = crypto.open_record(replace(stored))
        title = self._title(row, plain.doc_id)
        new = replace(plain, text=text, ct=b"")
        rows = self._row(row, new, title)
        # ISSUE 57 CALL SITE: once passages carry stored sentence vectors, refresh this passage's here (from
        # ``text``), into ``rows`` or beside them: it is the one passage an edit changes.
        self.folder.writer.curator.edit_passage(self._entry(row, stored, "edit", author, "pending", before), rows)
        self.forget(row.space_id)
        self.reindex(space, [plain.doc_id])

    def note(self, space: str, doc_id: str, text: str, *, author: str | None = None) -> str:
        """Add a note passage to a document; returns its chunk id. It answers like any passage of the document;
        it has no place in the source, so it is placed after the document's end."""
        text = self._checked(text)
        self.folder.writer.check_writable()
        row = self.folder.catalog.spaces.named(space)
        self.models.check_space(row, self.folder.chunks)
        doc = self._document(row, doc_id)
        title = self._title(row, doc_id)
        ordinals = self.folder.chunks.scan(row.space_id, ["ordinal"], f"doc_id = '{doc.doc_id}'").column("ordinal")
        rec = ChunkRecord(chunk_id=uuid.uuid4().hex, doc_id=doc.doc_id,
                          ordinal=max(ordinals.to_pylist(), default=-1) + 1, text=text, char_start=doc.chars,
                          char_end=doc.chars + len(text), page=None, page_end=None, heading_path=[],
                          tokens=0, est_tokens=0.0, ids=[], terms=[], aspects=[])
        entry = self._entry(row, rec, "note", author, "pending")
        self.folder.writer.curator.add_note(entry, self._row(row, rec, title))
        self.forget(row.space_id)
        return rec.chunk_id

    def _checked(self, text: str) -> str:
        text = text.strip()
        if not text:
            raise BinyError(t("A passage needs some text."))
        return text

    def _document(self, row: SpaceRow, doc_id: str) -> DocumentRow:
        doc = self.folder.catalog.docs.get(doc_id)
        if doc is None or doc.space_id != row.space_id or doc.status not in ("active", "archived"):
            raise BinyError(t("No document {missing} in space {space!r}.").format(missing=doc_id, space=row.name))
        return doc

    def _title(self, row: SpaceRow, doc_id: str) -> str:
        return self.keys.crypto(row).open_meta(self._document(row, doc_id)).title

    def _row(self, row: SpaceRow, rec: ChunkRecord, title: str) -> pa.Table:
        """The passage's row as stored: keys, tokens and vector from its new text; sealed where the space is."""
        emb = self.models.embedder
        header = self.folder.settings.chunking.contextual_header
        text_in = embedding_input(title, rec.heading_path, rec.text) if header else rec.text
        keys = passage_keys(rec.text, title, index_terms(title))
        rec.ids, rec.terms, rec.aspects = keys.ids, keys.terms, keys.aspects
        rec.tokens = emb.token_count(text_in)
        rec.est_tokens = float(rec.tokens)
        vec = np.asarray(emb.embed_passages([text_in]), dtype=np.float32)
        if not np.isfinite(vec).all():
            raise BinyError(t("The embedder returned invalid vectors for {name}.").format(name=title))
        return to_arrow([self.keys.crypto(row).seal_record(rec)], vec)

    # ---- history and undo ---------------------------------------------------------------------------
    def history(self, space: str, chunk_id: str) -> list[PassageChange]:
        """The passage's actions, oldest first; an edit names the text it replaced (opened in memory)."""
        row = self.folder.catalog.spaces.named(space)
        crypto = self.keys.crypto(row)
        out = []
        for e in self.folder.catalog.passages.of(row.space_id, chunk_id):
            before = crypto.open_record(row_record(e.before)).text if e.action == "edit" and e.before else ""
            out.append(PassageChange(e.entry_id, e.chunk_id, e.action, e.author, e.at, e.state, before))
        return out

    def undo(self, space: str, chunk_id: str) -> PassageChange:
        """Reverse the latest action still in force on the passage; returns it."""
        self.folder.writer.check_writable()
        row = self.folder.catalog.spaces.named(space)
        done = [e for e in self.folder.catalog.passages.of(row.space_id, chunk_id) if e.state == "done"]
        if not done:
            raise BinyError(t("Nothing to undo on passage {ref}.").format(ref=chunk_id))
        last = done[-1]
        self.folder.writer.curator.undo_passage(last)
        self.forget(row.space_id)
        if last.action == "edit":
            self.reindex(space, [last.doc_id])
        return PassageChange(last.entry_id, last.chunk_id, last.action, last.author, last.at, "undone")
