"""The facade: everything the CLI and the console do goes through ``Engine``.

``Engine.open(home)`` opens the data folder (migrating and recovering it when no other process is writing: opening
takes no lock, issue 58), and wires the services (``core/services/``); the embedding model loads on first use. The
facade holds no logic of its own: each method delegates to the one service whose job it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import platformdirs

from biny.core.config import Settings, apply_changes, load_settings, save_settings
from biny.core.embed.base import Embedder
from biny.core.progress import CancelToken, ProgressCallback, no_progress
from biny.core.results import AskResult, Hit, IngestReport, SourceView, SpaceInfo
from biny.core.retrieve.candidates import RetrievalParams
from biny.core.services.analysis import Analysis
from biny.core.services.answers import Answers
from biny.core.services.doctor import Doctor
from biny.core.services.documents import Documents, expand_paths, readable_suffixes
from biny.core.services.folder import DataFolder
from biny.core.services.keys import Keys, KeySession
from biny.core.services.memory import Memory
from biny.core.services.models import Models, single_threaded_blas
from biny.core.services.passages import Passages
from biny.core.services.retrieval import Retriever
from biny.core.services.sources import Sources
from biny.core.services.spaces import Backup, Spaces
from biny.core.services.structured import StructuredIndex
from biny.core.services.team import Team
from biny.core.services.web import WebFallback
from biny.core.store.catalog import Catalog
from biny.core.store.lance import ChunkStore
from biny.core.store.vectors import VectorCache
from biny.core.views import DocumentView, PassageView

__all__ = ["AskResult", "DocumentView", "Engine", "Hit", "IngestReport", "SpaceInfo", "default_home"]


def default_home() -> Path:
    env = os.environ.get("BINY_HOME")
    return Path(env).expanduser() if env else Path(platformdirs.user_data_dir("biny"))


class Engine:
    """Open with ``Engine.open(home)``; close with ``close()`` (idempotent) or ``with``.

    ``engine.memory`` is the memory namespace (SPEC M1–M7): ``add``, ``facts``, ``get``,
    ``edit``, ``set_status``, ``scopes``, ``recall``, ``add_turn``, ``conversation``.
    ``engine.index`` is the structured index (SPEC S1–S7): ``propose``, ``build``, ``info``,
    ``drop``, ``route``, ``run``, ``answer``, ``lint``; ``ask`` consults it first.
    ``engine.web`` is the public-web fallback and its review queue (SPEC W1–W7): ``enabled``,
    ``set_enabled``, ``items``, ``item``, ``approve``, ``reject``, ``undo``, ``nearest``.
    ``engine.analysis`` is for analysts (SPEC C3): ``star_map``, ``collection``, ``distances``,
    ``model_bands``, ``evaluate``, ``runs``, ``run``, ``compare``. ``engine.doctor.check`` (issue 22);
    ``engine.team``: ``status``, ``refresh`` for spaces on object storage (issue 21). ``engine.passages``: a curator's
    ``disable``, ``enable``, ``edit``, ``note``, ``history``, ``undo`` of single passages (issue 61).
    Issue 56 split the rest along its responsibilities: ``engine.keys``: ``crypto``, ``unlock``, ``lock_all``,
    ``change_passphrase``, ``passphrase_available``, ``can_remember_passphrase``, ``secret_source``, ``owner``,
    ``take_notices``; ``engine.models``: ``embedder``, ``llm``, ``set_llm``, ``configure_llm``; ``engine.retrieval``:
    ``params``, ``baselines``, ``stored_baselines``; ``engine.backup``: ``export_space``, ``import_space``;
    ``engine.folder.recovery_notes``.
    """

    def __init__(self, folder: DataFolder, embedder: Embedder | None) -> None:
        self.folder = folder
        self.models = Models(folder.settings, folder.home / "config.toml", embedder)
        keys = self._session = KeySession(folder)
        self.keys = Keys(keys, folder)
        # Issue 56: each service is built with what it needs, in dependency order; nothing is set on it afterwards.
        self.index = StructuredIndex(folder, keys, self.models)
        self._retriever = self.retrieval = Retriever(folder, self.models, keys, self.index)
        self._spaces = Spaces(folder, self.models, keys, on_forget=[self._retriever.forget, self.index.forget])
        self.backup = Backup(folder, self._spaces)
        self._documents = Documents(folder, self.models, keys, on_change=[self.index.sync])
        self.web = WebFallback(folder, self.models, keys, self._retriever, self.ingest, self.set_document_status)
        self._answers = Answers(folder, self.models, self._retriever, self.web)
        self.analysis = Analysis(folder, self.models, keys, self._retriever, self._documents)
        self.memory = Memory(folder, self.models, keys)
        self.doctor = Doctor(folder, keys, lambda space, paths: self.ingest(space, paths))
        self.team = Team(folder)  # spaces on object storage: who writes, refresh (issue 21)
        self.passages = Passages(folder, self.models, keys, self._retriever.forget, self.index.refresh_rows)
        self._sources = Sources(folder, keys)
        self._closed = False

    @classmethod
    def open(cls, home: Path | str | None = None, *, settings: Settings | None = None,
             embedder: Embedder | None = None) -> Engine:
        # Absolute, so messages and the console name the real folder, not "data".
        root = (Path(home).expanduser() if home is not None else default_home()).resolve()
        root.mkdir(parents=True, exist_ok=True)
        single_threaded_blas()
        config_path = root / "config.toml"
        if settings is None:
            settings = load_settings(config_path)
            if not config_path.exists():
                save_settings(settings, config_path)
        return cls(DataFolder.open(root, settings), embedder)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._session.forget_all()  # keys, passphrases and the blinding memo end with the session
        self.folder.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the folder ----------------------------------------------------------------------------
    @property
    def home(self) -> Path:
        return self.folder.home

    @property
    def settings(self) -> Settings:
        return self.folder.settings

    # Stores, for tests, benchmarks and diagnostics; the console never uses these.
    @property
    def catalog(self) -> Catalog:
        return self.folder.catalog

    @property
    def chunks(self) -> ChunkStore:
        return self.folder.chunks

    @property
    def vectors(self) -> VectorCache:
        return self.folder.vectors

    # ---- models --------------------------------------------------------------------------------
    def update_settings(self, changes: dict[str, float | int]) -> list[str]:
        """Change editable settings ("retrieval.k" → 8 …) all or nothing; saved to config.toml. Returns what the
        change takes effect on (a chunk-size change needs a re-ingest)."""
        notes = apply_changes(self.settings, changes)
        save_settings(self.settings, self.home / "config.toml")
        return notes

    # ---- spaces and keys -----------------------------------------------------------------------
    def spaces(self) -> list[SpaceInfo]:
        return self._spaces.all()

    def space(self, name: str) -> SpaceInfo:
        return self._spaces.get(name)

    def create_space(self, name: str, *, encrypted: bool = True, passphrase: str | None = None,
                     remember: bool = True) -> SpaceInfo:
        """Create a space; encrypted unless ``encrypted=False`` is asked for explicitly (I8)."""
        return self._spaces.create(name, encrypted=encrypted, passphrase=passphrase, remember=remember)

    def delete_space(self, name: str) -> None:
        self._spaces.delete(name)

    # ---- documents -----------------------------------------------------------------------------
    readable_suffixes = staticmethod(readable_suffixes)  # what ingest reads, for file dialogs (services/documents)

    def documents(self, space: str, *, include_archived: bool = True, tables: bool = False) -> list[DocumentView]:
        return self._documents.views(space, include_archived=include_archived, tables=tables)  # tables: one entry each

    def document_chunks(self, space: str, doc_id: str) -> list[PassageView]:
        return self._documents.passages(space, doc_id)

    def source(self, space: str | None, chunk_id: str) -> SourceView:
        """A cited passage at its place in its source, read on demand (issue 61); ``chunk_id``: or a unique prefix."""
        return self._sources.view(*self._sources.resolve(chunk_id, space))

    def set_document_status(self, space: str, doc_id: str | list[str], status: str) -> None:
        """One document, or many at once (a table's rows): one write, one baseline refresh."""
        self._documents.set_status(space, doc_id, status)
        self._retriever.refresh_baselines(space)

    def ingest_log(self, space: str) -> list[dict[str, Any]]:
        return self._documents.log(space)

    # Files as given; folders walked recursively for supported types (hidden skipped).
    expand_paths = staticmethod(expand_paths)

    def ingest(self, space: str, paths: Iterable[Path | str], *, progress: ProgressCallback = no_progress,
               cancel: CancelToken | None = None, sources: Mapping[Path, str] | None = None) -> IngestReport:
        """Ingest files and folders; each file succeeds or fails on its own (SPEC I1)."""
        report = self._documents.ingest(space, paths, progress=progress, cancel=cancel, sources=sources)
        if report.by("ingested"):
            self._retriever.refresh_baselines(space)
        return report

    def reembed(self, space: str, *, progress: ProgressCallback = no_progress,
                cancel: CancelToken | None = None, force: bool = False) -> int:
        """Re-embed every chunk with the configured model; 0 when the space already uses it, unless ``force``."""
        n = self._documents.reembed(space, progress=progress, cancel=cancel, force=force)
        if n:
            self._retriever.refresh_baselines(space)
        return n

    # ---- retrieval -----------------------------------------------------------------------------
    def ask(self, space: str, question: str, *, k: int | None = None, max_distance: float | None = None,
            params: RetrievalParams | None = None, history: list[str] | None = None) -> AskResult:
        """Retrieve the passages that answer ``question`` (SPEC R1–R8), with a full trace. ``history``: the earlier
        user questions, oldest first; a follow-up may be rewritten for retrieval (R1), which changes only the query
        vector — ``question`` itself is what the trace, prompt and history keep."""
        return self._retriever.ask(space, question, k=k, max_distance=max_distance, params=params, history=history)

    def answer(self, space: str, question: str, *, history: list[str] | None = None, k: int | None = None,
               max_distance: float | None = None, params: RetrievalParams | None = None,
               on_text: Callable[[str], None] | None = None) -> AskResult:
        """``ask``, then a grounded answer from its final context in ``result.answer``. With a model: cited, exact
        values kept exact, every number checked; nothing retrieved means no model call and an honest "not in your
        material"; a failing model means the extractive answer, said in the trace. Without a model: extractive.
        ``on_text`` receives a model's reply as it streams in (provisional; ``result.answer`` is the checked one)."""
        return self._answers.answer(space, question, history=history, k=k, max_distance=max_distance,
                                    params=params, on_text=on_text)

    def more_material(self, turn_id: str) -> AskResult:
        """R6: the next batch of the same ranked pool; once per turn."""
        return self._retriever.more_material(turn_id)
