"""The Review queue shows a sentence of a proposed web entry that the space's own material states otherwise, with
the space's sentence and where it is, and approving it asks a confirmation naming it (issue 59).

The web answers only what the space does not: the price list joins the space after the item was queued, and the
item is marked as the proposal marks it (``contradictions`` over its sentences, recorded in its payload) — what a
proposal made after the price list would hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from biny.console.app import MainWindow
from biny.core.services.contradict import contradictions
from tests.conftest import ROOT
from tests.console.test_console import _index, _settle, window  # noqa: F401 — fixture
from tests.core.test_web import Web, web  # noqa: F401 — the loopback search and page server

pytestmark = pytest.mark.usefixtures("qapp")

PRICES = ("# Visitor notes\n\nTickets cost $7 for adults and $2 for children.\n\n"
          "The cottage beside the tower houses a small museum of the reef's wrecks.\n")


def test_a_contradicted_sentence_is_shown_and_its_approval_names_it(qtbot, window: MainWindow, web: str,  # noqa: F811
                                                                   tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[tuple[str, str]] = []

    def answer(box: QMessageBox) -> int:  # the page's flagged line is confirmed; the contradiction first refused
        asked.append((box.objectName(), box.text()))
        first = [a[0] for a in asked].count("confirm_contradicted") == 1
        refuse = box.objectName() == "confirm_contradicted" and first
        return int(QMessageBox.StandardButton.No if refuse else QMessageBox.StandardButton.Yes)

    monkeypatch.setattr(QMessageBox, "exec", answer)
    engine = window.engine
    engine.settings.web.search_url = f"{web}/search"
    engine.settings.web.allow_private = ["127.0.0.1"]  # the loopback server plays the public web
    engine.create_space("harbour", encrypted=False)
    assert engine.ingest("harbour", [ROOT / "resources" / "demo" / "pricing.md"]).ok
    engine.web.set_enabled("harbour", True)
    Web.results = ["/lighthouse"]
    result = engine.answer("harbour", "What are the ticket prices for adults and children?")
    rid = result.review_id
    (tmp_path / "visitors.md").write_text(PRICES, encoding="utf-8")
    assert engine.ingest("harbour", [tmp_path / "visitors.md"]).ok
    item = engine.web.item(rid)
    found = contradictions(engine.web.retriever, engine.models, "harbour", [s.text for s in item.entry.sentences])
    engine.folder.writer.web.decide_review(rid, "pending", "", "", None,
                                       engine.web.queue.payload(rid, contradicted=[c.to_dict() for c in found]))
    [marked] = engine.web.item(rid).contradicted
    assert "$5 for adults" in marked["sentence"] and "$7 for adults" in marked["mine"]
    assert marked["title"] == "Visitor notes"

    window.library.model.select("harbour")
    _settle(qtbot)
    screen = window.review
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    assert screen.shown_id == rid
    shown = screen.compare.toPlainText()
    assert "Contradicted by your own material" in shown and "$7 for adults" in shown and "Visitor notes" in shown
    assert "1 contradicted" in screen.queue.item(0).text()
    window.grab().save(str(tmp_path / "review_contradicted.png"))

    QTest.keyClick(screen.queue, Qt.Key.Key_A)  # No, the default: nothing is approved
    _settle(qtbot)
    [(_, said)] = [a for a in asked if a[0] == "confirm_contradicted"]
    assert "$7 for adults" in said and "Visitor notes" in said and "$5 for adults" in said
    assert engine.web.item(rid).status == "pending"
    QTest.keyClick(screen.queue, Qt.Key.Key_A)  # Yes: approved, the sentence named to the engine
    _settle(qtbot)
    assert engine.web.item(rid).status == "approved"
