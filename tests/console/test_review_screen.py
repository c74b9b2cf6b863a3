"""The Review queue (SPEC C5) driven by keyboard offscreen: approve, reject, edit, skip, undo."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QInputDialog, QMessageBox

from biny.console.app import MainWindow
from tests.conftest import ROOT
from tests.console.test_console import _index, _rendered, _settle, window  # noqa: F401 — fixture
from tests.core.test_web import Web, _html, web  # noqa: F401 — the loopback search and page server

pytestmark = pytest.mark.usefixtures("qapp")

QUESTIONS = ["When was the Mozilla community created?", "Which company began the Mozilla project?",
             "What does the Mozilla community develop?", "Who leads Mozilla?"]


def test_operator_reviews_by_keyboard(qtbot, window: MainWindow, web: str,  # noqa: F811
                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # The reject key asks for an optional reason, a flagged item's approval for a yes (issue 60; tested in
    # tests/console/test_screens_second_pass.py): answered here without one, and yes.
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("", True))
    monkeypatch.setattr(QMessageBox, "exec", lambda box: int(QMessageBox.StandardButton.Yes))
    engine = window.engine
    engine.settings.web.search_url = f"{web}/search"
    engine.settings.web.allow_private = ["127.0.0.1"]  # the loopback server plays the public web (issue 59)
    lib = window.library
    lib.create_space("kb", encrypted=False)
    _settle(qtbot)
    lib.ingest([ROOT / "resources" / "demo" / "pricing.md"])
    qtbot.waitUntil(lambda: lib.op is None, timeout=180_000)
    _settle(qtbot)
    window.rail.setCurrentRow(_index(window, window.settings_screen))
    window.settings_screen.web.setChecked(True)  # the per-space switch (W1)
    _settle(qtbot)
    assert engine.web.enabled("kb")
    # Each question reaches other pages: questions reaching the same pages are one item (issue 60).
    # (The mirror's text is the article's own: it would be the same page.)
    Web.pages["/mozilla-company"] = (200, "text/html", _html("Mozilla Corporation", (
        "The Mozilla project was begun by Netscape Communications, which released its browser's source code in "
        "1998.\n\nThe Mozilla Corporation, a subsidiary of the Mozilla Foundation, develops the Firefox browser.")))
    Web.pages["/mozilla-products"] = (200, "text/html", _html("What the Mozilla community develops", (
        "The Mozilla community develops the Firefox web browser and the Thunderbird email client.\n\n"
        "Its volunteers also translate Firefox into more than ninety languages.")))
    pages = [["/wiki/mozilla", "/missing"], ["/mozilla-company"], ["/mozilla-products"], ["/hostile"]]
    ids = []
    for q, found in zip(QUESTIONS, pages, strict=True):
        Web.results = found
        ids.append(engine.answer("kb", q).review_id)
    assert all(ids) and len(set(ids)) == 4
    screen = window.review
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    assert screen.queue.count() == 4 and screen.shown_id == ids[0]
    assert "found only — HTTP 404" in screen.sources.toPlainText() and "read" in screen.sources.toPlainText()
    first = engine.web.item(ids[0])
    quote = first.entry.sentences[0].quote
    assert quote[:40] in screen.snapshot.toPlainText() and "background-color:#ffe066" in screen.snapshot.toHtml()
    window.grab().save(str(tmp_path / "review.png"))
    assert _rendered(tmp_path / "review.png", window)

    queue = screen.queue
    QTest.keyClick(queue, Qt.Key.Key_A)  # approve the first: the next shows at once
    assert screen.shown_id == ids[1] and queue.count() == 3
    QTest.keyClick(queue, Qt.Key.Key_X)  # reject the second
    assert screen.shown_id == ids[2]
    _settle(qtbot)
    assert engine.web.item(ids[0]).status == "approved" and engine.web.item(ids[1]).status == "rejected"
    # The approval wrote a document: the Library and the status bar read it without being asked (issue 49).
    qtbot.waitUntil(lambda: "2 docs" in window.space_label.text(), timeout=60_000)
    assert window.library.model.state.current is not None and window.library.model.state.current.documents == 2
    QTest.keyClick(queue, Qt.Key.Key_Backspace)  # undo the rejection
    _settle(qtbot)
    assert engine.web.item(ids[1]).status == "pending" and queue.count() == 3
    QTest.keyClick(queue, Qt.Key.Key_Space)  # skip
    QTest.keyClick(queue, Qt.Key.Key_K)  # and back
    assert screen.shown_id == screen.model.state.items[0].review_id
    QTest.keyClick(queue, Qt.Key.Key_J)
    target = screen.shown_id
    QTest.keyClick(queue, Qt.Key.Key_E)  # edit: the keys now type into the entry
    assert not screen.entry.isReadOnly()
    screen.entry.moveCursor(screen.entry.textCursor().MoveOperation.End)
    QTest.keyClicks(screen.entry, " Checked by the operator.")
    QTest.keyClick(screen.entry, Qt.Key.Key_Escape)  # back to the queue's keys
    assert screen.entry.isReadOnly()
    QTest.keyClick(queue, Qt.Key.Key_A)
    _settle(qtbot)
    approved = engine.web.item(target)
    assert approved.status == "approved" and "Checked by the operator." in approved.edited
    doc = next(d for d in engine.documents("kb") if d.doc_id == approved.doc_id)
    assert "Checked by the operator." in "".join(c.text for c in engine.document_chunks("kb", doc.doc_id))
    QTest.keyClick(queue, Qt.Key.Key_Backspace)  # undo an approval: its document goes
    _settle(qtbot)
    assert engine.web.item(target).status == "pending"
    assert all(d.doc_id != doc.doc_id for d in engine.documents("kb"))
    assert screen.nearest.text()  # where the entry would land was measured
