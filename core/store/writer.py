"""The single writer (ARCHITECTURE: one writer).

Every change to a data folder goes through ``StoreWriter``, serialised by one lock.
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

from biny.core.embed.base import Vectors
from biny.core.store.catalog import Catalog, DocumentRow, SpaceRow
from biny.core.store.lance import ChunkRecord, ChunkStore
from biny.core.store.vectors import VectorCache


class StoreWriter:
    def __init__(self, catalog: Catalog, chunks: ChunkStore, vectors: VectorCache) -> None:
        self.catalog = catalog
        self.chunks = chunks
        self.vectors = vectors
        self._lock = threading.Lock()

    def create_space(self, row: SpaceRow) -> None:
        with self._lock:
            self.catalog.insert_space(row)
            self.chunks.ensure_table(row.space_id, row.dim)

    def delete_space(self, space: SpaceRow) -> None:
        with self._lock:
            self.catalog.delete_space(space.space_id)
            self.chunks.drop_table(space.space_id)
            self.vectors.invalidate(space.space_id)

    def begin_document(self, doc: DocumentRow) -> None:
        with self._lock:
            self.catalog.insert_pending(doc)

    def add_chunks(self, space: SpaceRow, records: list[ChunkRecord], vectors: Vectors) -> None:
        with self._lock:
            self.chunks.ensure_table(space.space_id, space.dim)
            self.chunks.add(space.space_id, records, vectors)

    def commit_document(self, doc: DocumentRow) -> None:
        with self._lock:
            retired = self.catalog.activate(doc)
            self.vectors.invalidate(doc.space_id)
            self.chunks.delete_docs(doc.space_id, retired)

    def compact(self, space_id: str) -> None:
        """Merge small Lance fragments and drop superseded versions (after an ingest run)."""
        with self._lock:
            self.chunks.compact(space_id)

    def abandon_document(self, doc: DocumentRow, outcome: str, message: str) -> None:
        """Remove a pending document and whatever chunks it had written."""
        with self._lock:
            self.chunks.delete_docs(doc.space_id, [doc.doc_id])
            self.catalog.drop_document_row(doc.doc_id)
            self.catalog.log(doc.space_id, doc.path, outcome, message)

    def set_status(self, space_id: str, doc_id: str, status: str) -> None:
        with self._lock:
            self.catalog.set_status(doc_id, status)
            if status == "deleted":
                self.chunks.delete_docs(space_id, [doc_id])
            self.vectors.invalidate(space_id)

    def replace_space_vectors(
        self, space: SpaceRow, records: list[ChunkRecord], vectors: Vectors, model: str, dim: int
    ) -> None:
        """Re-embed: swap a space's whole chunk table for one written by another model."""
        with self._lock:
            self.chunks.drop_table(space.space_id)
            self.chunks.ensure_table(space.space_id, dim)
            self.chunks.add(space.space_id, records, vectors)
            self.catalog.set_space_model(space.space_id, model, dim)
            self.vectors.invalidate(space.space_id)

    def recover(self) -> list[str]:
        """Clean what an interrupted run left behind; returns human-readable notes."""
        notes: list[str] = []
        with self._lock:
            for space in self.catalog.spaces():
                pending, retired = self.catalog.pending_and_retired(space.space_id)
                in_lance = self.chunks.doc_ids(space.space_id)
                known = self.catalog.known_doc_ids(space.space_id)
                orphans = sorted(in_lance - known)
                if orphans:
                    self.chunks.delete_docs(space.space_id, orphans)
                for doc_id in pending:
                    doc = self.catalog.document(doc_id)
                    self.catalog.drop_document_row(doc_id)
                    if doc is not None:
                        self.catalog.log(space.space_id, doc.path, "interrupted",
                                         "an earlier ingest stopped mid-way; cleaned up")
                        notes.append(f"{space.name}: removed half-ingested {doc.path}")
                stale = [d for d in retired if d in in_lance]
                if stale:
                    self.chunks.delete_docs(space.space_id, stale)
                if orphans or pending or stale:
                    self.vectors.invalidate(space.space_id)
        return notes
