"""The menu bar and keyboard shortcuts: one table of actions, shown in Help → Keyboard shortcuts.

Every frequent action has a shortcut (ask, more material, next/previous screen, add files, unlock,
find); the shortcuts dialog is built from the same actions, so it cannot drift from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout

from biny.console.i18n import tr

if TYPE_CHECKING:
    from biny.console.app import MainWindow

Entry = tuple[str, str, str, Callable[[], object]]


def _entries(w: MainWindow) -> dict[str, list[Entry]]:
    """Menu → (label, object name, shortcut, what it does)."""
    screens = [(name, i) for i, (name, _) in enumerate(w.screens)]

    def on(screen: int, run: Callable[[], object]) -> Callable[[], None]:
        """Go to the screen the action belongs to, then do it."""

        def go() -> None:
            w.show_screen(screen)
            run()

        return go

    return {
        tr("&File"): [
            (tr("&New space…"), "new_space", "Ctrl+N", w.library.spaces_panel.ask_new_space),
            (tr("&Add files…"), "add_files", "Ctrl+O", on(0, w.library.pick_files)),
            (tr("Add &folder…"), "add_folder", "Ctrl+Shift+O", on(0, w.library.pick_folder)),
            (tr("&Unlock space…"), "unlock", "Ctrl+U", w.library.spaces_panel.ask_unlock),
            (tr("&Quit"), "quit", "Ctrl+Q", w.close),
        ],
        tr("&View"): [
            *[(f"&{name}", f"screen_{i}", f"Ctrl+{i + 1}", lambda i=i: w.show_screen(i)) for name, i in screens],
            (tr("&Next screen"), "next_screen", "Ctrl+PgDown", lambda: w.show_screen(w.rail.currentRow() + 1)),
            (tr("&Previous screen"), "previous_screen", "Ctrl+PgUp", lambda: w.show_screen(w.rail.currentRow() - 1)),
            (tr("&Refresh from the team space"), "refresh", "F5", w.refresh_team),
        ],
        tr("&Ask"): [
            (tr("&Find (focus the question)"), "find", "Ctrl+F", w.focus_question),
            (tr("&Ask"), "ask", "Ctrl+Return", on(1, w.inspector.ask)),
            (tr("&More material"), "more", "Ctrl+M", on(1, w.inspector.more)),
            (tr("&Copy answer with sources"), "copy_answer", "Ctrl+Shift+C", w.inspector.copy_answer),
        ],
        tr("&Help"): [
            (tr("&Keyboard shortcuts"), "shortcuts", "F1", w.show_shortcuts),
        ],
    }


def build(window: MainWindow) -> list[QAction]:
    """Add the menus to ``window``; returns every action (the tests trigger each)."""
    actions: list[QAction] = []
    bar = window.menuBar()
    for title, entries in _entries(window).items():
        menu = bar.addMenu(title)
        for label, name, shortcut, run in entries:
            action = QAction(label, window)
            action.setObjectName(name)
            action.setShortcut(QKeySequence(shortcut))
            action.triggered.connect(lambda _checked=False, run=run: run())
            menu.addAction(action)
            actions.append(action)
    return actions


class ShortcutsDialog(QDialog):
    """Help → Keyboard shortcuts: every action with its key, from the menus themselves."""

    def __init__(self, actions: list[QAction], parent: MainWindow | None = None,
                 keys: list[tuple[str, str]] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Keyboard shortcuts"))
        rows = [(a.text().replace("&", ""), a.shortcut().toString(QKeySequence.SequenceFormat.NativeText))
                for a in actions if not a.shortcut().isEmpty()]
        rows += [(tr(label), key) for label, key in keys or []]  # keys a screen handles itself (the queue's)
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels([tr("Action"), tr("Shortcut")])
        self.table.verticalHeader().setVisible(False)
        for r, (label, key) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(label))
            self.table.setItem(r, 1, QTableWidgetItem(key))
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        lay.addWidget(buttons)
        self.resize(420, 460)
