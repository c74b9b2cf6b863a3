"""Documents of a space: the library, ingestion (SPEC I1, I6, I7) and re-embedding."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, cast

import numpy as np

from biny.core.chunking.header import embedding_input
from biny.core.chunking.notes import NoteWriter
from biny.core.crypto.space import SpaceCrypto
from biny.core.document import ParsedDocument
from biny.core.errors import BinyError, Cancelled
from biny.core.i18n import t
from biny.core.ingest.job import file_hash, ingest_file, parse_document, sentence_blobs
from biny.core.ingest.lookahead import Lookahead
from biny.core.ingest.parse import SUPPORTED_SUFFIXES
from biny.core.ingest.reading import VisualReader
from biny.core.ingest.rowjob import ingest_rows
from biny.core.ingest.sniff import ROW_SUFFIXES
from biny.core.progress import CancelToken, Progress, ProgressCallback, no_progress
from biny.core.results import FileOutcome, IngestReport
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.services.sentence_vectors import StoredSentences
from biny.core.store.catalog import DocumentRow, SpaceRow
from biny.core.store.failures import storage_problem
from biny.core.store.lance import ChunkRecord
from biny.core.views import DocumentStatus, DocumentView, ListedKind, PassageView, group_tables

STATUSES = ("active", "archived", "deleted")


def document_view(d: DocumentRow) -> DocumentView:
    """An opened catalog row as the facade shows it: no sealed metadata, digest or keys version. The catalog holds
    the kinds parsers gave (SourceKind) and the statuses ingest and set_status wrote: typed as such, not checked."""
    return DocumentView(
        doc_id=d.doc_id, path=d.path, title=d.title, kind=cast(ListedKind, d.kind), revision=d.revision,
        status=cast(DocumentStatus, d.status),
        bytes=d.bytes, ingested_at=d.ingested_at, pages=d.pages, pages_without_text=d.pages_without_text,
        pages_ocr=d.pages_ocr, figures_described=d.figures_described, decorations_skipped=d.decorations_skipped,
        visual_pages={k: list(v) for k, v in d.visual_pages.items()}, chunks=d.chunks, chars=d.chars,
        chars_per_token=d.chars_per_token, cjk_share=d.cjk_share, resplits=d.resplits, warnings=tuple(d.warnings))


def passage_view(c: ChunkRecord) -> PassageView:
    """An opened chunk record as the facade shows it: no ciphertext, blinded keys or sentence vectors."""
    return PassageView(chunk_id=c.chunk_id, doc_id=c.doc_id, ordinal=c.ordinal, text=c.text,
                       char_start=c.char_start, char_end=c.char_end, page=c.page, page_end=c.page_end,
                       heading_path=tuple(c.heading_path), tokens=c.tokens)


class SealedNoteCache:
    """Situating notes cached in the catalog, keyed and sealed per space (chunking/notes.py)."""

    def __init__(self, folder: DataFolder, crypto: SpaceCrypto) -> None:
        self.folder = folder
        self.crypto = crypto

    def get(self, key: str) -> str | None:
        stored = self.crypto.stored_hash(key)
        value = self.folder.catalog.notes.get(stored)
        return None if value is None else self.crypto.open_note(stored, value)

    def put(self, key: str, note: str) -> None:
        stored = self.crypto.stored_hash(key)
        self.folder.writer.docs.put_note(stored, self.crypto.seal_note(stored, note))


def _parse_ahead(ahead: Lookahead[ParsedDocument | BinyError | None], files: list[Path], n: int, target: Path,
                 parse: Callable[[Path], ParsedDocument | BinyError],
                 file_progress: Callable[[int, str], ProgressCallback]) -> ParsedDocument | BinyError:
    """This file's parse (started ahead, or now); then the next file's parse starts, to run while this one embeds
    (issue 23). One parse at a time: two OCR children would share 2 cores."""
    started = ahead.take(target)
    got = started.result() if started is not None else None
    if got is None:
        got = parse(target)
    nxt = files[n + 1] if n + 1 < len(files) else None
    if nxt is not None and nxt.suffix.lower() not in ROW_SUFFIXES and nxt.is_file():
        ahead.start(nxt.resolve(), file_progress(n + 1, nxt.name))
    return got


def readable_suffixes(*, tables: bool = False) -> list[str]:
    """Every file suffix ingest reads, tables included (".csv", ".xlsx" …), so a file dialog offers them all;
    with ``tables``, only those read as one document per row."""
    return sorted(ROW_SUFFIXES if tables else SUPPORTED_SUFFIXES)


def expand_paths(paths: Iterable[Path | str]) -> list[Path]:
    """Files as given; folders walked recursively for supported types (hidden skipped)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p)
                if f.is_file() and f.suffix.lower() in SUPPORTED_SUFFIXES and not any(
                    part.startswith(".") for part in rel.parts
                ):
                    out.append(f)
        else:
            out.append(p)
    return out


class Documents:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession,
                 on_change: Sequence[Callable[[str], object]] = ()) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        # Called with the space's name after its documents changed (the structured index keeps in step).
        self.on_change = tuple(on_change)

    def _changed(self, space: str) -> None:
        for hook in self.on_change:
            hook(space)

    def rows(self, space: str, *, include_archived: bool = True) -> list[DocumentRow]:
        # Damaged documents are listed (issue 22): the user must see what no longer answers, and re-ingest it.
        statuses = ("active", "archived", "damaged") if include_archived else ("active", "damaged")
        row = self.folder.catalog.spaces.named(space)
        crypto = self.keys.crypto(row)
        docs = [crypto.open_meta(d) for d in self.folder.catalog.docs.of(row.space_id, statuses)]
        return sorted(docs, key=lambda d: (d.title, d.revision))

    def views(self, space: str, *, include_archived: bool = True, tables: bool = False) -> list[DocumentView]:
        """The documents as the facade shows them (issue 56: no storage row leaves the core); ``tables``: a table's
        rows listed as one entry."""
        views = [document_view(d) for d in self.rows(space, include_archived=include_archived)]
        return group_tables(views) if tables else views

    def chunks(self, space: str, doc_id: str) -> list[ChunkRecord]:
        row = self.folder.catalog.spaces.named(space)
        crypto = self.keys.crypto(row)
        return [crypto.open_record(r) for r in self.folder.chunks.doc_chunks(row.space_id, doc_id)]

    def passages(self, space: str, doc_id: str) -> list[PassageView]:
        return [passage_view(c) for c in self.chunks(space, doc_id)]

    def set_status(self, space: str, doc_id: str | list[str], status: str) -> None:
        if status not in STATUSES:
            raise BinyError(t("Unknown document status {status!r}.").format(status=status))
        row = self.folder.catalog.spaces.named(space)
        ids = [doc_id] if isinstance(doc_id, str) else list(doc_id)
        known = self.folder.catalog.docs.known_ids(row.space_id)
        missing = [d for d in ids if d not in known]
        if missing:
            raise BinyError(t("No document {missing} in space {space!r}.").format(missing=missing[0], space=space))
        self.folder.writer.set_statuses(row.space_id, ids, status)
        self._changed(space)

    def log(self, space: str) -> list[dict[str, Any]]:
        """The ingest log, messages opened (they are sealed in encrypted spaces: they name files)."""
        row = self.folder.catalog.spaces.named(space)
        entries = self.folder.catalog.ingest_log.recent(row.space_id)
        if not self.keys.is_unlocked(row):  # a locked space still lists its log, messages unread
            for e in entries:
                if str(e["message"] or "").startswith("enc:"):
                    e["message"] = t("(sealed: unlock the space to read it)")
            return entries
        crypto = self.keys.crypto(row)
        for e in entries:
            e["message"] = crypto.open_log(e["path"], e["message"] or "")
        return entries

    def _note_writer(self, crypto: SpaceCrypto) -> NoteWriter | None:
        """Situating notes (when switched on and a model is configured), cached sealed in the space."""
        model = self.models.llm
        if self.folder.settings.llm.situating_notes and model is not None:
            return NoteWriter(model, SealedNoteCache(self.folder, crypto))
        return None

    def ingest(self, space: str, paths: Iterable[Path | str], *, progress: ProgressCallback = no_progress,
               cancel: CancelToken | None = None, sources: Mapping[Path, str] | None = None) -> IngestReport:
        """Ingest files and folders; each file succeeds or fails on its own (SPEC I1). ``sources``: a file's
        recorded source when it is not its path (a web entry's page address). The run holds the folder's writer
        lock (issue 58): a second writer is refused, naming this one; readers go on meanwhile."""
        self.folder.writer.check_writable()
        with self.folder.writer.holding(t("ingesting into space {space}").format(space=repr(space))):
            return self._ingest(space, paths, progress, cancel, sources)

    def _ingest(self, space: str, paths: Iterable[Path | str], progress: ProgressCallback,
                cancel: CancelToken | None, sources: Mapping[Path, str] | None) -> IngestReport:
        self.folder.writer.check_writable()  # before any parsing: a team space's reader writes nothing
        cancel = cancel or CancelToken()
        row = self.folder.catalog.spaces.named(space)
        self.models.check_space(row, self.folder.chunks)
        crypto = self.keys.crypto(row)
        files = expand_paths(paths)
        notes = self._note_writer(crypto)
        reader = self._reader()
        settings = self.folder.settings
        report = IngestReport()
        t0 = time.perf_counter()
        ahead: Lookahead[ParsedDocument | BinyError | None] = Lookahead(
            lambda p, emit: None if self._unchanged(p, row, crypto) else parse_document(p, settings, reader, emit))

        def file_progress(n: int, name: str) -> ProgressCallback:
            # Per-file steps keep their own counts; the file's place in the run rides along.
            return lambda p: progress(Progress(p.done, p.total, p.stage, p.detail, file=name, file_index=n,
                                               file_count=len(files), unit=p.unit))

        def prepared(n: int, target: Path) -> Callable[[], ParsedDocument | BinyError]:
            return partial(_parse_ahead, ahead, files, n, target, lambda p: parse_document(
                p, settings, reader, file_progress(n, p.name)), file_progress)

        try:
            for n, path in enumerate(files):
                progress(Progress(n, len(files), "file", path.name, file=path.name, file_index=n,
                                  file_count=len(files)))
                # A link to a pipe or a device keeps its own name, so the refusal names both (issue 59).
                target = path.resolve() if path.is_file() else path
                job = ingest_rows if path.suffix.lower() in ROW_SUFFIXES else partial(
                    ingest_file, notes=notes, chunks=self.folder.chunks, reader=reader,
                    prepared=prepared(n, target), source=(sources or {}).get(path))
                try:
                    outcome = job(target, row, crypto=crypto, settings=settings,
                                  embedder=lambda: self.models.embedder, catalog=self.folder.catalog,
                                  writer=self.folder.writer, cancel=cancel, progress=file_progress(n, path.name))
                except Cancelled:
                    report.files.append(FileOutcome(str(path), "cancelled", t("cancelled by the user")))
                    report.cancelled = True
                    break
                except Exception as exc:  # noqa: BLE001 — one file's unexpected failure must not end the run
                    outcome = self._failed(exc, path, target, row, crypto)
                report.files.append(outcome)
                progress(Progress(n + 1, len(files), "file_done", path.name, file=path.name, file_index=n,
                                  file_count=len(files), outcome=outcome.outcome))
        finally:
            ahead.close()
        if report.by("ingested"):
            self._tidy(space, row, report)
        progress(Progress(len(files), len(files), "done", "", file_count=len(files)))
        report.seconds = time.perf_counter() - t0
        return report

    def _failed(self, exc: Exception, path: Path, target: Path, row: SpaceRow, crypto: SpaceCrypto) -> FileOutcome:
        """One file's unexpected failure, logged, as the outcome the report gives."""
        problem = storage_problem(exc)
        # An encrypted space's file names are as private as its text: its log names the file by the keyed digest
        # its ingest log uses, never by its path (issue 59).
        log = self.folder.log_exception(
            f"ingest into space {row.space_id} of file {crypto.stored_path(str(target))}",
            (str(path), str(target), path.name, path.stem)) if crypto.encrypted \
            else self.folder.log_exception(f"ingest of {path}")
        return FileOutcome(str(path), "failed", f"{path.name}: {problem}" if problem else t(
            "{name} could not be ingested ({kind}: {detail}). Nothing of it is visible; details in {log}."
        ).format(name=path.name, kind=type(exc).__name__, detail=exc, log=log))

    def _tidy(self, space: str, row: SpaceRow, report: IngestReport) -> None:
        """Housekeeping after the run (compaction, measured references): what was stored stays; on a full disk the
        references are measured in memory when asked."""
        try:
            self.folder.writer.compact(row.space_id)
            self._changed(space)
        except Exception as exc:
            problem = storage_problem(exc)
            if problem is None:
                raise
            report.notes.append(t("Stored, but tidying up afterwards failed: {problem}").format(problem=problem))

    def _unchanged(self, path: Path, row: SpaceRow, crypto: SpaceCrypto) -> bool:
        """Is this exact content stored already (so parsing it ahead would be wasted)? Unreadable: no."""
        try:
            stored = crypto.stored_hash(file_hash(path))
            return self.folder.catalog.docs.find_unchanged(row.space_id, stored) is not None
        except (OSError, BinyError):  # unreadable, or not a regular file: the job says so
            return False

    def _reader(self) -> VisualReader | None:
        """What reads scanned pages, figures and DOCX images (I2–I4), from ``[visual]``; None when both are off."""
        vis = self.folder.settings.visual
        kinds = tuple(k for k, on in (("scan", vis.read_pages), ("figure", vis.read_figures)) if on)
        if not kinds:
            return None
        return VisualReader(engine=vis.ocr_engine, dpi=vis.dpi, page_timeout_s=vis.page_timeout_s,
                            vision=self.models.vision, vision_timeout_s=vis.vision_timeout_s, kinds=kinds)

    def reembed(self, space: str, *, progress: ProgressCallback = no_progress,
                cancel: CancelToken | None = None, force: bool = False) -> int:
        """Re-chunk is not needed: re-embed every stored chunk, and its sentences (issue 57), with the configured
        model.

        A space already embedded by that model is left as it is unless ``force``: the same model gives the same
        vectors, and re-embedding a large space costs minutes for nothing — only the sentence vectors of passages
        stored before them are made and stored (issue 57; their count is returned, 0 when none lacked them).
        """
        cancel = cancel or CancelToken()
        row = self.folder.catalog.spaces.named(space)
        emb = self.models.embedder
        if not force and row.embed_model == emb.model_id and row.dim == emb.dim:
            filled = StoredSentences(self.folder, self.models, self.keys).fill(row, progress=progress, cancel=cancel)
            progress(Progress(0, 0, "done", space))
            return filled
        crypto = self.keys.crypto(row)
        records: list[ChunkRecord] = []
        inputs: list[str] = []
        texts: list[str] = []
        header = self.folder.settings.chunking.contextual_header
        for doc in self.folder.catalog.docs.of(row.space_id):
            title = crypto.open_meta(doc).title
            for rec in self.folder.chunks.doc_chunks(row.space_id, doc.doc_id):
                records.append(rec)  # written back as stored (sealed); only vectors change
                plain = crypto.open_record(copy.copy(rec))
                inputs.append(embedding_input(title, plain.heading_path, plain.text) if header else plain.text)
                texts.append(plain.text)
        vecs = np.zeros((len(records), emb.dim), dtype=np.float32)
        batch = max(1, self.folder.settings.embedding.batch_size)
        for start in range(0, len(records), batch):
            cancel.raise_if_cancelled()
            vecs[start : start + batch] = emb.embed_passages(inputs[start : start + batch])
            progress(Progress(min(start + batch, len(records)), len(records), "embed", space, unit="chunks"))
        # The sentences too: another model's sentence vectors measure nothing against this model's questions.
        blobs = sentence_blobs(texts, emb, batch, space, progress, cancel=cancel)
        for rec, blob in zip(records, blobs, strict=True):
            rec.sentence_vectors = crypto.seal_sentences(rec.chunk_id, rec.doc_id, blob)
        self.folder.writer.replace_space_vectors(row, records, vecs, emb.model_id, emb.dim)
        return len(records)
