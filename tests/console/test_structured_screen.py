"""The Structured index screen (SPEC C4) driven offscreen: propose, choose, build, preview, try, lint."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressBar

from biny.console.app import MainWindow
from biny.console.screens.structured import EXACT, NAME, USE, WHY
from tests.console.test_console import _index, _rendered, _settle, _wait_ingest, window  # noqa: F401 — fixture
from tests.core.test_structured_engine import _books_csv

pytestmark = pytest.mark.usefixtures("qapp")


def _row(screen, name: str) -> int:  # type: ignore[no-untyped-def]
    return next(r for r in range(screen.fields.rowCount()) if screen.fields.item(r, NAME).text() == name)


def test_curator_proposes_chooses_builds_and_tries_a_question(qtbot, window: MainWindow,  # noqa: F811
                                                               tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _books_csv(tmp_path / "books.csv", rows=30)
    lib = window.library
    lib.create_space("books", encrypted=False)
    _settle(qtbot)
    lib.ingest([tmp_path / "books.csv"])
    _wait_ingest(qtbot, window)
    # The table's 30 row documents are one line in the Library, not 30.
    assert lib.table.rowCount() == 1 and lib.table.cell(0, 0) == "books.csv — 30 rows"
    screen = window.structured
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    assert screen.fields.rowCount() >= 20 and "fields proposed" in screen.headline.text()
    note = _row(screen, "note")  # on 3 of 30 rows: dropped, with the figure
    assert screen.fields.item(note, USE).checkState() == Qt.CheckState.Unchecked
    assert "under 1/5" in screen.fields.item(note, WHY).text()
    bar = screen.fields.cellWidget(_row(screen, "authors"), 4)
    assert isinstance(bar, QProgressBar) and bar.value() == 1000
    for name in ("ratings_1", "ratings_2", "ratings_3", "ratings_4", "ratings_5"):  # the curator leaves these out
        screen.fields.item(_row(screen, name), USE).setCheckState(Qt.CheckState.Unchecked)
    assert screen.fields.item(_row(screen, "image_url"), EXACT).checkState() == Qt.CheckState.Checked
    use, exact = screen.chosen()
    assert "ratings_1" not in use and "image_url" in exact and "title" not in exact
    screen.build()
    _settle(qtbot)
    info = screen.model.state.info
    assert info is not None and info.rows == 30 and "ratings_1" not in info.spec.names
    assert "30</b> rows" in screen.headline.text()
    assert screen.preview.rowCount() == 30 and screen.preview.columnCount() == len(info.spec.names) + 1
    screen.question.setText("How many books were published before 1950?")
    screen.try_question()
    _settle(qtbot)
    tried = screen.model.tried
    assert tried is not None and tried.result is not None and tried.result.call.tool == "count"
    html = screen.outcome.toPlainText()
    assert "SELECT count(*)" in html and str(tried.result.result) in html
    # The count says what it counted: its filter and the documents it ran over (issue 48).
    assert "Filter: original_publication_year under 1950" in html
    assert "Counted over the 30 documents of the index (30 in the space)." in html
    assert screen.rows.rowCount() == min(tried.result.result, 50)
    screen.question.setText("What is this book about?")
    screen.try_question()
    _settle(qtbot)
    assert "Not routed" in screen.outcome.toPlainText()
    # A table's rows are bare values by nature and their source has no place for a sentence: not listed (S7).
    assert screen.model.state.lint_count == 0 and screen.lint.rowCount() == 0
    screen.tabs.setCurrentIndex(0)
    window.grab().save(str(tmp_path / "structured.png"))
    assert _rendered(tmp_path / "structured.png", window)


def test_a_space_without_headers_says_why_it_has_no_index(qtbot, window: MainWindow,  # noqa: F811
                                                           tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 63: on a folder with no header at all, the screen shows the forms looked for, how the first three
    documents open, and the next step — not only "No index"."""
    folder = tmp_path / "prose"
    folder.mkdir()
    for i, topic in enumerate(("Pumps", "Valves", "Seals", "Gaskets")):
        (folder / f"{i}-{topic.lower()}.md").write_text(
            f"# {topic}\n\nA paragraph of prose about {topic.lower()}, with no header at all.\n", encoding="utf-8")
    lib = window.library
    lib.create_space("prose", encrypted=False)
    _settle(qtbot)
    lib.ingest([folder])
    _wait_ingest(qtbot, window)
    screen = window.structured
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    assert "No index" in screen.headline.text()
    assert not screen.build_btn.isEnabled() and not screen.question.isEnabled()
    assert screen.evidence.isVisible() and not screen.fields.isVisible()
    shown = screen.evidence.toPlainText()
    assert "Looked for" in shown and "an HTML <dl> list" in shown and "a PDF spec table (two columns)" in shown
    assert "How the first documents open" in shown
    for topic in ("Gaskets", "Pumps", "Seals"):  # the first three by title, each with its opening lines
        assert f"A paragraph of prose about {topic.lower()}, with no header at all." in shown
    assert "Valves" not in shown
    assert "Next step: Start each document with its fields" in shown
    shot = tmp_path / "structured-no-header.png"
    window.grab().save(str(shot))
    assert _rendered(shot, window)


def test_a_table_is_archived_and_restored_as_one(qtbot, window: MainWindow, tmp_path: Path) -> None:  # noqa: F811  # type: ignore[no-untyped-def]
    _books_csv(tmp_path / "books.csv", rows=12)
    lib = window.library
    lib.create_space("t", encrypted=False)
    _settle(qtbot)
    lib.ingest([tmp_path / "books.csv"])
    _wait_ingest(qtbot, window)
    table_id = lib.table.cell(0, 0, Qt.ItemDataRole.UserRole)
    lib.model.set_status(table_id, "archived")
    _settle(qtbot)
    docs = window.engine.documents("t")
    assert len(docs) == 12 and {d.status for d in docs} == {"archived"}
    assert lib.table.cell(0, 4) == "archived"
    lib.model.set_status(table_id, "active")
    _settle(qtbot)
    assert {d.status for d in window.engine.documents("t")} == {"active"}


def test_the_index_screen_reads_the_space_when_shown_not_while_hidden(  # type: ignore[no-untyped-def]
        qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:  # noqa: F811
    """The proposal and the lint read every passage's text (40 s of a console's start-up at 1M passages): a space
    chosen, or a document archived, on the Library no longer makes the hidden index screen read them; it reads when
    the curator opens it, and at once for writes while it is shown."""
    _books_csv(tmp_path / "books.csv", rows=12)
    read: list[str] = []
    real = window.engine.index.propose
    monkeypatch.setattr(window.engine.index, "propose", lambda space: (read.append(space), real(space))[1])
    lib = window.library
    lib.create_space("books", encrypted=False)
    _settle(qtbot)
    lib.ingest([tmp_path / "books.csv"])
    _wait_ingest(qtbot, window)
    lib.model.set_status(lib.table.documents.state.documents[0].doc_id, "archived")  # a write, seen by every screen
    _settle(qtbot)
    screen = window.structured
    assert screen.model.space == "books" and read == [] and screen.model.state.proposal is None
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    assert read == ["books"] and screen.model.state.proposal is not None
    lib.model.set_status(lib.table.documents.state.documents[0].doc_id, "active")  # shown: read again at once
    _settle(qtbot)
    assert read == ["books", "books"] and "fields proposed" in screen.headline.text()
