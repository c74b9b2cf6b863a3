"""Memory (SPEC C6): facts by scope and status, edit/archive/delete, and a recall test (M1–M7)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
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

from biny.console.ops import run_op
from biny.core import BinyError, CancelToken, Engine, RecallResult

COLUMNS = ["Scope", "Status", "Rev", "Updated", "Fact"]
STATUS_FILTERS = {"active + archived": ("active", "archived"), "active": ("active",),
                  "archived": ("archived",), "deleted": ("deleted",)}


class MemoryScreen(QWidget):
    error = Signal(str, str)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.busy = False
        self.result: RecallResult | None = None

        self.scope = QComboBox()
        self.scope.setObjectName("scope")
        self.scope.setEditable(True)
        self.scope.setMinimumWidth(260)
        edit = self.scope.lineEdit()
        if edit is not None:
            edit.setPlaceholderText("scope, e.g. tenant:acme/user:ana")
        self.scope.currentTextChanged.connect(lambda _: self.refresh())
        self.status = QComboBox()
        self.status.addItems(list(STATUS_FILTERS))
        self.status.currentTextChanged.connect(lambda _: self.refresh())
        self.add_btn = QPushButton("Add fact…")
        self.add_btn.clicked.connect(self.ask_add)
        self.edit_btn = QPushButton("Edit…")
        self.edit_btn.clicked.connect(self.ask_edit)
        self.archive_btn = QPushButton("Archive")
        self.archive_btn.clicked.connect(lambda: self._set_status("archived"))
        self.restore_btn = QPushButton("Restore")
        self.restore_btn.clicked.connect(lambda: self._set_status("active"))
        self.delete_btn = QPushButton("Delete")
        self.delete_btn.clicked.connect(lambda: self._set_status("deleted"))
        top = QHBoxLayout()
        top.addWidget(QLabel("Scope"))
        top.addWidget(self.scope)
        top.addWidget(QLabel("Status"))
        top.addWidget(self.status)
        top.addStretch(1)
        for b in (self.add_btn, self.edit_btn, self.archive_btn, self.restore_btn, self.delete_btn):
            top.addWidget(b)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("facts")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        for c in range(len(COLUMNS) - 1):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)

        self.question = QLineEdit()
        self.question.setObjectName("recall_question")
        self.question.setPlaceholderText("Try a recall: a question in this scope…")
        self.question.returnPressed.connect(self.recall)
        self.recall_btn = QPushButton("Recall")
        self.recall_btn.clicked.connect(self.recall)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.recall_btn)
        self.chain = QTreeWidget()
        self.chain.setObjectName("chain")
        self.chain.setHeaderLabels(["Step", "What happened"])
        self.chain.setColumnWidth(0, 140)
        self.block = QLabel("")
        self.block.setObjectName("reference_block")
        self.block.setWordWrap(True)
        self.block.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(QLabel("<b>Recall test</b> — the chain of the card, M1 to M7"))
        bl.addLayout(row)
        bl.addWidget(self.chain, 1)
        bl.addWidget(self.block)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(bottom)
        split.setSizes([300, 380])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(split, 1)
        self.reload_scopes()

    def reload_scopes(self) -> None:
        current = self.scope.currentText()
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItems(self.engine.memory.scopes())
        self.scope.setCurrentText(current or (self.scope.itemText(0) if self.scope.count() else ""))
        self.scope.blockSignals(False)
        self.refresh()

    def refresh(self) -> None:
        scope = self.scope.currentText().strip() or None
        try:
            facts = self.engine.memory.facts(scope, STATUS_FILTERS[self.status.currentText()])
        except BinyError as exc:
            self.error.emit(str(exc), "")
            return
        self.table.setRowCount(len(facts))
        for r, f in enumerate(facts):
            for c, v in enumerate([f.scope, f.status, f.revision, f.updated_at.strftime("%Y-%m-%d %H:%M"), f.text]):
                item = QTableWidgetItem(str(v))
                item.setData(Qt.ItemDataRole.UserRole, f.fact_id)
                self.table.setItem(r, c, item)

    def selected(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        item = self.table.item(rows[0].row(), 0) if rows else None
        return str(item.data(Qt.ItemDataRole.UserRole)) if item else None

    def add(self, text: str, scope: str) -> None:
        try:
            self.engine.memory.add(text, scope, source="console")
        except BinyError as exc:
            self.error.emit(str(exc), "")
            return
        self.scope.setCurrentText(scope)
        self.reload_scopes()

    def ask_add(self) -> None:
        scope = self.scope.currentText().strip()
        if not scope:
            scope, ok = QInputDialog.getText(self, "New fact", "Scope (e.g. tenant:acme/user:ana):")
            if not ok or not scope.strip():
                return
        text, ok = QInputDialog.getMultiLineText(self, "New fact", f"Fact for {scope}:")
        if ok and text.strip():
            self.add(text, scope.strip())

    def ask_edit(self) -> None:
        fid = self.selected()
        if not fid:
            return
        fact = self.engine.memory.get(fid)
        text, ok = QInputDialog.getMultiLineText(self, "Edit fact", "New revision:", fact.text)
        if ok and text.strip():
            self.edit(fid, text)

    def edit(self, fact_id: str, text: str) -> None:
        try:
            self.engine.memory.edit(fact_id, text)
        except BinyError as exc:
            self.error.emit(str(exc), "")
        self.refresh()

    def _set_status(self, status: str) -> None:
        fid = self.selected()
        if fid:
            self.engine.memory.set_status(fid, status)
            self.refresh()

    def recall(self) -> None:
        q = self.question.text().strip()
        scope = self.scope.currentText().strip()
        if not q or not scope or self.busy:
            return
        self.busy = True
        self.recall_btn.setEnabled(False)

        def work(_: Any, __: CancelToken) -> RecallResult:
            return self.engine.memory.recall(q, scope)

        run_op(work, on_success=self.show_recall, on_failure=lambda e, d: self.error.emit(str(e), d),
               on_finished=self._done)

    def _done(self) -> None:
        self.busy = False
        self.recall_btn.setEnabled(True)

    def show_recall(self, result: RecallResult) -> None:
        self.result = result
        self.chain.clear()
        for step in result.trace:
            top = QTreeWidgetItem([f"{step.box} {step.name}", step.summary])
            top.setToolTip(1, step.summary)
            if step.box == "M4":
                for fid, rev, score in step.data.get("ranked", []):
                    QTreeWidgetItem(top, ["ranked", f"{fid} rev {rev} score {score:.3f}"])
            self.chain.addTopLevelItem(top)
        dropped = QTreeWidgetItem(["dropped", f"{len(result.dropped)} candidate(s)"])
        for d in result.dropped:
            QTreeWidgetItem(dropped, [d.fact_id, d.reason])
        self.chain.addTopLevelItem(dropped)
        self.chain.expandAll()
        self.block.setText(result.reference_block or "Nothing recalled: no fact close enough in this scope.")
