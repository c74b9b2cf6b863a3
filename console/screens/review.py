"""Review queue (SPEC C5, for operators): public-web answers approved, edited or rejected by keyboard.

Keys on the queue: ``a`` approve, ``x`` reject, ``e`` edit the entry (Esc returns), ``space``
skip, ``backspace`` undo (the last ten decisions), ``j``/``k`` next/previous. The source panel
draws read pages solid and found-only results dashed, the snapshot shows the quoted spans
highlighted, the comparison marks what the entry adds to or drops from the answer, and the
entry's nearest chunks in the space say whether it repeats existing knowledge.
"""

from __future__ import annotations

import difflib
import html
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import QT_TR_NOOP, tr
from biny.console.models.review import FILTERS, ReviewModel
from biny.console.ops import run_op
from biny.console.widgets.fields import ComboBox
from biny.console.widgets.source_viewer import SourceViewer, open_in_viewer
from biny.core import Engine

SNAPSHOT_SHOWN = 30_000
FILTER_NAMES = {"waiting": QT_TR_NOOP("waiting"), "all": QT_TR_NOOP("all")}
STATUS_NAMES = {"pending": QT_TR_NOOP("pending"), "approved": QT_TR_NOOP("approved"),
                "rejected": QT_TR_NOOP("rejected")}
KEYS = {Qt.Key.Key_A: "approve", Qt.Key.Key_X: "reject", Qt.Key.Key_E: "edit", Qt.Key.Key_Space: "skip",
        Qt.Key.Key_Backspace: "undo", Qt.Key.Key_J: "next", Qt.Key.Key_K: "previous",
        Qt.Key.Key_Down: "next", Qt.Key.Key_Up: "previous"}
# The queue's own keys, for Help → Keyboard shortcuts (they act in the queue list, not through a menu).
QUEUE_KEYS = [(QT_TR_NOOP("Review queue: approve"), "A"), (QT_TR_NOOP("Review queue: reject"), "X"),
              (QT_TR_NOOP("Review queue: edit the entry (Esc returns)"), "E"),
              (QT_TR_NOOP("Review queue: skip"), "Space"), (QT_TR_NOOP("Review queue: undo the last decision"),
                                                            "Backspace"),
              (QT_TR_NOOP("Review queue: next"), "J / ↓"), (QT_TR_NOOP("Review queue: previous"), "K / ↑")]


# Texts translated inside f-strings, where pyside6-lupdate does not look: marked here for extraction
# (tests/console/test_i18n.py checks that every tr() text is in the catalogue).
_IN_FSTRINGS = (
    QT_TR_NOOP("edited"),
    QT_TR_NOOP("Numbers not traced to a source:"),
    QT_TR_NOOP("Question"),
    QT_TR_NOOP("Answer given"),
    QT_TR_NOOP("(public sources, not your material)"),
    QT_TR_NOOP("Entry compared with the answer"),
    QT_TR_NOOP("(green: added · red: dropped)"),
    QT_TR_NOOP("read"),
    QT_TR_NOOP("Near-duplicate of existing knowledge."),
    QT_TR_NOOP("Nearest existing knowledge: measuring…"),
    QT_TR_NOOP("No page was read for this result: nothing from it is used."),
)


def _esc(text: Any) -> str:
    return html.escape(str(text))


def word_diff(before: str, after: str) -> str:
    """``after`` as HTML, words it adds marked green, words of ``before`` it drops struck red."""
    a, b = before.split(), after.split()
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op in {"replace", "delete"}:
            out.append(f"<s style='color:#c92a2a'>{_esc(' '.join(a[i1:i2]))}</s>")
        if op in {"replace", "insert"}:
            out.append(f"<span style='background:#b2f2bb;color:#000'>{_esc(' '.join(b[j1:j2]))}</span>")
        if op == "equal":
            out.append(_esc(" ".join(b[j1:j2])))
    return " ".join(out)


class ReviewScreen(QWidget):
    error = Signal(str, str)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ReviewModel(engine, run_op)
        self.model.connect("changed", self._render)
        self.model.connect("error", self.error.emit)
        self.model.connect("nearest", self._nearest_loaded)
        self.shown_id = ""  # the review id on display (the throughput bench waits on it)

        self.headline = QLabel(tr("Select a space in the Library."))
        self.headline.setObjectName("review_state")
        self.filter = ComboBox()
        for key in FILTERS:
            self.filter.addItem(tr(FILTER_NAMES[key]), key)
        self.filter.currentIndexChanged.connect(lambda _i: self._filter_changed(str(self.filter.currentData())))
        top = QHBoxLayout()
        top.addWidget(self.headline, 1)
        top.addWidget(QLabel(tr("Show")))
        top.addWidget(self.filter)

        self.queue = QListWidget()
        self.queue.setObjectName("queue")
        self.queue.setWordWrap(True)  # each item's two lines fit, in any script (a CJK first line was elided)
        self.queue.installEventFilter(self)
        self.queue.currentRowChanged.connect(self._row_changed)
        self.keys_hint = QLabel(tr("a approve · x reject · e edit · space skip · ⌫ undo · j/k move"))
        self.keys_hint.setObjectName("keys_hint")
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.queue, 1)
        ll.addWidget(self.keys_hint)

        right = self._build_detail()
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(left)
        body.addWidget(right)
        body.setSizes([300, 800])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(body, 1)
        self._render()

    def _build_detail(self) -> QSplitter:
        """The item in review: answer against entry, the entry and its actions, the sources and their snapshots."""
        self.compare = QTextBrowser()
        self.compare.setObjectName("compare")
        self.entry = QPlainTextEdit()
        self.entry.setObjectName("entry")
        self.entry.setReadOnly(True)
        self.entry.installEventFilter(self)
        self.sources = QTextBrowser()
        self.sources.setObjectName("sources")
        self.sources.setOpenLinks(False)
        self.sources.anchorClicked.connect(self._source_clicked)
        self.snapshot = QTextBrowser()
        self.snapshot.setObjectName("snapshot")
        self.nearest = QLabel("")
        self.nearest.setObjectName("nearest")
        self.nearest.setWordWrap(True)
        # Issue 61: the stored passages it would land near, and an approved entry's stored document, open in the
        # source viewer.
        self.nearest.setTextFormat(Qt.TextFormat.RichText)
        self.nearest.linkActivated.connect(self.open_link)
        self.viewer: SourceViewer | None = None
        buttons = QHBoxLayout()
        self.approve_btn = QPushButton(tr("Approve (a)"))
        self.approve_btn.clicked.connect(lambda: self.act("approve"))
        self.reject_btn = QPushButton(tr("Reject… (x)"))
        self.reject_btn.clicked.connect(self.reject_with_reason)
        self.edit_btn = QPushButton(tr("Edit (e)"))
        self.edit_btn.clicked.connect(lambda: self.act("edit"))
        self.undo_btn = QPushButton(tr("Undo (⌫)"))
        self.undo_btn.clicked.connect(lambda: self.act("undo"))
        for b in (self.approve_btn, self.reject_btn, self.edit_btn, self.undo_btn):
            buttons.addWidget(b)
        buttons.addStretch(1)
        entry_box = QWidget()
        el = QVBoxLayout(entry_box)
        el.setContentsMargins(0, 0, 0, 0)
        el.addWidget(QLabel("<b>" + tr("Entry to store") + "</b> — "
                                + tr("regenerated from the pages read, not the visitor's answer")))
        el.addWidget(self.entry, 1)
        el.addWidget(self.nearest)
        el.addLayout(buttons)
        source_box = QSplitter(Qt.Orientation.Horizontal)
        source_box.addWidget(self.sources)
        source_box.addWidget(self.snapshot)
        source_box.setSizes([260, 520])
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.compare)
        right.addWidget(entry_box)
        right.addWidget(source_box)
        right.setSizes([200, 230, 260])
        return right

    @property
    def busy(self) -> bool:
        return self.model.pending > 0 or self.model.working > 0

    def set_space(self, name: str) -> None:
        self.model.set_space(name)

    def _filter_changed(self, text: str) -> None:
        self.model.filter = text
        self.model.refresh()

    # ---- keys --------------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if watched is self.entry:
                if event.key() == Qt.Key.Key_Escape:  # leave the editor, back to the queue's keys
                    self.entry.setReadOnly(True)
                    self.queue.setFocus()
                    return True
                return False
            if watched is self.queue and event.modifiers() in (Qt.KeyboardModifier.NoModifier,
                                                                Qt.KeyboardModifier.KeypadModifier):
                action = KEYS.get(Qt.Key(event.key()))
                if action is not None:
                    self.act(action)
                    return True
        return super().eventFilter(watched, event)

    def act(self, action: str) -> None:
        item = self.model.item()
        if action == "approve" and item is not None:
            if item.status == "pending" and item.flagged and not self.confirm_flagged(item):
                self.queue.setFocus()
                return
            edited = self.entry.toPlainText() if self.entry.document().isModified() else None
            text = " ".join((edited if edited is not None else item.entry.markdown()).split())
            still = [c for c in item.contradicted if " ".join(c["sentence"].split()) in text]
            if item.status == "pending" and still and not self.confirm_contradicted(still):
                self.queue.setFocus()
                return
            self.model.decide("approved", edited=edited,
                              confirm_contradicted=tuple(c["sentence"] for c in still))
        elif action == "reject":
            self.reject_with_reason()  # the key asks the same optional reason the button does (issue 60)
        elif action == "edit" and item is not None and item.status == "pending":
            self.entry.setReadOnly(False)
            self.entry.setFocus()
        elif action == "skip":
            self.model.move(1 if self.model.current + 1 < len(self.model.state.items) else -self.model.current)
        elif action == "undo":
            self.model.undo()
        elif action in {"next", "previous"}:
            self.model.move(1 if action == "next" else -1)
        if action != "edit":
            self.queue.setFocus()

    def reject_with_reason(self) -> None:
        item = self.model.item()
        if item is None or item.status != "pending":
            return
        reason, ok = QInputDialog.getText(self, tr("Reject"), tr("Why (kept with the rejection; optional):"))
        if ok:
            self.model.decide("rejected", reason=reason.strip())
        self.queue.setFocus()

    def confirm_flagged(self, item: Any) -> bool:
        """One key must not approve an item whose pages addressed a model (issue 60): the flag is named, and the
        operator says yes; No is the default."""
        texts = "\n".join(f"• {f['text'][:160]}" for f in item.flagged[:5])
        box = QMessageBox(QMessageBox.Icon.Warning, tr("Approve a flagged item?"),
                          tr("Flagged: {n} addressed to a model. Its pages held text that addresses a model or the "
                             "reader; it was left out of the entry. Approve anyway?").format(n=len(item.flagged))
                          + "\n\n" + texts, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("confirm_flagged")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    def confirm_contradicted(self, found: list[dict[str, Any]]) -> bool:
        """The entry states what the space's own material states otherwise (issue 59): each sentence is named with
        the space's own, and the operator says yes; No is the default."""
        texts = "\n".join("• " + tr("“{sentence}” — your material ({where}): “{mine}”").format(
            sentence=c["sentence"][:160], where=_where(c), mine=c["mine"][:160]) for c in found[:5])
        box = QMessageBox(QMessageBox.Icon.Warning, tr("Approve a contradicted entry?"),
                          tr("{n} sentence(s) of this entry state otherwise than your own material. Approve "
                             "anyway?").format(n=len(found)) + "\n\n" + texts,
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("confirm_contradicted")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    # ---- drawing -----------------------------------------------------------------------------------
    def _render(self) -> None:
        items = self.model.state.items
        waiting = sum(1 for i in items if i.status == "pending")
        if not self.model.space:
            self.headline.setText(tr("Select a space in the Library."))
        else:
            working = " · " + tr("{n} decision(s) being stored").format(n=self.model.working) \
                if self.model.working else ""
            # The sentence's full stop is the language's own ("。" in Chinese, issue 60), not an ASCII ". ".
            first = tr("{n} public-web answer(s) waiting in “{space}”").format(
                n=f"<b>{waiting}</b>", space=_esc(self.model.space)) + working
            self.headline.setText(tr("{first}. {then}").format(
                first=first, then=tr("Nothing reaches the space until approved.")))
        self.queue.blockSignals(True)
        self.queue.clear()
        for i in items:
            read = sum(s.read for s in i.sources)
            mark = "" if i.status == "pending" else f"[{tr(STATUS_NAMES.get(i.status, i.status))}] "
            questions = " / ".join(i.questions or [i.question])
            edited = f"[{tr('edited')}] " if i.edited_by else ""
            row = QListWidgetItem(f"{mark}{edited}{questions}\n   " + tr("{read} read · {found} found only").format(
                read=read, found=len(i.sources) - read)
                + (" · " + tr("{n} untraced").format(n=len(i.untraced_numbers)) if i.untraced_numbers else "")
                + (" · ⚠ " + tr("{n} addressed to a model").format(n=len(i.flagged)) if i.flagged else "")
                + (" · ⚠ " + tr("{n} contradicted").format(n=len(i.contradicted)) if i.contradicted else ""))
            row.setData(Qt.ItemDataRole.UserRole, i.review_id)
            # Height from the text itself: a CJK line is taller than the list's Latin line height.
            lines = [self.queue.fontMetrics().boundingRect(line).height() for line in row.text().split("\n")]
            row.setSizeHint(QSize(0, sum(lines) + 8))
            self.queue.addItem(row)
        self.queue.setCurrentRow(self.model.current if items else -1)
        self.queue.blockSignals(False)
        self.undo_btn.setEnabled(bool(self.model.decisions))
        self._show(self.model.item())

    def _row_changed(self, row: int) -> None:
        if row >= 0 and row != self.model.current:
            self.model.current = row
            self._show(self.model.item())

    def _show(self, item: Any | None) -> None:
        pending = item is not None and item.status == "pending"
        for b in (self.approve_btn, self.reject_btn, self.edit_btn):
            b.setEnabled(pending)
        if item is None:
            self.shown_id = ""
            for view in (self.compare, self.sources, self.snapshot):
                view.setHtml("")
            self.entry.setPlainText("")
            self.nearest.setText("")
            return
        self.shown_id = item.review_id
        entry_text = item.edited or item.entry.markdown()
        untraced = (f"<p style='color:#e8590c'><b>{tr('Numbers not traced to a source:')}</b> "
                    f"{_esc(', '.join(item.untraced_numbers))}</p>" if item.untraced_numbers else "")
        # Page text that addressed a model or the reader: shown so the operator sees what was left out (issue 49).
        flagged = "".join(f"<li>{_esc(f['text'])} <small>({_esc(f['url'])})</small></li>" for f in item.flagged)
        left_out = tr("Left out: page text that addresses a model or the reader")
        flagged = f"<p style='color:#c92a2a'><b>⚠ {left_out}</b></p><ul>{flagged}</ul>" if flagged else ""
        # Sentences of the entry the space's own material states otherwise (issue 59), with the space's sentence.
        contradicted = "".join(
            f"<li>{_esc(c['sentence'])}<br><small>" + _esc(tr("your material ({where}): “{mine}”").format(
                where=_where(c), mine=c["mine"])) + "</small></li>" for c in item.contradicted)
        if contradicted:
            head = tr("Contradicted by your own material")
            contradicted = f"<p style='color:#c92a2a'><b>⚠ {head}</b></p><ul>{contradicted}</ul>"
        asked = "".join(f"<p><b>{tr('Question')}</b> {_esc(q)}</p>" for q in (item.questions or [item.question]))
        edited = ""
        if item.edited_by:  # the operator's wording, not the pages' (issue 60)
            edited = ("<p style='color:#e8590c'><b>" + _esc(tr("Edited by {user} at {when}: the entry's wording is "
                                                              "the operator's, not the pages'.").format(
                user=item.edited_by, when=item.edited_at.replace("T", " ").rstrip("Z") + " UTC")) + "</b></p>")
        self.compare.setHtml(
            f"{contradicted}{flagged}{edited}{asked}"
            f"<p><b>{tr('Answer given')}</b> <small>{tr('(public sources, not your material)')}</small><br>"
            f"{_esc(item.answer)}</p>{untraced}<p><b>{tr('Entry compared with the answer')}</b> "
            f"<small>{tr('(green: added · red: dropped)')}</small><br>"
            f"{word_diff(item.answer, ' '.join(s.text for s in item.entry.sentences))}</p>")
        self.entry.setPlainText(entry_text)
        self.entry.document().setModified(False)
        self.entry.setReadOnly(True)
        rows = []
        for n, s in enumerate(item.sources):
            style = "solid #2f9e44" if s.read and s.used else "dashed #868e96"
            label = (tr("read") if s.used else tr("read, not used") + f" — {_esc(s.error)}") if s.read \
                else tr("found only") + f" — {_esc(s.error)}"
            rows.append(f"<table width='100%' style='border:2px {style};margin:4px' cellpadding='4'><tr><td>"
                        f"<a href='source:{n}'>{_esc(s.title)}</a><br><small>{_esc(s.domain)} · {label}</small>"
                        f"</td></tr></table>")
        self.sources.setHtml("".join(rows))
        first = next((n for n, s in enumerate(item.sources) if s.read), None)
        self.show_snapshot(first)
        hits = self.model.nearest.get(item.review_id)
        if hits is None:
            self.nearest.setText(f"<small>{tr('Nearest existing knowledge: measuring…')}</small>")
            self.model.load_nearest(item.review_id)
        else:
            self._draw_nearest(*hits)

    def _source_clicked(self, url: QUrl) -> None:
        self.show_snapshot(int(url.toString().split(":", 1)[1]))

    def show_snapshot(self, n: int | None) -> None:
        """The page as read, the entry's quoted spans highlighted."""
        item = self.model.item()
        if item is None or n is None or not item.sources[n].read:
            self.snapshot.setHtml(f"<p><i>{tr('No page was read for this result: nothing from it is used.')}</i></p>")
            return
        src = item.sources[n]
        text = item.snapshot.get(src.url, "")[:SNAPSHOT_SHOWN]
        body = _esc(text)
        for quote in {s.quote for s in item.entry.sentences if s.url == src.url}:
            # Qt's rich text has no <mark>: a highlighted span instead.
            body = body.replace(_esc(quote), f"<span style='background-color:#ffe066;color:#000'>{_esc(quote)}</span>")
        self.snapshot.setHtml(f"<p><b>{_esc(src.title)}</b><br><small>{_esc(src.url)} · {tr('read')} {src.fetched_at}"
                              f"</small></p><div style='white-space:pre-wrap'>{body}</div>")

    def _nearest_loaded(self, review_id: str) -> None:
        item = self.model.item()
        if item is not None and item.review_id == review_id:
            self._draw_nearest(*self.model.nearest[review_id])

    def open_link(self, link: str) -> SourceViewer | None:
        """``passage:<chunk id>`` (a nearest passage) or ``doc:<doc id>`` (an approved entry's document, at its first
        passage) in the source viewer."""
        item = self.model.item()
        kind, _, ref = link.partition(":")
        if item is None or not ref:
            return None
        engine = self.model.engine
        if kind == "doc":
            chunks = engine.document_chunks(item.space, ref)
            if not chunks:
                return None
            ref = chunks[0].chunk_id
        self.viewer = open_in_viewer(self, engine, self.viewer, item.space, ref)
        return self.viewer

    def _draw_nearest(self, hits: list[Any], duplicate: bool) -> None:
        near = "; ".join(f"<a href='passage:{h.chunk_id}'>{_esc(h.document)}</a> ("
                         + tr("distance {d}").format(d=f"{h.distance:.3f}") + ", "
                         + tr("closer than {share} of unrelated questions").format(
                             share=f"{(h.closer_than or 0) * 100:.0f}%") + ")" for h in hits[:3])
        flag = f"<b style='color:#c92a2a'>{tr('Near-duplicate of existing knowledge.')}</b> " if duplicate else ""
        item = self.model.item()
        stored = (" · <a href='doc:" + _esc(item.doc_id) + "'>" + tr("the stored entry at its source") + "</a>"
                  if item is not None and item.doc_id else "")
        self.nearest.setText(f"<small>{flag}" + tr("Would land near: {where}").format(
            where=near or tr("nothing yet in this space")) + stored + "</small>")


def _where(c: dict[str, Any]) -> str:
    """A contradicting sentence's place: its document's title and page."""
    return tr("{title}, page {page}").format(title=c["title"], page=c["page"]) if c.get("page") else str(c["title"])
