"""The source viewer (issue 61): a cited passage at its place in its source, the span highlighted.

A PDF passage shows its page rendered with PyMuPDF, the span's rectangles (``Engine.source``) drawn over it and
scrolled into view; any other passage shows the document's text around it with the span marked and its heading
path; a table row shows its fields. The page is rendered in memory from the original file and never written
anywhere (an encrypted space's passage was opened in memory by the engine). Esc closes it.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QTextBrowser, QVBoxLayout, QWidget

from biny.console.i18n import tr
from biny.core import Engine, SourceView

# Rendering scale: 1.5 × the page's points (108 dpi) reads well at a laptop's size and renders a page in tens of ms.
ZOOM = 1.5
_MARK = QColor(255, 212, 59, 110)  # the span: a translucent marker yellow
_EDGE = QColor(230, 119, 0)


def render_page(path: str, page: int, rects: list[tuple[float, float, float, float]], zoom: float = ZOOM) -> QImage:
    """Page ``page`` (1-based) of the PDF at ``path`` as an image, ``rects`` (PDF points) highlighted."""
    import pymupdf

    opened: Any = pymupdf.open(path)
    with opened as doc:
        if doc.needs_pass:
            doc.authenticate("")
        pix = doc[page - 1].get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        image = QImage(pix.samples, pix.width, pix.height, pix.stride, QImage.Format.Format_RGB888).copy()
    painter = QPainter(image)
    painter.setPen(_EDGE)
    for x0, y0, x1, y1 in rects:
        box = QRectF(x0 * zoom, y0 * zoom, (x1 - x0) * zoom, (y1 - y0) * zoom).adjusted(-1, -1, 1, 1)
        painter.fillRect(box, _MARK)
        painter.drawLine(box.bottomLeft(), box.bottomRight())
    painter.end()
    return image


class SourceViewer(QDialog):
    """Opened on a passage; ``show_source`` renders a SourceView (what ``Engine.source`` returns)."""

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
            image = render_page(view.path, page, view.rects.get(page, []))
            self.page.setPixmap(QPixmap.fromImage(image))
            self.page.resize(image.size())
        self.text.setHtml(self._text(view))
        self.text.setMaximumHeight(180 if pdf else 16777215)
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

    def _header(self, view: SourceView) -> str:
        where = [f"<b>{html.escape(view.document)}</b>"]
        if view.page is not None:
            where.append(tr("page {n}").format(n=view.rect_page))
        if view.heading_path:
            where.append(html.escape(" › ".join(view.heading_path)))
        states = [tr("disabled: never retrieved") if view.disabled else "",
                  tr("edited by a curator") if view.edited else "", tr("a curator's note") if view.note else "",
                  tr("the original file is missing or changed") if not view.present else "",
                  tr("page read by OCR: no text layer to highlight") if view.scanned else ""]
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
