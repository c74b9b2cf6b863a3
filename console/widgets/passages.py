"""A document's passages, for a curator (issue 61): the Library's "Passages…" on the selected document.

Each passage is listed with its page and opening words, a disabled one marked and greyed; Enter (or a double
click) opens it in the source viewer, where it is disabled, enabled, edited or undone; a note is added to the
document here or there. A table lists its rows' passages. After any change the list is read again and
``changed`` tells the Library, which counts disabled passages per document.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import number, tr
from biny.console.ops import run_op
from biny.console.widgets.source_viewer import SourceViewer, open_in_viewer
from biny.core import Engine

# A table of many rows: the first rows' passages are listed (the viewer reaches any of them from a citation).
MOST = 500


class PassagesDialog(QDialog):
    changed = Signal(str)

    def __init__(self, engine: Engine, space: str, doc_ids: list[str], title: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine, self.space, self.doc_ids = engine, space, doc_ids
        self.setObjectName("passages")
        self.setWindowTitle(tr("Passages of {title}").format(title=title))
        self.resize(720, 560)
        self.list = QListWidget()
        self.list.setObjectName("passage_list")
        self.list.itemActivated.connect(self.open_item)
        self.summary = QLabel()
        self.note = QPlainTextEdit()
        self.note.setObjectName("note_text")
        self.note.setPlaceholderText(tr("A note to add to this document: it is retrieved like its passages"))
        self.note.setMaximumHeight(90)
        self.note_btn = QPushButton(tr("Add note"))
        self.note_btn.clicked.connect(self.add_note)
        self.status = QLabel()
        self.status.setWordWrap(True)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.note)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.note_btn)
        lay.addLayout(row)
        self.viewer: SourceViewer | None = None
        self.reload()

    def reload(self, _space: str = "") -> None:
        """Read the document's passages and which are disabled (small: one document's rows)."""
        disabled = self.engine.passages.disabled(self.space)
        self.list.clear()
        total = off = 0
        for doc_id in self.doc_ids:
            for c in self.engine.document_chunks(self.space, doc_id):
                total += 1
                off += c.chunk_id in disabled
                if self.list.count() >= MOST:
                    continue
                where = tr("p. {n}").format(n=c.page) + " · " if c.page else ""
                head = " ".join(c.text.split())[:110]
                item = QListWidgetItem(("⊘ " + tr("disabled") + " · " if c.chunk_id in disabled else "")
                                       + where + head)
                item.setData(Qt.ItemDataRole.UserRole, c.chunk_id)
                item.setToolTip(c.text[:600])
                if c.chunk_id in disabled:
                    item.setForeground(QColor("#888888"))
                self.list.addItem(item)
        self.summary.setText(tr("{n} passages, {off} disabled. Enter opens one to disable, edit or undo it.").format(
            n=number(total), off=number(off)))

    def chunk_ids(self) -> list[str]:
        return [str(self.list.item(r).data(Qt.ItemDataRole.UserRole)) for r in range(self.list.count())]

    def open_item(self, item: QListWidgetItem) -> SourceViewer:
        return self.open_passage(str(item.data(Qt.ItemDataRole.UserRole)))

    def open_passage(self, chunk_id: str) -> SourceViewer:
        made = self.viewer is None
        self.viewer = open_in_viewer(self, self.engine, self.viewer, self.space, chunk_id)
        if made:
            self.viewer.changed.connect(self._changed)
        return self.viewer

    def _changed(self, space: str) -> None:
        self.reload()
        self.changed.emit(space)

    def add_note(self) -> None:
        text = self.note.toPlainText()
        if not text.strip() or not self.doc_ids:
            return
        space, doc, passages = self.space, self.doc_ids[0], self.engine.passages
        self.note_btn.setEnabled(False)
        self.status.setText(tr("Saving…"))

        def added(_chunk: object) -> None:
            self.note.clear()
            self.status.setText(tr("Note added to the document."))
            self._changed(space)

        run_op(lambda _p, _c: passages.note(space, doc, text), on_success=added,
               on_failure=lambda exc, _d: self.status.setText(str(exc)),
               on_finished=lambda: self.note_btn.setEnabled(True))
