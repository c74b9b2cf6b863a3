"""Structured index (SPEC C4, for curators): fields with coverage, dropped fields and why, exact
marking, a table preview, a live question box (tool, SQL, rows, result) and the S7 lint list."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import QT_TR_NOOP, number, tr
from biny.console.models.structured import IndexModel, Tried
from biny.console.ops import run_op
from biny.core import Engine, ToolResult

FIELD_COLUMNS = [QT_TR_NOOP("Use"), QT_TR_NOOP("Exact"), QT_TR_NOOP("Field"), QT_TR_NOOP("Type"),
                 QT_TR_NOOP("Coverage"), QT_TR_NOOP("Examples"), QT_TR_NOOP("Also called"), QT_TR_NOOP("Why")]
# Field types as core/structured/values.py names them.
TYPE_NAMES = {"integer": QT_TR_NOOP("integer"), "number": QT_TR_NOOP("number"), "money": QT_TR_NOOP("money"),
              "year": QT_TR_NOOP("year"), "date": QT_TR_NOOP("date"), "url": QT_TR_NOOP("link"),
              "identifier": QT_TR_NOOP("identifier"), "list": QT_TR_NOOP("list"), "text": QT_TR_NOOP("text")}
USE, EXACT, NAME, TYPE, COVERAGE, EXAMPLES, SYNONYMS, WHY = range(len(FIELD_COLUMNS))
# The index's tools (core/structured/tools.py), named in the interface's language (issue 60: "count" in Chinese).
TOOL_NAMES = {"count": QT_TR_NOOP("count"), "filter": QT_TR_NOOP("filter"), "group": QT_TR_NOOP("group"),
              "top": QT_TR_NOOP("top"), "lookup": QT_TR_NOOP("lookup")}


def tool_name(tool: str) -> str:
    return tr(TOOL_NAMES[tool]) if tool in TOOL_NAMES else tool


# Texts translated inside f-strings, where pyside6-lupdate does not look: marked here for extraction
# (tests/console/test_i18n.py checks that every tr() text is in the catalogue).
_IN_FSTRINGS = (
    QT_TR_NOOP("Routing…"),
    QT_TR_NOOP("Not routed"),
    QT_TR_NOOP("this question goes to retrieval."),
    QT_TR_NOOP("Why"),
    QT_TR_NOOP("Result:"),
    QT_TR_NOOP("Groups"),
    QT_TR_NOOP("Tool:"),
    QT_TR_NOOP("No index."),
    QT_TR_NOOP("Looked for"),
    QT_TR_NOOP("How the first documents open"),
    QT_TR_NOOP("(no text)"),
    QT_TR_NOOP("Next step:"),
)


def _escape(text: Any) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _check(on: bool, enabled: bool = True) -> QTableWidgetItem:
    item = QTableWidgetItem()
    flags = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable
    item.setFlags(flags | Qt.ItemFlag.ItemIsEnabled if enabled else flags)
    item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
    return item


def _cell(text: Any, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem("" if text is None else str(text))
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if tip:
        item.setToolTip(tip)
    return item


class StructuredScreen(QWidget):
    error = Signal(str, str)

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = IndexModel(engine, run_op)
        self.model.connect("changed", self._render)
        self.model.connect("error", self.error.emit)
        self.model.connect("tried", self.show_tried)

        self.headline = QLabel(tr("Select a space in the Library."))
        self.headline.setObjectName("index_state")
        self.headline.setWordWrap(True)
        self.build_btn = QPushButton(tr("Build index"))
        self.build_btn.setObjectName("build_index")
        self.build_btn.setToolTip(tr("Build the table from the ticked fields; nothing is re-embedded (S3)"))
        self.build_btn.clicked.connect(self.build)
        self.refresh_btn = QPushButton(tr("Propose again"))
        self.refresh_btn.clicked.connect(self.model.refresh)
        self.drop_btn = QPushButton(tr("Drop index"))
        self.drop_btn.clicked.connect(self.model.drop)
        top = QHBoxLayout()
        top.addWidget(self.headline, 1)
        for b in (self.refresh_btn, self.build_btn, self.drop_btn):
            top.addWidget(b)

        self._build_fields()
        # Issue 63: a "no" shows its evidence (the forms looked for, how the first documents open) and the next
        # step; notes on what was read (several tables on a page) show here too.
        self.evidence = QTextBrowser()
        self.evidence.setObjectName("index_evidence")
        self.evidence.setOpenLinks(False)
        self.evidence.setVisible(False)
        self.preview = QTableWidget(0, 0)
        self.preview.setObjectName("preview")
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.preview.verticalHeader().setVisible(False)

        ask = self._build_try()
        self.lint = QTableWidget(0, 3)
        self.lint.setObjectName("lint")
        self.lint.setHorizontalHeaderLabels([tr("Document"), tr("Bare values"), tr("Say it in words (S7)")])
        self.lint.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.lint.verticalHeader().setVisible(False)
        self.lint.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.lint.setColumnWidth(0, 220)
        self.lint.setColumnWidth(1, 260)

        self.tabs = QTabWidget()
        self.tabs.addTab(self.preview, tr("Table preview"))
        self.tabs.addTab(ask, tr("Try a question"))
        self.tabs.addTab(self.lint, tr("Attribute-only chunks"))
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(self.evidence)
        body.addWidget(self.fields)
        body.addWidget(self.tabs)
        body.setSizes([260, 420])
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(body, 1)
        self._render()

    def _build_try(self) -> QWidget:
        """The live question box: the routed tool, its SQL, result and rows."""
        self.question = QLineEdit()
        self.question.setObjectName("index_question")
        self.question.setPlaceholderText(tr("Try a question: how many… / which… the most / the link of …  (Enter)"))
        self.question.returnPressed.connect(self.try_question)
        self.try_btn = QPushButton(tr("Try"))
        self.try_btn.clicked.connect(self.try_question)
        self.outcome = QTextBrowser()
        self.outcome.setObjectName("tried")
        self.rows = QTableWidget(0, 0)
        self.rows.setObjectName("tried_rows")
        self.rows.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.rows.verticalHeader().setVisible(False)
        ask = QWidget()
        al = QVBoxLayout(ask)
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.try_btn)
        al.addLayout(row)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.outcome)
        split.addWidget(self.rows)
        split.setSizes([160, 200])
        al.addWidget(split, 1)
        return ask

    def _build_fields(self) -> None:
        """The proposed fields: use, exact, name, type, coverage, examples and why."""
        self.fields = QTableWidget(0, len(FIELD_COLUMNS))
        self.fields.setObjectName("fields")
        self.fields.setHorizontalHeaderLabels([tr(c) for c in FIELD_COLUMNS])
        self.fields.verticalHeader().setVisible(False)
        self.fields.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.fields.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(WHY, QHeaderView.ResizeMode.Stretch)
        for col, width in ((USE, 40), (EXACT, 48), (NAME, 170), (TYPE, 80), (COVERAGE, 110), (EXAMPLES, 220),
                           (SYNONYMS, 180)):
            self.fields.setColumnWidth(col, width)
        self._rendering = False
        self.fields.itemChanged.connect(self._use_changed)
        self.fields.itemChanged.connect(self._synonyms_edited)

    def _use_changed(self, item: QTableWidgetItem) -> None:
        """Unticking Use unticks and switches off Exact on the row; ticking it switches Exact on again."""
        if item.column() != USE:
            return
        exact = self.fields.item(item.row(), EXACT)
        if exact is None:
            return
        used = item.checkState() == Qt.CheckState.Checked
        flags = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable
        exact.setFlags(flags | Qt.ItemFlag.ItemIsEnabled if used else flags)
        if not used:
            exact.setCheckState(Qt.CheckState.Unchecked)

    def _synonyms_edited(self, item: QTableWidgetItem) -> None:
        """The curator typed words for a field ("runtime, Standzeit"): stored with the index (issue 64)."""
        if self._rendering or item.column() != SYNONYMS:
            return
        name = self.fields.item(item.row(), NAME)
        if name is None:
            return
        words = [w.strip() for w in item.text().replace("，", ",").replace("、", ",").split(",") if w.strip()]
        if words != self.model.state.synonyms.get(name.text(), []):
            self.model.set_synonyms(name.text(), words)

    @property
    def busy(self) -> bool:
        return self.model.pending > 0 or self.model.building

    def set_space(self, name: str) -> None:
        if name != self.model.space:
            # Another space: the last space's tried question and its result are not about this one (issue 60).
            self.question.clear()
            self._clear_tried()
        # Hidden, the screen reads nothing: the main window refreshes it when it is shown.
        self.model.set_space(name, load=self.isVisible())

    # ---- rendering -------------------------------------------------------------------------------
    def _render(self) -> None:
        st = self.model.state
        proposal, info = st.proposal, st.info
        self.build_btn.setEnabled(bool(proposal and proposal.fields) and not self.model.building)
        self.drop_btn.setEnabled(info is not None)
        self.try_btn.setEnabled(info is not None)
        self.question.setEnabled(info is not None)
        if not self.model.space:
            self.headline.setText(tr("Select a space in the Library."))
        elif self.model.building:
            self.headline.setText(tr("Building the index… (values are read from stored text; nothing is embedded)"))
        elif proposal is None:
            self.headline.setText(tr("Reading the headers of “{space}”…").format(space=_escape(self.model.space)))
        elif info is not None:
            exact = [f.name for f in info.spec.fields if f.exact]
            self.headline.setText(
                tr("{rows} rows × {fields} fields indexed of {docs} documents · title field {title} · exact: "
                   "{exact}.").format(rows=f"<b>{number(info.rows)}</b>", fields=f"<b>{len(info.spec.fields)}</b>",
                                      docs=number(info.documents),
                                      title=f"<b>{_escape(info.spec.title_field or '—')}</b>",
                                      exact=_escape(", ".join(exact) or tr("none")))
                + " " + tr("Count, filter, group, top and lookup questions are answered from this table."))
        elif not proposal.kept:
            self.headline.setText(f"<b>{tr('No index.')}</b> {_escape(str(proposal.reason))}")
        else:
            self.headline.setText(
                tr("{with_header} of {docs} documents carry a header; {n} fields proposed. Untick what should stay "
                   "out, tick Exact for links, images and identifiers, then Build index.").format(
                    with_header=number(proposal.with_header), docs=number(proposal.documents),
                    n=len(proposal.kept)))
        self._render_evidence()
        if self.model.tried is None and not self.question.text().strip():
            self._clear_tried()
        self._render_fields()
        self._render_preview()
        self._render_lint()

    def _render_evidence(self) -> None:
        proposal = self.model.state.proposal if self.model.space and not self.model.building else None
        parts: list[str] = []
        if proposal is not None:
            parts += [f"<p>{_escape(str(note))}</p>" for note in proposal.notes]
            if proposal.looked_for:
                parts.append(f"<p><b>{_escape(tr('Looked for'))}</b></p><ul>"
                             + "".join(f"<li>{_escape(str(form))}</li>" for form in proposal.looked_for) + "</ul>")
            if proposal.openings:
                parts.append(f"<p><b>{_escape(tr('How the first documents open'))}</b></p>")
                for o in proposal.openings:
                    lines = "<br>".join(_escape(line) for line in o.lines) or f"<i>{_escape(tr('(no text)'))}</i>"
                    parts.append(f"<p><b>{_escape(o.title)}</b><br><code>{lines}</code></p>")
            if proposal.next_step:
                parts.append(f"<p><b>{_escape(tr('Next step:'))}</b> {_escape(str(proposal.next_step))}</p>")
        self.evidence.setHtml("".join(parts))
        self.evidence.setVisible(bool(parts))
        self.fields.setVisible(bool(proposal is None or proposal.fields or self.model.state.info is not None))

    def _clear_tried(self) -> None:
        self.outcome.setHtml("")
        self.rows.setRowCount(0)
        self.rows.setColumnCount(0)

    def _render_fields(self) -> None:
        st = self.model.state
        proposal, info = st.proposal, st.info
        fields = proposal.fields if proposal else []
        built = {f.name: f for f in info.spec.fields} if info else {}
        self._rendering = True
        self.fields.setRowCount(len(fields))
        for r, f in enumerate(fields):
            used = f.name in built if built else f.kept
            # A field left out is exact about nothing: its Exact box is unticked and off until it is used (issue 60).
            exact = used and (built[f.name].exact if f.name in built else _looks_exact(f.type))
            self.fields.setItem(r, USE, _check(used))
            self.fields.setItem(r, EXACT, _check(exact, used))
            self.fields.setItem(r, NAME, _cell(f.name))
            self.fields.setItem(r, TYPE, _cell(tr(TYPE_NAMES[f.type]) if f.type in TYPE_NAMES else f.type))
            bar = QProgressBar()
            bar.setRange(0, 1000)
            bar.setValue(round(f.coverage * 1000))
            bar.setFormat(f"{f.coverage:.0%}")
            bar.setToolTip(tr("in {n} of {total} documents").format(
                n=number(f.present), total=number(st.proposal.documents if st.proposal else 0)))
            self.fields.setCellWidget(r, COVERAGE, bar)
            self.fields.setItem(r, EXAMPLES, _cell(" · ".join(f.examples), "\n".join(f.examples)))
            self.fields.setItem(r, SYNONYMS, self._synonyms_cell(f.name, f.name in built))
            why = _cell(str(f.reason), str(f.reason))
            if not f.kept:
                why.setForeground(Qt.GlobalColor.darkRed)
            self.fields.setItem(r, WHY, why)
        self._rendering = False

    def _synonyms_cell(self, name: str, indexed: bool) -> QTableWidgetItem:
        """Editable once the field is indexed: the curator's words; the tooltip lists the words that name it
        already (its own and the bundled en/zh/de/ja synonym files')."""
        st = self.model.state
        item = QTableWidgetItem(", ".join(st.synonyms.get(name, [])))
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        item.setFlags(flags | Qt.ItemFlag.ItemIsEditable if indexed else flags)
        known = ", ".join(st.builtin.get(name, [])[:40])
        item.setToolTip(tr("Words people use for this field, comma-separated (double-click to edit); questions "
                           "using them name it. Already named by: {words}").format(words=known or tr("its name"))
                        if indexed else tr("Build the index to add words for this field."))
        return item

    def _render_preview(self) -> None:
        info = self.model.state.info
        names = ["title", *info.spec.names] if info else []
        rows = info.preview if info else []
        self.preview.setColumnCount(len(names))
        self.preview.setHorizontalHeaderLabels([tr("title"), *names[1:]] if names else [])
        self.preview.setRowCount(len(rows))
        for r, row in enumerate(rows):
            values = [row["title"], *[row["fields"].get(n) for n in names[1:]]]
            for c, v in enumerate(values):
                text = "" if v is None else str(v)
                self.preview.setItem(r, c, _cell(text[:120], text if len(text) > 120 else ""))
        _fit_columns(self.preview)

    def _render_lint(self) -> None:
        st = self.model.state
        self.tabs.setTabText(2, tr("Attribute-only chunks") + f" ({st.lint_count})")
        self.lint.setRowCount(len(st.lint))
        for r, item in enumerate(st.lint):
            bare = " · ".join(f"{n}: {v}" for n, v in item.attributes[:6])
            self.lint.setItem(r, 0, _cell(item.title))
            self.lint.setItem(r, 1, _cell(bare, bare))
            self.lint.setItem(r, 2, _cell(item.suggestion, item.suggestion))

    # ---- actions ---------------------------------------------------------------------------------
    def chosen(self) -> tuple[list[str], list[str]]:
        """(fields to index, exact fields) as ticked."""
        use, exact = [], []
        for r in range(self.fields.rowCount()):
            name, on, ex = (self.fields.item(r, c) for c in (NAME, USE, EXACT))
            if name is None or on is None or on.checkState() != Qt.CheckState.Checked:
                continue
            use.append(name.text())
            if ex is not None and ex.checkState() == Qt.CheckState.Checked:
                exact.append(name.text())
        return use, exact

    def build(self) -> None:
        use, exact = self.chosen()
        if use:
            self.model.build(use, exact)

    def try_question(self) -> None:
        if self.model.try_question(self.question.text()):
            self.outcome.setHtml(f"<p><i>{tr('Routing…')}</i></p>")
            self.tabs.setCurrentIndex(1)

    def show_tried(self, tried: Tried) -> None:
        r, routed = tried.result, tried.routed
        why = "".join(f"<li>{_escape(str(e))}</li>" for e in (routed.evidence if routed else []))
        if r is None:
            self.outcome.setHtml(f"<p><b>{tr('Not routed')}</b> — {tr('this question goes to retrieval.')}</p>"
                                 f"<ul>{why}</ul>")
            self.rows.setRowCount(0)
            return
        shown = "<br>".join(map(_escape, r.result[:20])) if isinstance(r.result, list) else _escape(r.result)
        groups = "".join(f"<li>{_escape(k)} — {n}</li>" for k, n in r.groups[:10])
        self.outcome.setHtml(
            f"<p><b>{tr('Tool:')}</b> {_escape(tool_name(r.call.tool))} · "
            + tr("{n} matched").format(n=number(r.total))
            + f" · {r.ms:.1f} ms</p><p><b>{tr('Result:')}</b> {shown}</p>" + _scope(r)
            + (f"<p><b>{tr('Groups')}</b></p><ul>{groups}</ul>" if groups else "")
            + f"<p><b>SQL</b></p><pre>{_escape(r.query)}</pre><p><b>{tr('Why')}</b></p><ul>{why}</ul>")
        if r.groups:  # a group answers with its groups, largest first
            self.rows.setColumnCount(2)
            self.rows.setHorizontalHeaderLabels([r.call.field or tr("group"), tr("rows")])
            self.rows.setRowCount(len(r.groups))
            for i, (key, n) in enumerate(r.groups):
                self.rows.setItem(i, 0, _cell(key))
                self.rows.setItem(i, 1, _cell(n))
            _fit_columns(self.rows)
            return
        names = ["title", *sorted({k for row in r.rows for k in row["fields"]})]
        self.rows.setColumnCount(len(names))
        self.rows.setHorizontalHeaderLabels([tr("title"), *names[1:]])
        self.rows.setRowCount(len(r.rows))
        for i, row in enumerate(r.rows):
            for c, name in enumerate(names):
                value = row["title"] if c == 0 else row["fields"].get(name, "")
                self.rows.setItem(i, c, _cell(str(value)[:120], str(value)))
        _fit_columns(self.rows)


def _scope(r: ToolResult) -> str:
    """What the result was computed over: the filter, the index's documents, those without the filtered field
    and the space's documents without a header (issue 48: a count says what it counted)."""
    filt = r.filter_text or tr("none")
    lines = [tr("Filter: {filter}").format(filter=_escape(filt)),
             tr("Counted over the {n} documents of the index ({total} in the space).").format(
                 n=number(r.over), total=number(r.documents))]
    lines += [tr("{n} give no {field} and were not counted.").format(n=number(n), field=_escape(name))
              for name, n in r.lacking.items()]
    return "<p>" + "<br>".join(lines) + "</p>"


def _fit_columns(table: QTableWidget, cap: int = 320) -> None:
    """Each column as wide as its header (never cut, issue 60) and its values, up to ``cap`` for the values."""
    header = table.horizontalHeader()
    for c in range(table.columnCount()):
        table.setColumnWidth(c, max(header.sectionSizeHint(c), min(table.sizeHintForColumn(c), cap)))


def _looks_exact(kind: str) -> bool:
    """Links and identifiers are exact by default: a model must never retype them (S6)."""
    return kind in {"url", "identifier"}
