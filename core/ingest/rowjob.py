"""A table through ingestion: one document per row, embedded and committed in batches (SPEC I1, S1).

Each row is its own document (path ``<file>#<row>``), so a row that did not change is
never re-embedded — its content hash is found and it is kept — and a row removed from
the file is removed from the space. Rows commit in batches: one LanceDB append and one
catalog transaction per batch, never one per row.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from biny.core.config import Settings
from biny.core.crypto.space import SpaceCrypto
from biny.core.embed.base import Embedder
from biny.core.errors import BinyError, Cancelled
from biny.core.i18n import t
from biny.core.ingest.job import ChunkedDocument, chunk_document, sentence_blobs
from biny.core.ingest.keys import KEYS_VERSION
from biny.core.ingest.rows import RowTable, read_rows, row_document
from biny.core.ingest.staged import Stage, StagedEmbedder
from biny.core.progress import CancelToken, Progress
from biny.core.results import FileOutcome
from biny.core.store.catalog import Catalog, DocumentRow, SpaceRow, now
from biny.core.store.writer import StoreWriter

# Rows per commit: large enough that LanceDB appends stay few, small enough that a cancel
# or a failure loses little work.
BATCH_ROWS = 256
# Target size of a row's chunk: the model window (512) less the contextual header's share.
ROW_TOKENS = 400


@dataclass(slots=True)
class _Run:
    path: Path
    space: SpaceRow
    crypto: SpaceCrypto
    settings: Settings
    catalog: Catalog
    writer: StoreWriter
    emb: Embedder
    cancel: CancelToken
    progress: Callable[[Progress], None]
    total: int
    done: int = 0
    new_ids: list[str] = field(default_factory=list)
    kept_ids: set[str] = field(default_factory=set)
    chunks: int = 0
    tokens: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    # The file's vectors embedded but not committed yet (ingest/staged.py, issue 58): a killed batch is not
    # embedded again when the file is ingested again.
    stage: Stage | None = None

    @property
    def row_settings(self) -> Settings:
        """A row is one unit: one chunk up to the model's window, no overlap (split only if longer)."""
        chunking = dataclasses.replace(self.settings.chunking, overlap_tokens=0,
                                       target_tokens=max(self.settings.chunking.target_tokens, ROW_TOKENS))
        return dataclasses.replace(self.settings, chunking=chunking)

    def tick(self, stage: str, seconds: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + seconds


def row_hash(text: str) -> str:
    return hashlib.sha256(("biny-row\0" + text).encode("utf-8")).hexdigest()


def _flush(run: _Run, batch: list[tuple[DocumentRow, ChunkedDocument]]) -> None:
    if not batch:
        return
    docs = [d for d, _ in batch]
    records = [r for _, c in batch for r in c.records]
    inputs = [i for _, c in batch for i in c.inputs]
    plain = [rec.text for rec in records]  # their sentences are embedded after the text is sealed (issue 57)
    t0 = time.perf_counter()
    for rec in records:
        run.crypto.seal_record(rec)
    run.tick("encrypt", time.perf_counter() - t0)
    run.writer.docs.begin_documents(docs)
    try:
        t0 = time.perf_counter()
        parts = []
        step = max(1, run.settings.embedding.batch_size)
        for start in range(0, len(inputs), step):
            run.cancel.raise_if_cancelled()
            vecs = run.emb.embed_passages(inputs[start : start + step])
            if vecs.shape[1] != run.space.dim or not np.isfinite(vecs).all():
                raise BinyError(t("The embedder returned invalid vectors for {name}.").format(name=run.path.name))
            parts.append(vecs)
            done = run.done + round(len(docs) * min(start + step, len(inputs)) / max(len(inputs), 1))
            run.progress(Progress(done, run.total, "embed", f"{run.path.name}: rows", unit="rows"))
        run.tick("embed", time.perf_counter() - t0)
        t0 = time.perf_counter()
        blobs = sentence_blobs(plain, run.emb, step, run.path.name, lambda _: None, cancel=run.cancel)
        for rec, blob in zip(records, blobs, strict=True):
            rec.sentence_vectors = run.crypto.seal_sentences(rec.chunk_id, rec.doc_id, blob)
        run.tick("sentences", time.perf_counter() - t0)
        t0 = time.perf_counter()
        run.writer.docs.add_chunks(run.space, records, np.concatenate(parts))
        run.writer.docs.commit_documents(docs, by_path=False)
        if run.stage is not None:
            run.stage.drop()  # what it held is committed now
        run.tick("write", time.perf_counter() - t0)
    except (Cancelled, KeyboardInterrupt):
        run.writer.docs.abandon_documents(docs, "cancelled", t("cancelled by the user"))
        raise
    except (BinyError, OSError) as exc:
        base = docs[0].path.split("#")[0]
        run.writer.docs.abandon_documents(docs, "failed", run.crypto.log_message(base, str(exc)))
        raise
    run.new_ids += [d.doc_id for d in docs]
    run.chunks += len(records)
    run.tokens += sum(r.tokens for r in records)


def _twin(table: RowTable, fallback: str, space: SpaceRow, crypto: SpaceCrypto, catalog: Catalog,
          base: str) -> str | None:
    """The path of another table in the space holding exactly these rows, if any.

    A file stored under one path and added again from another folder is the same content, as with a
    document ("same content as …"): its rows are not stored twice. Only a table new at this path is
    compared, and the first row not found ends the comparison, so a genuinely new table costs one lookup.
    """
    if not table.rows or catalog.docs.under(space.space_id, base + "#"):
        return None
    other: DocumentRow | None = None
    for i in range(len(table.rows)):
        text = row_document(table, i, fallback).blocks[0].text
        same = catalog.docs.find_unchanged(space.space_id, crypto.stored_hash(row_hash(text)))
        if same is None or (other is not None and _table_of(same) != _table_of(other)):
            return None
        other = other or same
    assert other is not None  # the table has rows
    if len(catalog.docs.under(space.space_id, _table_of(other) + "#")) != len(table.rows):
        return None  # these rows are a part of a longer table: this one is its own
    return _table_of(crypto.open_meta(other))


def _table_of(row: DocumentRow) -> str:
    """The stored path of the table a row document belongs to (``<file>#<row>``)."""
    return row.path.split("#")[0]


def _row(run: _Run, table: RowTable, index: int, name: str, base: str) -> tuple[DocumentRow, ChunkedDocument] | None:
    parsed = row_document(table, index, run.path.stem)
    text = parsed.blocks[0].text
    digest = run.crypto.stored_hash(row_hash(text))
    same = run.catalog.docs.find_unchanged(run.space.space_id, digest)
    if same is not None and same.path.startswith(base + "#"):
        run.kept_ids.add(same.doc_id)
        return None
    stored = f"{base}#{index + 1}"  # for people: the row number; identity is the content hash
    doc = DocumentRow(
        doc_id=uuid.uuid4().hex, space_id=run.space.space_id, path=stored, title=parsed.title, kind="row",
        content_hash=digest, revision=run.catalog.docs.next_revision(run.space.space_id, stored), status="pending",
        bytes=len(text.encode("utf-8")), ingested_at=now(), keys_version=KEYS_VERSION,
    )
    t0 = time.perf_counter()
    chunked = chunk_document(parsed.title, parsed.blocks, run.row_settings, run.emb, doc.doc_id)
    run.tick("chunk", time.perf_counter() - t0)
    doc.chunks, doc.chars, doc.cjk_share = len(chunked.records), chunked.chars, chunked.share
    doc.chars_per_token, doc.resplits = chunked.chars_per_token, chunked.resplits
    run.crypto.seal_meta(doc, f"{name}#{index + 1}")
    doc.path = stored  # the file's stored path + row number: the rows of one file share a prefix
    return doc, chunked


def ingest_rows(
    path: Path, space: SpaceRow, *, crypto: SpaceCrypto, settings: Settings, embedder: Callable[[], Embedder],
    catalog: Catalog, writer: StoreWriter, cancel: CancelToken, progress: Callable[[Progress], None],
) -> FileOutcome:
    """Ingest a CSV/TSV/JSONL/XLSX file as row documents; returns one outcome for the file."""
    name = str(path)
    base = crypto.stored_path(name)
    progress(Progress(0, 0, "parse", path.name))
    t0 = time.perf_counter()
    try:
        table = read_rows(path, settings.limits)
    except BinyError as exc:
        writer.docs.log(space.space_id, base, "failed", crypto.log_message(base, str(exc)))
        return FileOutcome(name, "failed", str(exc))
    except OSError as exc:
        writer.docs.log(space.space_id, base, "failed", crypto.log_message(base, str(exc)))
        return FileOutcome(name, "failed", t("{name} could not be read ({reason}).")
                                            .format(name=path.name, reason=exc.strerror or exc))
    twin = _twin(table, path.stem, space, crypto, catalog, base)
    if twin is not None:
        msg = f"same content as {twin}"
        writer.docs.log(space.space_id, base, "unchanged", "" if crypto.encrypted else msg)
        return FileOutcome(name, "unchanged", msg, None, path.name, 0)
    emb = embedder()
    stage = Stage(writer, crypto, base, emb.model_id, space.dim)
    run = _Run(path, space, crypto, settings, catalog, writer, StagedEmbedder(emb, stage), cancel, progress,
               len(table.rows), stage=stage)
    run.tick("parse", time.perf_counter() - t0)
    batch: list[tuple[DocumentRow, ChunkedDocument]] = []
    try:
        for i in range(len(table.rows)):
            cancel.raise_if_cancelled()
            made = _row(run, table, i, name, base)
            if made is not None:
                batch.append(made)
            if len(batch) >= BATCH_ROWS:
                _flush(run, batch)
                run.done, batch = i + 1, []
        _flush(run, batch)
    except BinyError as exc:
        if isinstance(exc, Cancelled):
            raise
        return FileOutcome(name, "failed", t("{name}: {detail} ({count} rows were stored before it).")
                                            .format(name=path.name, detail=exc, count=len(run.new_ids)))
    except OSError as exc:
        return FileOutcome(name, "failed", t("{name}: storage error ({detail}). Free disk space and retry.")
                                            .format(name=path.name, detail=exc))
    # Rows no longer in the file leave the space (their chunks too).
    gone = [d for d in catalog.docs.under(space.space_id, base + "#")
            if d not in run.kept_ids and d not in run.new_ids]
    if gone:
        writer.set_statuses(space.space_id, gone, "deleted")
    unchanged = len(table.rows) - len(run.new_ids)
    parts = [f"{len(run.new_ids)} rows ingested", f"{unchanged} unchanged"] + ([f"{len(gone)} removed"] if gone else [])
    if table.skipped:
        parts.append(f"{table.skipped} malformed lines skipped")
    message = ", ".join(parts) + f" ({len(table.fields)} fields)"
    outcome = "ingested" if run.new_ids or gone else "unchanged"
    writer.docs.log(space.space_id, base, outcome, crypto.log_message(base, message))
    return FileOutcome(name, outcome, message, None, path.name, run.chunks, run.timings, run.tokens)
