"""Analysis (SPEC C3, for analysts): the star map, the collection, distance plots, evaluation runs.

Figures are the same matplotlib figures the CLI writes (core/analysis/plots.py), shown on a
Qt canvas; data is computed in the background, drawing happens here. Hovering a point says
its document, heading and distance "closer than X% of unrelated questions"; clicking opens
the chunk in the Inspector; a lasso on the collection lists the chunks inside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.path import Path as MplPath
from matplotlib.widgets import LassoSelector
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import QT_TR_NOOP, date, number, tr
from biny.console.models.analysis import AnalysisModel
from biny.console.ops import run_op
from biny.console.widgets.fields import ComboBox
from biny.core import (
    Engine,
    collection_figure,
    distances_table,
    histogram_figure,
    message_figure,
    os_reason,
    save_figure,
    save_table,
    script_name,
    star_map_figure,
)

METRICS = ["hit_rate", "zero_chunk_rate", "mean_chunks", "mean_top_closer_than"]
# Each header says over which questions it is counted (issue 60: "zero-chunk rate 1.000" beside "mean chunks 1.250"
# read as a contradiction — the first counts the unanswerable questions only, the second all of them), on two lines
# so no header is cut.
METRIC_NAMES = {"hit_rate": QT_TR_NOOP("hit rate\n(answerable)"),
                "zero_chunk_rate": QT_TR_NOOP("nothing returned\n(unanswerable)"),
                "mean_chunks": QT_TR_NOOP("mean passages\n(all questions)"),
                "mean_top_closer_than": QT_TR_NOOP("top hit closer than\nunrelated (answerable)")}
METRIC_HELP = {
    "hit_rate": QT_TR_NOOP("Share of the answerable questions whose expected passage, document or answer was in the "
                           "context returned."),
    "zero_chunk_rate": QT_TR_NOOP("Share of the unanswerable questions that got no passage at all — the right "
                                  "result for them. Answerable questions are not counted here."),
    "mean_chunks": QT_TR_NOOP("Passages returned per question, over every question of the set, answerable or not."),
    "mean_top_closer_than": QT_TR_NOOP("For answerable questions: the share of unrelated questions whose nearest "
                                       "passage is farther than this question's top hit."),
}
# The evaluation's variants (core/analysis/evaluate.py: the full pipeline, then one stage off at a time).
VARIANTS = {"full": QT_TR_NOOP("full pipeline"), "no threshold": QT_TR_NOOP("no threshold"),
            "no identifiers": QT_TR_NOOP("no identifier pins"), "no second pass": QT_TR_NOOP("no second pass"),
            "no rerank": QT_TR_NOOP("no rerank")}
POINT_STATUS = {"kept": QT_TR_NOOP("kept"), "pinned": QT_TR_NOOP("pinned"), "nearest": QT_TR_NOOP("nearest"),
                "dropped": QT_TR_NOOP("dropped")}


def _dark() -> bool:
    app = QApplication.instance()
    return bool(app is not None and app.palette().window().color().lightness() < 128)  # type: ignore[attr-defined]


class Canvas(FigureCanvasQTAgg):
    def __init__(self) -> None:
        super().__init__(Figure(figsize=(7, 6)))


class AnalysisScreen(QWidget):
    """The question's star map and distances and the collection, drawn and exported here; the evaluation runs
    and their comparison in their own panel (EvaluationPanel)."""

    error = Signal(str, str)
    notice = Signal(str)  # for the window's status bar
    open_chunk = Signal(str, str, str, str)  # space, doc_id, chunk_id, note

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.space = ""
        self._collection_of: str | None = None  # the space whose collection map was asked for last
        # The engine's work lives in the model (issue 47); this screen draws its events.
        self.model = AnalysisModel(engine, run_op)
        self.model.connect("question", self._show_question)
        self.model.connect("collection", self._show_collection)
        self.model.connect("error", self.error.emit)
        self.star: Any = None  # the StarMap on display
        self.col: Any = None  # the Collection on display
        self.distances: Any = None  # (every chunk's distance, reference, cut) of the question on display
        self._lasso: LassoSelector | None = None

        top = self._build_top_row()
        self.star_canvas, self.col_canvas, self.hist_canvas = Canvas(), Canvas(), Canvas()
        self.hover = QLabel(tr("Hover a point for its document and distance; click to open it in the Inspector."))
        # An empty canvas tells a newcomer nothing: until a question is drawn, say how to draw one.
        for canvas in (self.star_canvas, self.hist_canvas):
            hint = tr("Type a question above and press Draw: its nearest passages are placed around it at their "
                      "distances, beside the unrelated questions' rings.")
            message_figure(hint, dark=_dark(), fig=canvas.figure)
        self.hover.setObjectName("hover")
        self.hover.setWordWrap(True)
        star = QWidget()
        sl = QVBoxLayout(star)
        sl.addWidget(self.star_canvas, 1)
        sl.addWidget(self.hover)
        self.selection = QListWidget()
        self.selection.setObjectName("selection")
        col = QSplitter()
        col.addWidget(self.col_canvas)
        col.addWidget(self.selection)
        col.setSizes([700, 300])

        # The evaluation runs and their comparison are a concern of their own (issue 56).
        self.evaluation = EvaluationPanel(self.model)
        self.evaluation.error.connect(self.error.emit)
        self.tabs = QTabWidget()
        self.tabs.addTab(star, tr("Star map"))
        self.tabs.addTab(col, tr("Collection"))
        self.tabs.addTab(self.hist_canvas, tr("Distances"))
        self.tabs.addTab(self.evaluation, tr("Evaluation"))
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.evaluation.status.connect(self.status.setText)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.status)
        lay.addWidget(self.tabs, 1)
        self.star_canvas.mpl_connect("motion_notify_event", self._hovered)
        # Ring labels are spaced for the canvas's size: redrawn (once the resizing settles) when it changes.
        self._relabel = QTimer(self)
        self._relabel.setSingleShot(True)
        self._relabel.setInterval(200)
        self._relabel.timeout.connect(self._redraw_star)
        self.star_canvas.mpl_connect("resize_event", lambda _e: self._relabel.start())
        self.star_canvas.mpl_connect("button_press_event", self._clicked)

    def _build_top_row(self) -> QHBoxLayout:
        """The question, Draw, colour-by and export controls."""
        self.question = QLineEdit()
        self.question.setObjectName("analysis_question")
        self.question.setPlaceholderText(tr("A question to map (Enter)"))
        self.question.returnPressed.connect(self.draw)
        self.draw_btn = QPushButton(tr("Draw"))
        self.draw_btn.clicked.connect(self.draw)
        self.color_by = ComboBox()
        self.color_by.addItem(tr("document"), "document")
        self.color_by.addItem(tr("language"), "language")
        self.color_by.currentTextChanged.connect(lambda _t: self.draw_collection())
        self.png_btn = QPushButton(tr("Export PNG…"))
        self.png_btn.clicked.connect(lambda: self.ask_export("png"))
        self.svg_btn = QPushButton(tr("Export SVG…"))
        self.svg_btn.clicked.connect(lambda: self.ask_export("svg"))
        self.csv_btn = QPushButton(tr("Export CSV…"))
        self.csv_btn.setToolTip(tr("The figures behind the plot or table on display, as CSV"))
        self.csv_btn.clicked.connect(lambda: self.ask_export("csv"))
        top = QHBoxLayout()
        top.addWidget(self.question, 1)
        top.addWidget(self.draw_btn)
        top.addWidget(QLabel(tr("colour by")))
        top.addWidget(self.color_by)
        top.addWidget(self.png_btn)
        top.addWidget(self.svg_btn)
        top.addWidget(self.csv_btn)
        return top

    @property
    def busy(self) -> bool:
        return self.model.pending > 0

    def set_space(self, name: str) -> None:
        self.space = name
        # The collection map waits until the screen is shown: drawn when a space is chosen, it loaded the matrix and
        # ran its PCA at start-up on the Library (0.9 s beside a first question at 100k passages, on two cores).
        self._collection_of = None
        if self.isVisible():
            self.draw_collection()
        self.evaluation.set_space(name)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.space and self._collection_of != self.space:
            self.draw_collection()

    # ---- drawing ----------------------------------------------------------------------------------
    def draw(self) -> None:
        """Star map and distance histogram of the question; the collection with the question placed."""
        q = self.question.text().strip()
        if not q or not self.space:
            return
        self.status.setText(tr("Measuring…"))
        self.model.measure(self.space, q)
        self.draw_collection()

    def _show_question(self, data: tuple[Any, Any]) -> None:
        self.star, (dist, ref, cut) = data
        self.distances = (np.asarray(dist), ref, cut)
        # The previous question's hover text is no longer about anything on the map (issue 60).
        self.hover.setText(tr("Hover a point for its document and distance; click to open it in the Inspector."))
        star_map_figure(self.star, dark=_dark(), fig=self.star_canvas.figure)
        self.star_canvas.draw_idle()
        histogram_figure(np.asarray(dist), ref, cut, self.star.question, dark=_dark(),
                               fig=self.hist_canvas.figure, label=tr("every chunk's distance to the question"))
        self.hist_canvas.draw_idle()
        band = self.star.model_band
        model = (" " + tr("Model-level band {pair}: p10 {p10}, median {median}, p90 {p90}.").format(
            pair=script_name(band["pair"]), p10=f"{band['p10']:.3f}", median=f"{band['median']:.3f}",
            p90=f"{band['p90']:.3f}")
            if band else "")
        kept = sum(1 for p in self.star.points if p.status != "dropped")
        self.status.setText(tr("{n} pool candidates, {kept} kept. Rings: the space's unrelated {group} questions "
                               "(p10, median, p90) and each kept passage's cut. Angles keep {share} of 5-nearest "
                               "neighbours.").format(n=len(self.star.points), kept=kept,
                                                     group=script_name(self.star.reference),
                                                     share=f"{self.star.preservation:.0%}") + model)

    def _redraw_star(self) -> None:
        if self.star is not None:
            star_map_figure(self.star, dark=_dark(), fig=self.star_canvas.figure)
            self.star_canvas.draw_idle()

    def draw_collection(self) -> None:
        if not self.space:
            return
        self._collection_of = self.space
        self.model.collection(self.space, self.question.text().strip() or None, str(self.color_by.currentData()))

    def _show_collection(self, col: Any) -> None:
        self.col = col
        if col is None:
            fig = self.col_canvas.figure
            fig.clear()
            fig.text(0.5, 0.5, tr("This space has no chunks yet: add documents in the Library."), ha="center")
            self.col_canvas.draw_idle()
            return
        note = tr("{note}; 5-NN kept on the map: {share}").format(note=col.note, share=f"{col.preservation:.0%}")
        collection_figure(col.coords, col.groups, col.question, self.space, note, dark=_dark(),
                          fig=self.col_canvas.figure)
        ax = self.col_canvas.figure.axes[0]
        self._lasso = LassoSelector(ax, self._lassoed)
        self.col_canvas.draw_idle()

    def _lassoed(self, vertices: list[tuple[float, float]]) -> None:
        if self.col is None:
            return
        inside = MplPath(vertices).contains_points(self.col.coords)
        self.select(np.flatnonzero(inside).tolist())

    def select(self, rows: list[int]) -> None:
        """List the collection's chunks at these rows (lasso or click)."""
        self.selection.clear()
        for i in rows[:500]:
            self.selection.addItem(f"{self.col.documents[i]} · {self.col.chunk_ids[i][:10]}")

    # ---- hover and click on the star map ------------------------------------------------------------
    def point_at(self, x: float, y: float) -> Any | None:
        """The star-map point drawn nearest to display position (x, y), within 8 pixels."""
        if self.star is None or not self.star_canvas.figure.axes:
            return None
        ax = self.star_canvas.figure.axes[0]
        best, best_d = None, 64.0
        for p in self.star.points:
            px, py = ax.transData.transform((p.angle, p.radius))
            d = (px - x) ** 2 + (py - y) ** 2
            if d < best_d:
                best, best_d = p, d
        return best

    def describe(self, p: Any) -> str:
        closer = "" if p.closer_than is None else ", " + tr("closer than {share} of unrelated questions").format(
            share=f"{p.closer_than:.0%}")
        heading = f" › {p.heading}" if p.heading else ""
        status = tr(POINT_STATUS[p.status]) if p.status in POINT_STATUS else p.status
        why = f" — {p.reason}" if p.reason else ""  # kept by which rule, or dropped by which stage and why
        return (f"{p.document}{heading} — " + tr("distance {d}").format(d=f"{p.distance:.3f}")
                + f"{closer} ({status}){why}")

    def _hovered(self, event: Any) -> None:
        p = self.point_at(event.x, event.y) if event.x is not None else None
        if p is not None:
            self.hover.setText(self.describe(p))

    def _clicked(self, event: Any) -> None:
        p = self.point_at(event.x, event.y) if event.x is not None else None
        if p is not None:
            self.open_chunk.emit(self.space, p.doc_id, p.chunk_id, self.describe(p))

    # ---- export --------------------------------------------------------------------------------------
    def current_figure(self) -> Figure:
        """The figure of the tab on display — the Evaluation tab's own (issue 60: it saved the histogram)."""
        canvases = [self.star_canvas, self.col_canvas, self.hist_canvas, self.evaluation.eval_canvas]
        return canvases[self.tabs.currentIndex()].figure

    def current_table(self) -> tuple[list[str], list[list[Any]]]:
        """The figures behind the tab on display; a BinyError-free ValueError when nothing is drawn there yet."""
        index = self.tabs.currentIndex()
        data = [self.star, self.col, self.distances, self.evaluation.run][index]
        if data is None:
            raise ValueError(tr("Nothing is drawn on this tab yet: draw it first, then export."))
        if index == 2:
            return distances_table(*data)
        header, rows = data.table()
        return list(header), list(rows)

    def export(self, path: Path) -> Path:
        if path.suffix.lower() == ".csv":
            return save_table(*self.current_table(), path)
        return save_figure(self.current_figure(), path)

    def ask_export(self, fmt: str) -> None:
        title = tr("Export as {format}").format(format=fmt.upper())
        name, _ = QFileDialog.getSaveFileName(self, title, f"biny-{self.space}.{fmt}", f"{fmt.upper()} (*.{fmt})")
        if name:
            try:
                self.export(Path(name).with_suffix(f".{fmt}"))
            except OSError as exc:
                self.error.emit(tr("Could not write {name}: {error}").format(name=name, error=os_reason(exc)), "")
            except ValueError as exc:
                self.error.emit(tr("Could not write {name}: {error}").format(name=name, error=exc), "")


class EvaluationPanel(QWidget):
    """The Evaluation tab: a question set run on the space (full pipeline, then each stage off), its metrics and
    figure, the space's earlier runs, and the comparison of the run shown with the newest."""

    error = Signal(str, str)
    status = Signal(str)  # for the screen's status line

    def __init__(self, model: AnalysisModel) -> None:
        super().__init__()
        self.model = model
        self.space = ""
        self.run: Any = None  # the run on display
        self.eval_file = QLineEdit()
        self.eval_file.setPlaceholderText(tr("question set: JSONL or CSV (question; expected_text / "
                                             "expected_document / answer, or unanswerable)"))
        pick = QPushButton(tr("Choose…"))
        pick.clicked.connect(self._pick_eval_file)
        self.eval_btn = QPushButton(tr("Run"))
        self.eval_btn.clicked.connect(self.evaluate)
        self.eval_canvas = Canvas()
        self.runs = QListWidget()
        self.runs.setObjectName("runs")
        self.compare_btn = QPushButton(tr("Compare the run shown with the newest run"))
        self.compare_btn.clicked.connect(self.compare)
        self.compare_btn.setEnabled(False)  # until a run is shown and another selected (issue 49)
        self.runs.currentRowChanged.connect(lambda _row: self._run_selected())
        self.comparison = QLabel("")
        self.comparison.setWordWrap(True)
        el = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(self.eval_file, 1)
        row.addWidget(pick)
        row.addWidget(self.eval_btn)
        el.addLayout(row)
        split = QSplitter()
        split.addWidget(self._metrics_table())
        split.addWidget(self.eval_canvas)
        split.setSizes([500, 500])
        el.addWidget(split, 2)
        el.addWidget(QLabel(tr("Earlier runs of this space")))
        el.addWidget(self.runs, 1)
        el.addWidget(self.compare_btn)
        el.addWidget(self.comparison)
        model.connect("run", self.show_run)
        model.connect("runs", self._show_runs)
        model.connect("compared", self._show_comparison)
        model.connect("eval_failed", self._eval_failed)

    def _metrics_table(self) -> QWidget:
        """The metrics of each variant, each header saying over which questions it counts, and a note on that."""
        self.metrics = QTableWidget(0, len(METRICS))
        self.metrics.setObjectName("metrics")
        self.metrics.setHorizontalHeaderLabels([tr(METRIC_NAMES[m]) for m in METRICS])
        for c, key in enumerate(METRICS):
            header = self.metrics.horizontalHeaderItem(c)
            if header is not None:
                header.setToolTip(tr(METRIC_HELP[key]))
        self.metrics.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.metrics.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.metrics_note = QLabel(tr("Rates count different questions: “nothing returned” the unanswerable ones "
                                      "(where no passage is right), “mean passages” all of them. Hover a header for "
                                      "more."))
        self.metrics_note.setObjectName("metrics_note")
        self.metrics_note.setWordWrap(True)
        self._fit_metrics()
        table = QWidget()
        tl = QVBoxLayout(table)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.metrics, 1)
        tl.addWidget(self.metrics_note)
        return table

    def set_space(self, name: str) -> None:
        self.space = name
        self.model.runs(name)

    def _pick_eval_file(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, tr("Question set"), "", tr("Question sets") + " (*.jsonl *.csv)")
        if name:
            self.eval_file.setText(name)

    def evaluate(self) -> None:
        path = self.eval_file.text().strip()
        if not path or not self.space:
            return
        self.eval_btn.setEnabled(False)
        self.status.emit(tr("Running the question set (full, then each stage off)…"))
        self.model.evaluate(self.space, Path(path))

    def _eval_failed(self, message: str, detail: str) -> None:
        self.eval_btn.setEnabled(True)
        # "Running the question set…" must not stay after the error (issue 60).
        self.status.emit(tr("The question set did not run: {error}").format(error=message))
        self.error.emit(message, detail)

    def show_run(self, run: Any) -> None:
        self.run = run
        self.eval_btn.setEnabled(True)
        self.metrics.setRowCount(len(run.metrics))
        self.metrics.setVerticalHeaderLabels([tr(VARIANTS[v]) if v in VARIANTS else v for v in run.metrics])
        for r, m in enumerate(run.metrics.values()):
            for c, key in enumerate(METRICS):
                v = m.get(key)
                self.metrics.setItem(r, c, QTableWidgetItem("—" if v is None else f"{v:.3f}"))
        self._fit_metrics()
        # The space's view: each question's nearest chunk, against the unrelated reference.
        histogram_figure(np.asarray(run.nearest_distances(True) + run.nearest_distances(False)), run.reference,
                               None, tr("{name}: nearest-chunk distance of each question").format(name=run.name),
                               dark=_dark(), fig=self.eval_canvas.figure, label=tr("this set's questions"))
        self.eval_canvas.draw_idle()
        self.status.emit(tr("Run {id}: {n} questions in {seconds} s.").format(id=run.run_id, n=len(run.results),
                                                                             seconds=f"{run.seconds:.1f}"))
        self._update_compare()

    def _fit_metrics(self) -> None:
        """The metrics table asks the splitter for the width of all its columns: a header scrolled half out of
        view read "op hit closer tha" (issue 60)."""
        t = self.metrics
        header = t.horizontalHeader()
        wide = sum(max(header.sectionSizeHint(c), t.sizeHintForColumn(c)) for c in range(t.columnCount()))
        t.setMinimumWidth(wide + t.verticalHeader().sizeHint().width() + 2 * t.frameWidth() + 4)

    def _show_runs(self, runs: list[dict[str, Any]]) -> None:
        self.runs.blockSignals(True)
        self.runs.clear()
        for r in runs:
            full = r["metrics"].get("full", {})

            def shown(v: Any) -> str:
                return "—" if v is None else number(float(v), 3)

            item = QListWidgetItem(f"{r['run_id']} · {r['name']} · {date(r['created_at'], with_time=True)} · "
                                   + tr("hit rate {hit} · nothing returned (unanswerable) {zero}").format(
                                       hit=shown(full.get("hit_rate")), zero=shown(full.get("zero_chunk_rate"))))
            item.setData(Qt.ItemDataRole.UserRole, r["run_id"])
            self.runs.addItem(item)
        self.runs.blockSignals(False)
        self._update_compare()

    def _selected_run(self) -> str | None:
        item = self.runs.currentItem()
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def _newest_run(self) -> str | None:
        item = self.runs.item(0)  # the list is newest first
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def _update_compare(self) -> None:
        newest = self._newest_run()
        ready = self.run is not None and newest is not None and newest != self.run.run_id
        self.compare_btn.setEnabled(ready)
        self.compare_btn.setToolTip("" if ready else tr("Click an earlier run to show it; then compare it with the "
                                                        "newest run."))

    def _run_selected(self) -> None:
        """An earlier run clicked: its metrics and figure are shown (issue 49: clicking showed nothing)."""
        run_id = self._selected_run()
        if run_id is not None and (self.run is None or self.run.run_id != run_id):
            self.model.open_run(run_id)
        self._update_compare()

    def compare(self) -> None:
        """From the run shown (an earlier one) to the newest: which questions got better or worse."""
        newest = self._newest_run()
        if newest is None or self.run is None or newest == self.run.run_id:
            self._update_compare()
            return
        self.model.compare(self.run.run_id, newest)

    def _show_comparison(self, compared: tuple[str, str, dict[str, list[str]]]) -> None:
        other, last, diff = compared
        worse = "; ".join(diff["worse"][:10])
        better = "; ".join(diff["better"][:10])
        self.comparison.setText(tr("From {old} to {new}: {better} better, {worse} worse.").format(
            old=other, new=last, better=len(diff["better"]), worse=len(diff["worse"]))
            + "\n" + tr("Better:") + f" {better or '—'}\n" + tr("Worse:") + f" {worse or '—'}")
