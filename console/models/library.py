"""The Library's state (SPEC C1): spaces, the current space, its documents, recent failures, ingest runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biny.console.models.base import Fetching, Runner
from biny.core import CancelToken, DocumentView, Engine, IngestReport, Progress, SpaceInfo


@dataclass(slots=True)
class LibrarySnapshot:
    spaces: list[SpaceInfo] = field(default_factory=list)
    current: SpaceInfo | None = None
    documents: list[DocumentView] = field(default_factory=list)
    # A table is listed as one entry (core/views.py group_tables): "table:<file>" → its rows' doc_ids.
    tables: dict[str, list[str]] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    # Issue 61: passages a curator disabled, per document (stored, never retrieved): the Library says so.
    disabled: dict[str, int] = field(default_factory=dict)


def _snapshot(engine: Engine, want: str | None) -> LibrarySnapshot:
    """Everything the screen shows, read in one background step."""
    spaces = engine.spaces()
    current = next((s for s in spaces if s.name == want), spaces[0] if spaces else None)
    snap = LibrarySnapshot(spaces, current)
    if current is not None:
        if not current.locked:
            snap.documents = engine.documents(current.name, tables=True)
            snap.tables = {d.doc_id: list(d.rows) for d in snap.documents if d.rows}
            for doc_id in engine.passages.disabled(current.name).values():
                snap.disabled[doc_id] = snap.disabled.get(doc_id, 0) + 1
        snap.failures = [r for r in engine.ingest_log(current.name) if r["outcome"] == "failed"][:8]
    snap.notices = [str(n) for n in engine.keys.take_notices()]
    return snap


class LibraryModel(Fetching):
    """Observed through ``changed``, ``error``, ``notice``, ``space_selected``, ``progress`` and
    ``ingest_finished``; every engine call runs off the UI thread."""

    def __init__(self, engine: Engine, run: Runner) -> None:
        super().__init__(run)
        self.engine = engine
        self.state = LibrarySnapshot()
        # The space last asked for (a click, a create, an unlock): a refresh started later — an ingest's, say —
        # shows it, not the one current when that refresh began (issue 60: the view jumped to the ingested space).
        self.wanted: str | None = None
        self.ingest_op: Any = None  # the running ingest's op (has .cancel), or None

    # ---- what the screen reads ------------------------------------------------------------
    @property
    def current(self) -> str | None:
        return self.state.current.name if self.state.current else None

    @property
    def locked(self) -> bool:
        return self.state.current is not None and self.state.current.locked

    def document(self, doc_id: str) -> DocumentView | None:
        return next((d for d in self.state.documents if d.doc_id == doc_id), None)

    # ---- intents ----------------------------------------------------------------------------
    def _apply(self, snap: LibrarySnapshot) -> None:
        previous = self.current
        self.state = snap
        self.emit("changed")
        for notice in snap.notices:
            self.emit("notice", notice)
        if self.current and self.current != previous:
            self.emit("space_selected", self.current)

    def _then_refresh(self, action: Callable[[], object], select: str | None = None, *, writes: bool = False) -> None:
        engine = self.engine
        if select is not None:
            self.wanted = select
        target = self.wanted

        def work(_: Callable[[Progress], None], __: CancelToken) -> LibrarySnapshot:
            action()
            return _snapshot(engine, target or self.current)

        def apply(snap: LibrarySnapshot) -> None:
            self._apply(snap)
            if writes:
                self.emit("written")  # the other screens read again (issue 49)

        self.fetch(work, apply)

    def refresh(self, select: str | None = None) -> None:
        self._then_refresh(lambda: None, select)

    def select(self, name: str) -> None:
        if name and name != self.current:
            self.refresh(select=name)

    def create_space(self, name: str, *, encrypted: bool = True, passphrase: str | None = None,
                     remember: bool = True) -> None:
        # Model load and key derivation (scrypt) both run here, off the UI thread.
        engine = self.engine
        self._then_refresh(lambda: engine.create_space(name, encrypted=encrypted, passphrase=passphrase,
                                                       remember=remember), select=name)

    def unlock(self, passphrase: str, *, remember: bool = False) -> None:
        name = self.current
        if name:
            engine = self.engine
            self._then_refresh(lambda: engine.keys.unlock(name, passphrase, remember=remember), select=name)

    def delete_space(self) -> None:
        name = self.current
        if name:
            engine = self.engine
            self._then_refresh(lambda: engine.delete_space(name), select="")

    def set_status(self, doc_id: str, status: str) -> None:
        name = self.current
        if name:
            engine = self.engine
            target: str | list[str] = self.state.tables.get(doc_id, doc_id)  # a table: all its rows at once
            self._then_refresh(lambda: engine.set_document_status(name, target, status), select=name, writes=True)

    def ingest(self, paths: list[Path]) -> bool:
        """Start an ingest of files and folders (folders are walked in the background)."""
        name = self.current
        if not name or self.ingest_op is not None:
            return False
        engine = self.engine

        def work(progress: Callable[[Progress], None], cancel: CancelToken) -> IngestReport:
            return engine.ingest(name, engine.expand_paths(paths), progress=progress, cancel=cancel)

        def on_progress(p: Progress) -> None:
            self.emit("progress", p)
            # The table fills as files commit; while a refresh is still running the next one would
            # only repeat it (the ingest's end refreshes once more).
            if p.stage == "file_done" and p.outcome == "ingested" and self.pending == 0:
                self.refresh()  # the space on display stays (another may have been chosen since)

        def done(report: IngestReport) -> None:
            self.emit("ingest_finished", report)

        def failed(exc: BaseException, detail: str) -> None:
            self.emit("error", str(exc), detail)

        def finished() -> None:
            self.ingest_op = None
            self._then_refresh(lambda: None, writes=True)

        self.ingest_op = self._run(work, on_success=done, on_failure=failed, on_progress=on_progress,
                                   on_finished=finished)
        return True

    def cancel_ingest(self) -> None:
        if self.ingest_op is not None:
            self.ingest_op.cancel.cancel()
