"""Settings (SPEC C7): model, data folder, chunking, encryption status; re-embed action."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from biny.console.ops import run_op
from biny.core import CancelToken, Engine, SpaceInfo


class SettingsScreen(QWidget):
    error = Signal(str, str)
    reembedded = Signal(str)  # a space's vectors changed: its facts should be reloaded

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.space: str | None = None
        self._model_shown = False
        s = engine.settings

        model = QGroupBox("Embedding model")
        f = QFormLayout(model)
        self.model_label = QLabel(s.embedding.model)
        f.addRow("Configured", self.model_label)
        self.model_detail = QLabel("loaded on first use")
        f.addRow("Model id", self.model_detail)
        self.space_model = QLabel("")
        f.addRow("This space's vectors", self.space_model)
        self.reembed_btn = QPushButton("Re-embed this space with the configured model")
        self.reembed_btn.clicked.connect(self.reembed)
        f.addRow(self.reembed_btn)

        data = QGroupBox("Data")
        d = QFormLayout(data)
        d.addRow("Data folder", QLabel(str(engine.home)))
        d.addRow("Settings file", QLabel(str(engine.home / "config.toml")))
        d.addRow("Chunk target", QLabel(f"{s.chunking.target_tokens} tokens, overlap {s.chunking.overlap_tokens}"))
        r = s.retrieval
        if r.local_cut:
            cut = (f"each passage closer than its nearest unrelated questions by {r.local_margin:g} × the "
                   f"reference's median − p{r.threshold_quantile * 100:.0f}")
        else:
            cut = (f"top hit within p{r.threshold_quantile * 100:.0f}, others within "
                   f"p{r.keep_quantile * 100:.0f} of the unrelated-question reference")
        words = (f"; where the space is written in the question's script, ≥{r.lexical_min:.0%} of its words' "
                 "weight shared"
                 if r.lexical_check else "")
        scripts = "; spaces in several scripts rank each script's passages too" if r.pool_per_script else ""
        retrieval = QLabel(f"K={r.k}, pool ×{r.pool_factor}{scripts}; {cut}{words}. Exact search up to "
                           f"{r.ann_min_rows:,} chunks, then an ANN index re-ranked exactly.")
        retrieval.setWordWrap(True)
        d.addRow("Retrieval", retrieval)
        self.encryption = QLabel("")
        d.addRow("Encryption", self.encryption)
        self.secret_source = QLabel("…")
        self.secret_source.setWordWrap(True)
        d.addRow("Passphrase source", self.secret_source)

        llm = QGroupBox("Language model (optional: follow-up rewrite, situating notes)")
        lf = QFormLayout(llm)
        self.llm_url = QLineEdit(s.llm.base_url)
        self.llm_url.setPlaceholderText("e.g. http://127.0.0.1:11434/v1 (empty: no model)")
        self.llm_model = QLineEdit(s.llm.model)
        self.llm_key = QLineEdit()
        self.llm_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.llm_key.setPlaceholderText("stored in the OS keyring, never in config.toml")
        self.llm_save = QPushButton("Save")
        self.llm_save.clicked.connect(self.save_llm)
        self.llm_status = QLabel("")
        self.llm_status.setWordWrap(True)
        lf.addRow("Endpoint (OpenAI-compatible)", self.llm_url)
        lf.addRow("Model", self.llm_model)
        lf.addRow("API key", self.llm_key)
        lf.addRow(self.llm_save, self.llm_status)

        look = QGroupBox("Appearance")
        lf2 = QFormLayout(look)
        self.appearance = QComboBox()
        self.appearance.setObjectName("appearance")
        self.appearance.addItems(["Follow the system", "Light", "Dark"])
        self.appearance.setToolTip("Works on every desktop, X11 included: light and dark set the colours directly.")
        lf2.addRow("Colours", self.appearance)

        lay = QVBoxLayout(self)
        lay.addWidget(look)
        lay.addWidget(model)
        lay.addWidget(llm)
        lay.addWidget(data)
        lay.addStretch(1)

    def set_space(self, info: SpaceInfo) -> None:
        """Show a space's settings; the facts come with ``info`` (no engine call on the UI thread)."""
        self.space = info.name
        self.space_model.setText(f"{info.embed_model} ({info.dim} dimensions)")
        self.encryption.setText("this space is encrypted" if info.encrypted else
                                "this space is stored unencrypted")
        if not self._model_shown:
            self._model_shown = True
            self._load_model_detail()

    def _load_model_detail(self) -> None:
        """Load the embedder in the background (the first load takes seconds) and say what it is."""
        engine = self.engine

        def work(_: Any, __: CancelToken) -> tuple[str, str]:
            emb = engine.embedder
            return f"{emb.model_id}, window {emb.max_tokens} tokens", engine.secret_source()

        def failed(exc: BaseException, _detail: str) -> None:
            self.model_detail.setText(f"cannot load: {exc}")
            self._model_shown = False

        self.model_detail.setText("loading…")
        run_op(work, on_success=self._show_model_detail, on_failure=failed)

    def _show_model_detail(self, detail: tuple[str, str]) -> None:
        self.model_detail.setText(detail[0])
        self.secret_source.setText(detail[1])

    def save_llm(self) -> None:
        """Save the endpoint; the key goes to the OS keyring (which may block or prompt): in the background."""
        engine, url, model, key = self.engine, self.llm_url.text(), self.llm_model.text(), self.llm_key.text() or None
        self.llm_key.clear()
        self.llm_save.setEnabled(False)
        self.llm_status.setText("Saving…")

        def work(_: Any, __: CancelToken) -> str:
            return engine.configure_llm(url, model, key)

        def failed(exc: BaseException, detail: str) -> None:
            self.llm_status.setText("Not saved.")
            self.error.emit(str(exc), detail)

        run_op(work, on_success=lambda msg: self.llm_status.setText(f"Saved. {msg}"), on_failure=failed,
               on_finished=lambda: self.llm_save.setEnabled(True))

    def reembed(self) -> None:
        if not self.space:
            return
        answer = QMessageBox.question(self, "Re-embed", f"Re-embed every chunk of “{self.space}”? "
                                      "This takes about as long as the first ingest.")
        if answer != QMessageBox.StandardButton.Yes:
            return
        space = self.space
        self.reembed_btn.setEnabled(False)

        def work(progress: Any, cancel: CancelToken) -> int:
            return self.engine.reembed(space, progress=progress, cancel=cancel)

        run_op(work, on_success=lambda n: self.reembedded.emit(space),
               on_failure=lambda e, d: self.error.emit(str(e), d),
               on_finished=lambda: self.reembed_btn.setEnabled(True))
