"""Library (SPEC C1): spaces, documents, ingestion with progress and cancel, per-document report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
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
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import QT_TR_NOOP, date, number, tr
from biny.console.models.library import LibraryModel, LibrarySnapshot
from biny.console.ops import run_op
from biny.console.widgets.dialogs import NewSpaceDialog, UnlockDialog
from biny.console.widgets.passages import PassagesDialog
from biny.core import DocumentView, Engine, IngestReport, Progress, ProgressMeter

# Chars/token and revision are in the report beside the table; the title keeps the room.
COLUMNS = [QT_TR_NOOP("Title"), QT_TR_NOOP("Type"), QT_TR_NOOP("Pages"), QT_TR_NOOP("Chunks"), QT_TR_NOOP("Status"),
           QT_TR_NOOP("Ingested")]

# Progress stages and outcomes as the engine names them (core/progress.py, core/results.py), shown translated.
_STAGE_NAMES = {"read": QT_TR_NOOP("reading pages and figures"), "parse": QT_TR_NOOP("reading"),
                "embed": QT_TR_NOOP("embedding"), "file": QT_TR_NOOP("starting"), "file_done": QT_TR_NOOP("finished"),
                "done": QT_TR_NOOP("done")}
OUTCOMES = {"ingested": QT_TR_NOOP("ingested"), "unchanged": QT_TR_NOOP("unchanged"), "failed": QT_TR_NOOP("failed"),
            "cancelled": QT_TR_NOOP("cancelled"), "working": QT_TR_NOOP("working")}
STATUSES = {"active": QT_TR_NOOP("active"), "archived": QT_TR_NOOP("archived"), "deleted": QT_TR_NOOP("deleted"),
            "pending": QT_TR_NOOP("pending"), "damaged": QT_TR_NOOP("damaged"), "mixed": QT_TR_NOOP("mixed")}
# Every kind a listed document can have (core/views.py ListedKind; tests/console/test_vocabulary.py), no other.
KINDS = {"table": QT_TR_NOOP("table"), "text": QT_TR_NOOP("text"), "row": QT_TR_NOOP("table row"),
         "markdown": QT_TR_NOOP("Markdown text"), "html": QT_TR_NOOP("web page (HTML)"),
         "pdf": QT_TR_NOOP("PDF document"), "docx": QT_TR_NOOP("Word document (DOCX)")}


# Texts translated inside f-strings, where pyside6-lupdate does not look: marked here for extraction
# (tests/console/test_i18n.py checks that every tr() text is in the catalogue).
_IN_FSTRINGS = (
    QT_TR_NOOP("Report"),
    QT_TR_NOOP("Select a document to see its report."),
    QT_TR_NOOP("none"),
    QT_TR_NOOP("Type"),
    QT_TR_NOOP("Pages"),
    QT_TR_NOOP("Pages without text layer"),
    QT_TR_NOOP("Pages read by OCR"),
    QT_TR_NOOP("Figures described"),
    QT_TR_NOOP("Decorations skipped"),
    QT_TR_NOOP("Chunks"),
    QT_TR_NOOP("Estimated chars/token"),
    QT_TR_NOOP("Chunks re-split at the model limit"),
    QT_TR_NOOP("Revision"),
    QT_TR_NOOP("Warnings"),
    QT_TR_NOOP("CJK share {share}"),
    QT_TR_NOOP("Recent failures"),
)


def _named(table: dict[str, str], key: str) -> str:
    """An engine value in words of the interface language (the value itself when unknown)."""
    return tr(table[key]) if key in table else key


def _where(d: Any, counter: str) -> str:
    """The pages behind a counter, as " — pages 1, 3, 5" (I5: the report says where counts come from)."""
    pages = sorted(set(d.visual_pages.get(counter, [])))
    if not pages:
        return ""
    many = len(pages) > 1
    unit = (tr("pages") if many else tr("page")) if d.kind == "pdf" else (tr("images") if many else tr("image"))
    names = [tr("header/footer") if p == 0 else str(p) for p in pages[:15]]
    more = tr(" and {n} more").format(n=len(pages) - 15) if len(pages) > 15 else ""
    return f" <small>— {unit} {', '.join(names)}{more}</small>"


def _pages(pages: int) -> str:
    """Pages of a paged format; "–" for text, Markdown and HTML, which have none (the same in table and report)."""
    return str(pages) if pages else "–"



def file_filter() -> str:
    """The Add-files dialog's filters, the first (the default) naming every format ingest reads — tables too: a
    CSV or a spreadsheet hidden under "All files" looked unsupported (issue 63)."""
    every, tables = Engine.readable_suffixes(), Engine.readable_suffixes(tables=True)
    return ";;".join([
        tr("Documents and tables") + " (" + " ".join(f"*{s}" for s in every) + ")",
        tr("Tables (one document per row)") + " (" + " ".join(f"*{s}" for s in tables) + ")",
        tr("All files") + " (*)"])



def library_hint() -> str:
    """What an empty space says: the formats, tables among them, and what tables are for (issue 63)."""
    return tr("No documents yet. Add files or drop them here: documents (PDF, DOCX, HTML, Markdown, text) or "
              "tables (CSV, TSV, XLSX, JSONL) — each table row becomes a document, and the Structured index screen "
              "builds an index over their fields (and over the fields pages state in a header or a two-column table) "
              "to count, filter and look them up.")


class LibraryScreen(QWidget):
    """The Library: the spaces column, the add bar over the documents table, the selected document's actions and
    report, and the ingestion panel — each its own widget or helper (issue 56); this screen wires them to the model
    and owns adding files."""

    space_selected = Signal(str)
    error = Signal(str, str)
    ingest_finished = Signal(object)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = LibraryModel(engine, run_op)
        self.setAcceptDrops(True)
        # Why this console may not change the library (a team space another machine writes), or None.
        self.read_only: str | None = None
        self.spaces_panel = SpacesPanel(self.model)
        self.spaces_panel.error.connect(self.error.emit)
        self.table = DocumentsView()
        self.table.selection_changed.connect(self._show_selected)
        self.document_actions = DocumentActions(self)
        self.report = DocumentReport()
        self.ingestion = IngestPanel()
        self.ingestion.cancel_btn.clicked.connect(self.cancel_ingest)
        self.empty_hint = QLabel(library_hint())
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)  # a long hint must not set the window's minimum width
        self.model.connect("changed", self._render)
        self.model.connect("error", self.error.emit)
        self.model.connect("notice", self.ingestion.progress_label.setText)
        self.model.connect("space_selected", self.space_selected.emit)
        self.model.connect("progress", self.ingestion.show_progress)
        self.model.connect("ingest_finished", self._ingest_done)

        mid = QVBoxLayout()
        mid.addLayout(self._add_bar())
        mid.addWidget(self.table, 1)
        mid.addLayout(self.document_actions.bar())
        mid.addWidget(self.empty_hint)
        mid.addWidget(self.ingestion)
        mid_w = QWidget()
        mid_w.setLayout(mid)
        split = QSplitter()
        split.addWidget(self.spaces_panel)
        split.addWidget(mid_w)
        split.addWidget(self.report)
        split.setStretchFactor(1, 3)
        split.setSizes([180, 640, 280])
        lay = QVBoxLayout(self)
        lay.addWidget(split)
        self.refresh_spaces()

    def _add_bar(self) -> QHBoxLayout:
        """Adding sits above the table, acting on the selected document below it: two short rows instead of one
        long one, so the window works from 1024 px wide. The selected document's passages open from the right of
        the add bar: the document row would otherwise set a minimum width over 1024 px."""
        self.add_files_btn = QPushButton(tr("Add files…"))
        self.add_files_btn.clicked.connect(self.pick_files)
        self.add_folder_btn = QPushButton(tr("Add folder…"))
        self.add_folder_btn.clicked.connect(self.pick_folder)
        bar = QHBoxLayout()
        for b in (self.add_files_btn, self.add_folder_btn):
            bar.addWidget(b)
        bar.addStretch(1)
        bar.addWidget(self.document_actions.passages_btn)
        return bar

    @property
    def current_space(self) -> str | None:
        return self.model.current

    @property
    def locked(self) -> bool:
        return self.model.locked

    @property
    def op(self) -> Any:
        """The running ingest, if any."""
        return self.model.ingest_op

    @property
    def busy(self) -> bool:
        return self.op is not None

    def set_read_only(self, reason: str | None) -> None:
        """Switch off what would write (a team space another machine writes), saying why; None switches back."""
        self.read_only = reason
        self._render()

    def refresh_spaces(self, select: str | None = None) -> None:
        self.model.refresh(select)

    def select_space(self, name: str) -> None:
        self.model.select(name)

    def refresh_documents(self) -> None:
        self.model.refresh()

    def create_space(self, name: str, *, encrypted: bool = True, passphrase: str | None = None,
                     remember: bool = True) -> None:
        self.model.create_space(name, encrypted=encrypted, passphrase=passphrase, remember=remember)

    def unlock(self, passphrase: str, *, remember: bool = False) -> None:
        """Try the passphrase in the background (key derivation is slow); a wrong one reports an error."""
        self.model.unlock(passphrase, remember=remember)

    def _render(self) -> None:
        """The model changed: the spaces, what may be added, the documents and the selected one."""
        self.spaces_panel.show_spaces(self.model.state, self.current_space, self.locked, self.read_only)
        has = bool(self.current_space) and not self.locked and not self.read_only
        for b in (self.add_files_btn, self.add_folder_btn):
            b.setEnabled(has)
            b.setToolTip(self.read_only or "")
        self.ingestion.cancel_btn.setEnabled(self.op is not None)
        docs = self.model.state.documents
        self.table.show_documents(self.model.state)
        self.empty_hint.setText(
            tr("This space is encrypted and locked: unlock it with its passphrase to see and search its documents.")
            if self.locked else
            library_hint())
        self.empty_hint.setVisible(not docs)
        self._show_selected()

    def _show_selected(self) -> None:
        """The selected document's report, and the actions its status allows."""
        doc_id = self.table.selected_doc_id()
        d = self.model.document(doc_id) if doc_id else None
        self.document_actions.enable_for(d, self.read_only)
        if d is None:
            self.report.show_failures(self.model.state.failures)
        else:
            self.report.show_document(d)

    # ---- adding documents ----------------------------------------------------------------------
    def pick_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, tr("Add documents"), "", file_filter())
        if files:
            self.ingest([Path(f) for f in files])

    def pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, tr("Add a folder of documents"))
        if folder:
            self.ingest([Path(folder)])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and self.current_space:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.ingest(paths)

    def ingest(self, paths: list[Path]) -> None:
        if not self.current_space:
            self.error.emit(tr("Create or select a space first."), "")
            return
        if self.busy:
            self.error.emit(tr("An ingestion is already running; wait for it or cancel it."), "")
            return
        self.ingestion.start()
        if self.model.ingest(paths):
            self.ingestion.cancel_btn.setEnabled(True)

    def cancel_ingest(self) -> None:
        if self.op is not None:
            self.model.cancel_ingest()
            self.ingestion.progress_label.setText(tr("Cancelling… the current file is rolled back."))

    def _ingest_done(self, report: IngestReport) -> None:
        self.ingestion.finished(report)
        self.ingest_finished.emit(report)


class SpacesPanel(QWidget):
    """The spaces column: the list, and Unlock, New and Delete with their dialogs."""

    error = Signal(str, str)

    def __init__(self, model: LibraryModel) -> None:
        super().__init__()
        self.model = model
        self.spaces = QListWidget()
        self.spaces.setObjectName("spaces")
        self.spaces.currentItemChanged.connect(
            lambda cur, _prev: self.model.select(str(cur.data(Qt.ItemDataRole.UserRole)) if cur else ""))
        self.new_space_btn = QPushButton(tr("New space…"))
        self.new_space_btn.clicked.connect(self.ask_new_space)
        self.delete_space_btn = QPushButton(tr("Delete space…"))
        self.delete_space_btn.clicked.connect(self.ask_delete_space)
        self.unlock_btn = QPushButton(tr("Unlock…"))
        self.unlock_btn.setObjectName("unlock")
        self.unlock_btn.clicked.connect(self.ask_unlock)
        self.unlock_btn.setVisible(False)
        left = QVBoxLayout(self)
        left.addWidget(QLabel("<b>" + tr("Spaces") + "</b>"))
        left.addWidget(self.spaces, 1)
        left.addWidget(self.unlock_btn)
        left.addWidget(self.new_space_btn)
        left.addWidget(self.delete_space_btn)

    def show_spaces(self, state: LibrarySnapshot, current: str | None, locked: bool, read_only: str | None) -> None:
        names = [s.name for s in state.spaces]
        self.spaces.blockSignals(True)
        self.spaces.clear()
        for s in state.spaces:
            enc = (tr("encrypted, locked") if s.locked else tr("encrypted")) if s.encrypted else tr("not encrypted")
            item = QListWidgetItem(s.name + ("  · " + tr("locked") if s.locked else ""))
            item.setData(Qt.ItemDataRole.UserRole, s.name)
            item.setToolTip(tr("{docs} documents, {chunks} chunks, {encryption}").format(
                docs=number(s.documents), chunks=number(s.chunks), encryption=enc))
            self.spaces.addItem(item)
        if current in names:
            self.spaces.setCurrentRow(names.index(current or ""))
        self.spaces.blockSignals(False)
        self.delete_space_btn.setEnabled(bool(current) and not read_only)
        self.new_space_btn.setEnabled(not read_only)
        for b in (self.new_space_btn, self.delete_space_btn):
            b.setToolTip(read_only or "")
        self.unlock_btn.setVisible(locked)

    def ask_new_space(self) -> None:
        # Whether a passphrase must be typed is known only by asking the engine: do that in the background.
        engine = self.model.engine

        def known(_: object, __: object) -> tuple[bool, str, bool]:
            keys = engine.keys
            return keys.passphrase_available(), keys.secret_source(), keys.can_remember_passphrase()

        run_op(known, on_success=lambda r: self._new_space_dialog(*r),
               on_failure=lambda e, d: self.error.emit(str(e), d))

    def _new_space_dialog(self, available: bool, source: str, can_remember: bool = True) -> None:
        dialog = NewSpaceDialog(not available, source, self, can_remember=can_remember)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.model.create_space(dialog.name.text().strip(), encrypted=dialog.encrypt.isChecked(),
                                passphrase=dialog.passphrase.text() or None, remember=dialog.remember.isChecked())

    def ask_unlock(self) -> None:
        if not self.model.current:
            return
        engine = self.model.engine
        run_op(lambda _, __: engine.keys.can_remember_passphrase(), on_success=self._unlock_dialog,
               on_failure=lambda e, d: self.error.emit(str(e), d))

    def _unlock_dialog(self, can_remember: bool) -> None:
        if not self.model.current:
            return
        dialog = UnlockDialog(self.model.current, self, can_remember=can_remember)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.model.unlock(dialog.passphrase.text(), remember=dialog.remember.isChecked())

    def ask_delete_space(self) -> None:
        if not self.model.current:
            return
        answer = QMessageBox.question(
            self, tr("Delete space"),
            tr("Delete the space “{name}” and every document and chunk in it?\nThis cannot be undone.").format(
                name=self.model.current),
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.model.delete_space()


_ROOT = QModelIndex()  # the invisible root: a flat table has rows only under it


class DocumentsTable(QAbstractTableModel):
    """The documents as a model: each cell is made when the view paints or asks for it.

    A table widget item per cell held ≈110 MB and took 1.9 s on the interface thread each refresh for a space of
    27k documents (bench/README.md, the console's memory at 100k passages); a model holds only the snapshot the
    screen already has."""

    def __init__(self) -> None:
        super().__init__()
        self.state = LibrarySnapshot()
        self._row_of: dict[str, int] = {}
        self._disabled: dict[str, int] = {}  # per document, counted on first paint: a table's rows are many

    def show(self, state: LibrarySnapshot) -> None:
        self.beginResetModel()
        self.state = state
        self._row_of = {d.doc_id: r for r, d in enumerate(state.documents)}
        self._disabled = {}
        self.endResetModel()

    def row_of(self, doc_id: str) -> int | None:
        return self._row_of.get(doc_id)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.state.documents)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return tr(COLUMNS[section])
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        d = self.state.documents[index.row()]
        c = index.column()
        if role == Qt.ItemDataRole.UserRole:
            return d.doc_id
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(index.row(), c)
        if role == Qt.ItemDataRole.ToolTipRole:
            if c == 0:
                return f"{self.text(index.row(), 0)}\n{d.path}"
            off = self._off(d.doc_id)
            if COLUMNS[c] == "Chunks" and off:
                return tr("{n} passage(s) disabled by a curator: stored, never retrieved").format(n=number(off))
            if COLUMNS[c] == "Ingested":
                return date(d.ingested_at, with_time=True)
        return None

    def text(self, row: int, column: int) -> str:
        d = self.state.documents[row]
        if column == 0:
            rows = self.state.tables.get(d.doc_id)
            return tr("{name} — {n} rows").format(name=d.title, n=number(len(rows))) if rows else d.title
        if column == 1:
            return _named(KINDS, d.kind)
        if column == 2:
            return _pages(d.pages)
        if column == 3:
            off = self._off(d.doc_id)
            return number(d.chunks) + (" " + tr("({n} disabled)").format(n=number(off)) if off else "")
        if column == 4:
            return _named(STATUSES, d.status)
        return date(d.ingested_at)

    def _off(self, doc_id: str) -> int:
        off = self._disabled.get(doc_id)
        if off is None:
            disabled = self.state.disabled
            off = self._disabled[doc_id] = sum(disabled.get(i, 0) for i in self.state.tables.get(doc_id) or [doc_id])
        return off


class DocumentsView(QTableView):
    """The space's documents, one line each; a table's title says how many rows it holds."""

    selection_changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("documents")
        self.documents = DocumentsTable()
        self.setModel(self.documents)
        self.selectionModel().selectionChanged.connect(lambda *_: self.selection_changed.emit())
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)  # one line per document; a long title is elided, whole in its tooltip
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.columns_sized = False  # set by the main window when it restores remembered widths

    def rowCount(self) -> int:
        return self.documents.rowCount()

    def columnCount(self) -> int:
        return self.documents.columnCount()

    def cell(self, row: int, column: int, role: Qt.ItemDataRole = Qt.ItemDataRole.DisplayRole) -> str:
        """What a cell shows (or its tooltip, …): the model's data, as the view paints it."""
        return str(self.documents.index(row, column).data(role) or "")

    def selected_doc_id(self) -> str | None:
        rows = self.selectionModel().selectedRows()
        return self.documents.state.documents[rows[0].row()].doc_id if rows else None

    def show_documents(self, state: LibrarySnapshot) -> None:
        selected = self.selected_doc_id()
        self.blockSignals(True)
        self.documents.show(state)
        r = self.documents.row_of(selected) if selected else None
        if r is not None:
            self.selectRow(r)
        self.blockSignals(False)
        if state.documents:
            self._fit_columns()

    def _fit_columns(self) -> None:
        # Qt measures a column over its first rows (QHeaderView.resizeContentsPrecision, 1,000), not all of them.
        if not self.columns_sized:  # fitted once; after that the widths are the user's
            for c in range(1, len(COLUMNS)):
                self.resizeColumnToContents(c)
            self.columns_sized = True
        # ... but never narrower than what they hold: a width remembered from another language, or fitted before
        # longer values arrived, cut the date (issue 60).
        header = self.horizontalHeader()
        for c in range(1, len(COLUMNS)):
            needed = max(self.sizeHintForColumn(c), header.sectionSizeHint(c))
            if self.columnWidth(c) < needed:
                self.setColumnWidth(c, needed)


class DocumentActions:
    """What can be done to the selected document — re-ingest, archive, restore, delete, open its passages — with
    buttons enabled by its status."""

    def __init__(self, screen: LibraryScreen) -> None:
        self.screen = screen
        self.archive_btn = QPushButton(tr("Archive"))
        self.archive_btn.clicked.connect(lambda: self.set_status("archived"))
        self.restore_btn = QPushButton(tr("Restore"))
        self.restore_btn.clicked.connect(lambda: self.set_status("active"))
        self.delete_doc_btn = QPushButton(tr("Delete"))
        self.delete_doc_btn.clicked.connect(self.delete)
        self.reingest_btn = QPushButton(tr("Re-ingest"))
        self.reingest_btn.clicked.connect(self.reingest)
        self.passages_btn = QPushButton(tr("Passages…"))
        self.passages_btn.setToolTip(tr("The document's passages: open one at its source, disable, edit or undo it, "
                                        "add a note"))
        self.passages_btn.clicked.connect(self.open_passages)
        self.passages: PassagesDialog | None = None

    def bar(self) -> QHBoxLayout:
        """The row under the table (the passages button sits in the add bar above it)."""
        doc_bar = QHBoxLayout()
        doc_bar.addWidget(QLabel(tr("Selected document:")))
        for b in (self.reingest_btn, self.archive_btn, self.restore_btn, self.delete_doc_btn):
            doc_bar.addWidget(b)
        doc_bar.addStretch(1)
        return doc_bar

    def enable_for(self, d: DocumentView | None, read_only: str | None) -> None:
        # Buttons follow the document's status: only an active one can be archived, an archived one restored.
        writable = d is not None and not read_only
        self.archive_btn.setEnabled(writable and d is not None and d.status == "active")
        self.restore_btn.setEnabled(writable and d is not None and d.status == "archived")
        for b in (self.delete_doc_btn, self.reingest_btn):
            b.setEnabled(writable)
        self.passages_btn.setEnabled(writable)  # its corrections write (a team space another machine writes: no)

    def set_status(self, status: str) -> None:
        doc_id = self.screen.table.selected_doc_id()
        if doc_id:
            self.screen.model.set_status(doc_id, status)

    def delete(self) -> None:
        if not self.screen.table.selected_doc_id():
            return
        answer = QMessageBox.question(self.screen, tr("Delete document"), tr("Delete this document and its chunks?"))
        if answer == QMessageBox.StandardButton.Yes:
            self.set_status("deleted")

    def reingest(self) -> None:
        doc_id = self.screen.table.selected_doc_id()
        doc = self.screen.model.document(doc_id) if doc_id else None
        if doc is not None:
            self.screen.ingest([Path(doc.path)])

    def open_passages(self) -> PassagesDialog | None:
        """The selected document's passages (a table: its rows'), to open and correct one by one (issue 61)."""
        screen = self.screen
        doc_id, space = screen.table.selected_doc_id(), screen.current_space
        doc = screen.model.document(doc_id) if doc_id else None
        if doc is None or doc_id is None or not space:
            return None
        if self.passages is not None:
            self.passages.close()
        ids = screen.model.state.tables.get(doc_id) or [doc_id]
        self.passages = PassagesDialog(screen.model.engine, space, ids, doc.title, screen)
        self.passages.changed.connect(lambda name: screen.refresh_spaces(select=name))
        self.passages.show()
        return self.passages


class DocumentReport(QTextBrowser):
    """The selected document's ingest report (I5: where its counts come from), or the recent failures."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("report")
        self.setMinimumWidth(180)

    def show_failures(self, failures: list[dict[str, Any]]) -> None:
        html = f"<h3>{tr('Report')}</h3><p>{tr('Select a document to see its report.')}</p>"
        if failures:
            html += f"<h4>{tr('Recent failures')}</h4><ul>" + "".join(
                f"<li><b>{Path(f['path']).name}</b>: {f['message']}</li>" for f in failures) + "</ul>"
        self.setHtml(html)

    def show_document(self, d: DocumentView) -> None:
        items = [f"<li>{w}</li>" for w in d.warnings]
        if d.status == "damaged":
            items.insert(0, "<li><b>" + tr("Damaged:") + "</b> " + tr(
                "its stored passages no longer match what was ingested, so it is left out of answers. Re-ingest it, "
                "or run Settings → Data → Repair.") + "</li>")
        warn = "".join(items) or f"<li>{tr('none')}</li>"
        self.setHtml(
            f"<h3>{d.title}</h3><p><small>{d.path}</small></p><table>"
            f"<tr><td>{tr('Type')}</td><td>{_named(KINDS, d.kind)}</td></tr>"
            f"<tr><td>{tr('Pages')}</td><td>{_pages(d.pages)}</td></tr>"
            f"<tr><td>{tr('Pages without text layer')}</td><td>{d.pages_without_text}</td></tr>"
            f"<tr><td>{tr('Pages read by OCR')}</td><td>{d.pages_ocr}{_where(d, 'pages_ocr')}</td></tr>"
            f"<tr><td>{tr('Figures described')}</td><td>{d.figures_described}{_where(d, 'figures_described')}"
            "</td></tr>"
            f"<tr><td>{tr('Decorations skipped')}</td><td>{d.decorations_skipped}"
            f"{_where(d, 'decorations_skipped')}</td></tr>"
            f"<tr><td>{tr('Chunks')}</td><td>{number(d.chunks)}</td></tr>"
            f"<tr><td>{tr('Estimated chars/token')}</td><td>{number(d.chars_per_token, 2)} "
            f"({tr('CJK share {share}').format(share=f'{d.cjk_share:.0%}')})</td></tr>"
            f"<tr><td>{tr('Chunks re-split at the model limit')}</td><td>{d.resplits}</td></tr>"
            f"<tr><td>{tr('Revision')}</td><td>{d.revision} ({_named(STATUSES, d.status)})</td></tr>"
            f"</table><h4>{tr('Warnings')}</h4><ul>{warn}</ul>"
        )


class IngestPanel(QWidget):
    """The ingestion: overall and per-file progress, what is being done now with its rate and time left, Cancel,
    and the queue of files with each one's outcome."""

    def __init__(self) -> None:
        super().__init__()
        self.meter = ProgressMeter()
        self.queue = QListWidget()
        self.queue.setObjectName("queue")
        self.queue.setMaximumHeight(110)
        self.file_progress = QProgressBar()
        self.file_progress.setFormat(tr("%p% of this file"))
        self.overall_progress = QProgressBar()
        self.overall_progress.setFormat(tr("%v of %m files"))
        self.progress_label = QLabel("")
        self.progress_label.setWordWrap(True)
        self.cancel_btn = QPushButton(tr("Cancel"))
        self.cancel_btn.setEnabled(False)
        prog = QHBoxLayout()
        prog.addWidget(self.overall_progress, 1)
        prog.addWidget(self.file_progress, 1)
        prog.addWidget(self.cancel_btn)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("<b>" + tr("Ingestion") + "</b>"))
        lay.addLayout(prog)
        lay.addWidget(self.progress_label)
        lay.addWidget(self.queue)

    def start(self) -> None:
        self.queue.clear()
        self.overall_progress.setRange(0, 1)
        self.overall_progress.setValue(0)
        self.file_progress.setRange(0, 100)
        self.file_progress.setValue(0)
        self.progress_label.setText(tr("Looking for documents…"))
        self.meter = ProgressMeter()  # rate and time left, the figures the command line shows (issue 58)

    def show_progress(self, p: Progress) -> None:
        """Structured progress (core/progress.py): file n of N, the step within the file, its outcome."""
        if p.file_count:
            self.overall_progress.setRange(0, p.file_count)
        if p.stage == "file":
            self.overall_progress.setValue(p.file_index)
            self.file_progress.setValue(0)
            self.queue.addItem(QListWidgetItem(f"{_named(OUTCOMES, 'working'):<10} {p.file}"))
        elif p.stage in ("embed", "read") and p.total:
            # "read": pages or figures read by OCR / the vision model, one step per page (I2).
            self.file_progress.setValue(int(100 * p.done / p.total))
        elif p.stage == "file_done":
            self.overall_progress.setValue(p.file_index + 1)
            self.file_progress.setValue(100)
            item = self.queue.item(self.queue.count() - 1)
            if item is not None:
                item.setText(f"{_named(OUTCOMES, p.outcome or ''):<10} {p.file}")
        elif p.stage == "done":
            self.overall_progress.setValue(p.file_count)
        name = f" {p.file}" if p.file else ""
        where = tr(" ({n} of {total})").format(n=p.file_index + 1, total=p.file_count) \
            if p.file_count and p.stage != "done" else ""
        figures = self.meter.update(p).rate_text()  # units done of total, their rate, the time left
        self.progress_label.setText(f"{_named(_STAGE_NAMES, p.stage)}{name}{where}" + (f" — {figures}" if figures
                                                                                       else ""))

    def finished(self, report: IngestReport) -> None:
        for n, f in enumerate(report.files):
            item = self.queue.item(n)
            if item is not None:
                detail = tr("{n} chunks").format(n=number(f.chunks)) if f.outcome == "ingested" else f.message
                item.setText(f"{_named(OUTCOMES, f.outcome):<10} {Path(f.path).name}: {detail}")
                item.setToolTip(f.message)
        summary = tr("{ingested} ingested, {unchanged} unchanged, {failed} failed").format(
            ingested=len(report.by("ingested")), unchanged=len(report.by("unchanged")),
            failed=len(report.by("failed"))) + (" — " + tr("cancelled") if report.cancelled else "")
        self.progress_label.setText(summary)
        if report.files and not report.cancelled:
            self.overall_progress.setRange(0, len(report.files))
            self.overall_progress.setValue(len(report.files))
        self.cancel_btn.setEnabled(False)
