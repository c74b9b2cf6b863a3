"""One file through ingestion: parse → chunk → cap check → embed → commit (SPEC I1, I6, I7).

Nothing becomes visible until ``StoreWriter.docs.commit_document``; any failure or
cancel abandons the pending document and its chunks.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from biny.core.chunking.header import embedding_input
from biny.core.chunking.notes import NoteWriter
from biny.core.chunking.ratio import DocumentEstimator, cjk_share
from biny.core.chunking.splitter import ChunkSpan, Prior, align_prior, assemble, enforce_cap, split
from biny.core.config import Settings
from biny.core.crypto.space import SpaceCrypto
from biny.core.document import ParsedDocument
from biny.core.embed.base import Embedder, Vectors
from biny.core.embed.sentences import decode, encode, sentence_vectors_many
from biny.core.errors import BinyError, Cancelled, DataTampered, DocumentTooLarge
from biny.core.i18n import t
from biny.core.ingest.bounds import SplitBudget, regular_file
from biny.core.ingest.keys import KEYS_VERSION, passage_keys
from biny.core.ingest.locate import ocr_key
from biny.core.ingest.parse import parse_file
from biny.core.ingest.reading import VisualReader
from biny.core.ingest.staged import Stage, StagedEmbedder, forget_committed
from biny.core.ingest.tables import READS_TABLES, TABLES_READ
from biny.core.progress import CancelToken, Progress
from biny.core.results import FileOutcome
from biny.core.store.catalog import Catalog, DocumentRow, SpaceRow, now
from biny.core.store.failures import storage_problem
from biny.core.store.lance import ChunkRecord, ChunkStore
from biny.core.store.writer import StoreWriter
from biny.core.text.terms import index_terms


def file_hash(path: Path) -> str:
    regular_file(path)  # a pipe or a device is refused by its type before it is opened (issue 59)
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(slots=True)
class ChunkedDocument:
    records: list[ChunkRecord]
    inputs: list[str]
    resplits: int
    chars: int
    share: float
    chars_per_token: float
    reused: int = 0  # chunks whose vector came from the previous revision
    resumed: int = 0  # texts (passages, sentences) whose vector an interrupted run had staged (issue 58)


def _record(text: str, span: ChunkSpan, title: str, title_terms: set[str], doc_id: str, tokens: int) -> ChunkRecord:
    """One chunk's stored row: its text, place and keys (identifiers, terms, aspects)."""
    body = text[span.start : span.end]
    keys = passage_keys(body, title, title_terms)
    return ChunkRecord(chunk_id=uuid.uuid4().hex, doc_id=doc_id, ordinal=span.ordinal, text=body,
                       char_start=span.start, char_end=span.end, page=span.page, page_end=span.page_end,
                       heading_path=span.heading_path, tokens=tokens, est_tokens=float(span.est_tokens),
                       ids=keys.ids, terms=keys.terms, aspects=keys.aspects)


def chunk_document(
    title: str, blocks: list, settings: Settings, embedder: Embedder, doc_id: str,  # type: ignore[type-arg]
    notes: NoteWriter | None = None, previous: list[tuple[str, int, int]] | None = None,
    budget: SplitBudget | None = None,
) -> ChunkedDocument:
    """Chunk, cap-check and describe one document; ``previous`` holds the chunks (text, start, end) of the
    revision it replaces, whose boundaries are kept where they still fit (unchanged chunks keep their vectors)."""
    doc = assemble(blocks)
    cfg = settings.chunking
    # I6: the chars/token ratio comes from this document (CJK share, then a factor
    # measured on a sample of its paragraphs with the real tokenizer).
    overhead = embedder.token_count("")
    est = DocumentEstimator.calibrate(
        [b.text for b in doc.blocks], lambda t: embedder.token_count(t) - overhead
    )

    def timed(text: str) -> float:  # the splitter's inner step, where the time budget is checked
        if budget is not None:
            budget.check()
        return est(text)

    prior: Prior | None = align_prior(doc.text, previous) if previous else None
    spans = split(doc, target_tokens=cfg.target_tokens, overlap_tokens=cfg.overlap_tokens, est=timed, prior=prior)

    note_of: dict[tuple[int, int], str] = {}

    def header_input(span: ChunkSpan) -> str:
        body = doc.text[span.start : span.end]
        note = note_of.get((span.start, span.end), "")
        return embedding_input(title, span.heading_path, body, note) if cfg.contextual_header else body

    counted: dict[tuple[int, int], int] = {}

    def count(span: ChunkSpan) -> int:
        key = (span.start, span.end)
        if key not in counted:
            if budget is not None:
                budget.check()
            counted[key] = embedder.token_count(header_input(span))
        return counted[key]

    if notes is not None:
        # I7: the note joins the embedding input only; the cap below counts it.
        for span in spans:
            note_of[(span.start, span.end)] = notes.note(title, doc.text, doc.text[span.start : span.end])
    spans, resplits = enforce_cap(doc, spans, max_tokens=embedder.max_tokens, count=count, est=timed)
    title_terms = index_terms(title)
    records = [_record(doc.text, span, title, title_terms, doc_id, count(span)) for span in spans]
    inputs = [header_input(span) for span in spans]
    return ChunkedDocument(
        records, inputs, resplits, len(doc.text), cjk_share(doc.text), est.chars_per_token(doc.text)
    )


def input_key(model_id: str, text: str) -> str:
    """What a chunk's vector depends on: the model and the exact embedding input (header + text + note)."""
    return hashlib.sha256(f"{model_id}\0{text}".encode()).hexdigest()


def _embed(chunked: ChunkedDocument, space: SpaceRow, emb: Embedder, batch: int, name: str, cancel: CancelToken,
           progress: Callable[[Progress], None], reuse: dict[str, Vectors] | None = None) -> Vectors:
    """Every chunk's embedding input, in batches, checked; progress per batch; cancellable.

    ``reuse`` maps input keys of the previous revision to their stored vectors: a chunk whose
    input did not change is not embedded again (editing one paragraph re-embeds its chunks only).
    """
    total = len(chunked.records)
    out = np.zeros((total, space.dim), dtype=np.float32)
    todo = []
    # The same input twice in one document (a repeated notice, a file of one word repeated — issue 59) is
    # embedded once: the model gives the same vector, and such a file would otherwise take minutes per megabyte.
    same: dict[str, list[int]] = {}
    for i, text in enumerate(chunked.inputs):
        known = (reuse or {}).get(input_key(emb.model_id, text))
        if known is not None and known.shape == (space.dim,):
            out[i] = known
        elif text in same:
            same[text].append(i)
        else:
            same[text] = [i]
            todo.append(i)
    for start in range(0, len(todo), batch):
        cancel.raise_if_cancelled()
        rows = todo[start : start + batch]
        vecs = emb.embed_passages([chunked.inputs[i] for i in rows])
        if vecs.shape[1] != space.dim or not np.isfinite(vecs).all():
            raise BinyError(t("The embedder returned invalid vectors for {name}.").format(name=name))
        for i, vec in zip(rows, vecs, strict=True):
            out[same[chunked.inputs[i]]] = vec
        progress(Progress(total - len(todo) + min(start + batch, len(todo)), total, "embed", name, unit="chunks"))
    cancel.raise_if_cancelled()
    chunked.reused = total - sum(len(v) for v in same.values())
    return out


@dataclass(slots=True)
class Reuse:
    """What the revision a file replaces leaves to reuse: vectors by input key, and its chunks in order."""

    vectors: dict[str, Vectors]
    chunks: list[tuple[str, int, int]]
    # Sentence vectors (issue 57), opened, by input key of the passage's bare text: they depend on nothing else.
    sentences: dict[str, bytes] = field(default_factory=dict)


def reusable_vectors(stored: str, space: SpaceRow, crypto: SpaceCrypto, catalog: Catalog, chunks: ChunkStore,
                     model_id: str, contextual_header: bool) -> Reuse:
    """Input key → vector, and (text, start, end) in order, of the chunks of the revision this file replaces."""
    prior = catalog.docs.at(space.space_id, stored)
    if prior is None:
        return Reuse({}, [])
    title = crypto.open_meta(prior).title
    out: dict[str, Vectors] = {}
    sentences: dict[str, bytes] = {}
    spans: list[tuple[int, str, int, int]] = []
    for rec, vec in chunks.doc_vectors(space.space_id, prior.doc_id, crypto.mac_key):
        try:
            plain = crypto.open_record(rec)
        except DataTampered:
            continue  # a damaged passage is embedded again, never reused (issue 22)
        text = embedding_input(title, plain.heading_path, plain.text) if contextual_header else plain.text
        out[input_key(model_id, text)] = vec
        if plain.sentence_vectors:
            sentences[input_key(model_id, plain.text)] = plain.sentence_vectors
        spans.append((plain.ordinal, plain.text, plain.char_start, plain.char_end))
    return Reuse(out, [(t, s, e) for _, t, s, e in sorted(spans)], sentences)


def sentence_blobs(texts: list[str], emb: Embedder, batch: int, name: str, progress: Callable[[Progress], None],
                   reuse: dict[str, bytes] | None = None, cancel: CancelToken | None = None) -> list[bytes]:
    """Issue 57: each passage's sentence vectors as stored (embed/sentences.py), unsealed; an unchanged passage of
    the revision a file replaces keeps its own (``reuse``, by input key of its text)."""
    out: list[bytes] = []
    todo: list[int] = []
    for i, text in enumerate(texts):
        known = (reuse or {}).get(input_key(emb.model_id, text), b"")
        found = decode(known)
        out.append(known if found is not None and found[1].shape[1:] == (emb.dim,) else b"")
        if not out[-1]:
            todo.append(i)
    detail = t("{name} (sentences)").format(name=name)  # the file name first, as the passages' progress has it

    def step(done: int, total: int) -> None:
        if cancel is not None:
            cancel.raise_if_cancelled()
        progress(Progress(done, total, "embed", detail))

    made = sentence_vectors_many([texts[i] for i in todo], emb, batch, step)
    for i, (offsets, vectors) in zip(todo, made, strict=True):
        if vectors.shape[1:] != (emb.dim,) or not np.isfinite(vectors).all():
            raise BinyError(t("The embedder returned invalid vectors for {name}.").format(name=name))
        out[i] = encode(offsets, vectors)
    return out


def _sentences_into(records: list[ChunkRecord], plain: list[str], emb: Embedder, settings: Settings, name: str,
                    progress: Callable[[Progress], None], reuse: Reuse, cancel: CancelToken,
                    crypto: SpaceCrypto) -> float:
    """Each passage's sentence vectors made (or kept) and sealed into its record (issue 57); the seconds it took."""
    t0 = time.perf_counter()
    blobs = sentence_blobs(plain, emb, max(1, settings.embedding.batch_size), name, progress, reuse.sentences, cancel)
    for rec, blob in zip(records, blobs, strict=True):
        rec.sentence_vectors = crypto.seal_sentences(rec.chunk_id, rec.doc_id, blob)
    return time.perf_counter() - t0


def parse_document(path: Path, settings: Settings, reader: VisualReader | None,
                   progress: Callable[[Progress], None]) -> ParsedDocument | BinyError:
    """Parse one file (reading pages and figures reports per page: a scanned book is minutes of OCR);
    a document error is returned, not raised, so a parse run ahead of time hands it over like a result."""
    paged = None if reader is None else replace(
        reader, progress=lambda done, total: progress(Progress(done, total, "read", path.name, unit="pages")))
    try:
        return parse_file(path, settings.limits, paged)
    except BinyError as exc:
        return exc


def _document_row(path: Path, space: SpaceRow, parsed: ParsedDocument, digest: str, revision: int) -> DocumentRow:
    return DocumentRow(
        doc_id=uuid.uuid4().hex, space_id=space.space_id, path=str(path), title=parsed.title, kind=parsed.kind,
        content_hash=digest, revision=revision, status="pending", bytes=path.stat().st_size, pages=parsed.pages,
        pages_without_text=parsed.pages_without_text, pages_ocr=parsed.pages_ocr,
        figures_described=parsed.figures_described, decorations_skipped=parsed.decorations_skipped,
        visual_pages={"pages_ocr": parsed.ocr_pages, "figures_described": parsed.figure_pages,
                      "decorations_skipped": parsed.decoration_pages,
                      **({TABLES_READ: [parsed.header_tables]} if parsed.kind in READS_TABLES else {})},
        warnings=list(parsed.warnings), ingested_at=now(), keys_version=KEYS_VERSION,
    )


def _known(path: Path, space: SpaceRow, crypto: SpaceCrypto, catalog: Catalog,
           writer: StoreWriter, name: str) -> tuple[str | None, FileOutcome | None]:
    """(stored content hash, None) for a new file; (None, outcome) if unreadable or already stored."""
    # Encrypted spaces store a keyed hash of the path (for revisions), never the path.
    stored = crypto.stored_path(name)
    try:
        digest = crypto.stored_hash(file_hash(path))
    except OSError as exc:
        writer.docs.log(space.space_id, stored, "failed", crypto.log_message(stored, str(exc)))
        return None, FileOutcome(name, "failed", t("{name} could not be read ({reason}).")
                                                  .format(name=path.name, reason=exc.strerror or exc))
    except BinyError as exc:  # not a regular file: refused before opening
        writer.docs.log(space.space_id, stored, "failed", crypto.log_message(stored, str(exc)))
        return None, FileOutcome(name, "failed", str(exc))
    same = catalog.docs.find_unchanged(space.space_id, digest)
    if same is None:
        return digest, None
    same = crypto.open_meta(same)
    if same.path == name and same.kind in READS_TABLES and TABLES_READ not in same.visual_pages:
        # Issue 63's migration: a page stored before its tables were read is read again when added again (a new
        # revision; its unchanged passages keep their vectors).
        return digest, None
    msg = "unchanged" if same.path == name else f"same content as {same.path}"
    forget_committed(writer, space.space_id, stored)
    writer.docs.log(space.space_id, stored, "unchanged", "" if crypto.encrypted else msg, same.doc_id)
    return None, FileOutcome(name, "unchanged", msg, same.doc_id, same.title, same.chunks)


def _storage_failure(exc: Exception, doc: DocumentRow, path: Path, crypto: SpaceCrypto,
                     writer: StoreWriter) -> FileOutcome:
    """Disk full, read-only folder, a damaged store (Lance, DuckDB, OS): nothing of this document stays, earlier
    ones are intact. Anything else is a bug: re-raised for the caller to report and log."""
    problem = storage_problem(exc)
    try:
        writer.docs.abandon_document(doc, "failed", crypto.log_message(doc.path, f"{type(exc).__name__}: {exc}"))
    except Exception:  # noqa: BLE001 — on a full disk cleaning up fails too: the next open removes it
        pass
    if problem is None:
        raise exc
    return FileOutcome(str(path), "failed", f"{path.name}: {problem}")


def _no_text(path: Path, parsed: ParsedDocument) -> str:
    """Why a document yielded no passage (a PDF whose only page is a picture OCR could not read)."""
    why = t("{name} yielded no text: nothing was stored.").format(name=path.name)
    if parsed.pages_without_text:
        why += " " + t("{n} page(s) without a text layer could not be read (OCR found nothing, or the page "
                       "was too large to render); export it with a text layer, or check [visual].").format(
                           n=parsed.pages_without_text)
    if parsed.warnings:
        why += " " + "; ".join(parsed.warnings[:2])
    return why


def _keep_ocr_boxes(parsed: ParsedDocument, doc: DocumentRow, crypto: SpaceCrypto, writer: StoreWriter) -> None:
    """A scanned page's OCR lines, kept for the source viewer (issue 61): it draws them over the page image and
    places a cited span on them. Keyed by the file's (stored) content hash and page, sealed like the space's
    cached notes; an unchanged file ingested again finds them under the same key. Reading them again at open would
    cost an OCR run (many seconds a page on two cores; bench/README.md)."""
    for page, boxes in parsed.ocr_boxes.items():
        if boxes:
            stored = crypto.stored_hash(ocr_key(doc.content_hash, page))
            writer.docs.put_note(stored, crypto.seal_note(stored, json.dumps(boxes, ensure_ascii=False)))


def _embed_and_store(doc: DocumentRow, chunked: ChunkedDocument, plain: list[str], space: SpaceRow, emb: Embedder,
                     settings: Settings, path: Path, cancel: CancelToken, progress: Callable[[Progress], None],
                     reuse: Reuse, crypto: SpaceCrypto, writer: StoreWriter, timings: dict[str, float], name: str
                     ) -> FileOutcome | None:
    """Embed the sealed chunks (and their sentences) and write them with the document, or abandon it: None when
    stored, else the failure's outcome (a cancel is re-raised after the document is abandoned).

    Each embedded batch is staged as soon as it is made, and what an interrupted run staged is not embedded again
    (ingest/staged.py, issue 58); the document's staged vectors go once it commits."""
    writer.docs.begin_document(doc)
    stage = Stage(writer, crypto, doc.path, emb.model_id, space.dim)
    staged = StagedEmbedder(emb, stage)
    try:
        t0 = time.perf_counter()
        vectors = _embed(chunked, space, staged, max(1, settings.embedding.batch_size), path.name, cancel, progress,
                         reuse.vectors)
        timings["embed"] = time.perf_counter() - t0
        timings["sentences"] = _sentences_into(chunked.records, plain, staged, settings, path.name, progress, reuse,
                                               cancel, crypto)
        t0 = time.perf_counter()
        # One append per document: each LanceDB append is a new fragment and version.
        writer.docs.add_chunks(space, chunked.records, vectors)
        writer.docs.commit_document(doc)
        stage.drop()
        timings["write"] = time.perf_counter() - t0
        chunked.resumed = stage.reused
    except (Cancelled, KeyboardInterrupt):
        writer.docs.abandon_document(doc, "cancelled", t("cancelled by the user"))
        raise
    except BinyError as exc:
        writer.docs.abandon_document(doc, "failed", crypto.log_message(doc.path, str(exc)))
        return FileOutcome(name, "failed", str(exc))
    except Exception as exc:  # noqa: BLE001 — storage failures are named, anything else re-raised there
        return _storage_failure(exc, doc, path, crypto, writer)
    return None


def ingest_file(
    path: Path,
    space: SpaceRow,
    *,
    crypto: SpaceCrypto,
    settings: Settings,
    embedder: Callable[[], Embedder],
    catalog: Catalog,
    writer: StoreWriter,
    cancel: CancelToken,
    progress: Callable[[Progress], None],
    notes: NoteWriter | None = None,
    chunks: ChunkStore | None = None,
    reader: VisualReader | None = None,
    prepared: Callable[[], ParsedDocument | BinyError] | None = None,
    source: str | None = None,
) -> FileOutcome:
    # ``source``: what the document is recorded as instead of the file's path — an approved web entry is written
    # to a temporary file, but its source is the page it came from (issue 49); the same source is a revision.
    name = source or str(path)
    digest, known = _known(path, space, crypto, catalog, writer, name)
    if known is not None or digest is None:
        return known or FileOutcome(name, "failed", "unreadable")
    stored = crypto.stored_path(name)
    timings: dict[str, float] = {}
    parsed = _parsed(path, settings, reader, progress, prepared, timings)
    if isinstance(parsed, BinyError):
        writer.docs.log(space.space_id, stored, "failed", crypto.log_message(stored, str(parsed)))
        return FileOutcome(name, "failed", str(parsed))

    emb = embedder()
    # Unchanged chunks of the revision this one replaces keep their vectors (situating notes, when on, are
    # part of the input and not stored, so then every chunk is embedded).
    reuse = Reuse({}, []) if notes is not None or chunks is None else reusable_vectors(
        stored, space, crypto, catalog, chunks, emb.model_id, settings.chunking.contextual_header)
    doc = _document_row(path, space, parsed, digest, catalog.docs.next_revision(space.space_id, stored))
    doc.path = name
    chunked = _chunked(path, parsed, doc, settings, emb, notes, reuse, timings)
    if not isinstance(chunked, ChunkedDocument):  # too large, or no text: logged (sealed when encrypted), reported
        status, why = chunked
        writer.docs.log(space.space_id, stored, status, crypto.log_message(stored, why))
        return FileOutcome(name, status, why)
    doc.chunks, doc.chars, doc.cjk_share = len(chunked.records), chunked.chars, chunked.share
    doc.chars_per_token, doc.resplits = chunked.chars_per_token, chunked.resplits

    title = doc.title
    plain = [rec.text for rec in chunked.records]  # their sentences are embedded after the text is sealed
    t0 = time.perf_counter()
    crypto.seal_meta(doc, name)
    for rec in chunked.records:
        crypto.seal_record(rec)  # I8: only ciphertext and blinded keys reach the disk
    timings["encrypt"] = time.perf_counter() - t0
    failed = _embed_and_store(doc, chunked, plain, space, emb, settings, path, cancel, progress, reuse, crypto,
                              writer, timings, name)
    if failed is not None:
        return failed
    _keep_ocr_boxes(parsed, doc, crypto, writer)
    return _ingested(name, doc, title, chunked, timings)


def _parsed(path: Path, settings: Settings, reader: VisualReader | None, progress: Callable[[Progress], None],
            prepared: Callable[[], ParsedDocument | BinyError] | None,
            timings: dict[str, float]) -> ParsedDocument | BinyError:
    """The parsed document, or why it could not be read. A parse started ahead of time (services/documents.py) is
    waited for; only the wait costs time here."""
    progress(Progress(0, 0, "parse", path.name))
    t0 = time.perf_counter()
    got = parse_document(path, settings, reader, progress) if prepared is None else prepared()
    timings["parse"] = time.perf_counter() - t0
    return got


def _chunked(path: Path, parsed: ParsedDocument, doc: DocumentRow, settings: Settings, emb: Embedder,
             notes: NoteWriter | None, reuse: Reuse, timings: dict[str, float]) -> ChunkedDocument | tuple[str, str]:
    """The document's passages, or (status, why) there are none: "failed" when too large to split in time, "empty"
    when it holds no text (a PDF whose only page is a picture OCR could not read is reported empty with the reason,
    never stored as active with 0 passages: issue 59)."""
    t0 = time.perf_counter()
    try:
        chunked = chunk_document(parsed.title, parsed.blocks, settings, emb, doc.doc_id, notes, reuse.chunks,
                                 SplitBudget(settings.limits.split_timeout_s, path.name))
    except DocumentTooLarge as exc:
        return "failed", str(exc)
    timings["chunk"] = time.perf_counter() - t0
    return chunked if chunked.records else ("empty", _no_text(path, parsed))


def _ingested(name: str, doc: DocumentRow, title: str, chunked: ChunkedDocument,
              timings: dict[str, float]) -> FileOutcome:
    """The outcome of a stored document, saying how many passages kept their vectors (unchanged or resumed)."""
    reused = f" ({chunked.reused} of {doc.chunks} passages unchanged, not embedded again)" if chunked.reused else ""
    if chunked.resumed:
        reused += f" ({chunked.resumed} vectors kept from an interrupted run, not embedded again)"
    return FileOutcome(name, "ingested", f"revision {doc.revision}{reused}", doc.doc_id, title, doc.chunks,
                       timings, sum(r.tokens for r in chunked.records))
