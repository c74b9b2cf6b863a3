"""The source viewer (issue 61): a cited passage at its place in its source, the span highlighted.

A PDF passage shows its page rendered with PyMuPDF, the span's rectangles (``Engine.source``) drawn over it and
scrolled into view; any other passage shows the document's text around it with the span marked and its heading
path; a table row shows its fields. The page is rendered in memory from the original file and never written
anywhere (an encrypted space's passage was opened in memory by the engine). Esc closes it.

A curator corrects the passage here (issue 61): disable or enable it, edit its text, add a note to its document,
undo the latest change; its history (who, when, what) is listed under it. Every change goes through
``engine.passages`` on the thread pool (an edit re-embeds the passage), then the passage is opened again.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import QT_TR_NOOP, date, tr
from biny.console.ops import run_op
from biny.core import Engine, SourceView

# A history entry's action and state in words (core/services/passages.py names them).
_ACTIONS = {"disable": QT_TR_NOOP("disabled"), "enable": QT_TR_NOOP("enabled"), "edit": QT_TR_NOOP("edited"),
            "note": QT_TR_NOOP("note added")}
_STATES = {"undone": QT_TR_NOOP("undone"), "pending": QT_TR_NOOP("being written")}

# Rendering scale: 1.5 × the page's points (108 dpi) reads well at a laptop's size and renders a page in tens of ms.
ZOOM = 1.5
_MARK = QColor(255, 212, 59, 110)  # the span: a translucent marker yellow
_EDGE = QColor(230, 119, 0)
_WORD = QColor(28, 126, 214, 150)  # a scanned page's OCR words: thin blue frames, the word read above each


def render_page(path: str, page: int, rects: list[tuple[float, float, float, float]], zoom: float = ZOOM,
                words: list[tuple[float, float, float, float, str]] | None = None) -> QImage:
    """Page ``page`` (1-based) of the PDF at ``path`` as an image, ``rects`` (PDF points) highlighted; a scanned
    page's OCR ``words`` framed, each with what OCR read drawn small above it."""
    import pymupdf

    opened: Any = pymupdf.open(path)
    with opened as doc:
        if doc.needs_pass:
            doc.authenticate("")
        pix = doc[page - 1].get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        image = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
    painter = QPainter(image)
    font = painter.font()
    font.setPixelSize(max(7, int(4 * zoom)))
    painter.setFont(font)
    painter.setPen(_WORD)
    for x0, y0, x1, y1, word in words or []:
        box = QRectF(x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom)
        painter.drawRect(box)
        painter.drawText(box.topLeft() + QPointF(1, -1), word)
    painter.setPen(_EDGE)
    for x0, y0, x1, y1 in rects:
        box = QRectF(x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom).adjusted(-1, -1, 1, 1)
        painter.fillRect(box, _MARK)
        painter.drawLine(box.bottomLeft(), box.bottomRight())
    painter.end()
    return image


def open_in_viewer(owner: QWidget, engine: Engine, viewer: SourceViewer | None, space: str,
                   chunk_id: str) -> SourceViewer:
    """Passage ``chunk_id`` of ``space`` in ``viewer`` (made, a child of ``owner``, when None), shown and raised:
    how the Review queue, the Memory screen and the Library's passage list open one (issue 61)."""
    viewer = viewer if viewer is not None else SourceViewer(engine, owner)
    viewer.open_passage(space, chunk_id)
    viewer.show()
    viewer.raise_()
    return viewer


class SourceViewer(QDialog):
    """Opened on a passage; ``show_source`` renders a SourceView (what ``Engine.source`` returns). ``changed``
    carries the space after a curator's change was stored (the Library counts disabled passages again)."""

    changed = Signal(str)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.setObjectName("source_viewer")
        self.setWindowTitle(tr("Source"))
        self.resize(900, 760)
        self.view: SourceView | None = None
        self.header = QLabel()
        self.header.setObjectName("source_header")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.page = QLabel()
        self.page.setObjectName("source_page")
        self.area = QScrollArea()
        self.area.setWidget(self.page)
        self.area.setWidgetResizable(False)
        self.text = QTextBrowser()
        self.text.setObjectName("source_text")
        lay = QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.area, 1)
        lay.addWidget(self.text, 1)
        lay.addLayout(self._curator())
        lay.addWidget(self.editor)
        lay.addLayout(self.edit_bar)
        lay.addWidget(self.history)
        lay.addWidget(self.status)

    def _curator(self) -> QHBoxLayout:
        """The curator's buttons, the editor an edit or a note is written in, the history and the outcome line."""
        self.disable_btn = QPushButton(tr("Disable"))
        self.disable_btn.setToolTip(tr("Keep the passage stored but never retrieve it (or retrieve it again)"))
        self.disable_btn.clicked.connect(self.toggle_disabled)
        self.edit_btn = QPushButton(tr("Edit text…"))
        self.edit_btn.clicked.connect(lambda: self.start_editing("edit"))
        self.note_btn = QPushButton(tr("Add a note…"))
        self.note_btn.setToolTip(tr("Add a passage of your own to this document; it answers like the others"))
        self.note_btn.clicked.connect(lambda: self.start_editing("note"))
        self.undo_btn = QPushButton(tr("Undo last change"))
        self.undo_btn.clicked.connect(self.undo)
        bar = QHBoxLayout()
        for b in (self.disable_btn, self.edit_btn, self.note_btn, self.undo_btn):
            bar.addWidget(b)
        bar.addStretch(1)
        self.editor = QPlainTextEdit()
        self.editor.setObjectName("passage_editor")
        self.editor.setVisible(False)
        self.editor.setMaximumHeight(160)
        self.save_btn = QPushButton(tr("Save"))
        self.save_btn.clicked.connect(self.save)
        self.cancel_btn = QPushButton(tr("Cancel"))
        self.cancel_btn.clicked.connect(self.stop_editing)
        self.edit_bar = QHBoxLayout()
        self.edit_bar.addStretch(1)
        self.edit_bar.addWidget(self.cancel_btn)
        self.edit_bar.addWidget(self.save_btn)
        self.mode = ""  # "edit" or "note" while the editor is open
        self.history = QLabel()
        self.history.setObjectName("passage_history")
        self.history.setWordWrap(True)
        self.history.setTextFormat(Qt.TextFormat.RichText)
        self.status = QLabel()
        self.status.setObjectName("passage_status")
        self.status.setWordWrap(True)
        self.stop_editing()
        return bar

    def open_passage(self, space: str, chunk_id: str) -> SourceView:
        """Read the passage's place (the engine opens it in memory) and show it."""
        view = self.engine.source(space, chunk_id)
        self.show_source(view)
        return view

    def show_source(self, view: SourceView) -> None:
        self.view = view
        self.header.setText(self._header(view))
        page = view.rect_page
        pdf = view.kind == "pdf" and view.present and page is not None and not view.note
        self.area.setVisible(pdf)
        if pdf and page is not None:
            image = render_page(view.path, page, view.rects.get(page, []), words=view.words.get(page))
            self.page.setPixmap(QPixmap.fromImage(image))
            self.page.resize(image.size())
        self.text.setHtml(self._text(view))
        self.text.setMaximumHeight(180 if pdf else 16777215)
        self.disable_btn.setText(tr("Enable") if view.disabled else tr("Disable"))
        self._show_history()
        self._scroll_to_span()

    def _scroll_to_span(self) -> None:
        """The span's first line on the shown page, scrolled into view with some of what precedes it above."""
        view = self.view
        page = view.rect_page if view is not None else None
        first = view.rects.get(page, []) if view is not None and page is not None else []
        if first:
            x0, y0, _, _ = first[0]
            self.area.ensureVisible(int(x0 * ZOOM), int(y0 * ZOOM), 40, max(40, self.area.height() // 3))
        self.text.scrollToAnchor("span")

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self._scroll_to_span()  # laid out only now: the span is brought into view once it has a place

    # ---- a curator's corrections (issue 61) ------------------------------------------------------
    def _show_history(self) -> None:
        view = self.view
        changes = self.engine.passages.history(view.space, view.chunk_id) if view is not None else []
        lines = [f"{date(c.at, with_time=True)} · {html.escape(c.author)} · {tr(_ACTIONS.get(c.action, c.action))}"
                 + (f" ({tr(_STATES[c.state])})" if c.state in _STATES else "") for c in changes]
        self.history.setText("<small><b>" + tr("Changes") + "</b><br>" + "<br>".join(lines) + "</small>"
                             if lines else "")
        self.undo_btn.setEnabled(any(c.state == "done" for c in changes))

    def start_editing(self, mode: str) -> None:
        """Open the editor: on the passage's text (``edit``) or empty, for a note to its document (``note``)."""
        if self.view is None:
            return
        self.mode = mode
        self.editor.setPlainText(self.view.text if mode == "edit" else "")
        self.editor.setPlaceholderText(tr("The note's text") if mode == "note" else "")
        for w in (self.editor, self.save_btn, self.cancel_btn):
            w.setVisible(True)
        self.editor.setFocus()

    def stop_editing(self) -> None:
        self.mode = ""
        for w in (self.editor, self.save_btn, self.cancel_btn):
            w.setVisible(False)

    def save(self) -> None:
        view, text, mode = self.view, self.editor.toPlainText(), self.mode
        if view is None or not mode:
            return
        space, chunk, doc = view.space, view.chunk_id, view.doc_id
        passages = self.engine.passages

        def write() -> str:  # the passage to open after: the edited one, or the new note
            if mode == "edit":
                passages.edit(space, chunk, text)
                return chunk
            return passages.note(space, doc, text)

        self._change(write, tr("Saved and re-embedded.") if mode == "edit" else tr("Note added to the document."))

    def toggle_disabled(self) -> None:
        view = self.view
        if view is None:
            return
        space, chunk, passages = view.space, view.chunk_id, self.engine.passages
        enable = view.disabled

        def mark() -> str:
            (passages.enable if enable else passages.disable)(space, chunk)
            return chunk

        self._change(mark, tr("Enabled: it is retrieved again.") if enable else
                     tr("Disabled: stored, never retrieved."))

    def undo(self) -> None:
        view = self.view
        if view is None:
            return
        space, chunk, passages = view.space, view.chunk_id, self.engine.passages

        def back() -> str:
            undone = passages.undo(space, chunk)
            return chunk if undone.action != "note" else ""  # an undone note is gone: nothing left to show

        self._change(back, tr("Undone."))

    def _change(self, action: Callable[[], str | None], done: str) -> None:
        """Run a correction off the UI thread; then open the passage it leaves (its chunk id) again."""
        view = self.view
        assert view is not None
        space = view.space
        for b in (self.disable_btn, self.edit_btn, self.note_btn, self.undo_btn, self.save_btn):
            b.setEnabled(False)
        self.status.setText(tr("Saving…"))

        def work(_: object, __: object) -> SourceView | None:
            chunk = action()
            return self.engine.source(space, chunk) if chunk else None

        def ok(opened: SourceView | None) -> None:
            self.stop_editing()
            self.status.setText(done)
            if opened is not None:
                self.show_source(opened)
            else:
                self.close()
            self.changed.emit(space)

        def failed(exc: BaseException, _detail: str) -> None:
            self.status.setText(str(exc))

        def finished() -> None:
            for b in (self.disable_btn, self.edit_btn, self.note_btn, self.save_btn):
                b.setEnabled(True)
            if self.view is not None:
                self._show_history()

        run_op(work, on_success=ok, on_failure=failed, on_finished=finished)

    def _header(self, view: SourceView) -> str:
        where = [f"<b>{html.escape(view.document)}</b>"]
        if view.page is not None:
            where.append(tr("page {n}").format(n=view.rect_page))
        if view.heading_path:
            where.append(html.escape(" › ".join(view.heading_path)))
        states = [tr("disabled: never retrieved") if view.disabled else "",
                  tr("edited by a curator") if view.edited else "", tr("a curator's note") if view.note else "",
                  tr("the original file is missing or changed") if not view.present else "",
                  (tr("page read by OCR: its words framed in blue") if view.words else
                   tr("page read by OCR: no text layer to highlight")) if view.scanned else ""]
        if view.coverage is not None:
            states.append(tr("highlight covers {share} of the passage").format(share=f"{view.coverage:.0%}"))
        line = " · ".join(where)
        extra = " · ".join(s for s in states if s)
        return line + (f"<br><small>{html.escape(extra)}</small>" if extra else "")

    def _text(self, view: SourceView) -> str:
        if view.fields:
            rows = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>"
                           for k, v in view.fields)
            return f"<table cellpadding='3'>{rows}</table>"
        span = (f"<a name='span'></a><span style='background:#ffd43b;color:#000'>{_lines(view.text)}</span>")
        return f"<p>{_lines(view.before)}{span}{_lines(view.after)}</p>"


def _lines(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")
