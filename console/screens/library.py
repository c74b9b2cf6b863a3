"""Library (SPEC C1): spaces, documents, ingestion with progress and cancel, per-document report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from biny.console.ops import Op, run_op
from biny.console.widgets.dialogs import NewSpaceDialog, UnlockDialog
from biny.core import BinyError, CancelToken, Engine, IngestReport, Progress

COLUMNS = ["Title", "Type", "Pages", "Chunks", "Chars/token", "Status", "Rev", "Ingested"]


class LibraryScreen(QWidget):
    space_selected = Signal(str)
    error = Signal(str, str)
    ingest_finished = Signal(object)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.current_space: str | None = None
        self.op: Op | None = None
        self.setAcceptDrops(True)

        # Spaces column
        self.spaces = QListWidget()
        self.spaces.setObjectName("spaces")
        self.spaces.currentItemChanged.connect(
            lambda cur, _prev: self._space_changed(str(cur.data(Qt.ItemDataRole.UserRole)) if cur else ""))
        self.new_space_btn = QPushButton("New space…")
        self.new_space_btn.clicked.connect(self.ask_new_space)
        self.delete_space_btn = QPushButton("Delete space…")
        self.delete_space_btn.clicked.connect(self.ask_delete_space)
        self.unlock_btn = QPushButton("Unlock…")
        self.unlock_btn.setObjectName("unlock")
        self.unlock_btn.clicked.connect(self.ask_unlock)
        self.unlock_btn.setVisible(False)
        left = QVBoxLayout()
        left.addWidget(QLabel("<b>Spaces</b>"))
        left.addWidget(self.spaces, 1)
        left.addWidget(self.unlock_btn)
        left.addWidget(self.new_space_btn)
        left.addWidget(self.delete_space_btn)
        left_w = QWidget()
        left_w.setLayout(left)

        # Documents
        self.add_files_btn = QPushButton("Add files…")
        self.add_files_btn.clicked.connect(self.pick_files)
        self.add_folder_btn = QPushButton("Add folder…")
        self.add_folder_btn.clicked.connect(self.pick_folder)
        self.archive_btn = QPushButton("Archive")
        self.archive_btn.clicked.connect(lambda: self._set_status("archived"))
        self.restore_btn = QPushButton("Restore")
        self.restore_btn.clicked.connect(lambda: self._set_status("active"))
        self.delete_doc_btn = QPushButton("Delete")
        self.delete_doc_btn.clicked.connect(self._delete_doc)
        self.reingest_btn = QPushButton("Re-ingest")
        self.reingest_btn.clicked.connect(self._reingest)
        bar = QHBoxLayout()
        for b in (self.add_files_btn, self.add_folder_btn):
            bar.addWidget(b)
        bar.addStretch(1)
        for b in (self.reingest_btn, self.archive_btn, self.restore_btn, self.delete_doc_btn):
            bar.addWidget(b)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("documents")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._show_report)
        self.empty_hint = QLabel("No documents yet. Add files or drop them here (PDF, DOCX, HTML, Markdown, text).")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)

        # Ingest queue
        self.queue = QListWidget()
        self.queue.setObjectName("queue")
        self.queue.setMaximumHeight(110)
        self.file_progress = QProgressBar()
        self.file_progress.setFormat("%p% of this file")
        self.overall_progress = QProgressBar()
        self.overall_progress.setFormat("%v of %m files")
        self.progress_label = QLabel("")
        self.cancel_btn = QPushButton("Cancel")
        self.cancel_btn.setEnabled(False)
        self.cancel_btn.clicked.connect(self.cancel_ingest)
        prog = QHBoxLayout()
        prog.addWidget(self.overall_progress, 1)
        prog.addWidget(self.file_progress, 1)
        prog.addWidget(self.cancel_btn)

        self.report = QTextBrowser()
        self.report.setObjectName("report")
        self.report.setMinimumWidth(260)

        mid = QVBoxLayout()
        mid.addLayout(bar)
        mid.addWidget(self.table, 1)
        mid.addWidget(self.empty_hint)
        mid.addWidget(QLabel("<b>Ingestion</b>"))
        mid.addLayout(prog)
        mid.addWidget(self.progress_label)
        mid.addWidget(self.queue)
        mid_w = QWidget()
        mid_w.setLayout(mid)

        split = QSplitter()
        split.addWidget(left_w)
        split.addWidget(mid_w)
        split.addWidget(self.report)
        split.setStretchFactor(1, 3)
        split.setSizes([180, 640, 280])
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        self.refresh_spaces()

    # ---- spaces ----------------------------------------------------------------------------
    def refresh_spaces(self, select: str | None = None) -> None:
        names = [s.name for s in self.engine.spaces()]
        keep = select or self.current_space
        self.spaces.blockSignals(True)
        self.spaces.clear()
        for s in self.engine.spaces():
            state = ("encrypted, locked" if s.locked else "encrypted") if s.encrypted else "not encrypted"
            item = QListWidgetItem(s.name + ("  · locked" if s.locked else ""))
            item.setData(Qt.ItemDataRole.UserRole, s.name)
            item.setToolTip(f"{s.documents} documents, {s.chunks} chunks, {state}")
            self.spaces.addItem(item)
        self.spaces.blockSignals(False)
        if keep in names:
            self.spaces.setCurrentRow(names.index(keep))
        elif names:
            self.spaces.setCurrentRow(0)
        else:
            self._space_changed("")

    def select_space(self, name: str) -> None:
        for i in range(self.spaces.count()):
            item = self.spaces.item(i)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == name:
                self.spaces.setCurrentItem(item)

    @property
    def locked(self) -> bool:
        return bool(self.current_space) and self.engine.space(self.current_space or "").locked

    def _space_changed(self, name: str) -> None:
        self.current_space = name or None
        locked = self.locked
        has = bool(name) and not locked
        for b in (self.add_files_btn, self.add_folder_btn):
            b.setEnabled(has)
        self.delete_space_btn.setEnabled(bool(name))
        self.unlock_btn.setVisible(locked)
        self.refresh_documents()
        if name:
            self.space_selected.emit(name)

    def ask_new_space(self) -> None:
        need = not self.engine.passphrase_available()
        dialog = NewSpaceDialog(need, self.engine.secret_source(), self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.create_space(dialog.name.text().strip(), encrypted=dialog.encrypt.isChecked(),
                          passphrase=dialog.passphrase.text() or None, remember=dialog.remember.isChecked())

    def create_space(self, name: str, *, encrypted: bool = True, passphrase: str | None = None,
                     remember: bool = True) -> None:
        try:
            self.engine.create_space(name, encrypted=encrypted, passphrase=passphrase, remember=remember)
        except BinyError as exc:
            self.error.emit(str(exc), "")
            return
        for notice in self.engine.notices:
            self.progress_label.setText(notice)
        self.engine.notices.clear()
        self.refresh_spaces(select=name)

    def ask_unlock(self) -> None:
        if not self.current_space:
            return
        dialog = UnlockDialog(self.current_space, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.unlock(dialog.passphrase.text(), remember=dialog.remember.isChecked())

    def unlock(self, passphrase: str, *, remember: bool = False) -> bool:
        if not self.current_space:
            return False
        try:
            self.engine.unlock(self.current_space, passphrase, remember=remember)
        except BinyError as exc:
            self.error.emit(str(exc), "")
            return False
        self._space_changed(self.current_space)
        return True

    def ask_delete_space(self) -> None:
        if not self.current_space:
            return
        answer = QMessageBox.question(
            self, "Delete space",
            f"Delete the space “{self.current_space}” and every document and chunk in it?\n"
            "This cannot be undone.",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.engine.delete_space(self.current_space)
            self.current_space = None
            self.refresh_spaces()

    # ---- documents ---------------------------------------------------------------------------
    def refresh_documents(self) -> None:
        docs = self.engine.documents(self.current_space) if self.current_space and not self.locked else []
        self.table.setRowCount(len(docs))
        for r, d in enumerate(docs):
            values: list[Any] = [d.title, d.kind, d.pages or "", d.chunks, f"{d.chars_per_token:.2f}",
                                 d.status, d.revision, d.ingested_at.strftime("%Y-%m-%d %H:%M")]
            for c, v in enumerate(values):
                item = QTableWidgetItem(str(v))
                item.setData(Qt.ItemDataRole.UserRole, d.doc_id)
                if c == 0:
                    item.setToolTip(d.path)
                self.table.setItem(r, c, item)
        header = self.table.horizontalHeader()
        for c in range(1, len(COLUMNS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.empty_hint.setText(
            "This space is encrypted and locked: unlock it with its passphrase to see and search its documents."
            if self.locked else
            "No documents yet. Add files or drop them here (PDF, DOCX, HTML, Markdown, text).")
        self.empty_hint.setVisible(not docs)
        self._show_report()

    def selected_doc_id(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return str(item.data(Qt.ItemDataRole.UserRole)) if item else None

    def _show_report(self) -> None:
        doc_id = self.selected_doc_id()
        docs = {d.doc_id: d for d in self.engine.documents(self.current_space)} \
            if self.current_space and not self.locked else {}
        for b in (self.archive_btn, self.restore_btn, self.delete_doc_btn, self.reingest_btn):
            b.setEnabled(doc_id is not None)
        if doc_id is None or doc_id not in docs:
            failures = [r for r in self.engine.ingest_log(self.current_space) if r["outcome"] == "failed"][:8] \
                if self.current_space else []
            html = "<h3>Report</h3><p>Select a document to see its report.</p>"
            if failures:
                html += "<h4>Recent failures</h4><ul>" + "".join(
                    f"<li><b>{Path(f['path']).name}</b>: {f['message']}</li>" for f in failures) + "</ul>"
            self.report.setHtml(html)
            return
        d = docs[doc_id]
        warn = "".join(f"<li>{w}</li>" for w in d.warnings) or "<li>none</li>"
        self.report.setHtml(
            f"<h3>{d.title}</h3><p><small>{d.path}</small></p><table>"
            f"<tr><td>Type</td><td>{d.kind}</td></tr>"
            f"<tr><td>Pages</td><td>{d.pages}</td></tr>"
            f"<tr><td>Pages without text layer</td><td>{d.pages_without_text}</td></tr>"
            f"<tr><td>Pages OCR'd</td><td>{d.pages_ocr}</td></tr>"
            f"<tr><td>Figures described</td><td>{d.figures_described}</td></tr>"
            f"<tr><td>Decorations skipped</td><td>{d.decorations_skipped}</td></tr>"
            f"<tr><td>Chunks</td><td>{d.chunks}</td></tr>"
            f"<tr><td>Estimated chars/token</td><td>{d.chars_per_token:.2f} "
            f"(CJK share {d.cjk_share:.0%})</td></tr>"
            f"<tr><td>Chunks re-split at the model limit</td><td>{d.resplits}</td></tr>"
            f"<tr><td>Revision</td><td>{d.revision} ({d.status})</td></tr>"
            f"</table><h4>Warnings</h4><ul>{warn}</ul>"
        )

    def _set_status(self, status: str) -> None:
        doc_id = self.selected_doc_id()
        if doc_id and self.current_space:
            self.engine.set_document_status(self.current_space, doc_id, status)
            self.refresh_documents()

    def _delete_doc(self) -> None:
        doc_id = self.selected_doc_id()
        if not doc_id:
            return
        answer = QMessageBox.question(self, "Delete document", "Delete this document and its chunks?")
        if answer == QMessageBox.StandardButton.Yes:
            self._set_status("deleted")

    def _reingest(self) -> None:
        doc_id = self.selected_doc_id()
        if not doc_id or not self.current_space:
            return
        doc = next((d for d in self.engine.documents(self.current_space) if d.doc_id == doc_id), None)
        if doc is not None:
            self.ingest([Path(doc.path)])

    # ---- ingestion ---------------------------------------------------------------------------
    def pick_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add documents", "", "Documents (*.pdf *.docx *.html *.htm *.md *.txt *.rst);;All files (*)")
        if files:
            self.ingest([Path(f) for f in files])

    def pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of documents")
        if folder:
            self.ingest([Path(folder)])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and self.current_space:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.ingest(paths)

    @property
    def busy(self) -> bool:
        return self.op is not None

    def ingest(self, paths: list[Path]) -> None:
        if not self.current_space:
            self.error.emit("Create or select a space first.", "")
            return
        if self.busy:
            self.error.emit("An ingestion is already running; wait for it or cancel it.", "")
            return
        space = self.current_space
        files = self.engine.expand_paths(paths)
        self.queue.clear()
        for f in files:
            self.queue.addItem(QListWidgetItem(f"waiting  {f.name}"))
        self.overall_progress.setRange(0, max(len(files), 1))
        self.overall_progress.setValue(0)
        self.file_progress.setRange(0, 100)
        self.file_progress.setValue(0)
        self.cancel_btn.setEnabled(True)

        def work(progress: Any, cancel: CancelToken) -> IngestReport:
            return self.engine.ingest(space, files, progress=progress, cancel=cancel)

        self.op = run_op(work, on_success=self._ingest_done, on_failure=self._ingest_failed,
                         on_progress=self._on_progress, on_finished=self._ingest_finished)

    def cancel_ingest(self) -> None:
        if self.op is not None:
            self.op.cancel.cancel()
            self.progress_label.setText("Cancelling… the current file is rolled back.")

    def _on_progress(self, p: Progress) -> None:
        self.overall_progress.setValue(p.done)
        if p.stage == "embed" and "/" in p.detail:
            done, total = p.detail.rsplit(" ", 1)[-1].split("/")
            if total.isdigit() and int(total):
                self.file_progress.setValue(int(100 * int(done) / int(total)))
        elif p.stage in {"file", "parse"}:
            self.file_progress.setValue(0)
        elif p.stage == "done":
            self.file_progress.setValue(100)
        self.progress_label.setText(f"{p.stage}: {p.detail}")
        if p.stage == "file" and p.done < self.queue.count():
            item = self.queue.item(p.done)
            if item is not None:
                item.setText(f"working  {p.detail}")

    def _ingest_done(self, report: IngestReport) -> None:
        for n, f in enumerate(report.files):
            item = self.queue.item(n)
            if item is not None:
                detail = f"{f.chunks} chunks" if f.outcome == "ingested" else f.message
                item.setText(f"{f.outcome:<10} {Path(f.path).name}: {detail}")
                item.setToolTip(f.message)
        summary = (f"{len(report.by('ingested'))} ingested, {len(report.by('unchanged'))} unchanged, "
                   f"{len(report.by('failed'))} failed" + (" — cancelled" if report.cancelled else ""))
        self.progress_label.setText(summary)
        self.overall_progress.setValue(self.overall_progress.maximum() if not report.cancelled
                                       else self.overall_progress.value())
        self.ingest_finished.emit(report)

    def _ingest_failed(self, exc: BaseException, detail: str) -> None:
        self.progress_label.setText(f"Ingestion stopped: {exc}")
        self.error.emit(str(exc), detail)

    def _ingest_finished(self) -> None:
        self.op = None
        self.cancel_btn.setEnabled(False)
        self.refresh_documents()
        self.refresh_spaces()
