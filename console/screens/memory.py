"""Memory (SPEC C6): facts by scope and status, edit/archive/delete, and a recall test (M1–M7)."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import QT_TR_NOOP, date, tr
from biny.console.models.memory import STATUS_FILTERS, MemoryModel
from biny.console.ops import run_op
from biny.console.widgets.fields import ComboBox
from biny.console.widgets.source_viewer import SourceViewer, open_in_viewer
from biny.core import BinyError, Engine, RecallResult

COLUMNS = [QT_TR_NOOP("Scope"), QT_TR_NOOP("Status"), QT_TR_NOOP("Rev"), QT_TR_NOOP("Updated"), QT_TR_NOOP("Fact")]
# A fact's source that names a stored passage, "SPACE:CHUNK_ID" (what ``biny show`` takes): the fact came from it.
_PASSAGE = re.compile(r"^(?P<space>[^:\n]+):(?P<chunk>[0-9a-f]{6,32})$")
FILTER_NAMES = {"active + archived": QT_TR_NOOP("active + archived"), "active": QT_TR_NOOP("active"),
                "archived": QT_TR_NOOP("archived"), "deleted": QT_TR_NOOP("deleted")}


class MemoryScreen(QWidget):
    error = Signal(str, str)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = MemoryModel(engine, run_op)
        self.model.connect("changed", self._render)
        self.model.connect("error", self.error.emit)
        self.model.connect("recalled", self.show_recall)

        top, actions = self._build_filters()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("facts")
        self.table.setHorizontalHeaderLabels([tr(c) for c in COLUMNS])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # the user's widths are kept
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        self.columns_sized = False
        self.table.itemSelectionChanged.connect(
            lambda: self.source_btn.setEnabled(self.source_of(self.selected()) is not None))
        self.source_btn.setEnabled(False)

        bottom = self._build_recall()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(bottom)
        split.setSizes([300, 380])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(actions)
        lay.addWidget(split, 1)
        self.reload_scopes()

    def _build_recall(self) -> QWidget:
        """The recall test: a question, the recall chain and the reference block."""
        self.question = QLineEdit()
        self.question.setObjectName("recall_question")
        self.question.setPlaceholderText(tr("Try a recall: a question in this scope…"))
        self.question.returnPressed.connect(self.recall)
        self.recall_btn = QPushButton(tr("Recall"))
        self.recall_btn.clicked.connect(self.recall)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.recall_btn)
        self.chain = QTreeWidget()
        self.chain.setObjectName("chain")
        self.chain.setHeaderLabels([tr("Step"), tr("What happened")])
        self.chain.setColumnWidth(0, 140)
        self.block = QLabel("")
        self.block.setObjectName("reference_block")
        self.block.setWordWrap(True)
        self.block.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(QLabel("<b>" + tr("Recall test") + "</b> — " + tr("the recall chain, step by step (M1–M7)")))
        bl.addLayout(row)
        bl.addWidget(self.chain, 1)
        bl.addWidget(self.block)
        return bottom

    def _build_filters(self) -> tuple[QHBoxLayout, QHBoxLayout]:
        """The scope and status filters, and the fact actions."""
        self.scope = ComboBox()
        self.scope.setObjectName("scope")
        self.scope.setEditable(True)
        self.scope.setMinimumWidth(200)
        edit = self.scope.lineEdit()
        if edit is not None:
            edit.setPlaceholderText(tr("scope, e.g. tenant:acme/user:ana"))
        self.scope.currentTextChanged.connect(lambda text: self.model.refresh(scope=text))
        self.status = ComboBox()
        for key in STATUS_FILTERS:
            self.status.addItem(tr(FILTER_NAMES[key]), key)
        self.status.currentIndexChanged.connect(
            lambda _i: self.model.refresh(status_filter=str(self.status.currentData())))
        self.add_btn = QPushButton(tr("Add fact…"))
        self.add_btn.clicked.connect(self.ask_add)
        self.edit_btn = QPushButton(tr("Edit…"))
        self.edit_btn.clicked.connect(self.ask_edit)
        self.archive_btn = QPushButton(tr("Archive"))
        self.archive_btn.clicked.connect(lambda: self._set_status("archived"))
        self.restore_btn = QPushButton(tr("Restore"))
        self.restore_btn.clicked.connect(lambda: self._set_status("active"))
        self.delete_btn = QPushButton(tr("Delete"))
        self.delete_btn.clicked.connect(lambda: self._set_status("deleted"))
        self.source_btn = QPushButton(tr("Open source"))
        self.source_btn.setToolTip(tr("The passage this fact was taken from, at its place in its document"))
        self.source_btn.clicked.connect(self.open_source)
        self.viewer: SourceViewer | None = None
        top = QHBoxLayout()
        top.addWidget(QLabel(tr("Scope")))
        top.addWidget(self.scope, 1)
        top.addWidget(QLabel(tr("Status")))
        top.addWidget(self.status)
        # Fact actions on a row of their own, so the screen fits 1024 px.
        actions = QHBoxLayout()
        for b in (self.add_btn, self.edit_btn, self.archive_btn, self.restore_btn, self.delete_btn, self.source_btn):
            actions.addWidget(b)
        actions.addStretch(1)
        return top, actions

    @property
    def busy(self) -> bool:
        return self.model.recalling

    @property
    def result(self) -> RecallResult | None:
        return self.model.result

    def reload_scopes(self) -> None:
        self.model.refresh(scope=self.scope.currentText())

    def refresh(self) -> None:
        self.model.refresh(scope=self.scope.currentText(), status_filter=str(self.status.currentData()))

    def _render(self) -> None:
        state = self.model.state
        current = self.model.scope
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItems(state.scopes)
        self.scope.setCurrentText(current or (self.scope.itemText(0) if self.scope.count() else ""))
        self.scope.blockSignals(False)
        if not current and self.scope.currentText():
            self.model.refresh(scope=self.scope.currentText())  # first scope shown: load its facts
        self.table.setRowCount(len(state.facts))
        fit_columns = bool(state.facts) and not self.columns_sized
        for r, f in enumerate(state.facts):
            status = tr(FILTER_NAMES[f.status]) if f.status in FILTER_NAMES else f.status
            for c, v in enumerate([f.scope, status, f.revision, date(f.updated_at, with_time=True), f.text]):
                item = QTableWidgetItem(str(v))
                item.setData(Qt.ItemDataRole.UserRole, f.fact_id)
                self.table.setItem(r, c, item)
        if fit_columns:  # fitted once; after that the widths are the user's
            for c in range(len(COLUMNS) - 1):
                self.table.resizeColumnToContents(c)
            self.columns_sized = True
        self.recall_btn.setEnabled(not self.model.recalling)

    def selected(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        item = self.table.item(rows[0].row(), 0) if rows else None
        return str(item.data(Qt.ItemDataRole.UserRole)) if item else None

    def source_of(self, fact_id: str | None) -> tuple[str, str] | None:
        """(space, chunk id) of the passage a fact names as its source, if it names one."""
        fact = self.model.fact(fact_id) if fact_id else None
        m = _PASSAGE.match(fact.source.strip()) if fact is not None else None
        return (m.group("space"), m.group("chunk")) if m else None

    def open_source(self) -> SourceViewer | None:
        """The selected fact's source passage in the source viewer (issue 61)."""
        where = self.source_of(self.selected())
        if where is None:
            return None
        engine = self.model.engine
        try:
            space, chunk = engine.passages.resolve(where[1], where[0])
            self.viewer = open_in_viewer(self, engine, self.viewer, space, chunk)
        except BinyError as exc:  # the passage is gone (its document deleted) or the space is locked
            self.error.emit(str(exc), "")
            return None
        return self.viewer

    def add(self, text: str, scope: str) -> None:
        self.model.add(text, scope)

    def ask_add(self) -> None:
        scope = self.scope.currentText().strip()
        if not scope:
            scope, ok = QInputDialog.getText(self, tr("New fact"), tr("Scope (e.g. tenant:acme/user:ana):"))
            if not ok or not scope.strip():
                return
        text, ok = QInputDialog.getMultiLineText(self, tr("New fact"), tr("Fact for {scope}:").format(scope=scope))
        if ok and text.strip():
            self.add(text, scope.strip())

    def ask_edit(self) -> None:
        fid = self.selected()
        fact = self.model.fact(fid) if fid else None
        if fact is None:
            return
        text, ok = QInputDialog.getMultiLineText(self, tr("Edit fact"), tr("New revision:"), fact.text)
        if ok and text.strip():
            self.edit(fact.fact_id, text)

    def edit(self, fact_id: str, text: str) -> None:
        self.model.edit(fact_id, text)

    def _set_status(self, status: str) -> None:
        fid = self.selected()
        if fid:
            self.model.set_status(fid, status)

    def recall(self) -> None:
        if self.model.recall(self.question.text().strip()):
            self.recall_btn.setEnabled(False)

    def show_recall(self, result: RecallResult) -> None:
        """The chain M1–M7 with the facts' own words, not their ids (id and score in the tooltip)."""
        texts = {f.fact_id: f.text for f in self.model.state.facts} | {f.fact_id: f.text for f in result.facts}
        self.chain.clear()
        for step in result.trace:
            summary = str(step.summary)  # core's words, put into the language shown now (issue 56)
            top = QTreeWidgetItem([f"{step.box} {step.label}", summary])
            top.setToolTip(1, summary)
            if step.box == "M4":
                for fid, rev, score in step.data.get("ranked", []):
                    item = QTreeWidgetItem(top, [tr("ranked"), f"{texts.get(fid, fid)}  ("
                                                 + tr("score {s}").format(s=f"{score:.2f}") + ")"])
                    item.setToolTip(1, tr("fact {id}, revision {rev}, score {s}").format(id=fid, rev=rev,
                                                                                       s=f"{score:.3f}"))
            self.chain.addTopLevelItem(top)
        dropped = QTreeWidgetItem([tr("dropped"), tr("{n} candidate(s)").format(n=len(result.dropped))])
        for d in result.dropped:
            item = QTreeWidgetItem(dropped, [str(d.reason), texts.get(d.fact_id, d.fact_id)])
            item.setToolTip(1, tr("fact {id}").format(id=d.fact_id))
        self.chain.addTopLevelItem(dropped)
        self.chain.expandAll()
        self.block.setText(result.reference_block or tr("Nothing recalled: no fact close enough in this scope."))
