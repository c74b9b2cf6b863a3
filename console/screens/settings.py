"""Settings (SPEC C7): model, data folder, chunking, encryption status; re-embed action."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from biny.console.i18n import LANGUAGES, QT_TR_NOOP, number, tr
from biny.console.ops import run_op
from biny.console.widgets.fields import ComboBox, DoubleSpinBox, SpinBox
from biny.core import EDITABLE_SETTINGS, CancelToken, Engine, SpaceInfo

# `biny doctor`'s finding kinds (core/services/doctor.py), named for people.
FINDING_KINDS = {"damaged": QT_TR_NOOP("damaged"), "orphans": QT_TR_NOOP("orphan passages"),
                 "locked": QT_TR_NOOP("locked"), "outdated": QT_TR_NOOP("indexed by an older version"),
                 # Issue 59: passages changed after they were written, not yet coded, unreadable, not in the catalog.
                 "tampered": QT_TR_NOOP("changed after it was written"),
                 "unbound": QT_TR_NOOP("no integrity codes yet"), "unreadable": QT_TR_NOOP("unreadable"),
                 "unlisted": QT_TR_NOOP("not in the catalog"), "catalog": QT_TR_NOOP("catalog damaged")}


class SettingsScreen(QWidget):
    error = Signal(str, str)
    notice = Signal(str)  # for the window's status bar
    reembedded = Signal(str)  # a space's vectors changed: its facts should be reloaded

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.space: str | None = None
        self._model_shown = False

        model = self._build_model_group()
        data = self._build_data_group()
        tune = self._build_tuning_group()
        llm = self._build_llm_group()
        look = self._build_look_group()
        lay = QVBoxLayout(self)
        lay.addWidget(look)
        lay.addWidget(model)
        lay.addWidget(llm)
        lay.addWidget(tune)
        lay.addWidget(data)
        lay.addStretch(1)

    def _build_look_group(self) -> QGroupBox:
        """Colours and the interface language."""
        look = QGroupBox(tr("Appearance"))
        lf2 = QFormLayout(look)
        self.appearance = ComboBox()
        self.appearance.setObjectName("appearance")
        self.appearance.addItems([tr("Follow the system"), tr("Light"), tr("Dark")])
        self.appearance.setToolTip(tr("Works on every desktop, X11 included: light and dark set the colours "
                                      "directly."))
        lf2.addRow(tr("Colours"), self.appearance)
        # Issue 21: the interface language; each language named in itself. Applies at the next start.
        self.language = ComboBox()
        self.language.setObjectName("language")
        for code, name in LANGUAGES:
            self.language.addItem(tr("Follow the system") if not code else name, code)
        self.language.setToolTip(tr("Takes effect when the console next starts."))
        lf2.addRow(tr("Interface language"), self.language)
        return look

    def _build_llm_group(self) -> QGroupBox:
        """The optional language model: endpoint, model and key."""
        s = self.engine.settings
        llm = QGroupBox(tr("Language model (optional: follow-up rewrite, situating notes, relevance judge)"))
        lf = QFormLayout(llm)
        self.llm_url = QLineEdit(s.llm.base_url)
        self.llm_url.setPlaceholderText(tr("e.g. http://127.0.0.1:11434/v1 (empty: no model)"))
        self.llm_model = QLineEdit(s.llm.model)
        self.llm_key = QLineEdit()
        self.llm_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.llm_key.setPlaceholderText(tr("stored in the OS keyring, never in config.toml"))
        self.llm_save = QPushButton(tr("Save"))
        self.llm_save.clicked.connect(self.save_llm)
        self.llm_status = QLabel("")
        self.llm_status.setWordWrap(True)
        lf.addRow(tr("Endpoint (OpenAI-compatible)"), self.llm_url)
        lf.addRow(tr("Model"), self.llm_model)
        lf.addRow(tr("API key"), self.llm_key)
        lf.addRow(self.llm_save, self.llm_status)
        return llm

    def _build_tuning_group(self) -> QGroupBox:
        """Every editable setting as core/config.py declares it, and Apply."""
        s = self.engine.settings
        # Chunking and retrieval, editable within the bounds core/config.py declares (EDITABLE_SETTINGS).
        tune = QGroupBox(tr("Chunking and retrieval"))
        tf = QFormLayout(tune)
        self.tuning: dict[str, QSpinBox | QDoubleSpinBox] = {}
        # Every editable setting, its label, help and bounds as core/config.py declares it (one schema, issue 47).
        for name, spec in EDITABLE_SETTINGS.items():
            low, high, label, tip = spec.low, spec.high, spec.shown_label(), spec.shown_help()
            section, key = name.split(".")
            value = getattr(getattr(s, section), key)
            box: QSpinBox | QDoubleSpinBox
            if isinstance(value, int):
                box = SpinBox()
                box.setRange(int(low), int(high))
            else:
                box = DoubleSpinBox()
                box.setRange(low, high)
                box.setSingleStep(0.05)
            box.setValue(value)
            box.setObjectName(name)
            box.setToolTip(f"{tip}\n({name}, {low:g}–{high:g})")
            self.tuning[name] = box
            tf.addRow(label, box)
        self.tune_save = QPushButton(tr("Apply"))
        self.tune_save.clicked.connect(self.save_tuning)
        self.tune_status = QLabel("")
        self.tune_status.setWordWrap(True)
        tf.addRow(self.tune_save, self.tune_status)
        return tune

    def _build_data_group(self) -> QGroupBox:
        """The data folder, its integrity check and repair, encryption, the web switch, the passphrase source."""
        engine = self.engine
        data = QGroupBox(tr("Data"))
        d = QFormLayout(data)
        d.addRow(tr("Data folder"), QLabel(str(engine.home)))
        d.addRow(tr("Settings file"), QLabel(str(engine.home / "config.toml")))
        self._build_integrity_rows(d)
        self.encryption = QLabel("")
        d.addRow(tr("Encryption"), self.encryption)
        # W1: one switch for searching *and* reading public pages, per space; off by default.
        self.web = QCheckBox(tr("Answer from public web pages when this space has nothing close enough"))
        self.web.setObjectName("web_switch")
        self.web.toggled.connect(self._web_toggled)
        self.web_note = QLabel("")
        self.web_note.setWordWrap(True)
        d.addRow(tr("Public-web fallback"), self.web)
        d.addRow("", self.web_note)
        # The search endpoint, set here and tested with one search (issue 60: it took editing config.toml and a
        # restart).
        self.search_url = QLineEdit(engine.settings.web.search_url)
        self.search_url.setObjectName("search_url")
        self.search_url.setPlaceholderText(tr("a SearXNG JSON endpoint, e.g. http://127.0.0.1:8888/search"))
        self.search_test = QPushButton(tr("Test"))
        self.search_test.setObjectName("search_test")
        self.search_test.setToolTip(tr("Runs one search through this endpoint and says what came back"))
        self.search_test.clicked.connect(self.test_search)
        self.search_save = QPushButton(tr("Save"))
        self.search_save.setObjectName("search_save")
        self.search_save.clicked.connect(self.save_search)
        row = QHBoxLayout()
        row.addWidget(self.search_url, 1)
        row.addWidget(self.search_test)
        row.addWidget(self.search_save)
        d.addRow(tr("Search endpoint"), row)
        self.search_status = QLabel("")
        self.search_status.setObjectName("search_status")
        self.search_status.setWordWrap(True)
        self.search_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        d.addRow("", self.search_status)
        self.secret_source = QLabel("…")
        self.secret_source.setWordWrap(True)
        d.addRow(tr("Passphrase source"), self.secret_source)
        return data

    def _build_integrity_rows(self, d: QFormLayout) -> None:
        """Check, deep check and repair of the data folder, their progress and their findings."""
        # Issue 22: the catalog and the vector store checked against each other; repairs from sources.
        self.check_btn = QPushButton(tr("Check data folder"))
        self.check_btn.setObjectName("check_data")
        self.check_btn.clicked.connect(lambda: self.check_data(repair=False))
        self.repair_btn = QPushButton(tr("Repair"))
        self.repair_btn.setObjectName("repair_data")
        self.repair_btn.setEnabled(False)
        self._deep_checked: bool = False  # Repair after a deep check is a deep one
        self.repair_btn.clicked.connect(lambda: self.check_data(repair=True, deep=self._deep_checked))
        # Issue 59: `biny doctor --deep` — every stored row read whole and its integrity code recomputed.
        self.deep_btn = QPushButton(tr("Deep check"))
        self.deep_btn.setObjectName("deep_check")
        self.deep_btn.setToolTip(tr("Reads every passage, index row and memory fact whole and verifies its integrity "
                                    "code; takes longer than the check"))
        self.deep_btn.clicked.connect(lambda: self.check_data(repair=False, deep=True))
        self.check_progress = QProgressBar()
        self.check_progress.setObjectName("check_progress")
        self.check_progress.setVisible(False)
        checks = QHBoxLayout()
        checks.addWidget(self.check_btn)
        checks.addWidget(self.deep_btn)
        checks.addWidget(self.repair_btn)
        checks.addWidget(self.check_progress, 1)
        checks.addStretch(1)
        d.addRow(tr("Integrity"), checks)
        self.check_status = QLabel("")
        self.check_status.setWordWrap(True)
        self.check_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        d.addRow("", self.check_status)

    def _build_model_group(self) -> QGroupBox:
        """The configured embedding model, the space's, and re-embedding."""
        s = self.engine.settings
        model = QGroupBox(tr("Embedding model"))
        f = QFormLayout(model)
        self.model_label = QLabel(s.embedding.model)
        f.addRow(tr("Configured"), self.model_label)
        self.model_detail = QLabel(tr("loaded on first use"))
        f.addRow(tr("Model id"), self.model_detail)
        self.space_model = QLabel("")
        f.addRow(tr("This space's vectors"), self.space_model)
        self.reembed_btn = QPushButton(tr("Re-embed this space with the configured model"))
        self.reembed_btn.clicked.connect(self.reembed)
        f.addRow(self.reembed_btn)
        return model

    def set_space(self, info: SpaceInfo) -> None:
        """Show a space's settings; the facts come with ``info`` (no engine call on the UI thread)."""
        self.space = info.name
        self.space_model.setText(tr("{model} ({dim} dimensions)").format(model=info.embed_model, dim=info.dim))
        self.encryption.setText(tr("this space is encrypted") if info.encrypted else
                                tr("this space is stored unencrypted"))
        self.encryption.setToolTip(
            tr("Chunks, titles and the structured index's values are sealed; the index's typed table (numbers "
               "used by filters included) exists in plaintext only in memory while the space is open.")
            if info.encrypted else tr("Nothing in this space is encrypted."))
        self.web.blockSignals(True)
        self.web.setChecked(info.web)
        self.web.blockSignals(False)
        self._web_note(info.web)
        if not self._model_shown:
            self._model_shown = True
            self._load_model_detail()

    def _web_note(self, on: bool) -> None:
        url = self.engine.settings.web.search_url
        if not url:
            self.web_note.setText(tr("No search endpoint: enter one below (a SearXNG JSON endpoint), test it and "
                                     "save it. Until then nothing leaves this machine."))
        else:
            self.web_note.setText(tr("Searches {url} and reads the best pages; every answer from them is marked "
                                     "public and waits in the Review queue.").format(url=url) if on
                                  else tr("Off: no outbound request."))

    def test_search(self) -> None:
        """One search through the endpoint typed (saved or not), in the background; what came back, or why not."""
        engine, url = self.engine, self.search_url.text().strip()
        self.search_test.setEnabled(False)
        self.search_status.setText(tr("Searching {url}…").format(url=url))

        def shown(results: list[Any]) -> None:
            first = f" — “{results[0].title}” ({results[0].url})" if results else ""
            self.search_status.setText(tr("The endpoint works: {n} result(s) for a test search.").format(
                n=len(results)) + first)

        def failed(exc: BaseException, _detail: str) -> None:
            text = tr("The endpoint does not work: {error}").format(error=exc)
            self.search_status.setText(text)
            self.notice.emit(text)

        run_op(lambda _p, _c: engine.web.test_search(url), on_success=shown, on_failure=failed,
               on_finished=lambda: self.search_test.setEnabled(True))

    def save_search(self) -> None:
        engine, url = self.engine, self.search_url.text().strip()

        def saved(message: str) -> None:
            self.search_status.setText(message)
            self._web_note(self.web.isChecked())

        run_op(lambda _p, _c: engine.web.configure_search(url), on_success=saved,
               on_failure=lambda e, _d: self.search_status.setText(tr("Not saved: {error}").format(error=e)))

    def _web_toggled(self, on: bool) -> None:
        engine, space = self.engine, self.space
        if not space:
            return
        self._web_note(on)
        run_op(lambda _p, _c: engine.web.set_enabled(space, on),
               on_failure=lambda e, d: self.error.emit(str(e), d))

    def _load_model_detail(self) -> None:
        """Load the embedder in the background (the first load takes seconds) and say what it is."""
        engine = self.engine

        def work(_: Any, __: CancelToken) -> tuple[str, str]:
            emb = engine.models.embedder
            return tr("{model}, window {n} tokens").format(model=emb.model_id, n=emb.max_tokens), \
                engine.keys.secret_source()

        def failed(exc: BaseException, _detail: str) -> None:
            self.model_detail.setText(tr("cannot load: {error}").format(error=exc))
            self._model_shown = False

        self.model_detail.setText(tr("loading…"))
        run_op(work, on_success=self._show_model_detail, on_failure=failed)

    def _show_model_detail(self, detail: tuple[str, str]) -> None:
        self.model_detail.setText(detail[0])
        self.secret_source.setText(detail[1])

    def save_llm(self) -> None:
        """Save the endpoint; the key goes to the OS keyring (which may block or prompt): in the background."""
        engine, url, model, key = self.engine, self.llm_url.text(), self.llm_model.text(), self.llm_key.text() or None
        self.llm_key.clear()
        self.llm_save.setEnabled(False)
        self.llm_status.setText(tr("Saving…"))

        def work(_: Any, __: CancelToken) -> str:
            return engine.models.configure_llm(url, model, key)

        def failed(exc: BaseException, detail: str) -> None:
            self.llm_status.setText(tr("Not saved."))
            self.error.emit(str(exc), detail)

        run_op(work, on_success=lambda msg: self.llm_status.setText(tr("Saved.") + f" {msg}"), on_failure=failed,
               on_finished=lambda: self.llm_save.setEnabled(True))

    def save_tuning(self) -> None:
        """Validate and save in the background; say what the change takes effect on."""
        current = self.engine.settings
        changes: dict[str, float | int] = {
            name: box.value() for name, box in self.tuning.items()
            if box.value() != getattr(getattr(current, name.split(".")[0]), name.split(".")[1])}
        engine = self.engine
        self.tune_save.setEnabled(False)

        def work(_: Any, __: CancelToken) -> list[str]:
            return engine.update_settings(changes)

        def failed(exc: BaseException, _detail: str) -> None:
            self.tune_status.setText(tr("Not saved: {error}").format(error=exc))

        run_op(work, on_success=lambda notes: self.tune_status.setText(" ".join(notes)), on_failure=failed,
               on_finished=lambda: self.tune_save.setEnabled(True))

    def check_data(self, *, repair: bool, deep: bool = False) -> None:
        """`biny doctor` (``deep``: `--deep`) from the console: runs off the UI thread with its progress shown,
        then lists what it found or repaired, each with what to do."""
        for btn in (self.check_btn, self.deep_btn, self.repair_btn):
            btn.setEnabled(False)
        self.check_status.setText(tr("Repairing…") if repair else tr("Reading every stored row…") if deep
                                  else tr("Checking…"))
        self.check_progress.setRange(0, 0)  # busy until the first space is counted
        self.check_progress.setVisible(True)

        def step(p: Any) -> None:
            self.check_progress.setRange(0, max(1, p.total))
            self.check_progress.setValue(p.done)
            if p.detail:
                self.check_progress.setFormat(tr("{done} of {total} spaces — {space}").format(
                    done=p.done, total=p.total, space=p.detail))

        def shown(report: Any) -> None:
            self._deep_checked = deep
            lines = [tr("{spaces} space(s), {docs} document(s), {passages} passage(s) checked:").format(
                spaces=report.spaces, docs=number(report.documents), passages=number(report.passages)) + " "
                + (tr("all consistent.") if not report.findings else
                   tr("all repaired.") if report.healthy else tr("problems found:"))]
            for f in report.findings:
                name = f" “{f.title}”" if f.title else ""
                kind = tr("repaired") if f.repaired else tr(FINDING_KINDS.get(f.kind, f.kind))
                lines.append(f"• {kind} — {f.space}{name}: {f.detail}; " + tr("what to do: {action}").format(
                    action=f.action))
            self.check_status.setText("\n".join(lines))
            self.repair_btn.setEnabled(not report.healthy)

        def finished() -> None:
            self.check_btn.setEnabled(True)
            self.deep_btn.setEnabled(True)
            self.check_progress.setVisible(False)

        run_op(lambda p, _c: self.engine.doctor.check(repair=repair, deep=deep, progress=p), on_success=shown,
               on_progress=step,
               on_failure=lambda e, d: self.check_status.setText(tr("Could not check: {error}").format(error=e)),
               on_finished=finished)

    def reembed(self) -> None:
        if not self.space:
            return
        answer = QMessageBox.question(self, tr("Re-embed"), tr(
            "Re-embed every chunk of “{space}”? This takes about as long as the first ingest.").format(
                space=self.space))
        if answer != QMessageBox.StandardButton.Yes:
            return
        space = self.space
        self.reembed_btn.setEnabled(False)

        def work(progress: Any, cancel: CancelToken) -> int:
            return self.engine.reembed(space, progress=progress, cancel=cancel)

        run_op(work, on_success=lambda n: self.reembedded.emit(space),
               on_failure=lambda e, d: self.error.emit(str(e), d),
               on_finished=lambda: self.reembed_btn.setEnabled(True))
