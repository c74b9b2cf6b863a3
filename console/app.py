"""biny-console: the main window, navigation rail and status bar (SPEC C1, C2, C7)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QWidget,
)

from biny.console import i18n, menus, theme
from biny.console.i18n import number, tr
from biny.console.ops import run_op, wait_all
from biny.console.screens.analysis import AnalysisScreen
from biny.console.screens.inspector import InspectorScreen
from biny.console.screens.library import LibraryScreen
from biny.console.screens.memory import MemoryScreen
from biny.console.screens.review import QUEUE_KEYS, ReviewScreen
from biny.console.screens.settings import SettingsScreen
from biny.console.screens.structured import StructuredScreen
from biny.core import BinyError, Engine


class MainWindow(QMainWindow):
    def __init__(self, engine: Engine, space: str | None = None, settings: QSettings | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.qsettings = settings or QSettings("biny", "console")
        self.setWindowTitle(tr("biny console"))

        self._build_screens()
        self._build_status_bar()
        self._connect_screens()
        # Column widths the user set are kept between sessions (documents and facts tables).
        self.remembered_headers = {"library/columns": self.library.table.horizontalHeader(),
                                   "memory/columns": self.memory.table.horizontalHeader()}
        for key, header in self.remembered_headers.items():
            state = self.qsettings.value(key)
            if state is not None and header.restoreState(state):
                (self.library.table if key.startswith("library") else self.memory).columns_sized = True

        geometry = self.qsettings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1200, 760)
        wanted = space or str(self.qsettings.value("last_space", "") or "")
        self.library.refresh_spaces(select=wanted or None)  # loads in the background, then selects
        self.rail.setCurrentRow(0)

    def _connect_screens(self) -> None:
        """Errors, selections, writes and the Settings screen's choices, wired across screens."""
        for screen in (self.library, self.inspector, self.settings_screen, self.memory, self.structured, self.review,
                       self.analysis):
            screen.error.connect(self.show_error)
        self.library.space_selected.connect(self.on_space)
        self.analysis.open_chunk.connect(self._open_chunk)
        for screen in (self.inspector, self.analysis, self.settings_screen):
            screen.notice.connect(lambda text: self.statusBar().showMessage(text))
        self.library.model.connect("changed", self.show_space_state)
        # A write on any screen (an approval, an ingest, an archive, a build) is read again by the others.
        for model in (self.library.model, self.review.model, self.structured.model):
            model.connect("written", lambda source=model: self._written(source))
        self.settings_screen.reembedded.connect(lambda name: self.library.refresh_spaces(select=name))

        self.actions_by_menu = menus.build(self)
        choice = theme.apply(theme.remembered(self.qsettings))
        self.settings_screen.appearance.setCurrentIndex(theme.CHOICES.index(choice))
        self.settings_screen.appearance.currentIndexChanged.connect(
            lambda i: theme.apply(theme.CHOICES[i], self.qsettings))
        self.shortcuts_dialog: menus.ShortcutsDialog | None = None
        codes = [code for code, _ in i18n.LANGUAGES]
        remembered = str(self.qsettings.value("language", "") or "")
        self.settings_screen.language.setCurrentIndex(codes.index(remembered) if remembered in codes else 0)
        self.settings_screen.language.currentIndexChanged.connect(self._language_chosen)

    def _build_status_bar(self) -> None:
        """The status bar: data folder, model, team space and the current space."""
        engine = self.engine
        self.folder_label = QLabel(tr("Data: {folder}").format(folder=engine.home))
        self.model_label = QLabel(tr("Model: {model}").format(model=engine.settings.embedding.model))
        self.space_label = QLabel(tr("No space"))
        # A team space (issue 21): where it lives and whether this console writes or reads a snapshot.
        self.team_label = QLabel("")
        self.team_label.setObjectName("team")
        for w in (self.folder_label, self.model_label, self.team_label):
            self.statusBar().addWidget(w)
        self.statusBar().addPermanentWidget(self.space_label)
        self.team_label.setVisible(False)
        self.team_status: dict[str, Any] | None = None
        run_op(lambda _p, _c: engine.team.status(), on_success=self.show_team_state)

    def _build_screens(self) -> None:
        """The screens, the navigation rail and the stack that shows one of them."""
        engine = self.engine
        self.library = LibraryScreen(engine)
        self.inspector = InspectorScreen(engine)
        self.settings_screen = SettingsScreen(engine)
        self.memory = MemoryScreen(engine)
        self.structured = StructuredScreen(engine)
        self.review = ReviewScreen(engine)
        self.analysis = AnalysisScreen(engine)
        self.screens: list[tuple[str, QWidget]] = [
            (tr("Library"), self.library),
            (tr("Retrieval Inspector"), self.inspector),
            (tr("Structured index"), self.structured),
            (tr("Review queue"), self.review),
            (tr("Analysis"), self.analysis),
            (tr("Memory"), self.memory),
            (tr("Settings"), self.settings_screen),
        ]
        self.rail = QListWidget()
        self.rail.setObjectName("rail")
        self.rail.setFixedWidth(150)
        self.stack = QStackedWidget()
        for name, widget in self.screens:
            self.rail.addItem(name)
            if widget is self.settings_screen:  # a long form: it scrolls rather than set the window's height
                scroll = QScrollArea()
                scroll.setWidgetResizable(True)
                scroll.setFrameShape(QScrollArea.Shape.NoFrame)
                scroll.setWidget(widget)
                widget = scroll
            self.stack.addWidget(widget)
        self.rail.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.rail.currentRowChanged.connect(self._screen_shown)
        central = QWidget()
        lay = QHBoxLayout(central)
        lay.addWidget(self.rail)
        lay.addWidget(self.stack, 1)
        self.setCentralWidget(central)

    def show_screen(self, index: int) -> None:
        """Switch screens; past either end it wraps around (next/previous screen)."""
        self.rail.setCurrentRow(index % len(self.screens))

    def _screen_shown(self, index: int) -> None:
        # Documents may have changed since the index screen last read them (ingest, archive).
        if self.screens[index][1] is self.structured and not self.structured.busy:
            self.structured.model.refresh()
        if self.screens[index][1] is self.review and not self.review.busy:
            self.review.model.refresh()  # web answers may have arrived from the Inspector
            self.review.queue.setFocus()

    def _written(self, source: object) -> None:
        """Another screen wrote: the Library (and with it the status bar's counts), the queue and the index
        screen read again — each only when it is not busy with work of its own."""
        if source is not self.library.model:
            self.library.refresh_spaces(select=self.library.model.current)
        if source is not self.review.model and not self.review.busy:
            self.review.model.refresh()
        # The index screen reads every passage's text: hidden, it reads them when it is next shown (_screen_shown).
        if source is not self.structured.model and not self.structured.busy and self.structured.isVisible():
            self.structured.model.refresh()

    def _open_chunk(self, space: str, doc_id: str, chunk_id: str, note: str) -> None:
        self.show_screen(1)
        self.inspector.open_chunk(space, doc_id, chunk_id, note)

    def focus_question(self) -> None:
        """Find: the question box of the screen that has one (the Inspector otherwise)."""
        if self.stack.currentWidget() is self.memory:
            self.memory.question.setFocus()
            return
        if self.stack.currentWidget() is self.structured:
            self.structured.question.setFocus()
            return
        self.show_screen(1)
        self.inspector.question.setFocus()
        self.inspector.question.selectAll()

    def show_team_state(self, status: dict[str, Any] | None) -> None:
        """Where a team space lives and whether this console writes it (read off the UI thread by the caller)."""
        self.team_status = status
        self.team_label.setVisible(status is not None)
        if status is None:
            self.library.set_read_only(None)
            return
        if status["mode"] == "writer":
            self.team_label.setText(tr("Team space {uri} · writing").format(uri=status["uri"]))
            self.team_label.setToolTip(tr("This console holds the writer lease; others read what it publishes."))
            self.library.set_read_only(None)
            return
        self.team_label.setText(tr("Team space {uri} · read-only (writer: {writer})").format(
            uri=status["uri"], writer=status["writer"]))
        self.team_label.setToolTip(tr("Showing the state published {when}. View → Refresh (F5) shows what was "
                                      "written since.").format(when=status["snapshot_published"] or tr("never")))
        self.library.set_read_only(tr("Read-only: {writer} writes this team space. View → Refresh (F5) shows what "
                                      "it published since.").format(writer=status["writer"]))

    def refresh_team(self) -> None:
        """View → Refresh: a read-only console moves to the newest published state of its team space."""
        def done(got: tuple[bool, dict[str, Any] | None]) -> None:
            changed, status = got
            self.statusBar().showMessage(tr("Refreshed: new documents are shown.") if changed
                                         else tr("Already current: nothing new was published."), 5000)
            if changed:
                self.library.refresh_spaces(select=self.library.model.current)
            self.show_team_state(status)

        if self.team_status is None:
            self.statusBar().showMessage(tr("This data folder is not a team space: it is always current."), 5000)
            return
        engine = self.engine
        run_op(lambda _p, _c: (engine.team.refresh(), engine.team.status()), on_success=done,
               on_failure=lambda exc, tb: self.show_error(str(exc), tb))

    def _language_chosen(self, index: int) -> None:
        i18n.remember(self.qsettings, i18n.LANGUAGES[index][0])
        self.statusBar().showMessage(tr("The interface language changes when the console next starts."), 8000)

    def show_shortcuts(self) -> None:
        self.shortcuts_dialog = menus.ShortcutsDialog(self.actions_by_menu, self, QUEUE_KEYS)
        self.shortcuts_dialog.open()

    def on_space(self, name: str) -> None:
        """A space was selected: the screens follow it."""
        self.inspector.set_space(name)
        self.structured.set_space(name)
        self.review.set_space(name)
        self.analysis.set_space(name)
        self.qsettings.setValue("last_space", name)
        self.show_space_state()

    def show_space_state(self) -> None:
        info = self.library.model.state.current
        if info is None:
            self.space_label.setText(tr("No space"))
            return
        enc = (tr("encrypted · locked") if info.locked else tr("encrypted")) if info.encrypted else tr("not encrypted")
        self.space_label.setText(tr("Space: {name} · {docs} docs · {chunks} chunks · {encryption}").format(
            name=info.name, docs=number(info.documents), chunks=number(info.chunks), encryption=enc))
        self.model_label.setText(tr("Model: {model}").format(model=info.embed_model))
        self.settings_screen.set_space(info)

    def show_error(self, message: str, detail: str) -> None:
        """An error in a box, and in the status bar where it stays after the box is closed (issue 60)."""
        box = QMessageBox(QMessageBox.Icon.Warning, "biny", message, parent=self)
        box.setObjectName("error_box")
        self.statusBar().showMessage(message)
        if detail:
            box.setDetailedText(detail)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.library.model.cancel_ingest()
        wait_all(60000)
        self.qsettings.setValue("geometry", self.saveGeometry())
        for key, header in self.remembered_headers.items():
            self.qsettings.setValue(key, header.saveState())
        super().closeEvent(event)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="biny-console")
    parser.add_argument("--home", type=Path, default=None, help="data folder")
    parser.add_argument("--space", default=None, help="space to open")
    parser.add_argument("--self-test", metavar="QUESTION", default=None,
                        help="show the window, build the demo space if missing, ask QUESTION, print JSON, exit")
    args = parser.parse_args(argv)
    started = time.time()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName("biny console")
    i18n.install(i18n.chosen(QSettings("biny", "console")))
    # Fusion follows the system's light/dark colour scheme (Qt ≥ 6.5) on every platform.
    app.setStyle("Fusion")
    try:
        engine = Engine.open(args.home)
    except BinyError as exc:
        QMessageBox.critical(None, "biny", str(exc))
        return 2
    try:
        if args.self_test is not None:
            from biny.console.selftest import run

            return run(app, engine, args.space or "demo", args.self_test, started)
        window = MainWindow(engine, args.space)
        window.show()
        return int(app.exec())
    finally:
        wait_all(60000)
        engine.close()


if __name__ == "__main__":
    sys.exit(main())
