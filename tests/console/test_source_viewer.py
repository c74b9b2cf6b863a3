"""The source viewer (issue 61): a cited passage opened at its place — a PDF page with the span highlighted, a text
document with the span marked — from the Inspector's kept passages and citations; Enter opens it, Esc closes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from biny.console import ops
from biny.console.screens.inspector import InspectorScreen
from biny.console.widgets.source_viewer import SourceViewer, render_page
from biny.core.engine import Engine
from tests.conftest import ROOT, corpus
from tests.core.test_web import web  # noqa: F401 — the loopback search and page server

pytestmark = pytest.mark.usefixtures("qapp")


def _marked(image: QImage) -> int:
    """Pixels of the highlight's translucent yellow over white paper."""
    n = 0
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            c = image.pixelColor(x, y)
            n += c.red() > 240 and 225 < c.green() < 250 and c.blue() < 200
    return n


def test_a_pdf_passage_opens_on_its_page_with_the_span_highlighted(qtbot, engine: Engine,  # type: ignore[no-untyped-def]
                                                                   tmp_path: Path) -> None:
    pdf = tmp_path / "kampo.pdf"
    pdf.write_bytes(corpus("pdfs", "kampo.pdf").read_bytes())
    engine.create_space("ja")
    engine.ingest("ja", [pdf])
    result = engine.ask("ja", "道路交通法施行令の一部を改正する政令")
    assert result.chunks  # a kept passage opens like a cited one
    viewer = SourceViewer(engine)
    qtbot.addWidget(viewer)
    view = viewer.open_passage("ja", result.chunks[0].chunk_id)
    viewer.show()
    qtbot.waitExposed(viewer)
    assert view.rects and viewer.area.isVisible()
    page = render_page(view.path, view.rect_page or 1, view.rects[view.rect_page or 1])
    plain = render_page(view.path, view.rect_page or 1, [])
    assert _marked(page) > _marked(plain) + 100  # the rectangles are drawn on the page
    shot = tmp_path / "ja.png"
    viewer.grab().save(str(shot))
    assert shot.stat().st_size > 10_000
    qtbot.keyClick(viewer, Qt.Key.Key_Escape)
    assert not viewer.isVisible()


def test_the_inspector_opens_kept_passages_and_citations_at_their_source(qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    engine.create_space("demo")
    engine.ingest("demo", [ROOT / "resources" / "demo" / "pricing.md", ROOT / "resources" / "demo" / "handbook.md"])
    insp = InspectorScreen(engine)
    qtbot.addWidget(insp)
    insp.set_space("demo")
    insp.show()
    insp.question.setText("If our usage grows 30%, what will the Starter plan cost us?")
    insp.ask()
    qtbot.waitUntil(ops.idle, timeout=180_000)
    assert insp.result is not None and insp.result.chunks
    insp.context.setCurrentRow(0)
    insp.context.setFocus()
    qtbot.keyClick(insp.context, Qt.Key.Key_Return)  # Enter on a kept passage opens it
    viewer = insp.viewer
    assert viewer is not None and viewer.isVisible() and viewer.view is not None
    assert viewer.view.chunk_id == insp.result.chunks[0].chunk_id
    assert not viewer.area.isVisible()  # a text document: its text, the span marked, no page
    assert "#ffd43b" in viewer.text.toHtml() and viewer.view.text[:30] in viewer.text.toPlainText()
    qtbot.keyClick(viewer, Qt.Key.Key_Escape)
    assert not viewer.isVisible()
    insp.open_citation(1)  # a citation opens its passage too
    assert viewer.isVisible() and viewer.view.chunk_id == insp.result.chunks[0].chunk_id


def test_the_library_says_which_documents_have_disabled_passages(qtbot, engine: Engine,  # type: ignore[no-untyped-def]
                                                                 tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    from biny.console.app import MainWindow

    engine.create_space("demo")
    engine.ingest("demo", [ROOT / "resources" / "demo" / "pricing.md"])
    doc = engine.documents("demo")[0]
    chunk = engine.document_chunks("demo", doc.doc_id)[0]
    engine.passages.disable("demo", chunk.chunk_id, author="ana")
    window = MainWindow(engine, None, QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(ops.idle, timeout=180_000)
    table = window.library.table
    (row,) = [r for r in range(table.rowCount()) if "disabled" in table.cell(r, 3)]
    assert table.cell(row, 3).endswith("(1 disabled)")
    assert "never retrieved" in table.cell(row, 3, Qt.ItemDataRole.ToolTipRole)
    ops.wait_all()


def test_the_review_queue_opens_nearest_passages_and_the_approved_entry(qtbot, engine: Engine,  # type: ignore[no-untyped-def]
                                                                        web: str) -> None:  # noqa: F811
    from biny.console.screens.review import ReviewScreen
    from tests.core.test_web import Web

    engine.settings.web.search_url = f"{web}/search"
    engine.settings.web.allow_private = ["127.0.0.1"]  # the loopback server plays the public web
    engine.create_space("kb", encrypted=False)
    engine.ingest("kb", [ROOT / "resources" / "demo" / "pricing.md"])
    engine.web.set_enabled("kb", True)
    Web.results = ["/wiki/mozilla"]
    rid = engine.answer("kb", "When was the Mozilla community created?").review_id
    assert rid
    screen = ReviewScreen(engine)
    qtbot.addWidget(screen)
    screen.set_space("kb")
    screen.show()
    qtbot.waitUntil(lambda: ops.idle() and screen.shown_id == rid and "passage:" in screen.nearest.text(),
                    timeout=120_000)
    near = screen.nearest.text().split("passage:", 1)[1].split("'", 1)[0]
    viewer = screen.open_link(f"passage:{near}")  # what a click on the nearest passage's link does
    assert viewer is not None and viewer.isVisible() and viewer.view is not None and viewer.view.chunk_id == near
    assert viewer.view.document == "Tallow Plans and Pricing"
    viewer.close()
    engine.web.approve(rid)
    screen.filter.setCurrentIndex(screen.filter.findData("all"))
    qtbot.waitUntil(lambda: ops.idle() and "doc:" in screen.nearest.text(), timeout=120_000)
    doc_id = engine.web.item(rid).doc_id
    assert doc_id and f"doc:{doc_id}" in screen.nearest.text()
    viewer = screen.open_link(f"doc:{doc_id}")  # the approved entry, stored as a document, at its source
    assert viewer is not None and viewer.view is not None and viewer.view.doc_id == doc_id
    assert "Mozilla" in viewer.view.text and "#ffd43b" in viewer.text.toHtml()
    ops.wait_all()


def test_the_memory_screen_opens_a_facts_source_passage(qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    from biny.console.screens.memory import MemoryScreen

    engine.create_space("demo")
    engine.ingest("demo", [ROOT / "resources" / "demo" / "pricing.md"])
    chunk = engine.ask("demo", "How much does the Starter plan cost?").chunks[0]
    engine.memory.add("The Starter plan is the cheapest.", "user:ana", source=f"demo:{chunk.chunk_id[:12]}")
    engine.memory.add("Ana prefers yearly billing.", "user:ana", source="console")
    screen = MemoryScreen(engine)
    qtbot.addWidget(screen)
    screen.show()
    screen.scope.setCurrentText("user:ana")
    qtbot.waitUntil(lambda: ops.idle() and screen.table.rowCount() == 2, timeout=60_000)
    rows = {screen.table.item(r, 4).text(): r for r in range(screen.table.rowCount())}
    screen.table.selectRow(rows["Ana prefers yearly billing."])
    assert not screen.source_btn.isEnabled() and screen.open_source() is None  # a fact typed in: no passage
    screen.table.selectRow(rows["The Starter plan is the cheapest."])
    assert screen.source_btn.isEnabled()
    qtbot.mouseClick(screen.source_btn, Qt.MouseButton.LeftButton)
    viewer = screen.viewer
    assert viewer is not None and viewer.isVisible() and viewer.view is not None
    assert viewer.view.chunk_id == chunk.chunk_id and viewer.view.text == chunk.text
    ops.wait_all()
