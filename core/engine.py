"""The facade: everything the CLI and the console do goes through ``Engine``.

``Engine.open(home)`` locks the data folder, recovers from interrupted runs and
opens the stores; the embedding model loads on first use.
"""

from __future__ import annotations

import copy
import os
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

from biny.core import backup as backup_mod
from biny.core.chunking.header import embedding_input
from biny.core.config import Settings, load_settings, save_settings
from biny.core.crypto.keys import SpaceKeys, new_wrapped_key, unwrap, wrap
from biny.core.crypto.secrets import SecretStore
from biny.core.crypto.space import SpaceCrypto
from biny.core.embed.base import Embedder
from biny.core.embed.factory import make_embedder
from biny.core.errors import (
    BinyError,
    Cancelled,
    ModelMismatch,
    PassphraseRequired,
    SecretStoreUnavailable,
    WrongPassphrase,
)
from biny.core.ingest.job import FileOutcome, ingest_file
from biny.core.ingest.parse import SUPPORTED_SUFFIXES
from biny.core.llm.base import ChatModel
from biny.core.memory.facts import Fact, FactStore
from biny.core.memory.recall import RecallResult, recall, reference_distance
from biny.core.progress import CancelToken, Progress, ProgressCallback, no_progress
from biny.core.results import AskResult, Hit, IngestReport, SpaceInfo
from biny.core.retrieve import baseline as baseline_mod
from biny.core.retrieve.baseline import Baselines, Distribution
from biny.core.retrieve.pipeline import Candidate, Context, RetrievalParams, retrieve
from biny.core.retrieve.rewrite import rewrite
from biny.core.retrieve.terms import glossary_from_titles
from biny.core.retrieve.trace import Stage, Trace
from biny.core.store.catalog import Catalog, DocumentRow, SpaceRow, now
from biny.core.store.lance import ChunkRecord, ChunkStore
from biny.core.store.lock import FolderLock
from biny.core.store.vectors import AnnPolicy, VectorCache, VectorMatrix
from biny.core.store.writer import StoreWriter

__all__ = ["AskResult", "DocumentRow", "Engine", "Hit", "IngestReport", "SpaceInfo"]


def _single_threaded_blas() -> None:
    """Keep numpy's BLAS to one thread in this process.

    Measured (bench/query_latency.py, 2 cores): after a matrix product OpenBLAS's
    worker spins for a while, and the embedding model's own threads, which run next,
    slowed from 11 ms to 90–100 ms a query — 80% of ``ask``. The products biny runs
    are matrix × vector and memory-bound: one thread costs ~1.5 ms at 100k chunks.
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def default_home() -> Path:
    env = os.environ.get("BINY_HOME")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("biny"))


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


class Engine:
    """Open with ``Engine.open(home)``; close with ``close()`` (idempotent) or ``with``."""

    def __init__(self, home: Path, settings: Settings, embedder: Embedder | None) -> None:
        self.home = home
        self.settings = settings
        self._embedder = embedder
        self._embedder_lock = threading.Lock()
        self._lock = FolderLock(home)
        self._lock.acquire()
        try:
            self.catalog = Catalog(home / "catalog.duckdb")
            self.chunks = ChunkStore(home / "lance")
            rs = settings.retrieval
            ann = AnnPolicy(rs.ann_min_rows, rs.ann_probe_share, home / "cache" / "ann")
            self.vectors = VectorCache(self.chunks, ann)
            self.writer = StoreWriter(self.catalog, self.chunks, self.vectors)
            self.recovery_notes = self.writer.recover()
        except BaseException:
            self._lock.release()
            raise
        self._baselines: dict[str, tuple[int, Baselines]] = {}  # space → (matrix generation, ...)
        self._docs: dict[str, tuple[int, dict[str, DocumentRow]]] = {}  # space → (generation, opened)
        self._turns: dict[str, _Turn] = {}
        # Glossary (R3a) of the last space asked, keyed by its active documents.
        self._glossary_cache: tuple[tuple[str, tuple[str, ...]], list[str]] | None = None
        self._keys: dict[str, SpaceKeys] = {}
        self.secrets = SecretStore(home, settings.security.file_secrets)
        self.notices: list[str] = []  # things the user should know (e.g. where a secret went)
        self._llm: ChatModel | None = None
        self._memory: FactStore | None = None
        self._closed = False

    @classmethod
    def open(
        cls,
        home: Path | str | None = None,
        *,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
    ) -> Engine:
        root = Path(home).expanduser() if home is not None else default_home()
        root.mkdir(parents=True, exist_ok=True)
        _single_threaded_blas()
        config_path = root / "config.toml"
        if settings is None:
            settings = load_settings(config_path)
            if not config_path.exists():
                save_settings(settings, config_path)
        return cls(root, settings, embedder)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.vectors.close()
        self.catalog.close()
        self._lock.release()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- model ---------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        with self._embedder_lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings.embedding.model)
            return self._embedder

    @property
    def llm(self) -> ChatModel | None:
        """The configured chat model, or None (every use has a no-model path)."""
        cfg = self.settings.llm
        if not cfg.base_url or not cfg.model:
            return None
        if self._llm is None:
            from biny.core.llm.openai_compat import OpenAICompatible

            key = os.environ.get("BINY_LLM_API_KEY")
            if not key:
                from biny.core.crypto.secrets import keyring_status

                if keyring_status()[0]:
                    import keyring

                    key = keyring.get_password("biny-llm", cfg.base_url)
            self._llm = OpenAICompatible(cfg.base_url, cfg.model, key)
        return self._llm

    def set_llm(self, model: ChatModel | None) -> None:
        """Use a specific chat model (tests, or a provider the settings can't describe)."""
        self._llm = model
        if model is None:
            self.settings.llm.base_url = ""

    def _check_model(self, space: SpaceRow) -> None:
        emb = self.embedder
        if space.embed_model != emb.model_id and self.chunks.count(space.space_id) > 0:
            raise ModelMismatch(
                f"Space {space.name!r} was embedded with {space.embed_model}; the configured model "
                f"is {emb.model_id}. Run `biny space reembed {space.name}` to re-embed it with the "
                "configured model, or set embedding.model back in config.toml."
            )

    # ---- spaces --------------------------------------------------------------------------
    def spaces(self) -> list[SpaceInfo]:
        out = []
        for s in self.catalog.spaces():
            docs = self.catalog.documents(s.space_id)
            out.append(SpaceInfo(s.name, s.space_id, s.created_at, s.embed_model, s.dim, s.encrypted,
                                 len(docs), sum(d.chunks for d in docs if d.status == "active"),
                                 s.tenant, s.owner, self._locked(s)))
        return out

    def space(self, name: str) -> SpaceInfo:
        row = self.catalog.space(name)
        return next(s for s in self.spaces() if s.space_id == row.space_id)

    @property
    def owner(self) -> tuple[str, str]:
        """(tenant, user) this engine acts for (settings, else the OS login name)."""
        import getpass

        sec = self.settings.security
        return sec.tenant, sec.user or getpass.getuser()

    def create_space(self, name: str, *, encrypted: bool = True, passphrase: str | None = None,
                     remember: bool = True) -> SpaceInfo:
        """Create a space; encrypted unless ``encrypted=False`` is asked for explicitly (I8)."""
        name = name.strip()
        if not name or len(name) > 100 or any(c in name for c in "/\\\x00"):
            raise BinyError("A space name must be 1–100 characters without slashes.")
        emb = self.embedder
        tenant, user = self.owner
        space_id = uuid.uuid4().hex[:12]
        row = SpaceRow(space_id, name, now(), emb.model_id, emb.dim, encrypted, tenant, user)
        keys: SpaceKeys | None = None
        if encrypted:
            secret = passphrase or self.secrets.get(tenant, user)
            if not secret:
                raise PassphraseRequired(
                    f"Space {name!r} will be encrypted and needs a passphrase: enter one when asked, set "
                    "BINY_PASSPHRASE, or create it with --unencrypted if its content is not confidential."
                )
            keys, row.kdf, row.wrapped_key = new_wrapped_key(secret, space_id, tenant, user)
        self.writer.create_space(row)
        if keys is not None:
            self._keys[space_id] = keys
            if passphrase and remember and self.secrets.get(tenant, user) != passphrase:
                self._remember(tenant, user, passphrase)
        return self.space(name)

    def _remember(self, tenant: str, user: str, passphrase: str) -> None:
        try:
            where = self.secrets.remember(tenant, user, passphrase)
            self.notices.append(f"Passphrase for {tenant}/{user} stored in the {where}.")
        except SecretStoreUnavailable as exc:
            self.notices.append(str(exc))

    def delete_space(self, name: str) -> None:
        row = self.catalog.space(name)
        self.writer.delete_space(row)
        self.vectors.forget(row.space_id)
        self._baselines.pop(row.space_id, None)
        self._docs.pop(row.space_id, None)  # opened (plaintext) metadata goes with the space
        self._keys.pop(row.space_id, None)

    # ---- keys ------------------------------------------------------------------------------
    def _locked(self, row: SpaceRow) -> bool:
        if not row.encrypted or row.space_id in self._keys:
            return False
        try:
            self.crypto(row)
        except (PassphraseRequired, WrongPassphrase):
            return True
        return False

    def crypto(self, row: SpaceRow) -> SpaceCrypto:
        """The space's keys: from this session, else the configured secret source."""
        if not row.encrypted:
            return SpaceCrypto(row.space_id, None)
        keys = self._keys.get(row.space_id)
        if keys is None:
            secret = self.secrets.get(row.tenant, row.owner)
            if not secret:
                raise PassphraseRequired(
                    f"Space {row.name!r} is encrypted and no passphrase is available here "
                    f"(secret source: {self.secrets.describe()}). Unlock it in the console, set "
                    f"BINY_PASSPHRASE, or run `biny space unlock {row.name} --remember`."
                )
            keys = unwrap(secret, row.kdf, row.wrapped_key or b"", row.space_id, row.tenant, row.owner, row.name)
            self._keys[row.space_id] = keys
        return SpaceCrypto(row.space_id, keys)

    def unlock(self, space: str, passphrase: str, *, remember: bool = False) -> None:
        """Open an encrypted space with its passphrase for this session (WrongPassphrase if not)."""
        row = self.catalog.space(space)
        if not row.encrypted:
            return
        keys = unwrap(passphrase, row.kdf, row.wrapped_key or b"", row.space_id, row.tenant, row.owner, row.name)
        self._keys[row.space_id] = keys
        if remember:
            self._remember(row.tenant, row.owner, passphrase)

    def change_passphrase(self, space: str, old: str, new: str) -> list[str]:
        """Re-wrap the data key of every space of this owner that ``old`` opens (no re-encryption).

        Returns the names of the spaces re-wrapped. Fails with WrongPassphrase, changing
        nothing, if ``old`` does not open ``space``.
        """
        target = self.catalog.space(space)
        if not target.encrypted:
            raise BinyError(f"Space {space!r} is not encrypted.")
        if not new:
            raise WrongPassphrase("The new passphrase is empty; choose one.")
        unwrap(old, target.kdf, target.wrapped_key or b"", target.space_id, target.tenant, target.owner, space)
        changed = []
        for row in self.catalog.spaces():
            if not row.encrypted or (row.tenant, row.owner) != (target.tenant, target.owner):
                continue
            try:
                keys = unwrap(old, row.kdf, row.wrapped_key or b"", row.space_id, row.tenant, row.owner, row.name)
            except WrongPassphrase:
                continue
            kdf, wrapped = wrap(keys.data_key, new, row.space_id, row.tenant, row.owner)
            self.catalog.set_wrapped_key(row.space_id, kdf, wrapped)
            self._keys[row.space_id] = keys
            changed.append(row.name)
        if self.secrets.get(target.tenant, target.owner) == old:
            self._remember(target.tenant, target.owner, new)
        return changed

    # ---- documents -----------------------------------------------------------------------
    def documents(self, space: str, *, include_archived: bool = True) -> list[DocumentRow]:
        statuses = ("active", "archived") if include_archived else ("active",)
        row = self.catalog.space(space)
        crypto = self.crypto(row)
        docs = [crypto.open_meta(d) for d in self.catalog.documents(row.space_id, statuses)]
        return sorted(docs, key=lambda d: (d.title, d.revision))

    def document_chunks(self, space: str, doc_id: str) -> list[ChunkRecord]:
        row = self.catalog.space(space)
        crypto = self.crypto(row)
        return [crypto.open_record(r) for r in self.chunks.doc_chunks(row.space_id, doc_id)]

    def set_document_status(self, space: str, doc_id: str, status: str) -> None:
        if status not in {"active", "archived", "deleted"}:
            raise BinyError(f"Unknown document status {status!r}.")
        row = self.catalog.space(space)
        doc = self.catalog.document(doc_id)
        if doc is None or doc.space_id != row.space_id:
            raise BinyError(f"No document {doc_id} in space {space!r}.")
        self.writer.set_status(row.space_id, doc_id, status)

    def ingest_log(self, space: str) -> list[dict[str, Any]]:
        return self.catalog.ingest_log(self.catalog.space(space).space_id)

    @staticmethod
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

    def ingest(
        self,
        space: str,
        paths: Iterable[Path | str],
        *,
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
    ) -> IngestReport:
        """Ingest files and folders; each file succeeds or fails on its own (SPEC I1)."""
        cancel = cancel or CancelToken()
        row = self.catalog.space(space)
        self._check_model(row)
        crypto = self.crypto(row)
        files = self.expand_paths(paths)
        notes = None
        model = self._llm if self._llm is not None else self.llm
        if self.settings.llm.situating_notes and model is not None:
            from biny.core.chunking.notes import NoteWriter

            notes = NoteWriter(model, self.catalog, crypto)
        report = IngestReport()
        t0 = time.perf_counter()
        for n, path in enumerate(files):
            progress(Progress(n, len(files), "file", path.name))

            def file_progress(p: Progress, n: int = n) -> None:
                progress(Progress(n, len(files), p.stage, f"{p.detail} {p.done}/{p.total}".strip()))

            try:
                outcome = ingest_file(
                    path.resolve() if path.exists() else path, row, crypto=crypto,
                    settings=self.settings, embedder=lambda: self.embedder,
                    catalog=self.catalog, writer=self.writer, cancel=cancel,
                    progress=file_progress, notes=notes,
                )
            except Cancelled:
                report.files.append(FileOutcome(str(path), "cancelled", "cancelled by the user"))
                report.cancelled = True
                break
            report.files.append(outcome)
        progress(Progress(len(files), len(files), "done", ""))
        if report.by("ingested"):
            self.writer.compact(row.space_id)
            self.baselines(space, refresh=True)
        report.seconds = time.perf_counter() - t0
        return report

    def reembed(self, space: str, *, progress: ProgressCallback = no_progress,
                cancel: CancelToken | None = None) -> int:
        """Re-chunk is not needed: re-embed every stored chunk with the configured model."""
        cancel = cancel or CancelToken()
        row = self.catalog.space(space)
        emb = self.embedder
        crypto = self.crypto(row)
        docs = {d.doc_id: crypto.open_meta(d) for d in self.catalog.documents(row.space_id)}
        records: list[ChunkRecord] = []
        inputs: list[str] = []
        for doc in docs.values():
            for rec in self.chunks.doc_chunks(row.space_id, doc.doc_id):
                records.append(rec)  # written back as stored (sealed); only vectors change
                plain = crypto.open_record(copy.copy(rec))
                inputs.append(
                    embedding_input(doc.title, plain.heading_path, plain.text)
                    if self.settings.chunking.contextual_header else plain.text
                )
        vecs = np.zeros((len(records), emb.dim), dtype=np.float32)
        batch = max(1, self.settings.embedding.batch_size)
        for start in range(0, len(records), batch):
            cancel.raise_if_cancelled()
            vecs[start : start + batch] = emb.embed_passages(inputs[start : start + batch])
            progress(Progress(min(start + batch, len(records)), len(records), "embed", space))
        self.writer.replace_space_vectors(row, records, vecs, emb.model_id, emb.dim)
        self._baselines.pop(row.space_id, None)
        return len(records)

    # ---- retrieval -----------------------------------------------------------------------
    def _matrix(self, row: SpaceRow) -> VectorMatrix:
        return self.vectors.get(row.space_id, lambda: self.catalog.known_doc_ids_active(row.space_id), row.dim)

    def baselines(self, space: str, *, refresh: bool = False) -> Baselines:
        """The space's measured references, re-measured whenever its visible chunks changed."""
        row = self.catalog.space(space)
        vm = self._matrix(row)
        cached = self._baselines.get(row.space_id)
        if cached is not None and cached[0] == vm.generation and not refresh:
            return cached[1]
        if len(vm) == 0:
            b = Baselines(0, None, {})
        else:
            self._check_model(row)
            scripts, qvecs = baseline_mod.question_vectors(self.embedder, self.home / "cache")
            b = baseline_mod.measure(vm, scripts, qvecs)
            if b.passage_pairs is not None:
                self.catalog.save_baseline(row.space_id, "passage_pairs", len(vm), b.passage_pairs.to_dict())
            for group, dist in b.question_nearest.items():
                self.catalog.save_baseline(row.space_id, f"question_nearest:{group}", len(vm), dist.to_dict())
        self._baselines[row.space_id] = (vm.generation, b)
        return b

    def stored_baselines(self, space: str) -> dict[str, Distribution]:
        row = self.catalog.space(space)
        return {k: Distribution.from_dict(v) for k, v in self.catalog.baselines(row.space_id).items()}

    def retrieval_params(self, k: int | None = None, max_distance: float | None = None) -> RetrievalParams:
        r = self.settings.retrieval
        return RetrievalParams(
            k=k or r.k, pool_factor=r.pool_factor, threshold_quantile=r.threshold_quantile,
            keep_quantile=r.keep_quantile, use_lexical=r.lexical_check, lexical_known=r.lexical_known,
            lexical_min=r.lexical_min, lexical_familiar=r.lexical_familiar, lexical_rescue=r.lexical_rescue,
            rescue_quantile=r.rescue_quantile,
            local_cut=r.local_cut, local_margin=r.local_margin, pool_per_script=r.pool_per_script,
            max_distance=max_distance, max_chars=r.max_context_chars, max_tokens=r.max_context_tokens,
        )

    def ask(
        self,
        space: str,
        question: str,
        *,
        k: int | None = None,
        max_distance: float | None = None,
        params: RetrievalParams | None = None,
        history: list[str] | None = None,
    ) -> AskResult:
        """Retrieve the passages that answer ``question`` (SPEC R1–R8), with a full trace.

        ``history`` holds the conversation's earlier user questions, oldest first. A
        follow-up may be rewritten for retrieval (R1); the rewrite changes only the
        query vector — ``question`` itself is what the trace, prompt and history keep.
        """
        question = question.strip()
        if not question:
            raise BinyError("Ask a question: the text is empty.")
        row = self.catalog.space(space)
        self._check_model(row)
        params = params or self.retrieval_params(k, max_distance)
        vm = self._matrix(row)
        base = self.baselines(space)
        crypto = self.crypto(row)
        t0 = time.perf_counter()
        model = self._llm if self._llm is not None else self.llm
        rw = rewrite(question, list(history or []), model, self.settings.llm.followup_fallback)
        trace = Trace(question=question, retrieval_query=rw.query)
        trace.add(Stage("rewrite", f"{rw.method}: {rw.reason}", data={
            "original": question, "retrieval_query": rw.query, "method": rw.method,
        }, ms=(time.perf_counter() - t0) * 1000))
        qvec = self.embedder.embed_queries([rw.query])[0]
        docs = self._opened_documents(row, vm)
        titles = {d: doc.title for d, doc in docs.items() if doc.status == "active"}
        ctx = Context(titles=titles, glossary=self._glossary(row.space_id, titles),
                      embed_queries=lambda qs: self.embedder.embed_queries(qs), blind=crypto.blind)
        read_for_rerank: list[int] = []
        if self.settings.retrieval.reranker.startswith("cross-encoder:"):
            from biny.core.retrieve.rerank import CrossEncoderReranker

            def texts(rows: list[int]) -> list[str]:
                read_for_rerank.extend(rows)
                recs = self.chunks.fetch(row.space_id, [vm.chunk_ids[r] for r in rows])
                return [crypto.open_record(recs[vm.chunk_ids[r]]).text for r in rows]

            ctx.reranker = CrossEncoderReranker(self.settings.retrieval.reranker.split(":", 1)[1], texts)
        result = retrieve(question, qvec, vm, base, params, trace, ctx)
        answer = self._hits(row, base, result.final, trace, result.max_distance, result.reference, docs)
        # R7: what was decrypted = the rerank candidates (cross-encoder only) plus the final context.
        trace.decrypted = len(set(read_for_rerank) | {c.row for c in result.final})
        turn_id = uuid.uuid4().hex[:12]
        answer.turn_id = turn_id
        answer.more_available = bool(result.remaining)
        self._turns[turn_id] = _Turn(space, question, params.k, result.remaining, answer, history=list(history or []))
        while len(self._turns) > 200:  # keep recent turns only
            self._turns.pop(next(iter(self._turns)))
        return answer

    def more_material(self, turn_id: str) -> AskResult:
        """R6: the next batch of the same ranked pool — no new retrieval, rerank or cut.

        Once per turn; a second request in the same turn behaves like a fresh query.
        """
        turn = self._turns.get(turn_id)
        if turn is None:
            raise BinyError("That turn is no longer known; ask the question again.")
        if turn.more_used:
            fresh = self.ask(turn.space, turn.question, k=turn.k, history=turn.history)
            fresh.trace.stages[0].summary += " (second 'more material' request in the turn: fresh query)"
            return fresh
        turn.more_used = True
        row = self.catalog.space(turn.space)
        vm = self._matrix(row)
        trace = Trace(question=turn.question, retrieval_query=turn.question)
        batch = turn.remaining[: turn.k]
        chars = tokens = 0
        kept: list[Candidate] = []
        r = self.settings.retrieval
        for c in batch:
            if c.row < len(vm) and vm.chunk_ids[c.row] == c.chunk_id:
                c_chars, c_tokens = int(vm.chars[c.row]), int(vm.tokens[c.row])
                if chars + c_chars > r.max_context_chars or tokens + c_tokens > r.max_context_tokens:
                    break
                chars, tokens = chars + c_chars, tokens + c_tokens
            kept.append(c)
        trace.add(Stage("more_material",
                        f"next {len(kept)} of the same ranked pool ({len(turn.remaining)} were left); "
                        "no second retrieval, rerank or relevance pass",
                        kept=[c.chunk_id for c in kept]))
        base = self.baselines(turn.space)
        answer = self._hits(row, base, kept, trace, turn.result.max_distance, turn.result.reference)
        answer.turn_id = turn_id
        answer.more_available = False
        return answer

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
        crypto = self.crypto(row)
        docs = {d.doc_id: crypto.open_meta(d) for d in self.catalog.documents(row.space_id)}
        self._docs[row.space_id] = (vm.generation, docs)
        return docs

    def _glossary(self, space_id: str, titles: dict[str, str]) -> list[str]:
        key = (space_id, tuple(sorted(titles)))
        cached = self._glossary_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        glossary = glossary_from_titles(list(titles.values()))
        self._glossary_cache = (key, glossary)
        return glossary

    def _hits(self, row: SpaceRow, base: Baselines, final: list[Candidate], trace: Trace,
              max_distance: float | None, reference: str,
              docs: dict[str, DocumentRow] | None = None) -> AskResult:
        # R7: text is read (and, in encrypted spaces, decrypted) for the final context only.
        crypto = self.crypto(row)
        vm = self._matrix(row)
        offsets = [int(vm.stored[c.row]) for c in final
                   if c.row < len(vm) and vm.chunk_ids[c.row] == c.chunk_id]
        fetched = self.chunks.fetch(row.space_id, [c.chunk_id for c in final],
                                    offsets if len(offsets) == len(final) else None)
        records = {cid: crypto.open_record(rec) for cid, rec in fetched.items()}
        trace.decrypted = len(records)
        if docs is None:
            docs = self._opened_documents(row, vm)
        threshold = trace.stage("threshold")
        cuts: dict[str, float] = dict(threshold.data.get("cuts", {})) if threshold is not None else {}
        hits = []
        for c in final:
            rec = records.get(c.chunk_id)
            doc = docs.get(c.doc_id)
            if rec is None or doc is None:
                continue
            hits.append(Hit(c.chunk_id, c.doc_id, doc.title, doc.path, rec.text, c.distance,
                            base.calibrated(c.distance), c.pinned, rec.page, rec.ordinal,
                            rec.heading_path, rec.char_start, rec.char_end, cuts.get(c.chunk_id, max_distance)))
        pairs = base.passage_pairs.median if base.passage_pairs else None
        return AskResult(trace.question, hits, pairs, max_distance, reference, trace)

    # ---- backup ------------------------------------------------------------------------------
    def export_space(self, space: str, dest: Path | str) -> Path:
        """Write a space (catalog rows incl. its wrapped key, and its Lance table) to a .tar file.

        Encrypted spaces stay encrypted in the backup: it holds ciphertext and the wrapped
        key, and the passphrase is needed to read it after import.
        """
        return backup_mod.export_space(self.catalog, self.home / "lance", self.catalog.space(space), Path(dest))

    def import_space(self, archive: Path | str, *, name: str | None = None) -> SpaceInfo:
        """Restore a space exported by ``export_space`` (optionally under another name)."""
        space_id, space_name = backup_mod.import_space(self.catalog, self.home / "lance", Path(archive), name)
        self.vectors.invalidate(space_id)
        return self.space(space_name)

    # ---- memory (SPEC M1–M7) -------------------------------------------------------------------
    @property
    def memory(self) -> FactStore:
        if self._memory is None:
            self._memory = FactStore(self.catalog.con, self.catalog.lock, self.embedder)
        return self._memory

    def memory_add(self, text: str, scope: str, source: str = "") -> Fact:
        return self.memory.add(text, scope, source)

    def memory_list(self, scope: str | None = None, statuses: tuple[str, ...] = ("active", "archived")) -> list[Fact]:
        return self.memory.facts(scope, statuses)

    def memory_edit(self, fact_id: str, text: str) -> Fact:
        return self.memory.edit(fact_id, text)

    def memory_set_status(self, fact_id: str, status: str) -> Fact:
        return self.memory.set_status(fact_id, status)

    def memory_recall(self, question: str, scope: str, *, conversation_id: str | None = None,
                      history: list[str] | None = None, k: int = 5, threshold: float = 0.1,
                      max_chars: int = 12000, between_rank_and_check: Any = None) -> RecallResult:
        """M1–M7 for ``question`` in ``scope``; the result's reference block is for this turn only."""
        if conversation_id is not None and history is None:
            history = [c for role, c in self.memory.history(conversation_id) if role == "user"]
        _, qvecs = baseline_mod.question_vectors(self.embedder, self.home / "cache")
        d_ref = reference_distance(self.memory, qvecs)
        model = self._llm if self._llm is not None else self.llm
        return recall(question, scope, store=self.memory, embedder=self.embedder, d_ref=d_ref, history=history,
                      model=model, k=k, threshold=threshold, max_chars=max_chars,
                      between_rank_and_check=between_rank_and_check)

    def add_turn(self, conversation_id: str, role: str, content: str) -> None:
        """Append to a conversation's canonical history (recall results are never added here)."""
        self.memory.add_turn(conversation_id, role, content)

    def conversation(self, conversation_id: str) -> list[tuple[str, str]]:
        return self.memory.history(conversation_id)

    # ---- settings ------------------------------------------------------------------------------
    def configure_llm(self, base_url: str, model: str, api_key: str | None = None) -> str:
        """Save the LLM endpoint to config.toml; the key goes to the OS keyring, never the file.

        Returns a sentence saying where the key went (or why it was not stored).
        """
        from biny.core.crypto.secrets import keyring_status

        self.settings.llm.base_url = base_url.strip()
        self.settings.llm.model = model.strip()
        save_settings(self.settings, self.home / "config.toml")
        self._llm = None
        if not api_key:
            return "No API key given (fine for local servers such as Ollama or llama.cpp)."
        usable, name = keyring_status()
        if not usable:
            return ("No OS keyring on this machine, so the API key was not stored; "
                    "set BINY_LLM_API_KEY in the environment instead.")
        import keyring

        keyring.set_password("biny-llm", self.settings.llm.base_url, api_key)
        return f"API key stored in the OS keyring ({name})."
