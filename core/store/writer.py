"""The single writer (ARCHITECTURE: one writer).

Every change to a data folder goes through ``StoreWriter``, serialised by one lock;
the stores' mutating methods refuse to run outside it (``store/guard.py``).
Visibility protocol for a document:

1. catalog row inserted with status ``pending`` (invisible);
2. its chunks appended to the space's Lance table (still invisible: retrieval only
   sees chunks of ``active`` documents);
3. one DuckDB transaction flips it to ``active`` and retires earlier revisions;
4. the retired revisions' chunks are deleted from Lance.

A crash after 1 or 2 leaves a ``pending`` row; after 3, stale chunks. ``recover``
(run at every open) deletes both, so an interrupted ingest leaves nothing visible
and nothing half-stored.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from biny.core.embed.base import Vectors
from biny.core.errors import BinyError, DataTampered, ReadOnlyFolder
from biny.core.i18n import t
from biny.core.store import backup, rowmac
from biny.core.store.catalog import Catalog, DocumentRow, SpaceRow
from biny.core.store.catalog.passages import PassageEntry
from biny.core.store.facts import FactRow, FactTable
from biny.core.store.failures import storage_problem
from biny.core.store.guard import writing
from biny.core.store.integrity import chunk_digest, mismatches
from biny.core.store.lance import ChunkRecord, ChunkStore
from biny.core.store.lock import FolderLock
from biny.core.store.passages import doc_ids_digest, row_table, settle
from biny.core.store.review import ReviewRow, ReviewStore
from biny.core.store.staging import StagingArea
from biny.core.store.structured import StructuredStore
from biny.core.store.vectors import VectorCache

if TYPE_CHECKING:
    from biny.core.crypto.memory import MemoryCrypto

# How long a write waits for another process's write to end (a baseline saved, a space created) before it is
# refused; an ingest holding the lock for minutes is named in the refusal.
WRITE_WAIT_S = 10.0


class StoreWriter:
    def __init__(self, catalog: Catalog, chunks: ChunkStore, vectors: VectorCache) -> None:
        self.catalog = catalog
        self.chunks = chunks
        self.vectors = vectors
        self.structured = StructuredStore(catalog)
        self.review = ReviewStore(catalog)
        self._lock = threading.Lock()
        # The data folder's writer lock (store/lock.py); None: this process alone uses the stores.
        self.folder_lock: FolderLock | None = None
        # Chunk ids written per pending document: their digest is recorded at commit (store/integrity.py).
        self._added: dict[str, list[str]] = defaultdict(list)

        # A team space (store/remote.py): why this machine may not write (None: it may), and what runs
        # around each write — the lease confirmed before, the catalog published after.
        self.read_only: str | None = None
        self.before_write: list[Callable[[], None]] = []
        self.after_write: list[Callable[[], None]] = []
        # A space's row-code key (store/rowmac.py), set by the key session: every chunk row written here gets its
        # code. None (a writer without keys, in tests) writes rows without codes.
        self.mac_key: Callable[[SpaceRow], bytes | None] | None = None
        # Vectors of documents not committed yet (store/staging.py, issue 58); None: not kept (a writer in tests).
        self.staging: StagingArea | None = None
        # Its writes by responsibility (issue 56), each under this writer's one lock.
        self.upkeep = WriterUpkeep(self)
        self.keys = KeyWriter(self)
        self.docs = DocumentWriter(self)
        self.curator = CuratorWriter(self)
        self.web = WebWriter(self)
        self.memory = MemoryWriter(self)

    def check_writable(self) -> None:
        """Refuse up front what would be refused at its first write (a team space's reader)."""
        if self.read_only is not None:
            raise ReadOnlyFolder(self.read_only)

    @contextmanager
    def _write(self, *, publish: bool = True) -> Iterator[None]:
        """One write under the lock. ``publish=False``: nothing another machine could see changed (passages of a
        pending document), so the after-write hooks — a team space's catalog upload — are skipped."""
        if self.read_only is not None:
            raise ReadOnlyFolder(self.read_only)
        hooks = self.after_write if publish else []
        with self._lock, self._folder_lock(), self.catalog.db.writing():
            for check in self.before_write:
                check()
            try:
                with writing():
                    yield
            except BaseException:
                # What the failed write left committed is published too, but a failure to publish must not
                # hide the write's own error.
                try:
                    for hook in hooks:
                        hook()
                except BinyError:
                    pass
                raise
            for hook in hooks:
                hook()

    @contextmanager
    def _local_write(self) -> Iterator[None]:
        """A write to this machine's own files only (staged vectors): the writer lock, no catalog, no team lease
        confirmed and nothing published — another machine never reads them."""
        if self.read_only is not None:
            raise ReadOnlyFolder(self.read_only)
        with self._lock, self._folder_lock(), writing():
            yield

    def _folder_lock(self) -> AbstractContextManager[None]:
        """The data folder's writer lock for one write (issue 58), waiting a little for another process's short
        write; an ingest holds it for its whole run (``holding``), so a second writer is refused, named."""
        if self.folder_lock is None:
            return nullcontext()
        return self.folder_lock.holding(t("writing"), wait_s=WRITE_WAIT_S)

    def holding(self, purpose: str) -> AbstractContextManager[None]:
        """Hold the writer lock across many writes (an ingest run): no other process writes meanwhile, and none
        cleans up this run's pending documents as if it had died."""
        if self.folder_lock is None:
            return nullcontext()
        return self.folder_lock.holding(purpose, wait_s=WRITE_WAIT_S)

    # ---- row codes (store/rowmac.py, issue 59) -----------------------------------------------------
    def _key(self, space: SpaceRow) -> bytes | None:
        return self.mac_key(space) if self.mac_key is not None else None

    def _key_of(self, space_id: str) -> bytes | None:
        """The row-code key of a corrected passage's space (issue 61's edits are coded like ingest's rows)."""
        return self._key(self.catalog.spaces.by_id(space_id)) if self.mac_key is not None else None

    # ---- spaces and keys --------------------------------------------------------------------
    def create_space(self, row: SpaceRow) -> None:
        with self._write():
            self.catalog.spaces.insert(row)
            if not row.encrypted:
                self.catalog.spaces.set_row_key(row.space_id, rowmac.new_plain_key())
            key = self._key(row) if row.encrypted else self.catalog.spaces.row_key(row.space_id)
            if key is not None:  # empty, so bound from the start
                self.catalog.spaces.set_binding(row.space_id, rowmac.bound_mark(key, row.space_id))
            self.chunks.ensure_table(row.space_id, row.dim)

    def delete_space(self, space: SpaceRow) -> None:
        with self._write():
            self.catalog.delete_space(space.space_id)
            self.chunks.drop_table(space.space_id)
            if self.staging is not None:
                self.staging.drop(space.space_id)
            self.vectors.invalidate(space.space_id)

    def import_space(self, lance_dir: Path, archive: Path, name: str | None) -> tuple[str, str]:
        """Restore a backup (core/store/backup.py); nothing is left behind if it fails."""
        with self._write():
            space_id, space_name = backup.import_space(self.catalog, lance_dir, archive, name)
            # A backup made before a column was added (issue 57: sentence vectors) gains it.
            self.chunks.maintenance.migrate()
            self.vectors.invalidate(space_id)
        self.upkeep.bind_plain_spaces()  # an export made before row codes: a plaintext space gets them now
        return space_id, space_name

    def save_baselines(self, space_id: str, chunk_count: int, dists: dict[str, dict[str, Any]]) -> None:
        with self._write():
            for kind, dist in dists.items():
                self.catalog.baselines.save(space_id, kind, chunk_count, dist)

    def compact(self, space_id: str) -> None:
        """Merge small Lance fragments and drop superseded versions (after an ingest run)."""
        with self._write():
            self.chunks.maintenance.compact(space_id)

    def set_statuses(self, space_id: str, doc_ids: list[str], status: str) -> None:
        """Archive, restore or delete documents; many at once (a table's rows): one statement, one Lance delete.
        ``damaged`` (biny doctor) also removes the passages: what is left of them cannot be trusted."""
        with self._write():
            self.catalog.docs.set_statuses(doc_ids, status)
            if status in ("deleted", "damaged"):
                self.chunks.delete_docs(space_id, doc_ids)
            self.vectors.invalidate(space_id)

    def remove_passages(self, space_id: str, doc_ids: list[str]) -> None:
        """Passages of documents the catalog does not list (biny doctor --repair)."""
        with self._write():
            self.chunks.delete_docs(space_id, doc_ids)
            self.vectors.invalidate(space_id)

    def rekey(self, space_id: str, keys: dict[str, tuple[list[str], list[str], list[str]]], doc_ids: list[str],
              version: int) -> None:
        """New key lists (ids, terms, aspects) for stored passages, by chunk id (biny doctor --repair).

        The passages are rewritten in one Lance commit, then the documents' key version is recorded: a
        failure between the two leaves the documents reported as outdated, and re-keying again is harmless.
        """
        with self._write():
            self.chunks.maintenance.rekey(space_id, keys, self._key(self.catalog.spaces.by_id(space_id)))
            self.catalog.docs.set_keys_version(doc_ids, version)
            self.vectors.invalidate(space_id)

    def store_sentence_vectors(self, space_id: str, blobs: dict[str, bytes]) -> None:
        """Sentence vectors made for passages stored without them (issue 57; chunk id → blob as stored). Nothing
        a reader answers from changes but how fast: the matrix stays."""
        with self._write():
            self.chunks.maintenance.set_sentence_vectors(space_id, blobs, self._key_of(space_id))

    def replace_space_vectors(
        self, space: SpaceRow, records: list[ChunkRecord], vectors: Vectors, model: str, dim: int
    ) -> None:
        """Re-embed: swap a space's whole chunk table for one written by another model. Refused while a stored row
        fails its code (issue 59): its rows would be written back under fresh codes, the change kept for good."""
        with self._write():
            self.upkeep.refuse_tampered(space)
            self.chunks.drop_table(space.space_id)
            self.chunks.ensure_table(space.space_id, dim)
            self.chunks.add(space.space_id, records, vectors, self._key(space))
            self.catalog.spaces.set_model(space.space_id, model, dim)
            self.vectors.invalidate(space.space_id)

    # ---- the structured index (S1, S3): rows only, nothing embedded --------------------------------
    def save_index(self, space_id: str, spec: str, generation: int, rows: list[tuple[str, int, str]]) -> None:
        # Every write codes what it stores under the space's row-code key (issue 59: store/structured.py).
        with self._write():
            self.structured.replace(space_id, spec, generation, rows, self._key_of(space_id))

    def save_index_spec(self, space_id: str, spec: str, generation: int) -> None:
        with self._write():
            self.structured.set_spec(space_id, spec, generation, self._key_of(space_id))

    def update_index(self, space_id: str, drop: list[str], add: list[tuple[str, int, str]], generation: int) -> None:
        with self._write():
            self.structured.update_rows(space_id, drop, add, generation, self._key_of(space_id))

    def bind_index(self, space_id: str, key: bytes) -> int:
        """Codes for an index written before they existed (``doctor --repair``; plaintext spaces at open)."""
        with self._write():
            return self.structured.bind(space_id, key)

    def drop_index(self, space_id: str) -> None:
        with self._write():
            self.structured.drop(space_id)

    def add_eval_run(self, run_id: str, space_id: str, name: str, metrics: str, payload: str) -> None:
        with self._write():
            self.catalog.evals.add(run_id, space_id, name, metrics, payload)



class WriterUpkeep:
    """``StoreWriter.upkeep``: at open and at repair — migrations, recovery of interrupted writes, row codes for
    data written before them."""

    def __init__(self, writer: StoreWriter) -> None:
        self._w = writer

    def migrate(self) -> None:
        """Bring the catalog schema and older chunk tables up to date (at open, never in a read)."""
        with self._w._write():
            self._w.catalog.migrate()
            self._w.chunks.maintenance.migrate()

    def recover(self) -> list[str]:
        """Clean what an interrupted run left behind, and mark damaged the documents whose stored passages
        no longer match the catalog (issue 22); returns human-readable notes."""
        notes: list[str] = []
        with self._w._write():
            if self._w.staging is not None:
                self._w.staging.prune({s.space_id for s in self._w.catalog.spaces.all()})
            for space in self._w.catalog.spaces.all():
                try:
                    self._recover_space(space, notes)
                except Exception as exc:
                    if storage_problem(exc) is None:
                        raise
                    notes.append(self._unreadable(space, exc))
        return notes

    @staticmethod
    def _unreadable(space: SpaceRow, exc: Exception) -> str:
        """Issue 59: one space's unreadable data file must not keep the folder (and `biny doctor`) from opening."""
        return t("warning: {note}").format(note=t(
            "{name}: its passages could not be read ({error}); run `biny doctor --deep` to see what is damaged, "
            "and restore the space from its export or a backup").format(name=space.name, error=exc))

    def _recover_space(self, space: SpaceRow, notes: list[str]) -> None:
        if settle(self._w.catalog, self._w.chunks, space.space_id):  # corrections a kill caught (issue 61)
            self._w.vectors.invalidate(space.space_id)
        pending, retired = self._w.catalog.docs.pending_and_retired(space.space_id)
        doc_ids, chunk_ids = self._w.chunks.ids(space.space_id)
        in_lance = set(doc_ids)
        known = self._w.catalog.docs.known_ids(space.space_id)
        orphans = sorted(in_lance - known)
        if orphans:
            self._w.chunks.delete_docs(space.space_id, orphans)
        for doc_id in pending:
            doc = self._w.catalog.docs.get(doc_id)
            self._w.catalog.docs.drop(doc_id)
            if doc is not None:
                self._w.catalog.ingest_log.add(space.space_id, doc.path, "interrupted",
                                            t("an earlier ingest stopped mid-way; cleaned up"))
                # An encrypted space stores a keyed hash of the path, meaningless to a person, and the
                # folder opens before any key: the note then says what happened without a name.
                shown = t("a document (its name is sealed)") if doc.path.startswith("bi:") else doc.path
                notes.append(f"{space.name}: removed half-ingested {shown}; ingest it again")
        stale = [d for d in retired if d in in_lance]
        if stale:
            self._w.chunks.delete_docs(space.space_id, stale)
        damaged = mismatches(self._w.catalog.docs.expected_chunks(space.space_id), doc_ids, chunk_ids)
        if damaged:
            self._w.catalog.docs.set_statuses(sorted(damaged), "damaged")
            self._w.chunks.delete_docs(space.space_id, sorted(damaged))
            notes.append(t("{name}: {count} document(s) marked damaged — their stored passages no longer "
                           "match the catalog ({which}). Questions to the space stop with an integrity error until "
                           "you re-ingest them or run `biny doctor --repair`.").format(
                               name=space.name, count=len(damaged), which="; ".join(sorted(set(damaged.values())))))
        if orphans or pending or stale or damaged:
            self._w.vectors.invalidate(space.space_id)

    def unlisted_tables(self) -> list[str]:
        """Notes on chunk tables on disk that no space of the catalog lists (issue 59: a deleted or replaced
        catalog file made them look like an empty folder). Never deleted here: they may be the only copy."""
        listed = {ChunkStore.table_name(s.space_id) for s in self._w.catalog.spaces.all()}
        unlisted = sorted(n for n in self._w.chunks.versions() if n not in listed)
        if not unlisted:
            self._w.catalog.spaces.unlisted = ""
            return []
        self._w.catalog.spaces.unlisted = t(
            "The passages and vectors of {n} space(s) are on disk but the catalog does not list them: the catalog "
            "(catalog.duckdb) is missing or was replaced. Restore catalog.duckdb from a backup of this folder, or "
            "import the spaces' exports (`biny space import FILE.tar`); run `biny doctor --deep` to see what is "
            "there.").format(n=len(unlisted))
        return [t("warning: {note}").format(note=self._w.catalog.spaces.unlisted)]

    def bind_rows(self, space: SpaceRow, key: bytes) -> int:
        """Give every passage stored without a code its code and mark the space bound; returns how many were
        coded. A row whose code does not match keeps it (binding never launders a changed row)."""
        with self._w._write():
            n = self._w.chunks.maintenance.bind(space.space_id, key)
            self._w.catalog.spaces.set_binding(space.space_id, rowmac.bound_mark(key, space.space_id))
            self._w.vectors.invalidate(space.space_id)
        return n

    def refuse_tampered(self, space: SpaceRow) -> None:
        key = self._w._key(space)
        if key is None:
            return
        bound = rowmac.is_bound(key, space.space_id, self._w.catalog.spaces.binding(space.space_id))
        bad = sum(int(rowmac.mismatched(key, part, bound=bound).sum())
                  for part in self._w.chunks.batches(space.space_id, rowmac.columns()))
        if bad:
            raise DataTampered(t("Space {space}: {n} passage(s) no longer match their integrity code, and rewriting "
                                 "the space would keep them under new codes. Run `biny doctor --deep`, then repair or "
                                 "restore the space first.").format(space=repr(space.name), n=bad))

    def bind_plain_spaces(self) -> None:
        """Plaintext spaces written before row codes: a key and a code for every row, once (at open). Encrypted
        ones need their key: ``biny doctor --repair`` binds them."""
        for space in self._w.catalog.spaces.all():
            if space.encrypted:
                continue
            key = self._w.catalog.spaces.row_key(space.space_id)
            if key is None:
                key = rowmac.new_plain_key()
                with self._w._write():
                    self._w.catalog.spaces.set_row_key(space.space_id, key)
            if not rowmac.is_bound(key, space.space_id, self._w.catalog.spaces.binding(space.space_id)):
                try:
                    self.bind_rows(space, key)
                except Exception as exc:
                    if storage_problem(exc) is None:
                        raise
            if self._w.structured.legacy(space.space_id):  # an index built before its rows had codes
                self._w.bind_index(space.space_id, key)


class KeyWriter:
    """``StoreWriter.keys``: wrapped keys of spaces and of the memory, and scrubbing freed blocks."""

    def __init__(self, writer: StoreWriter) -> None:
        self._w = writer

    def set_wrapped_key(self, space_id: str, kdf: str, wrapped: bytes) -> None:
        with self._w._write():
            self._w.catalog.spaces.set_wrapped_key(space_id, kdf, wrapped)

    def set_memory_key(self, tenant: str, owner: str, kdf: str, wrapped: bytes) -> None:
        with self._w._write():
            self._w.catalog.memory_keys.set(tenant, owner, kdf, wrapped)

    def scrub(self) -> None:
        """Rewrite the catalog file so overwritten values (old wrapped keys and salts, plaintext since
        sealed) are gone from it, not only from its live rows (issue 22)."""
        with self._w._write():
            self._w.catalog.rewrite()


class DocumentWriter:
    """``StoreWriter.docs``: a document's writes while it is ingested, in the visibility protocol's order (module
    docstring), and the vectors staged meanwhile (store/staging.py, issue 58)."""

    def __init__(self, writer: StoreWriter) -> None:
        self._w = writer

    def begin_document(self, doc: DocumentRow) -> None:
        with self._w._write():
            self._w.catalog.docs.insert_pending(doc)

    def add_chunks(self, space: SpaceRow, records: list[ChunkRecord], vectors: Vectors) -> None:
        # Rows of a pending document: invisible until its commit, which publishes (one upload per embedding
        # batch of an unchanged catalog was the team space's ingest overhead).
        with self._w._write(publish=False):
            self._w.chunks.ensure_table(space.space_id, space.dim)
            self._w.chunks.add(space.space_id, records, vectors, self._w._key(space))
            for rec in records:
                self._w._added[rec.doc_id].append(rec.chunk_id)

    def commit_document(self, doc: DocumentRow) -> None:
        with self._w._write():
            doc.chunk_digest = chunk_digest(self._w._added.pop(doc.doc_id, []))
            retired = self._w.catalog.docs.activate(doc)
            self._w.vectors.invalidate(doc.space_id)
            self._w.chunks.delete_docs(doc.space_id, retired)

    def staged(self, space_id: str, group: str) -> list[bytes]:
        """What earlier runs staged for a document (a read)."""
        return [] if self._w.staging is None else self._w.staging.read(space_id, group)

    def stage(self, space_id: str, group: str, blob: bytes) -> None:
        """Keep one embedded batch of a document being ingested, until it commits."""
        if self._w.staging is not None:
            with self._w._local_write():
                self._w.staging.put(space_id, group, blob)

    def unstage(self, space_id: str, group: str | None = None) -> None:
        """Forget a committed document's staged batches, or all of a space's (``group`` None: a run ended)."""
        if self._w.staging is not None:
            with self._w._local_write():
                self._w.staging.drop(space_id, group)

    def begin_documents(self, docs: list[DocumentRow]) -> None:
        with self._w._write():
            self._w.catalog.docs.insert_pending_many(docs)

    def commit_documents(self, docs: list[DocumentRow], *, by_path: bool = True) -> None:
        """Step 3 for a batch of documents: one transaction, then retired chunks deleted."""
        if not docs:
            return
        with self._w._write():
            for doc in docs:
                doc.chunk_digest = chunk_digest(self._w._added.pop(doc.doc_id, []))
            retired = self._w.catalog.docs.activate_many(docs, by_path=by_path)
            self._w.vectors.invalidate(docs[0].space_id)
            self._w.chunks.delete_docs(docs[0].space_id, retired)

    def abandon_documents(self, docs: list[DocumentRow], outcome: str, message: str) -> None:
        with self._w._write():
            for doc in docs:
                self._w._added.pop(doc.doc_id, None)
                self._w.chunks.delete_docs(doc.space_id, [doc.doc_id])
                self._w.catalog.docs.drop(doc.doc_id)
            if docs:
                self._w.catalog.ingest_log.add(docs[0].space_id, docs[0].path.split("#")[0], outcome, message)

    def abandon_document(self, doc: DocumentRow, outcome: str, message: str) -> None:
        """Remove a pending document and whatever chunks it had written."""
        with self._w._write():
            self._w._added.pop(doc.doc_id, None)
            self._w.chunks.delete_docs(doc.space_id, [doc.doc_id])
            self._w.catalog.docs.drop(doc.doc_id)
            self._w.catalog.ingest_log.add(doc.space_id, doc.path, outcome, message)

    def log(self, space_id: str, path: str, outcome: str, message: str = "", doc_id: str | None = None) -> None:
        with self._w._write():
            self._w.catalog.ingest_log.add(space_id, path, outcome, message, doc_id)

    def put_note(self, key: str, note: str) -> None:
        with self._w._write():
            self._w.catalog.notes.put(key, note)


class CuratorWriter:
    """``StoreWriter.curator``: a curator's corrections of single passages (issue 61; the order is
    store/passages.py's)."""

    def __init__(self, writer: StoreWriter) -> None:
        self._w = writer

    def mark_passage(self, entry: PassageEntry) -> None:
        """Disable or enable a passage: one catalog write; the space's matrix is rebuilt without (or with) it."""
        with self._w._write():
            self._w.catalog.passages.add(entry)
            self._w.vectors.invalidate(entry.space_id)

    def edit_passage(self, entry: PassageEntry, rows: pa.Table) -> None:
        """The entry (pending, the row as it was in ``before``), the new row over the old one, then done."""
        with self._w._write():
            self._w.catalog.passages.add(entry)
            self._w.chunks.maintenance.replace_rows(entry.space_id, rows, self._w._key_of(entry.space_id))
            self._w.catalog.passages.set_state(entry.entry_id, "done")
            self._w.vectors.invalidate(entry.space_id)

    def add_note(self, entry: PassageEntry, rows: pa.Table) -> None:
        """The entry (pending), the note's row, then in one transaction: done, the document's count and digest."""
        with self._w._write():
            self._w.catalog.passages.add(entry)
            self._w.chunks.maintenance.add_rows(entry.space_id, rows, self._w._key_of(entry.space_id))
            count, digest = doc_ids_digest(self._w.chunks, entry.space_id, entry.doc_id)
            self._w.catalog.passages.settle_note(entry.entry_id, "done", entry.doc_id, count, digest)
            self._w.vectors.invalidate(entry.space_id)

    def undo_passage(self, entry: PassageEntry) -> None:
        """Undo one done action: a mark is one write; an edit writes its ``before`` row back; a note's row goes."""
        with self._w._write():
            space_id = entry.space_id
            if entry.action in ("disable", "enable"):
                self._w.catalog.passages.set_state(entry.entry_id, "undone")
            elif entry.action == "edit":
                self._w.catalog.passages.set_state(entry.entry_id, "undoing")
                self._w.chunks.maintenance.replace_rows(space_id, row_table(entry.before or b""),
                                                        self._w._key_of(space_id))
                self._w.catalog.passages.set_state(entry.entry_id, "undone")
            else:
                self._w.catalog.passages.set_state(entry.entry_id, "undoing")
                self._w.chunks.maintenance.delete_chunks(space_id, [entry.chunk_id])
                count, digest = doc_ids_digest(self._w.chunks, space_id, entry.doc_id)
                self._w.catalog.passages.settle_note(entry.entry_id, "undone", entry.doc_id, count, digest)
            self._w.vectors.invalidate(space_id)


class WebWriter:
    """``StoreWriter.web``: the public-web fallback and its review queue (W1, W5–W7)."""

    def __init__(self, writer: StoreWriter) -> None:
        self._w = writer

    def set_web(self, space_id: str, on: bool) -> None:
        with self._w._write():
            self._w.catalog.spaces.set_web(space_id, on)

    def add_review(self, row: ReviewRow) -> None:
        with self._w._write():
            self._w.review.add(row)

    def decide_review(self, review_id: str, status: str, by: str, reason: str, doc_id: str | None,
                      payload: str | None = None) -> None:
        with self._w._write():
            self._w.review.decide(review_id, status, by, reason, doc_id, payload)

    def reject_pages(self, space_id: str, review_id: str, pages: list[tuple[str, str, int]]) -> None:
        with self._w._write():
            self._w.review.reject_pages(space_id, review_id, pages)

    def forget_rejection(self, review_id: str) -> None:
        with self._w._write():
            self._w.review.forget_rejection(review_id)


class MemoryWriter:
    """``StoreWriter.memory``: facts and conversation turns (M)."""

    def __init__(self, writer: StoreWriter) -> None:
        self._w = writer

    def migrate_facts(self, table: FactTable) -> None:
        with self._w._write():
            table.migrate()

    def seal_legacy_memory(self, table: FactTable, crypto: MemoryCrypto) -> int:
        """Seal facts and turns stored in plaintext by an earlier version; returns how many."""
        with self._w._write():
            rows = table.legacy()
            for row in rows:
                ct = crypto.seal_fact(row.fact_id, row.text, row.scope, row.source)
                table.update(row.fact_id, ct, None, row.model, row.updated_at, new_revision=False)
                table.set_scope_key(row.fact_id, crypto.scope_key(row.scope))
            turns = table.legacy_turns()
            for conversation_id, n, _role, content in turns:
                key = crypto.conversation_key(conversation_id)
                table.seal_turn(conversation_id, n, key, crypto.seal_turn(key, content))
            if rows or turns:
                self._w.catalog.rewrite()  # the plaintext, overwritten above, must not stay in freed blocks
        return len(rows) + len(turns)

    def bind_facts(self, table: FactTable, tenant: str, user: str, mark: str) -> int:
        """Codes for the owner's facts written before they existed, then the mark that every fact has one."""
        with self._w._write():
            n = table.bind()
            self._w.catalog.memory_keys.set_binding(tenant, user, mark)
        return n

    def insert_fact(self, table: FactTable, row: FactRow, vector: list[float]) -> None:
        with self._w._write():
            table.insert(row, vector)

    def update_fact(self, table: FactTable, fact_id: str, ct: bytes, vector: list[float], model: str,
                    updated_at: datetime) -> None:
        with self._w._write():
            table.update(fact_id, ct, vector, model, updated_at, new_revision=True)

    def set_fact_status(self, table: FactTable, fact_id: str, status: str, updated_at: datetime) -> None:
        with self._w._write():
            table.set_status(fact_id, status, updated_at)

    def add_turn(self, table: FactTable, conversation_key: str, role: str, ct: bytes, added_at: datetime) -> None:
        with self._w._write():
            table.add_turn(conversation_key, role, ct, added_at)
