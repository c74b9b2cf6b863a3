"""Retrieval Inspector (SPEC C2): every stage of the trace, distances against the baseline."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import QT_TR_NOOP, number, tr
from biny.console.models.inspector import InspectorModel
from biny.console.ops import run_op
from biny.console.screens.structured import tool_name
from biny.console.widgets.distance_bar import DistanceBar
from biny.console.widgets.fields import DoubleSpinBox, SpinBox
from biny.console.widgets.source_viewer import SourceViewer
from biny.core import (
    Answer,
    AskResult,
    BinyError,
    Engine,
    Hit,
    PoolRecord,
    RelevanceRecord,
    RewriteRecord,
    SentencesRecord,
    Stage,
    ThresholdRecord,
    ToolResult,
    script_name,
)

NO_PASSAGE = QT_TR_NOOP("No passage close enough — this is probably not in this space's material.")


# Texts translated inside f-strings, where pyside6-lupdate does not look: marked here for extraction
# (tests/console/test_i18n.py checks that every tr() text is in the catalogue).
_IN_FSTRINGS = (
    QT_TR_NOOP("chunk"),
    QT_TR_NOOP("distance"),
    QT_TR_NOOP("Not in the final context, so its text was not read or decrypted (R7)."),
    QT_TR_NOOP("Composing…"),
    QT_TR_NOOP("Rows"),
    QT_TR_NOOP("PINNED"),
    QT_TR_NOOP("MORE"),
    QT_TR_NOOP("That chunk is no longer in the space."),
)


class InspectorScreen(QWidget):
    """The question row and the conversation; the trace, the answer, the final context and the passage are drawn
    by their own widgets (TraceTree, AnswerView, ContextList, PassageView — issue 56)."""

    error = Signal(str, str)
    answered = Signal(object)
    notice = Signal(str)  # a message for the window's status bar (a failed public search)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        # The state and the engine's work live in the model (issue 47); this screen renders its events.
        self.model = InspectorModel(engine, run_op)
        row = self._controls()
        split = self._views()
        self.model.connect("answered", self.show_result)
        self.model.connect("more", self._show_more)
        self.model.connect("streamed", self._streamed)
        self.model.connect("chunk", self.chunk_view.show_opened)
        self.model.connect("idle", self._done)
        self.model.connect("error", self._failed)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel("<b>" + tr("Conversation") + "</b> "
                             + tr("(double-click a turn to ask its question again)")))
        lay.addWidget(self.history)
        lay.addLayout(row)
        lay.addWidget(self.status)
        lay.addWidget(split, 1)

    def _controls(self) -> QHBoxLayout:
        """The conversation list and the question row (question, K, measured or explicit cut, Ask, More)."""
        self.history = QListWidget()
        self.history.setObjectName("history")
        self.history.setMaximumHeight(90)
        self.question = QLineEdit()
        # The conversation: each turn shows its question and the start of its answer (full answer in
        # the tooltip); the question itself rides in the item's data for reuse and follow-ups (R1).
        self.history.itemActivated.connect(lambda it: self.question.setText(_question_of(it)))
        self.question.setObjectName("question")
        self.question.setPlaceholderText(tr("Ask a question about this space…"))
        self.question.returnPressed.connect(self.ask)
        self.ask_btn = QPushButton(tr("Ask"))
        self.ask_btn.clicked.connect(self.ask)
        self.more_btn = QPushButton(tr("More material"))
        self.more_btn.setObjectName("more")
        self.more_btn.setToolTip(tr("R6: the next batch of the same ranked pool — no new search (once per turn)"))
        self.more_btn.setEnabled(False)
        self.more_btn.clicked.connect(self.more)
        self.k = SpinBox()
        self.k.setRange(1, 50)
        self.k.setValue(self.engine.settings.retrieval.k)
        self.auto_cut = QCheckBox(tr("measured cut"))
        self.auto_cut.setChecked(True)
        self.auto_cut.setToolTip(tr("Cut at the quantile of unrelated questions' nearest distance (R9)"))
        self.cut = DoubleSpinBox()
        self.cut.setRange(0.0, 2.0)
        self.cut.setSingleStep(0.01)
        self.cut.setDecimals(3)
        self.cut.setValue(0.2)
        self.cut.setEnabled(False)
        self.auto_cut.toggled.connect(lambda on: self.cut.setEnabled(not on))

        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(QLabel("K"))
        row.addWidget(self.k)
        row.addWidget(self.auto_cut)
        row.addWidget(self.cut)
        row.addWidget(self.ask_btn)
        row.addWidget(self.more_btn)
        return row

    def _views(self) -> QSplitter:
        """The trace on the left; the answer, the final context and the passage on the right."""
        self.status = QLabel("")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.stages = TraceTree()
        self.stages.itemClicked.connect(self._trace_item_clicked)
        self.context = ContextList()
        self.context.currentRowChanged.connect(self._show_chunk)
        # Issue 61: Enter (or a double-click) on a kept passage opens it at its place in its source.
        self.context.itemActivated.connect(lambda item: self.open_source(self.context.row(item)))
        self.viewer: SourceViewer | None = None
        self.chunk_view = PassageView()

        # The grounded answer (issue: grounded answers): citations link to their passage.
        self.answer_view = AnswerView()
        self.answer_view.anchorClicked.connect(lambda url: self.open_citation(int(url.path() or 0)))
        self.copy_btn = QPushButton(tr("Copy with sources"))
        self.copy_btn.setEnabled(False)
        self.copy_btn.clicked.connect(self.copy_answer)
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>" + tr("Answer") + "</b>"))
        head.addStretch(1)
        head.addWidget(self.copy_btn)
        legend = QLabel("<b>" + tr("Final context") + "</b> — " + tr(
            "bar: distance (blue: within its cut; purple: kept by another rule); line: unrelated baseline; "
            "orange: its cut"))
        legend.setWordWrap(True)  # a long legend must not widen the window

        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(_stacked(head, self.answer_view))
        right.addWidget(_stacked(legend, self.context))
        right.addWidget(self.chunk_view)
        right.setSizes([200, 260, 220])
        split = QSplitter()
        split.addWidget(self.stages)
        split.addWidget(right)
        split.setSizes([420, 620])
        return split

    @property
    def space(self) -> str | None:
        return self.model.space

    @property
    def result(self) -> AskResult | None:
        return self.model.result

    @property
    def busy(self) -> bool:
        return self.model.busy

    def set_space(self, name: str) -> None:
        if self.model.set_space(name):
            self.history.clear()  # a new space starts a new conversation
        self.status.setText(tr("Space: {name}").format(name=name))

    def ask(self) -> None:
        q = self.question.text().strip()
        cut = None if self.auto_cut.isChecked() else self.cut.value()
        if not self.model.ask(q, self.k.value(), cut):
            return
        self.ask_btn.setEnabled(False)
        self.status.setText(tr("Searching…"))
        turn = QListWidgetItem(tr("You: {question}").format(question=q))
        turn.setData(Qt.ItemDataRole.UserRole, q)
        self.history.addItem(turn)
        self.answer_view.setHtml("")

    def _streamed(self, text: str) -> None:
        self.status.setText(tr("Composing the answer…"))
        self.answer_view.show_streamed(text)

    def more(self) -> None:
        self.model.more()

    def _show_more(self, more: AskResult) -> None:
        if self.result is None:
            return
        start = len(self.result.chunks) - len(more.chunks)  # the model has added them
        self.stages.add_stages(more.trace.stages)
        for n, hit in enumerate(more.chunks, start + 1):
            self.context.add_row(n, hit, self.result, more=True)
        self.status.setText(self.status.text() + "  " + tr("+{n} more from the same pool.").format(n=len(more.chunks)))
        self.more_btn.setEnabled(False)

    def _done(self) -> None:
        self.ask_btn.setEnabled(True)

    def _failed(self, exc: BaseException, detail: str) -> None:
        self.status.setText(tr("Failed: {error}").format(error=exc))
        self.error.emit(str(exc), detail)

    def show_result(self, result: AskResult) -> None:
        """A finished turn: the status line, the trace, the final context, the answer and the first passage."""
        self.status.setText(summary(result))
        if result.answer is not None and result.answer.web_error:
            # A failed public search is no "not in your material": said here and in the window's status bar, in
            # the interface's language (issue 60: it sat in a tooltip, cut off at the screen's edge).
            self.status.setText(str(result.answer.web_error))  # core's words, put into the language shown now
            self.notice.emit(str(result.answer.web_error))
        self.stages.show_trace(result)
        self.context.clear()
        for n, hit in enumerate(result.chunks, 1):
            self.context.add_row(n, hit, result)
        self.more_btn.setEnabled(result.more_available)
        self._show_answer(result)
        if result.structured is not None:
            self.chunk_view.show_rows(result.structured)
        elif not result.chunks:
            self.chunk_view.show_nothing()
        else:
            self.context.setCurrentRow(0)
        self.answered.emit(result)

    def _show_answer(self, result: AskResult) -> None:
        """The answer, and its start beside its question in the conversation."""
        a = result.answer
        turn = self.history.item(self.history.count() - 1)
        if a is not None and turn is not None and _question_of(turn) == result.question:
            short = a.text if len(a.text) <= 90 else a.text[:90] + "…"
            turn.setText(tr("You: {question}").format(question=result.question) + f"   →   {short}")
            turn.setToolTip(a.text)
        self.copy_btn.setEnabled(a is not None and a.mode != "none")
        self.answer_view.show_answer(result)

    def changeEvent(self, event: QEvent) -> None:
        # Light/dark switched: the answer's links and marks are re-drawn in the new palette.
        if event.type() == QEvent.Type.PaletteChange and self.result is not None:
            self._show_answer(self.result)
        super().changeEvent(event)

    def _trace_item_clicked(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        """A chunk in the trace: open it if it is in the context, else say what happened to it."""
        data = item.data(0, Qt.ItemDataRole.UserRole)
        if not data or self.result is None:
            return
        chunk_id, stage, verdict, distance = data
        row = next((i for i, h in enumerate(self.result.chunks) if h.chunk_id == chunk_id), None)
        if row is not None:
            self.context.setCurrentRow(row)
            self._show_chunk(row)
            return
        title = self.result.trace.documents.get(chunk_id, tr("(document unknown)"))
        self.chunk_view.show_not_in_context(title, chunk_id, stage, verdict, distance)

    def open_chunk(self, space: str, doc_id: str, chunk_id: str, note: str = "") -> None:
        """Show one stored chunk (from the star map or the collection), read in the background."""
        self.model.open_chunk(space, doc_id, chunk_id, note)

    def open_citation(self, n: int) -> None:
        """Show passage ``n`` of the answer, its cited sentences highlighted, and open it at its source."""
        if self.result is not None and 1 <= n <= len(self.result.chunks):
            self.context.setCurrentRow(n - 1)
            self._show_chunk(n - 1)
            self.open_source(n - 1)

    def open_source(self, row: int) -> SourceViewer | None:
        """Kept passage ``row`` in the source viewer (issue 61); a public page's paragraph has no stored source."""
        if self.result is None or self.space is None or not (0 <= row < len(self.result.chunks)):
            return None
        hit = self.result.chunks[row]
        if hit.kept is not None and hit.kept.rule == "public page":
            return None
        if self.viewer is None:
            self.viewer = SourceViewer(self.engine, self)
        try:
            self.viewer.open_passage(self.space, hit.chunk_id)
        except BinyError as exc:  # the passage was removed or its space locked since the answer
            self.status.setText(tr("Failed: {error}").format(error=exc))
            return None
        self.viewer.show()
        self.viewer.raise_()
        return self.viewer

    def copy_answer(self) -> None:
        a = self.result.answer if self.result is not None else None
        if a is None or self.result is None:
            return
        sources = [f"[{c.n}] {c.document}" + (", " + tr("page {n}").format(n=c.page) if c.page else "")
                   for c in a.citations]
        QApplication.clipboard().setText(a.text + ("\n\n" + tr("Sources:") + "\n" + "\n".join(sources)
                                                   if sources else ""))

    def _show_chunk(self, row: int) -> None:
        if self.result is None or not (0 <= row < len(self.result.chunks)):
            return
        answer = self.result.answer
        cited = next((c for c in (answer.citations if answer else []) if c.n == row + 1), None)
        self.chunk_view.show_passage(self.result.chunks[row], cited.sentences if cited else [])


def summary(result: AskResult) -> str:
    """The status line of a finished turn: where the answer came from, and the cut and baseline it was measured by."""
    base = result.baseline
    cut = result.max_distance
    base_s = f"{base:.3f}" if base is not None else tr("not measured")
    cut_s = f"{cut:.3f}" if cut is not None else tr("none")
    cuts = sorted({round(h.cut, 3) for h in result.chunks if h.cut is not None})
    if len(cuts) > 1:  # R2/R9: each passage is cut against its own nearest unrelated questions
        cut_s = tr("{low}–{high} per passage").format(low=f"{cuts[0]:.3f}", high=f"{cuts[-1]:.3f}")
    rewrite = result.trace.record(RewriteRecord)
    rw = ""
    if rewrite is not None and rewrite.retrieval_query != result.question:
        rw = " " + tr("Searched as: “{query}” ({method}).").format(query=rewrite.retrieval_query,
                                                                    method=rewrite.method)
    group = script_name(result.reference)
    if result.answer is not None and result.answer.mode == "web":
        read = sum(1 for src in result.answer.sources if src["read"])
        return tr("Nothing in your material came close enough; answered from {read} public page(s) read for it "
                  "({found} found only) — queued for review.").format(read=read,
                                                                     found=len(result.answer.sources) - read)
    if result.structured is not None:
        s = result.structured
        return (tr("Answered exactly by the structured index ({tool}, {n} matched, {ms} ms) — no passage retrieved, "
                   "nothing embedded.").format(tool=tool_name(s.call.tool), n=number(s.total), ms=f"{s.ms:.1f}")
                + " " + tr("Counted over the {n} documents of the index ({total} in the space).")
                .format(n=number(s.over), total=number(s.documents))
                + (" " + tr("Filter: {filter}").format(filter=s.filter_text) if s.filter_text else ""))
    if result.chunks:
        return tr("{n} passage(s). Unrelated-pair baseline {baseline}; cut {cut} (measured against unrelated "
                  "{group} questions).").format(n=len(result.chunks), baseline=base_s, cut=cut_s, group=group) + rw
    if result.unmentioned:  # issue 55: the question names what no passage of the space mentions
        return tr("No passage of this space mentions {names} — this is not in its material.").format(
            names=", ".join(f"“{n}”" for n in result.unmentioned))
    return tr(NO_PASSAGE) + " " + tr("(cut {cut}, baseline {baseline})").format(cut=cut_s, baseline=base_s)


def _stacked(head: QLayout | QWidget, body: QWidget) -> QWidget:
    """A heading (a label, or a row of them) over a view, without margins."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    if isinstance(head, QLayout):
        lay.addLayout(head)
    else:
        lay.addWidget(head)
    lay.addWidget(body)
    return box


class TraceTree(QTreeWidget):
    """The trace (SPEC C2): a row per stage, under it what the stage kept, judged and dropped, each with why."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("stages")
        self.setHeaderLabels([tr("Stage"), tr("What happened")])
        self.setColumnWidth(0, 120)

    def show_trace(self, result: AskResult) -> None:
        self.clear()
        named = _names(result)
        for stage in result.trace.stages:
            summary = str(stage.summary)  # core's words, put into the language shown now (issue 56)
            top = QTreeWidgetItem([tr(STAGES[stage.name]) if stage.name in STAGES else stage.name, summary])
            top.setData(0, STAGE_ROLE, stage.name)  # the engine's name, whatever the language shows
            top.setToolTip(1, summary)
            self._kept(top, stage, named)
            self._not_judged(top, stage, named)
            self._dropped(top, stage, named)
            self.addTopLevelItem(top)
            # The long pool/threshold lists stay folded; the decisive stages open.
            top.setExpanded(stage.name not in {"pool", "threshold", "rerank"})

    def add_stages(self, stages: list[Stage]) -> None:
        """The stages of "More material", one row each (R6)."""
        for stage in stages:
            self.addTopLevelItem(QTreeWidgetItem([stage.name, str(stage.summary)]))

    @staticmethod
    def _kept(top: QTreeWidgetItem, stage: Stage, named: dict[str, str]) -> None:
        """What the stage kept, with its distance and what the stage's record says about it."""
        data = stage.data
        dist = dict(zip(stage.kept, data.distances if isinstance(data, PoolRecord) else [], strict=False))
        # Issue 20: a passage in the other language judged by the question's looked-up words shows its share.
        translated = data.translated if isinstance(data, ThresholdRecord) else None
        shares = translated.shares if translated is not None else {}
        rescued = set(translated.kept_beyond_cut if translated is not None else [])
        # Passages read by sentence near their cut.
        nearest_sentence = data.nearest_sentences if isinstance(data, SentencesRecord) else {}
        # Issue 55: the judge's score and the features that moved it most, for every passage it read.
        verdicts = data.verdicts if isinstance(data, RelevanceRecord) else {}
        for cid in stage.kept[:60]:
            d = dist.get(cid)
            label = named.get(cid, cid[:10]) + (f"  d={d:.3f}" if d is not None else "")
            if cid in shares:
                label += "  " + (tr("kept beyond its cut: translated words {share}") if cid in rescued
                                 else tr("translated words {share}")).format(share=f"{shares[cid]:.0%}")
            if cid in nearest_sentence:
                label += "  " + tr("nearest sentence {d}").format(d=f"{nearest_sentence[cid]:.3f}")
            if cid in verdicts:
                label += "  " + tr("p {score}: {reasons}").format(
                    score=f"{verdicts[cid].score:.2f}", reasons=judge_reasons(verdicts[cid].contributions))
            child = QTreeWidgetItem(top, [tr("kept"), label])
            child.setData(0, Qt.ItemDataRole.UserRole, (cid, stage.name, "kept", d))

    @staticmethod
    def _not_judged(top: QTreeWidgetItem, stage: Stage, named: dict[str, str]) -> None:
        """What the relevance judge read and did not keep (issue 55), with the features that decided it."""
        verdicts = stage.data.verdicts if isinstance(stage.data, RelevanceRecord) else {}
        for cid, v in list(verdicts.items())[:60]:
            if v.kept:
                continue
            label = named.get(cid, cid[:10]) + "  " + tr("p {score}: {reasons}").format(
                score=f"{v.score:.2f}", reasons=judge_reasons(v.contributions))
            child = QTreeWidgetItem(top, [tr("not judged to answer"), label])
            child.setToolTip(1, label)  # every reason, however narrow the column
            child.setData(0, Qt.ItemDataRole.UserRole, (cid, stage.name, "not judged to answer", None))

    @staticmethod
    def _dropped(top: QTreeWidgetItem, stage: Stage, named: dict[str, str]) -> None:
        for dr in stage.dropped[:60]:
            at = f"  d={dr.distance:.3f}" if dr.distance is not None else ""
            reason = str(dr.reason)
            label = f"{named.get(dr.chunk_id, dr.chunk_id[:10])}{at} — {reason}"
            child = QTreeWidgetItem(top, [tr("dropped"), label])
            child.setToolTip(1, reason)  # the whole reason, however long
            child.setData(0, Qt.ItemDataRole.UserRole, (dr.chunk_id, stage.name, reason, dr.distance))


def _names(result: AskResult) -> dict[str, str]:
    """What the trace calls each chunk: its document, its heading when it was read, a row's title."""
    named = dict(result.trace.documents)
    if result.structured is not None:  # the index's rows are named by their titles
        named.update({r["doc_id"]: r["title"] for r in result.structured.rows})
    for h in result.chunks:  # passages in the context were read: their heading is known too
        if h.heading_path:
            named[h.chunk_id] = f"{h.document} › {' › '.join(h.heading_path)}"
    return named


class ContextList(QListWidget):
    """The final context: a row per kept passage, as wide as the list and as tall as its wrapped text."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("context")
        self.setSpacing(2)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.viewport().installEventFilter(self)  # rows follow the list's width

    def add_row(self, n: int, hit: Hit, result: AskResult, *, more: bool = False) -> None:
        item = QListWidgetItem()
        cut = hit.cut if hit.cut is not None else result.max_distance  # each passage has its own cut
        # The rule that kept it, as the engine recorded it on the hit (issue 47: no trace keys read here).
        widget = _HitRow(n, hit, result.baseline, cut, more=more)
        self.addItem(item)
        self.setItemWidget(item, widget)
        self._fit_row(item, widget)

    def _fit_row(self, item: QListWidgetItem, widget: QWidget) -> None:
        """A row as wide as the list, as tall as its wrapped text needs at that width."""
        width = max(self.viewport().width() - 6, 200)
        lay = widget.layout()
        height = lay.totalHeightForWidth(width) if lay is not None and lay.hasHeightForWidth() else -1
        item.setSizeHint(QSize(width, max(height, widget.minimumSizeHint().height())))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.viewport() and event.type() == QEvent.Type.Resize:
            for i in range(self.count()):
                item = self.item(i)
                widget = self.itemWidget(item)
                if widget is not None:
                    self._fit_row(item, widget)
        return super().eventFilter(watched, event)


class AnswerView(QTextBrowser):
    """The grounded answer: citations link to their passage (cite:n), numbers no passage states are marked."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("answer")
        self.setOpenLinks(False)

    def show_streamed(self, text: str) -> None:
        self.setHtml(f"<p><small><b>{tr('Composing…')}</b></small></p><p>{_escape(text)}</p>")

    def show_answer(self, result: AskResult) -> None:
        a = result.answer
        if a is None:
            self.setHtml("")
            return
        label = tr(ANSWER_MODES[a.mode]) if a.mode in ANSWER_MODES else a.mode
        extra = "".join(f"<p><small>{n}</small></p>" for n in _answer_notes(result)) + _web_sources(a.sources)
        self.setHtml(f"<p><small><b>{label}</b></small></p><p>{_answer_body(a)}</p>{extra}")


def _answer_body(a: Answer) -> str:
    """The answer's text with its citations linked and its untraced numbers marked."""
    body = _escape(a.text).replace("\n", "<br>")  # a colon's list comes one item a line
    mark = ("<span style='background:#ffd43b;color:#000' title='" + tr("Not found in the cited passages")
            + "'>\\g<0></span>")
    for value in a.untraced_numbers:  # W5: a number no cited passage states is marked — whole numbers only
        body = re.sub(rf"(?<![\d.,]){re.escape(_escape(value))}(?![\d]|[.,]\d)", mark, body)
    if a.mode == "web":  # W3: the platform marks public citations — another colour, the domain shown
        domains = {c.n: urlsplit(c.url).hostname or "" for c in a.citations}
        return re.sub(r"\[(\d+)\]", lambda m: f"<a href='cite:{m.group(1)}' style='color:#e8590c'>"
                      f"[{m.group(1)} · {_escape(domains.get(int(m.group(1)), 'public'))}]</a>", body)
    return re.sub(r"\[(\d+)\]", r"<a href='cite:\1'>[\1]</a>", body)


def _answer_notes(result: AskResult) -> list[str]:
    """What the answer's reader should know beside it: marked numbers, removed citations, a failed model, and
    the passages retrieved but not cited."""
    a = result.answer
    assert a is not None
    notes = []
    if a.untraced_numbers:
        notes.append(tr("Marked numbers are not in the cited passages: ") + ", ".join(
            map(_escape, a.untraced_numbers)))
    if a.removed_citations or a.removed_placeholders:
        notes.append(tr("Removed from the model's reply: ") + ", ".join(map(_escape, a.removed_citations
                                                                       + a.removed_placeholders)))
    if a.note_kind in ("model_failed", "model_empty"):  # issue 56: a kind, not the note's (translated) words
        notes.append(_escape(str(a.note)))
    also = [n for n, h in enumerate(result.chunks, 1) if h.chunk_id in set(result.also_retrieved())]
    if a.citations and also:  # issue 61: the answer's sources are what it cites; the rest is shown apart
        notes.append(tr("Also retrieved, not cited: ") + ", ".join(
            f"<a href='cite:{n}'>[{n}]</a> {_escape(result.chunks[n - 1].document)}" for n in also))
    return notes


class PassageView(QTextBrowser):
    """One passage: a kept one with the sentences the answer quotes, a stored one opened from elsewhere, or what
    happened to one the trace dropped."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("chunk_view")

    def show_passage(self, h: Hit, quoted: list[str]) -> None:
        where = tr("page {n}").format(n=h.page) + ", " if h.page else ""
        path = " › ".join(h.heading_path)
        text = _escape(h.text)
        for sentence in quoted:  # the sentences the answer quotes
            mark = f"<span style='background:#b2f2bb;color:#000'>{_escape(sentence)}</span>"
            text = text.replace(_escape(sentence), mark)
        text = text.replace("\n", "<br>")
        self.setHtml(
            f"<h3>{h.document}</h3><p><small>{h.source}<br>{where}"
            + tr("characters {start}–{end}, chunk #{n}").format(start=h.char_start, end=h.char_end, n=h.ordinal)
            + f"{' · ' + path if path else ''}</small></p><p>{text}</p>")

    def show_not_in_context(self, title: str, chunk_id: str, stage: str, verdict: str,
                            distance: float | None) -> None:
        d = f"{distance:.3f}" if distance is not None else tr("not measured")
        self.setHtml(
            f"<h3>{_escape(title)}</h3><p><small>{tr('chunk')} {chunk_id}</small></p>"
            f"<p><b>{_escape(stage)}</b>: {_escape(verdict)}</p><p>{tr('distance')} {d}</p>"
            f"<p><i>{tr('Not in the final context, so its text was not read or decrypted (R7).')}</i></p>")

    def show_opened(self, chunk: Any, note: str) -> None:
        if chunk is None:
            self.setHtml(f"<p><i>{tr('That chunk is no longer in the space.')}</i></p>")
            return
        heading = " › ".join(chunk.heading_path)
        self.setHtml(f"<h3>{_escape(heading or chunk.doc_id)}</h3><p><small>{tr('chunk')} "
                     f"{chunk.chunk_id} · {_escape(note)}</small></p><p>{_escape(chunk.text)}</p>")

    def show_rows(self, structured: ToolResult) -> None:
        """An answer of the structured index: its query and the rows it matched."""
        rows = "".join(f"<li>{_escape(r['title'])}</li>" for r in structured.rows[:20])
        self.setHtml(f"<p><b>SQL</b></p><pre>{_escape(structured.query)}</pre>"
                     f"<p><b>{tr('Rows')}</b></p><ul>{rows}</ul>")

    def show_nothing(self) -> None:
        self.setHtml(f"<p><i>{tr(NO_PASSAGE)}</i></p><p>" + tr(
            "Nothing was padded in: fewer than K passages is the correct result when the material does not "
            "answer.") + "</p>")


# Trace stages (core/retrieve/*) by the names the engine gives them; a stage row keeps its name in this role.
STAGE_ROLE = Qt.ItemDataRole.UserRole + 1
# Every name of core/trace's StageName, no other (tests/console/test_vocabulary.py).
STAGES = {"rewrite": QT_TR_NOOP("rewrite"), "structured": QT_TR_NOOP("structured index"), "pool": QT_TR_NOOP("pool"),
          "threshold": QT_TR_NOOP("threshold"), "relevance": QT_TR_NOOP("relevance judge"),
          "unmentioned": QT_TR_NOOP("names the material lacks"),
          "sentences": QT_TR_NOOP("sentences"), "gate_sentences": QT_TR_NOOP("space-wide gate, by sentence"),
          "judge": QT_TR_NOOP("judge"), "identifiers": QT_TR_NOOP("identifiers"),
          "second_pass": QT_TR_NOOP("second pass"), "rerank": QT_TR_NOOP("rerank"), "nearest": QT_TR_NOOP("nearest"),
          "budget": QT_TR_NOOP("budget"), "final": QT_TR_NOOP("final"),
          "more_material": QT_TR_NOOP("more material"), "answer": QT_TR_NOOP("answer")}
# The relevance judge's features (core/retrieve/relevance.py FEATURES), as the Inspector names them (issue 55).
FEATURE_NAMES = {"inside_cut": QT_TR_NOOP("inside its cut"), "below_median": QT_TR_NOOP("nearer than unrelated"),
                 "behind_nearest": QT_TR_NOOP("behind the nearest"), "words": QT_TR_NOOP("shared words"),
                 "words_unasked": QT_TR_NOOP("words not asked"), "rare_words": QT_TR_NOOP("rare words"),
                 "rare_missing": QT_TR_NOOP("rare word missing"), "aspect": QT_TR_NOOP("asked form"),
                 "identifier": QT_TR_NOOP("identifier"), "elsewhere": QT_TR_NOOP("other language"),
                 "translated": QT_TR_NOOP("translated words"), "known": QT_TR_NOOP("known words")}


def judge_reasons(contributions: dict[str, float], most: int = 3) -> str:
    """The features that moved the judge's score most, signed: "inside its cut +0.88, shared words +0.41"."""
    top = sorted(contributions.items(), key=lambda kv: -abs(kv[1]))[:most]
    return ", ".join(f"{tr(FEATURE_NAMES[k]) if k in FEATURE_NAMES else k} {v:+.2f}" for k, v in top)


ANSWER_MODES = {"model": QT_TR_NOOP("Composed from the passages below"), "none": QT_TR_NOOP("Not in your material"),
                "structured": QT_TR_NOOP("Answered from the structured index (values verbatim from the rows)"),
                "web": QT_TR_NOOP("From PUBLIC web pages — not your material (queued for review)"),
                "extractive": QT_TR_NOOP("Extracted from the passages below (no language model)")}


def _question_of(item: QListWidgetItem) -> str:
    question = item.data(Qt.ItemDataRole.UserRole)
    return str(question) if question is not None else item.text()


def _web_sources(sources: list[dict[str, Any]]) -> str:
    """W4: pages read drawn solid, results only found drawn dashed — both listed, both labelled."""
    rows = []
    for src in sources:
        used = src["read"] and src.get("used", True)
        style = "solid #2f9e44" if used else "dashed #868e96"
        label = tr("read") if used else (tr("read, not used") if src["read"] else tr("found only")) \
            + f" — {_escape(src['error'])}"
        rows.append(f"<table width='100%' style='border:2px {style};margin:2px' cellpadding='3'><tr><td><small>"
                    f"<b>{_escape(src['domain'])}</b> · {_escape(src['title'])} · {label}</small></td></tr></table>")
    return "".join(rows)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _HitRow(QWidget):
    def __init__(self, n: int, hit: Hit, baseline: float | None, cut: float | None, *, more: bool = False) -> None:
        super().__init__()
        self.hit = hit
        kept_by = hit.kept.says() if hit.kept is not None else ""
        pin = (f"<span style='background:#e67700;color:white'>&nbsp;{tr('PINNED')}&nbsp;</span> " if hit.pinned
               else "") + (f"<span style='background:#1971c2;color:white'>&nbsp;{tr('MORE')}&nbsp;</span> " if more
                           else "")
        # In words a curator reads (R9: against the measured unrelated questions); the numbers in the tooltip.
        if hit.closer_than is None:
            plain = " — " + tr("distance {d}").format(d=f"{hit.distance:.3f}")
        elif hit.closer_than >= 0.995:
            plain = " — " + tr("closer than every unrelated question")
        else:
            plain = " — " + tr("closer than {share} of unrelated questions").format(share=f"{hit.closer_than:.0%}")
        title = QLabel(f"{pin}<b>[{n}] {_escape(hit.document)}</b>{plain}")
        cal = "; " + tr("calibrated similarity {s} (0 = unrelated-pair median)").format(
            s=f"{hit.calibrated:+.2f}") if hit.calibrated else ""
        title.setToolTip(tr("cosine distance {d}").format(d=f"{hit.distance:.3f}")
                         + (", " + tr("cut {cut}").format(cut=f"{cut:.3f}") if cut is not None else "") + cal)
        title.setObjectName("pinned" if hit.pinned else "hit")
        title.setWordWrap(True)  # long titles wrap: a row never needs sideways scrolling
        preview = QLabel(hit.text[:160].replace("\n", " ") + ("…" if len(hit.text) > 160 else ""))
        preview.setWordWrap(True)
        lay = QFormLayout(self)
        lay.setContentsMargins(4, 2, 4, 2)
        lay.addRow(title)
        decision = "distance" if hit.kept is None or hit.kept.rule == "within cut" else "other"
        self.bar = DistanceBar(hit.distance, baseline, cut, decision=decision,
                               why=tr("Kept: {why}").format(why=kept_by))
        lay.addRow(self.bar)
        why = QLabel("<small>" + tr("kept: {why}").format(why=kept_by) + "</small>")
        why.setObjectName("kept_by")
        why.setWordWrap(True)
        lay.addRow(why)
        lay.addRow(preview)
