"""The Library offers tables as readily as documents (issue 63): the Add-files dialog's default filter names every
format ingest reads, CSV/TSV/XLSX/JSONL included, and an empty space's hint names tables and the structured index."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QTableWidget

from biny.console.app import MainWindow
from biny.console.models.library import LibrarySnapshot
from biny.console.screens.library import DocumentsView
from biny.core import DocumentView
from biny.core.engine import Engine
from tests.console.test_console import _settle, window  # noqa: F401 — fixture

pytestmark = pytest.mark.usefixtures("qapp")


def test_the_add_files_dialog_defaults_to_every_readable_format(qtbot, window: MainWindow,  # noqa: F811
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def fake(parent: Any, caption: str, folder: str, filters: str) -> tuple[list[str], str]:
        asked.append(filters)
        return [], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(fake))
    window.library.pick_files()
    assert len(asked) == 1
    default = asked[0].split(";;")[0]
    patterns = set(re.findall(r"\*(\.\w+)", default))
    assert {".csv", ".tsv", ".xlsx", ".jsonl", ".pdf", ".docx", ".html", ".md", ".txt"} <= patterns
    assert patterns == set(Engine.readable_suffixes())  # every format ingest reads, from one list
    assert "All files (*)" in asked[0].split(";;")


def test_an_empty_space_names_tables_and_the_structured_index(qtbot, window: MainWindow) -> None:  # noqa: F811  # type: ignore[no-untyped-def]
    window.library.create_space("empty", encrypted=False)
    _settle(qtbot)
    hint = window.library.empty_hint
    assert hint.isVisible()
    assert "tables (CSV, TSV, XLSX, JSONL)" in hint.text() and "Structured index screen" in hint.text()


def _listed(n: int) -> list[DocumentView]:
    at = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    return [DocumentView(f"d{i}", f"/docs/{i}.md", f"Document {i}", "markdown", 1, "active", 100, at, chunks=i % 7)
            for i in range(n)]


def test_the_documents_view_makes_cells_from_the_snapshot_and_keeps_the_selection(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A space of tens of thousands of documents: the view reads each cell from the snapshot when painted (a table
    item per cell held ≈110 MB and 1.9 s a refresh at 27k documents), and a refresh keeps the selected document
    selected wherever it moved — with no selection signal, as the screen renders its report itself."""
    view = DocumentsView()
    qtbot.addWidget(view)
    docs = _listed(30_000)
    table = DocumentView("table:books.csv", "/docs/books.csv", "books.csv", "table", 1, "active", 10,
                         docs[0].ingested_at, chunks=3, rows=("r1", "r2", "r3"))
    view.show_documents(LibrarySnapshot(documents=[table, *docs], tables={table.doc_id: ["r1", "r2", "r3"]},
                                        disabled={"r2": 1, "r3": 1, "d5": 2}))
    assert view.rowCount() == 30_001 and view.columnCount() == 6
    assert not isinstance(view, QTableWidget)  # no item per cell: the model reads the snapshot
    assert view.cell(0, 0) == "books.csv — 3 rows" and view.cell(0, 3) == "3 (2 disabled)"
    assert view.cell(6, 0) == "Document 5" and view.cell(6, 3) == "5 (2 disabled)"
    assert "never retrieved" in view.cell(6, 3, Qt.ItemDataRole.ToolTipRole)
    assert view.cell(6, 0, Qt.ItemDataRole.ToolTipRole) == "Document 5\n/docs/5.md"
    assert view.cell(6, 0, Qt.ItemDataRole.UserRole) == "d5" and view.cell(7, 3) == "6"

    signals: list[None] = []
    view.selection_changed.connect(lambda: signals.append(None))
    view.selectRow(20_001)
    assert view.selected_doc_id() == "d20000" and len(signals) == 1
    # A refresh that lists the documents in another order (one deleted before it, a new one at the top).
    moved = [DocumentView("new", "/docs/new.md", "New", "markdown", 1, "active", 1, docs[0].ingested_at),
             *docs[1:]]
    view.show_documents(LibrarySnapshot(documents=moved))
    assert view.selected_doc_id() == "d20000" and view.cell(20_000, 0) == "Document 20000"
    assert len(signals) == 1  # the screen renders the report after a refresh; no second render from the signal
    assert view.cell(1, 3) == "1"  # the disabled counts are the new snapshot's, none
    view.show_documents(LibrarySnapshot(documents=docs[:10]))
    assert view.rowCount() == 10 and view.selected_doc_id() is None
