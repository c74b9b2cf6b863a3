"""Issue 60: what an operator, a curator and an analyst hit in a day's work — each point driven with pytest-qt and
read back as a user sees it (the exported file, the hover text, the legend, the status bar after an error)."""

from __future__ import annotations

import csv
import json
import socket
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QHeaderView, QInputDialog, QMessageBox, QStyle, QTableView, QTreeWidget

from biny.console.app import MainWindow
from biny.console.screens.structured import EXACT, USE
from biny.core.demo import build_demo
from tests.conftest import ROOT
from tests.console.test_console import _index, _settle, _wait_ingest, window  # noqa: F401 — fixture
from tests.console.test_structured_screen import _books_csv, _row
from tests.core.test_web import Web, web  # noqa: F401 — the loopback search and page server

pytestmark = pytest.mark.usefixtures("qapp")
Q = "Which plan is for small workshops?"


def _csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig") as f:
        return list(csv.reader(f))


def clipped_headers(table: QTableView | QTreeWidget) -> list[str]:
    """Header sections whose text does not fit their width or height, measured with the header's font metrics."""
    header = table.horizontalHeader() if isinstance(table, QTableView) else table.header()
    metrics = QFontMetrics(header.font())
    out = []
    for c in range(header.count()):
        if header.isSectionHidden(c):
            continue
        text = (str(table.model().headerData(c, Qt.Orientation.Horizontal) or "") if isinstance(table, QTableView)
                else table.headerItem().text(c))
        if not text:
            continue
        lines = text.split("\n")
        wide = max(metrics.horizontalAdvance(line) for line in lines) + 8  # the style's margins
        high = metrics.lineSpacing() * len(lines)
        if wide > header.sectionSize(c) or high > header.height():
            out.append(f"{table.objectName()}[{c}] {text!r}: needs {wide}×{high}, has "
                       f"{header.sectionSize(c)}×{header.height()}")
    return out


def test_analyst_exports_the_tab_on_display_and_reads_true_hover_text(qtbot, window: MainWindow,  # noqa: F811
                                                                     tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert build_demo(window.engine).ok
    window.library.refresh_spaces(select="demo")
    _settle(qtbot)
    screen = window.analysis
    window.rail.setCurrentRow(_index(window, screen))
    screen.question.setText(Q)
    screen.draw()
    _settle(qtbot)
    sm = screen.star
    assert sm is not None
    # Hover: a kept point beyond its cut never says it passed the cut.
    for p in sm.points:
        text = screen.describe(p)
        if p.status != "dropped" and p.cut is not None and p.distance > p.cut:
            assert "passed the cut" not in text and "beyond its cut" in text, text
    screen.star_canvas.draw()
    ax = screen.star_canvas.figure.axes[0]
    target = next(p for p in sm.points if p.status != "dropped")
    x, y = ax.transData.transform((target.angle, target.radius))
    screen._hovered(SimpleNamespace(x=x, y=y))
    assert target.document in screen.hover.text()
    # A new question: the last question's hover text goes.
    screen.question.setText("Who do I contact for support?")
    screen.draw()
    _settle(qtbot)
    assert target.document not in screen.hover.text() or target.reason not in screen.hover.text()
    assert screen.hover.text().startswith("Hover a point")
    # The histogram's dashed median line is named in its legend.
    screen.hist_canvas.draw()
    legend = [t.get_text() for t in screen.hist_canvas.figure.axes[0].get_legend().get_texts()]
    assert any(t.startswith("unrelated questions' median") for t in legend), legend
    # The ring labels on the console's canvas, at either window size (relaid when the canvas is resized).
    for size in ((1024, 700), (1600, 1000)):
        window.resize(*size)
        qtbot.waitUntil(lambda: not screen._relabel.isActive(), timeout=5_000)
        screen.star_canvas.draw()
        renderer = screen.star_canvas.get_renderer()
        ax = screen.star_canvas.figure.axes[0]
        texts = [t for t in ax.texts if t.get_gid() == "ring_label"] + [t for t in ax.get_yticklabels()
                                                                         if t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in texts]
        assert texts and not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), size
    # CSV of each tab: the figures behind what is on display.
    screen.tabs.setCurrentIndex(0)
    star = _csv(screen.export(tmp_path / "star.csv"))
    assert star[0][:3] == ["kind", "name", "document"]
    assert {r[4] for r in star[1:] if r[0] == "point"} == {p.chunk_id for p in screen.star.points}
    assert any(r[0] == "ring" and r[1] == "unrelated median" for r in star[1:])
    screen.tabs.setCurrentIndex(1)
    _settle(qtbot)
    col = _csv(screen.export(tmp_path / "col.csv"))
    assert col[0] == ["chunk_id", "document", "group", "x", "y"] and len(col) - 1 >= len(screen.col.chunk_ids)
    screen.tabs.setCurrentIndex(2)
    dist = _csv(screen.export(tmp_path / "dist.csv"))
    assert sum(r[0] == "chunk" for r in dist[1:]) == window.engine.space("demo").chunks
    # The Evaluation tab: its own figure in the PNG, its run in the CSV.
    qs = tmp_path / "set.jsonl"
    qs.write_text("\n".join(json.dumps(i) for i in [
        {"question": Q, "expected_document": "Tallow Plans and Pricing"},
        {"question": "Why do cats purr when they are happy?", "unanswerable": True}]), encoding="utf-8")
    screen.tabs.setCurrentIndex(3)
    with pytest.raises(ValueError, match="Nothing is drawn"):
        screen.export(tmp_path / "none.csv")  # no run yet: said, not an empty file
    screen.evaluation.eval_file.setText(str(qs))
    screen.evaluation.evaluate()
    _settle(qtbot)
    assert screen.current_figure() is screen.evaluation.eval_canvas.figure
    title = screen.evaluation.eval_canvas.figure.axes[0].get_title()
    assert "nearest-chunk distance of each question" in title
    assert screen.export(tmp_path / "eval.png").stat().st_size > 1000
    rows = _csv(screen.export(tmp_path / "eval.csv"))
    assert ["metric", "full", "", "", "hit_rate"] == rows[1][:5] or any(
        r[:2] == ["metric", "full"] and r[4] == "hit_rate" for r in rows)
    assert {r[2] for r in rows if r[0] == "question"} == {Q, "Why do cats purr when they are happy?"}
    # The metrics say what they count, and no header is cut (font metrics).
    assert "unanswerable" in screen.evaluation.metrics.horizontalHeaderItem(1).text()
    assert "all questions" in screen.evaluation.metrics.horizontalHeaderItem(2).text()
    assert screen.evaluation.metrics.horizontalHeaderItem(1).toolTip() and screen.evaluation.metrics_note.text()
    for size in ((1024, 700), (1600, 1000)):
        window.resize(*size)
        qtbot.wait(50)
        assert clipped_headers(screen.evaluation.metrics) == []
        header = screen.evaluation.metrics.horizontalHeader()  # and every column in view, none scrolled half out of it
        assert all(0 <= header.sectionViewportPosition(c) and header.sectionViewportPosition(c)
                   + header.sectionSize(c) <= header.viewport().width() for c in range(header.count())), size
    # A missing question set: said in words, no traceback, and the status line no longer says it is running.
    screen.evaluation.eval_file.setText(str(tmp_path / "no-such-set.jsonl"))
    boxes: list[QMessageBox] = []
    qtbot.waitUntil(lambda: True)
    screen.evaluation.evaluate()
    _settle(qtbot)
    boxes = [b for b in window.findChildren(QMessageBox) if b.objectName() == "error_box" and b.isVisible()]
    assert boxes and "no such file or folder" in boxes[-1].text() and not boxes[-1].detailedText()
    assert "Running" not in screen.status.text() and "did not run" in screen.status.text()
    assert "no such file or folder" in window.statusBar().currentMessage()
    for b in boxes:
        b.close()


def _web_space(qtbot, window: MainWindow, web: str, name: str) -> Any:  # type: ignore[no-untyped-def]  # noqa: F811
    engine = window.engine
    engine.settings.web.search_url = f"{web}/search"
    engine.settings.web.allow_private = ["127.0.0.1"]  # the loopback server plays the public web (issue 59)
    lib = window.library
    lib.create_space(name, encrypted=False)
    _settle(qtbot)
    lib.ingest([ROOT / "resources" / "demo" / "pricing.md"])
    _wait_ingest(qtbot, window)
    engine.web.set_enabled(name, True)
    return engine


def test_operator_review_safeguards(qtbot, window: MainWindow, web: str,  # noqa: F811
                                    monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    engine = _web_space(qtbot, window, web, "ops")
    Web.results = ["/hostile"]  # a page that addresses a model: flagged
    flagged = engine.answer("ops", "When was the Mozilla community created?").review_id
    assert flagged and engine.web.item(flagged).flagged
    Web.results = ["/lemurs"]
    plain = engine.answer("ops", "Where do lemurs live?").review_id
    assert plain and plain != flagged
    screen = window.review
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    assert screen.shown_id == flagged
    asked: list[str] = []

    def refuse(box: QMessageBox) -> int:
        asked.append(box.text())
        return int(QMessageBox.StandardButton.No)

    monkeypatch.setattr(QMessageBox, "exec", refuse)
    QTest.keyClick(screen.queue, Qt.Key.Key_A)  # one key does not approve a flagged item...
    _settle(qtbot)
    assert asked and "addressed to a model" in asked[0] and engine.web.item(flagged).status == "pending"
    monkeypatch.setattr(QMessageBox, "exec", lambda box: int(QMessageBox.StandardButton.Yes))
    QTest.keyClick(screen.queue, Qt.Key.Key_A)  # ...until the operator says yes to the named flag
    _settle(qtbot)
    assert engine.web.item(flagged).status == "approved"
    # Reject by key asks for the optional reason, stored with the rejection.
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("off topic for ops", True))
    assert screen.shown_id == plain
    QTest.keyClick(screen.queue, Qt.Key.Key_X)
    _settle(qtbot)
    rejected = engine.web.item(plain)
    assert rejected.status == "rejected" and rejected.reason == "off topic for ops"
    # An edit is the operator's: stored with author and time, shown as edited.
    QTest.keyClick(screen.queue, Qt.Key.Key_Backspace)  # undo the rejection
    _settle(qtbot)
    assert engine.web.item(plain).status == "pending" and screen.shown_id == plain
    QTest.keyClick(screen.queue, Qt.Key.Key_E)
    screen.entry.moveCursor(screen.entry.textCursor().MoveOperation.End)
    QTest.keyClicks(screen.entry, " Checked against a field guide.")
    QTest.keyClick(screen.entry, Qt.Key.Key_Escape)
    QTest.keyClick(screen.queue, Qt.Key.Key_A)
    _settle(qtbot)
    item = engine.web.item(plain)
    assert item.status == "approved" and item.edited_by == engine.web.keys.owner[1] and item.edited_at
    screen.filter.setCurrentIndex(1)  # all
    _settle(qtbot)
    screen.model.current = next(i for i, it in enumerate(screen.model.state.items) if it.review_id == plain)
    screen._render()
    assert f"Edited by {item.edited_by}" in screen.compare.toPlainText()
    assert any("[edited]" in screen.queue.item(i).text() for i in range(screen.queue.count()))


def test_search_endpoint_is_set_and_tested_in_settings_and_a_failure_is_said(  # type: ignore[no-untyped-def]
        qtbot, window: MainWindow, web: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    engine = _web_space(qtbot, window, web, "asked")
    engine.settings.web.search_url = ""
    st = window.settings_screen
    window.rail.setCurrentRow(_index(window, st))
    Web.results = ["/lemurs"]
    st.search_url.setText(f"{web}/search")
    st.search_test.click()
    _settle(qtbot)
    assert "The endpoint works: 1 result(s)" in st.search_status.text() and "/lemurs" in st.search_status.text()
    st.search_save.click()
    _settle(qtbot)
    assert engine.settings.web.search_url == f"{web}/search"
    assert f'search_url = "{web}/search"' in (engine.home / "config.toml").read_text()
    assert engine.web.ready("asked")  # at once: no restart
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/search"
    st.search_url.setText(dead)
    st.search_test.click()
    _settle(qtbot)
    assert "does not work" in st.search_status.text() and "connection refused" in st.search_status.text()
    assert "does not work" in window.statusBar().currentMessage()
    st.search_url.setText("searx.local/search")
    st.search_save.click()
    _settle(qtbot)
    assert "Not saved" in st.search_status.text() and "http://" in st.search_status.text()
    # Asked with the search down: the answer and the status bar say the search failed.
    engine.settings.web.search_url = dead
    ins = window.inspector
    window.rail.setCurrentRow(1)
    ins.question.setText("Where do lemurs live?")
    ins.ask()
    qtbot.waitUntil(lambda: not ins.busy, timeout=60_000)
    _settle(qtbot)
    assert "could not be done" in ins.answer_view.toPlainText()
    assert ins.status.text().startswith("public search failed")
    assert window.statusBar().currentMessage().startswith("public search failed")


def test_curator_space_switches_and_exact_follows_use(qtbot, window: MainWindow,  # noqa: F811
                                                     tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _books_csv(tmp_path / "books.csv", rows=30)
    lib = window.library
    lib.create_space("books", encrypted=False)
    _settle(qtbot)
    lib.ingest([tmp_path / "books.csv"])
    _wait_ingest(qtbot, window)
    lib.create_space("other", encrypted=False)
    _settle(qtbot)
    lib.ingest([ROOT / "resources" / "demo" / "pricing.md"])
    lib.model.select("books")  # chosen while the other space is being ingested
    _wait_ingest(qtbot, window)
    assert lib.model.current == "books" and window.structured.model.space == "books"
    screen = window.structured
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    image = _row(screen, "image_url")
    screen.fields.item(image, USE).setCheckState(Qt.CheckState.Unchecked)
    exact = screen.fields.item(image, EXACT)
    assert exact.checkState() == Qt.CheckState.Unchecked and not exact.flags() & Qt.ItemFlag.ItemIsEnabled
    screen.build()
    _settle(qtbot)
    assert "image_url" not in screen.model.state.info.spec.names
    exact = screen.fields.item(_row(screen, "image_url"), EXACT)
    assert exact.checkState() == Qt.CheckState.Unchecked  # after the build too
    screen.question.setText("How many books were published before 1950?")
    screen.try_question()
    _settle(qtbot)
    assert "SELECT count(*)" in screen.outcome.toPlainText() and screen.rows.rowCount()
    lib.model.select("other")
    _settle(qtbot)
    assert screen.outcome.toPlainText() == "" and screen.rows.rowCount() == 0 and not screen.question.text()


def test_no_header_is_clipped_on_any_screen(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    assert build_demo(window.engine).ok
    window.library.refresh_spaces(select="demo")
    _settle(qtbot)
    for size in ((1024, 700), (1600, 1000)):
        window.resize(*size)
        for index in range(len(window.screens)):
            window.show_screen(index)
            _settle(qtbot)
            qtbot.wait(20)
            for table in window.stack.currentWidget().findChildren(QTableView) + \
                    window.stack.currentWidget().findChildren(QTreeWidget):
                header = table.horizontalHeader() if isinstance(table, QTableView) else table.header()
                if not table.isVisible() or not header.isVisible():
                    continue
                stretch = {c for c in range(header.count())
                           if header.sectionResizeMode(c) == QHeaderView.ResizeMode.Stretch}
                assert [c for c in clipped_headers(table) if int(c.split("[")[1].split("]")[0]) not in stretch] \
                    == [], (size, index)


def test_chinese_screens_carry_no_english_in_the_states_an_operator_and_analyst_reach(  # type: ignore[no-untyped-def]
        qtbot, web: str, engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Issue 60, in zh_CN: a web answer with a page read but not used, its review item, a failed search, the Settings
    endpoint test and a missing question set — every visible string (labels, lists, tables, answers, the status bar,
    the error box) has Chinese or is a name, and a Chinese sentence never ends in an ASCII ". "."""
    import re

    from biny.console import i18n
    from biny.core import set_language as core_set_language
    from tests.console.test_i18n import _CJK, _pump_station, _texts, _untranslated, _window

    assert i18n.install("zh_CN")
    try:
        Web.pages["/zh-lemurs"] = (200, "text/html", (
            "<html><head><title>狐猴</title></head><body><article><h1>狐猴</h1>"
            "<p>狐猴是只生活在马达加斯加岛上的灵长类动物，栖息在岛上的森林里，从东部的雨林到南部的干旱多刺林。</p>"
            "<p>大多数狐猴在白天活动，以水果、树叶和花为食。</p></article></body></html>").encode())
        _pump_station(engine, tmp_path)
        engine.settings.web.search_url = f"{web}/search"
        engine.settings.web.allow_private = ["127.0.0.1"]  # the loopback server plays the public web (issue 59)
        engine.web.set_enabled("泵站", True)
        window = _window(qtbot, engine, tmp_path)
        _settle(qtbot)
        seen: list[tuple[str, str]] = []
        Web.results = ["/zh-lemurs", "/sourdough"]
        ins = window.inspector
        window.show_screen(1)
        ins.question.setText("狐猴生活在哪里？")
        ins.ask()
        qtbot.waitUntil(lambda: not ins.busy, timeout=60_000)
        _settle(qtbot)
        assert ins.result is not None and ins.result.answer is not None and ins.result.answer.mode == "web"
        seen += list(_texts(window))
        window.show_screen(_index(window, window.review))
        _settle(qtbot)
        assert window.review.queue.count() == 1
        seen += list(_texts(window))
        # The search down: the answer and the status bar.
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{s.getsockname()[1]}/search"
        engine.settings.web.search_url = dead
        window.show_screen(1)
        ins.question.setText("蜂鸟吃什么？")
        ins.ask()
        qtbot.waitUntil(lambda: not ins.busy, timeout=60_000)
        _settle(qtbot)
        assert "公开搜索失败" in window.statusBar().currentMessage()
        seen += [*_texts(window), ("status bar", window.statusBar().currentMessage())]
        st = window.settings_screen
        window.show_screen(_index(window, st))
        st.search_url.setText(dead)
        st.search_test.click()
        _settle(qtbot)
        seen += [("search status", st.search_status.text()), ("status bar", window.statusBar().currentMessage())]
        # A missing question set on the Analysis screen.
        screen = window.analysis
        window.show_screen(_index(window, screen))
        screen.tabs.setCurrentIndex(3)
        screen.evaluation.eval_file.setText(str(tmp_path / "没有的问题集.jsonl"))
        screen.evaluation.evaluate()
        _settle(qtbot)
        boxes = [b for b in window.findChildren(QMessageBox) if b.objectName() == "error_box" and b.isVisible()]
        assert boxes and not boxes[-1].detailedText()
        seen += [("error box", b.text()) for b in boxes] + [("analysis status", screen.status.text()),
                                                          ("status bar", window.statusBar().currentMessage())]
        seen = [(w, t) for w, t in seen if "Sourdough baking at home" not in t]  # the unused page's own title
        untranslated = sorted({f"{what}: {text!r}" for what, text in seen if _untranslated(text)})
        assert untranslated == [], "\n".join(untranslated)
        ascii_stop = sorted({f"{what}: {text!r}" for what, text in seen
                             if re.search(r"[\u3400-\u9fff”]\. ", re.sub(r"<[^>]+>", "", text))})
        assert ascii_stop == [], "\n".join(ascii_stop)
        assert _CJK.search(window.review.headline.text())
        for b in boxes:
            b.close()
        window.close()
    finally:
        Web.pages.pop("/zh-lemurs", None)
        i18n.install("en")
        core_set_language(None)


def test_the_librarys_columns_hold_their_values_even_from_remembered_widths(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """Issue 60: the date column was cut — widths remembered from another language, or fitted before longer values
    arrived. Every value but the (elided, stretched) title fits its column, by the table's font metrics."""
    assert build_demo(window.engine).ok
    lib = window.library
    lib.table.columns_sized = True  # as when widths were restored from an earlier session...
    for c in range(1, lib.table.columnCount()):
        lib.table.setColumnWidth(c, 30)  # ...narrower than today's values
    lib.refresh_spaces(select="demo")
    _settle(qtbot)
    metrics = QFontMetrics(lib.table.font())
    # The item view's text margin: the style's focus-frame margin plus one, on either side.
    margin = 2 * (lib.table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1)
    assert lib.table.rowCount() > 3
    for r in range(lib.table.rowCount()):
        for c in range(1, lib.table.columnCount()):
            text = lib.table.cell(r, c)
            assert metrics.horizontalAdvance(text) + margin <= lib.table.columnWidth(c), (c, text)
    assert clipped_headers(lib.table) == [] or all("[0]" in h for h in clipped_headers(lib.table))
