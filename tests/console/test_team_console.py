"""A console on a team space it does not write (issue 21): it says so, and Refresh shows new documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction

from biny.console import ops
from biny.console.app import MainWindow
from biny.console.ops import wait_all
from biny.core.engine import Engine
from tests.conftest import CountingEmbedder
from tests.s3 import team_settings

pytestmark = pytest.mark.usefixtures("qapp")


def _doc(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def test_a_read_only_console_refreshes(qtbot, tmp_path: Path, s3: str, bucket: str,  # type: ignore[no-untyped-def]
                                       embedder: CountingEmbedder) -> None:
    writer = Engine.open(tmp_path / "desk-a", settings=team_settings(s3, bucket), embedder=embedder)
    reader = Engine.open(tmp_path / "desk-b", settings=team_settings(s3, bucket), embedder=embedder)
    try:
        writer.create_space("plant", encrypted=False)
        writer.ingest("plant", [_doc(tmp_path / "docs", "pumps.md", "Pump P-7 is serviced every 6 weeks.")])
        assert reader.team.refresh()  # the space was created after the reader opened
        w = MainWindow(reader, "plant", QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat))
        qtbot.addWidget(w)
        w.resize(1280, 800)
        w.show()
        qtbot.waitUntil(ops.idle, timeout=60_000)
        assert w.library.table.rowCount() == 1
        assert w.team_label.isVisible() and "read-only" in w.team_label.text()
        assert writer.team.status()["writer"] in w.team_label.text()  # type: ignore[index]
        # What would write is switched off, saying why.
        lib = w.library
        spaces = lib.spaces_panel
        for b in (lib.add_files_btn, lib.add_folder_btn, spaces.new_space_btn, spaces.delete_space_btn):
            assert not b.isEnabled() and "Read-only" in b.toolTip()
        lib.table.selectRow(0)
        assert not lib.document_actions.archive_btn.isEnabled() and not lib.document_actions.reingest_btn.isEnabled()
        writer.ingest("plant", [_doc(tmp_path / "docs", "valves.md", "Valve V-77 opens at 12 bar.")])
        refresh = next(a for a in w.findChildren(QAction) if a.objectName() == "refresh")
        assert refresh.shortcut().toString() == "F5"
        refresh.trigger()
        qtbot.waitUntil(lambda: w.library.table.rowCount() == 2, timeout=60_000)
        qtbot.waitUntil(ops.idle, timeout=60_000)
        assert "Refreshed" in w.statusBar().currentMessage()
        refresh.trigger()  # nothing new since
        qtbot.waitUntil(lambda: "Already current" in w.statusBar().currentMessage(), timeout=60_000)
        w.close()
    finally:
        wait_all()
        reader.close()
        writer.close()
