"""Asking a space: the retrieval pipeline (SPEC R1–R9), "more material" (R6) and the hits.

Reads only: baselines are measured in memory per matrix generation and persisted by
the writer after an ingest (``refresh_baselines``), never while answering.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from biny.core import state
from biny.core.chunking.header import embedding_input
from biny.core.embed.base import Vectors
from biny.core.errors import BinyError, DataTampered
from biny.core.i18n import msg, t
from biny.core.results import AskResult, Closest, Hit, Kept
from biny.core.retrieve import baseline as baseline_mod
from biny.core.retrieve.baseline import Baselines, Distribution
from biny.core.retrieve.budget import fit_whole
from biny.core.retrieve.candidates import Candidate, Context, RetrievalParams
from biny.core.retrieve.kept import kept_rule
from biny.core.retrieve.pipeline import retrieve
from biny.core.services import integrity
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.services.sentence_vectors import StoredSentences
from biny.core.services.structured import StructuredIndex
from biny.core.store.catalog import DocumentRow, SpaceRef, SpaceRow
from biny.core.store.lance import ChunkRecord
from biny.core.store.vectors import VectorMatrix
from biny.core.structured.route import Routed
from biny.core.text import dictionary, language
from biny.core.text.question import Question
from biny.core.text.sentences import sentence_windows
from biny.core.text.terms import fold, glossary_from_titles
from biny.core.trace import Stage, Trace
from biny.core.trace.records import StructuredRecord

# The embedded reference questions depend only on the model and the bundled sets: kept for the process
# (core/state.py PROCESS). Registered here, which every engine imports, until retrieve/baseline.py does it itself.
state.register("biny.core.retrieve.baseline._QUESTION_VECTORS", state.PROCESS, baseline_mod._QUESTION_VECTORS.clear)

MAX_TURNS = 200  # recent turns kept for "more material"
# Passages whose sentence vectors are kept for the sentence check (retrieve/sentences.py): ~11 sentences and pairs ×
# 384 floats each, ~35 MB at most. Vectors only, as the matrix holds; no text.
SENTENCE_CACHE = 2048


@dataclass(slots=True)
class _Turn:
    """What R6 needs to hand over the next batch without retrieving again."""

    space: str
    question: str
    k: int
    remaining: list[Candidate]
    result: AskResult
    more_used: bool = False
    history: list[str] = field(default_factory=list)


class Retriever:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession,
                 structured: StructuredIndex | None = None) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self.structured = structured
        self._baselines: dict[str, tuple[int, Baselines]] = {}  # space → (matrix generation, ...)
        self._docs: dict[str, tuple[int, dict[str, DocumentRow]]] = {}  # space → (generation, opened)
        # space → (generation, what questions are matched against: titles and glossary, as written and folded)
        self._titled: dict[str, tuple[int, _Titles]] = {}
        self._turns: dict[str, _Turn] = {}
        self._sentences: OrderedDict[tuple[str, str], Vectors | None] = OrderedDict()
        self._sentences_lock = threading.Lock()
        self._gated: dict[str, int] = {}  # space → the matrix generation that passed the integrity gate
        self.stored_sentences = StoredSentences(folder, models, keys)  # the answer's, made at ingest (issue 57)
        language.warm()  # the threshold reads a Latin-script question's language (retrieve/threshold.py)
        # ...and looks a question's words up for passages in the other language (retrieve/translated.py).
        dictionary.warm(folder.cache_dir)

    def forget(self, space_id: str) -> None:
        """Drop what is cached for a space (opened, plaintext metadata included)."""
        self._baselines.pop(space_id, None)
        self._docs.pop(space_id, None)
        self._titled.pop(space_id, None)
        self._gated.pop(space_id, None)
        with self._sentences_lock:
            for key in [k for k in self._sentences if k[0] == space_id]:
                del self._sentences[key]
        self.stored_sentences.forget(space_id)

    def matrix(self, row: SpaceRow) -> VectorMatrix:
        """The space's matrix, its rows' codes checked when the key is at hand (services/integrity.py)."""
        return self.folder.vectors.get(row.space_id,
                                       lambda: self.folder.catalog.docs.expected_chunks(row.space_id, active_only=True),
                                       row.dim, integrity.row_check(self.folder, self.keys, row),
                                       # Passages a curator disabled stay stored and are never retrieved (issue 61).
                                       lambda: self.folder.catalog.passages.disabled(row.space_id))

    def trusted(self, row: SpaceRow) -> VectorMatrix:
        """The matrix to answer from: ``DataTampered`` (naming the documents) unless every row is as it was written
        (issue 59). Checked once per matrix generation; a space not yet bound says so once, as a notice."""
        vm = self.matrix(row)
        if self._gated.get(row.space_id) == vm.generation:
            return vm
        if not vm.checked:  # a locked space: its key opens it, and ``matrix`` then checks every row
            self.keys.crypto(row)
            vm = self.matrix(row)
        integrity.gate(self.folder, row, vm, self._opened_documents(row, vm), self.keys.crypto(row).open_meta)
        notice = integrity.uncoded_notice(row, vm)
        if notice is not None:
            self.keys.notices.append(notice)
        self._gated[row.space_id] = vm.generation
        return vm

    # ---- references (R9) ------------------------------------------------------------------
    def baselines(self, space: SpaceRef) -> Baselines:
        """The space's measured references, re-measured (in memory) whenever its visible chunks changed."""
        row = self.folder.catalog.spaces.resolve(space)
        vm = self.matrix(row)
        cached = self._baselines.get(row.space_id)
        if cached is not None and cached[0] == vm.generation:
            return cached[1]
        if len(vm) == 0:
            b = Baselines(0, None, {})
        else:
            self.models.check_space(row, self.folder.chunks)
            scripts, qvecs = baseline_mod.question_vectors(self.models.embedder, self.folder.cache_dir)
            knowledge = baseline_mod.question_vectors(self.models.embedder, self.folder.cache_dir, "knowledge")
            b = baseline_mod.measure(vm, scripts, qvecs, knowledge=knowledge,
                                     languages=baseline_mod.question_languages())
        self._baselines[row.space_id] = (vm.generation, b)
        return b

    def refresh_baselines(self, space: str) -> Baselines:
        """Measure now and store the distributions (after an ingest; analysts read them)."""
        b = self.baselines(space)
        row = self.folder.catalog.spaces.named(space)
        stored = {f"question_nearest:{g}": d.to_dict() for g, d in b.question_nearest.items()}
        if b.passage_pairs is not None:
            stored["passage_pairs"] = b.passage_pairs.to_dict()
        self.folder.writer.save_baselines(row.space_id, b.chunk_count, stored)
        return b

    def stored_baselines(self, space: str) -> dict[str, Distribution]:
        row = self.folder.catalog.spaces.named(space)
        return {k: Distribution.from_dict(v) for k, v in self.folder.catalog.baselines.of(row.space_id).items()}

    def params(self, k: int | None = None, max_distance: float | None = None) -> RetrievalParams:
        return RetrievalParams.of(self.folder.settings.retrieval, k=k, max_distance=max_distance)

    # ---- asking -----------------------------------------------------------------------------
    def _context(self, row: SpaceRow, vm: VectorMatrix, read: list[int]) -> tuple[Context, dict[str, DocumentRow]]:
        crypto = self.keys.crypto(row)
        docs = self._opened_documents(row, vm)
        t = self._titles(row, vm, docs)
        settings = self.folder.settings
        ctx = Context(titles=t.titles, glossary=t.glossary, embed_queries=self.models.embed_queries,
                      blind=crypto.blind, model=self.models.llm,
                      followup_fallback=settings.llm.followup_fallback, folded_titles=t.folded_titles,
                      folded_glossary=t.folded_glossary, titled=t.titled)

        def records(rows: list[int]) -> list[ChunkRecord | None]:
            """Passages read before the final context (sentence check, cross-encoder); R7 counts them. One that
            went with a write since the matrix is None: judged without its text. One whose ciphertext does not
            open stops the question (issue 59: never an answer from what is left)."""
            read.extend(rows)
            # Taken at their stored rows (checked by id, else the filtered scan): a filtered scan reads the whole
            # table, seconds a question at 1M passages (issue 57's cost curve).
            recs = self.folder.chunks.fetch(row.space_id, [vm.chunk_ids[r] for r in rows],
                                            [int(vm.stored[r]) for r in rows])
            out: list[ChunkRecord | None] = []
            for r in rows:
                stored = recs.get(vm.chunk_ids[r])
                try:
                    out.append(crypto.open_record(stored) if stored is not None else None)
                except DataTampered:
                    raise integrity.unopened(row, [vm.doc_ids[r]], docs) from None
            return out

        # A pair is embedded as its passage was (SPEC I7): under the document's title and headings, when they were.
        header = t.titles if settings.chunking.contextual_header else None
        ctx.sentence_vectors = self._sentence_reader(row.space_id, vm, records, header)

        def texts(rows: list[int]) -> list[str]:
            return [rec.text if rec is not None else "" for rec in records(rows)]

        ctx.passage_texts, ctx.judge_timeout_s = texts, settings.llm.judge_timeout_s

        def stored(rows: list[int], make_missing: bool) -> list[Vectors | None]:
            return self.stored_sentences.for_rows(row, vm, rows, texts if make_missing else None)

        ctx.stored_sentences = stored  # the relevance judge's best sentence (issue 55), made at ingest (issue 57)
        if settings.retrieval.reranker.startswith("cross-encoder:"):
            from biny.core.retrieve.rerankers import CrossEncoderReranker

            ctx.reranker = CrossEncoderReranker(settings.retrieval.reranker.split(":", 1)[1], texts)
        return ctx, docs

    def _sentence_reader(self, space_id: str, vm: VectorMatrix,
                         records: Callable[[list[int]], list[ChunkRecord | None]],
                         titles: dict[str, str] | None) -> Callable[[list[int]], list[Vectors | None]]:
        """Rows → the vectors of each sentence and each two adjacent ones (None: fewer than two sentences), read
        and embedded once; ``titles`` (doc id → title): each under its passage's contextual header, None: bare."""
        def pairs(rec: ChunkRecord | None) -> list[str]:
            found = sentence_windows(rec.text) if rec is not None else []
            if rec is None or titles is None:
                return found
            return [embedding_input(titles.get(rec.doc_id, ""), rec.heading_path, p) for p in found]

        def vectors(rows: list[int]) -> list[Vectors | None]:
            keys = [(space_id, vm.chunk_ids[r]) for r in rows]
            with self._sentences_lock:
                known = {k: self._sentences[k] for k in keys if k in self._sentences}
            missing = [r for r, k in zip(rows, keys, strict=True) if k not in known]
            if missing:
                split = [pairs(rec) for rec in records(missing)]
                flat = [s for ss in split for s in ss]
                embedded = iter(self.models.embedder.embed_passages(flat)) if flat else iter(())
                for r, ss in zip(missing, split, strict=True):
                    known[(space_id, vm.chunk_ids[r])] = np.stack([next(embedded) for _ in ss]) if ss else None
                with self._sentences_lock:
                    self._sentences.update((k, known[k]) for k in keys)
                    while len(self._sentences) > SENTENCE_CACHE:
                        self._sentences.popitem(last=False)
            return [known[k] for k in keys]
        return vectors

    def ask(self, space: SpaceRef, question: str | Question, *, k: int | None = None,
            max_distance: float | None = None,
            params: RetrievalParams | None = None, history: list[str] | None = None) -> AskResult:
        """Retrieve the passages that answer ``question`` (SPEC R1–R8), with a full trace. A caller that also
        answers passes the question parsed (``Question.parse``), so both read one analysis of it."""
        asked = question if isinstance(question, Question) else Question.parse(question.strip())
        question = asked.text.strip()
        if not question:
            raise BinyError(t("Ask a question: the text is empty."))
        row = self.folder.catalog.spaces.resolve(space)  # once: every step below reads this row (issue 56)
        params = params or self.params(k, max_distance)
        unrouted = None
        if params.use_structured and self.structured is not None:
            routed = self._structured(row, question)
            if isinstance(routed, AskResult):
                return routed
            unrouted = routed
        self.models.check_space(row, self.folder.chunks)
        vm = self.trusted(row)
        base = self.baselines(row)
        read_for_rerank: list[int] = []
        ctx, docs = self._context(row, vm, read_for_rerank)
        result = retrieve(asked, list(history or []), vm, base, params, ctx)
        answer = self._hits(row, base, result.final, result.trace, result.max_distance, result.reference, docs)
        answer.pool, answer.nearest = [c.chunk_id for c in result.pool], result.nearest
        answer.unmentioned = result.unmentioned
        answer.pool_nearest = min((c.distance for c in result.pool), default=None)
        if not answer.chunks and result.pool:
            answer.closest = self._closest(row, vm, min(result.pool, key=lambda c: c.distance), docs)
        # R7: what was decrypted = the passages read before the context (sentence check, relevance judge,
        # cross-encoder) plus the final context, and on a refusal the closest passage (its heading names it).
        read = set(read_for_rerank) | {c.row for c in result.final}
        answer.trace.decrypted = len(read) + (answer.closest is not None)
        answer.turn_id = uuid.uuid4().hex[:12]
        answer.more_available = bool(result.remaining)
        answer.routed = unrouted
        self._turns[answer.turn_id] = _Turn(row.name, question, params.k, result.remaining, answer,
                                            history=list(history or []))
        while len(self._turns) > MAX_TURNS:
            self._turns.pop(next(iter(self._turns)))
        return answer

    def _structured(self, space: SpaceRow, question: str) -> AskResult | Routed | None:
        """S5: a question the index answers exactly never reaches the vectors (no embedding either). Not routed:
        how the index read it (for the answer to say what it looked for), or None without an index."""
        assert self.structured is not None
        t0 = time.perf_counter()
        routed, result = self.structured.answer(space, question)
        if routed is not None and routed.refusal is not None:
            # Issue 64: the table lacks the row or field asked: refused, never another row's value.
            trace = Trace(question, question)
            trace.add(Stage("structured", msg("not in the structured index: {why}").format(why=routed.evidence[-1]),
                            data=StructuredRecord(routed.evidence, "", {}), ms=(time.perf_counter() - t0) * 1000))
            return AskResult(question, [], None, None, "structured index", trace, refused=routed.refusal,
                             routed=routed)
        if routed is None or result is None:
            return routed
        trace = Trace(question, question)
        trace.add(Stage("structured", msg("{tool} over the structured index: {count} rows")
                                       .format(tool=result.call.tool, count=len(result.rows)),
                        kept=[r["doc_id"] for r in result.rows],
                        data=StructuredRecord(routed.evidence, result.query, result.call.to_dict()),
                        ms=(time.perf_counter() - t0) * 1000))
        hits = self._row_hits(space, result.rows[0]["doc_id"]) if result.call.tool == "lookup" and result.rows \
            else []
        return AskResult(question, hits, None, None, "structured index", trace, structured=result, routed=routed)

    def _row_hits(self, row: SpaceRow, doc_id: str) -> list[Hit]:
        """A looked-up row's own passage: the answer cites it, the console opens it (issue 64)."""
        crypto = self.keys.crypto(row)
        records = [crypto.open_record(r) for r in self.folder.chunks.doc_chunks(row.space_id, doc_id)]
        doc = self.folder.catalog.docs.get(doc_id)  # by its id, not found among every document of the space
        if not records or doc is None or doc.space_id != row.space_id or doc.status != "active":
            return []
        rec = min(records, key=lambda r: r.ordinal)
        opened = crypto.open_meta(doc)
        return [Hit(rec.chunk_id, doc_id, opened.title, opened.path, rec.text, 0.0, None, False, rec.page, rec.ordinal,
                    rec.heading_path, rec.char_start, rec.char_end, kept=Kept("looked up"))]

    def more_material(self, turn_id: str) -> AskResult:
        """R6: the next batch of the same ranked pool — no new retrieval, rerank or cut.

        Once per turn; a second request in the same turn behaves like a fresh query.
        """
        turn = self._turns.get(turn_id)
        if turn is None:
            raise BinyError(t("That turn is no longer known; ask the question again."))
        if turn.more_used:
            fresh = self.ask(turn.space, turn.question, k=turn.k, history=turn.history)
            fresh.trace.stages[0].summary += msg(" (second 'more material' request in the turn: fresh query)")
            return fresh
        turn.more_used = True
        row = self.folder.catalog.spaces.named(turn.space)
        vm = self.trusted(row)
        trace = Trace(question=turn.question, retrieval_query=turn.question)
        r = self.folder.settings.retrieval

        def size(c: Candidate) -> tuple[int, int]:
            if c.row < len(vm) and vm.chunk_ids[c.row] == c.chunk_id:
                return int(vm.chars[c.row]), int(vm.tokens[c.row])
            return 0, 0  # a row of a matrix reloaded since the turn cannot be measured: it passes

        kept = [replace(c, kept_as=Kept("more material"))
                for c in fit_whole(turn.remaining[: turn.k], size, r.max_context_chars, r.max_context_tokens).kept]
        trace.documents = {c.chunk_id: c.doc_id for c in kept}
        trace.add(Stage("more_material",
                        msg("next {count} of the same ranked pool ({count2} were left); no second retrieval, rerank or "
                            "relevance pass").format(count=len(kept), count2=len(turn.remaining)),
                        kept=[c.chunk_id for c in kept]))
        answer = self._hits(row, self.baselines(turn.space), kept, trace, turn.result.max_distance,
                            turn.result.reference)
        answer.turn_id = turn_id
        answer.more_available = False
        return answer

    def active_documents(self, row: SpaceRow) -> int:
        """How many active documents the space has — what a refusal names — from the titles its questions already
        keep per matrix generation: counted in the catalog, each refusal paid for a query, and for opening the
        catalog again once it had been idle a quarter of a second (issue 57)."""
        vm = self.matrix(row)
        return len(self._titles(row, vm, self._opened_documents(row, vm)).titles)

    def _opened_documents(self, row: SpaceRow, vm: VectorMatrix) -> dict[str, DocumentRow]:
        """Every document row of the space with its metadata opened, kept per matrix generation.

        Measured (bench/query_latency.py, 9,961 encrypted chunks): opening every document's
        sealed metadata on each question was most of "fetch + decrypt + hits". Every write to
        the space loads a new matrix (store/writer.py invalidates it), so the generation says
        when the rows may have changed. Callers must not modify the rows.
        """
        cached = self._docs.get(row.space_id)
        if cached is not None and cached[0] == vm.generation:
            return cached[1]
        crypto = self.keys.crypto(row)
        docs = {d.doc_id: crypto.open_meta(d) for d in self.folder.catalog.docs.of(row.space_id)}
        self._docs[row.space_id] = (vm.generation, docs)
        return docs

    def _titles(self, row: SpaceRow, vm: VectorMatrix, docs: dict[str, DocumentRow]) -> _Titles:
        """Active titles and their glossary, kept per matrix generation (issue 23: rebuilt on every
        question, they cost ~0.5 ms at 850 documents)."""
        cached = self._titled.get(row.space_id)
        if cached is not None and cached[0] == vm.generation:
            return cached[1]
        titles = {d: doc.title for d, doc in docs.items() if doc.status == "active"}
        glossary = glossary_from_titles(list(titles.values()))
        made = _Titles(titles, glossary, {d: fold(t) for d, t in titles.items()}, [(g, fold(g)) for g in glossary])
        self._titled[row.space_id] = (vm.generation, made)
        return made

    def _hits(self, row: SpaceRow, base: Baselines, final: list[Candidate], trace: Trace,
              max_distance: float | None, reference: str,
              docs: dict[str, DocumentRow] | None = None) -> AskResult:
        # R7: text is read (and, in encrypted spaces, decrypted) for the final context only.
        crypto = self.keys.crypto(row)
        vm = self.matrix(row)
        offsets = [int(vm.stored[c.row]) for c in final if c.row < len(vm) and vm.chunk_ids[c.row] == c.chunk_id]
        ids = [c.chunk_id for c in final]
        fetched = self.folder.chunks.views.fetch_context(row.space_id, ids, offsets) if len(offsets) == len(final) \
            else self.folder.chunks.fetch(row.space_id, ids)
        records: dict[str, ChunkRecord] = {}
        unopened: list[str] = []
        for cid, stored in fetched.items():
            try:
                records[cid] = crypto.open_record(stored)
            except DataTampered:
                unopened.append(stored.doc_id)
        trace.decrypted = len(fetched)
        if docs is None:
            docs = self._opened_documents(row, vm)
        if unopened:  # issue 59: the question stops, never answered from the passages that are left
            raise integrity.unopened(row, unopened, docs)
        trace.documents = {cid: docs[d].title if d in docs else d for cid, d in trace.documents.items()}
        unrelated = base.question_nearest.get(reference) or base.question_nearest.get("all")
        hits = []
        for c in final:
            rec, doc = records.get(c.chunk_id), docs.get(c.doc_id)
            if rec is None or doc is None:
                continue
            cut = c.cut if c.cut is not None else max_distance
            hits.append(Hit(c.chunk_id, c.doc_id, doc.title, doc.path, rec.text, c.distance,
                            base.calibrated(c.distance), c.pinned, rec.page, rec.ordinal, rec.heading_path,
                            rec.char_start, rec.char_end, cut, c.word_share,
                            unrelated.share_above(c.distance) if unrelated else None, kept_rule(c, cut),
                            c.verdict.score if c.verdict is not None else None,
                            dict(c.verdict.contributions) if c.verdict is not None else {}))
        pairs = base.passage_pairs.median if base.passage_pairs else None
        return AskResult(trace.question, hits, pairs, max_distance, reference, trace)

    def _closest(self, row: SpaceRow, vm: VectorMatrix, c: Candidate, docs: dict[str, DocumentRow]) -> Closest | None:
        """Issue 55: on a refusal, the passage that came closest — its document, heading and how far beyond its cut.
        Its heading is sealed like its text: this one passage is opened to name it (R7: counted as decrypted)."""
        doc = docs.get(c.doc_id)
        if doc is None:
            return None
        heading: list[str] = []
        at = [int(vm.stored[c.row])] if c.row < len(vm) and vm.chunk_ids[c.row] == c.chunk_id else None
        stored = self.folder.chunks.fetch(row.space_id, [c.chunk_id], at).get(c.chunk_id)
        if stored is not None:
            try:
                heading = list(self.keys.crypto(row).open_record(stored).heading_path)
            except DataTampered:
                heading = []
        return Closest(c.chunk_id, doc.title, heading, c.distance, c.cut,
                       c.verdict.score if c.verdict is not None else None)


@dataclass(slots=True)
class _Titles:
    titles: dict[str, str]
    glossary: list[str]
    folded_titles: dict[str, str]
    folded_glossary: list[tuple[str, str]]
    titled: dict[str, frozenset[str]] = field(default_factory=dict)
