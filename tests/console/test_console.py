"""The console driven offscreen through its real screens (pytest-qt)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel

from biny.console import ops
from biny.console.app import MainWindow
from biny.console.ops import wait_all
from biny.console.screens.inspector import NO_PASSAGE, STAGE_ROLE
from biny.console.screens.review import QUEUE_KEYS
from biny.core.engine import Engine
from tests.conftest import corpus

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def window(qtbot, engine: Engine, tmp_path: Path):  # type: ignore[no-untyped-def]
    w = MainWindow(engine, None, QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    _settle(qtbot)
    yield w
    wait_all()


def _settle(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Wait until every background op has finished and delivered its result to the UI."""
    qtbot.waitUntil(ops.idle, timeout=180_000)


def _index(window: MainWindow, screen: object) -> int:
    return [w for _, w in window.screens].index(screen)  # type: ignore[arg-type]


def _wait_ingest(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.library.op is None, timeout=180_000)
    _settle(qtbot)


def _one_document(qtbot, window: MainWindow, space: str, path: Path):  # type: ignore[no-untyped-def]
    """A new space holding one ingested document, selected in the Library."""
    lib = window.library
    lib.create_space(space)
    _settle(qtbot)
    lib.ingest([path])
    _wait_ingest(qtbot, window)
    lib.table.selectRow(0)
    return lib


def _rendered(path: Path, widget) -> bool:  # type: ignore[no-untyped-def]
    """A screenshot of the widget's full size with real content: many distinct colours (text, widgets)."""
    from PySide6.QtGui import QImage

    img = QImage(str(path))
    colours = {img.pixel(x, y) for x in range(0, img.width(), 6) for y in range(0, img.height(), 6)}
    return img.width() == widget.width() and img.height() == widget.height() and len(colours) >= 40


def test_create_space_ingest_and_ask(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shots = tmp_path / "screens"
    shots.mkdir()
    lib = window.library
    lib.create_space("laws")
    _settle(qtbot)
    assert lib.current_space == "laws"
    seen: list[int] = []
    lib.ingestion.overall_progress.valueChanged.connect(seen.append)
    lib.ingest([corpus("cn_laws", "民法典__附则.md"), corpus("python_peps", "pep-0020.rst")])
    _wait_ingest(qtbot, window)
    assert lib.ingestion.overall_progress.value() == lib.ingestion.overall_progress.maximum() == 2
    assert lib.table.rowCount() == 2
    assert "2 ingested" in lib.ingestion.progress_label.text()
    lib.table.selectRow(0)
    assert "Chunks" in lib.report.toPlainText()
    window.grab().save(str(shots / "library.png"))

    window.rail.setCurrentRow(1)
    insp = window.inspector
    insp.question.setText("Is flat better than nested?")
    insp.ask()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    assert insp.context.count() >= 1
    assert insp.result is not None and insp.result.chunks[0].document == "PEP 20 – The Zen of Python"
    names = [insp.stages.topLevelItem(i).data(0, STAGE_ROLE) for i in range(insp.stages.topLevelItemCount())]
    assert names == ["rewrite", "pool", "threshold", "relevance", "sentences", "identifiers", "second_pass", "rerank",
                     "nearest", "budget", "final", "answer"]
    window.grab().save(str(shots / "inspector.png"))

    insp.question.setText("And is it better than nested code?")  # a follow-up: rewritten for retrieval
    insp.ask()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    assert insp.result is not None and insp.result.trace.stage("rewrite").data.method != "none"
    assert "Searched as" in insp.status.text()

    insp.question.setText("What is the best way to grow tomatoes on a balcony?")
    insp.ask()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    assert insp.context.count() == 0
    assert NO_PASSAGE in insp.status.text()
    window.grab().save(str(shots / "inspector_empty.png"))

    window.rail.setCurrentRow(_index(window, window.settings_screen))
    assert window.settings_screen.encryption.text() == "this space is encrypted"
    assert "· encrypted" in window.space_label.text()
    st = window.settings_screen
    st.llm_url.setText("http://127.0.0.1:9/v1")
    st.llm_model.setText("local-model")
    st.llm_key.setText("sk-test")
    st.save_llm()
    _settle(qtbot)
    assert "Saved." in st.llm_status.text() and not st.llm_key.text()
    config = (window.engine.home / "config.toml").read_text(encoding="utf-8")
    assert "local-model" in config and "sk-test" not in config  # the key never lands in the file
    window.grab().save(str(shots / "settings.png"))
    assert all(_rendered(shots / f, window) for f in
               ("library.png", "inspector.png", "inspector_empty.png", "settings.png"))


def test_cancel_leaves_nothing_half_added(qtbot, window: MainWindow, engine: Engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("民法典__继承编.md", "民法典__人格权编.md", "民法典__附则.md"):
        shutil.copy(corpus("cn_laws", name), docs / name)
    lib = window.library
    lib.create_space("s")
    _settle(qtbot)
    cancelled = False

    def cancel_on_first_embed(p) -> None:  # type: ignore[no-untyped-def]
        nonlocal cancelled
        if p.stage == "embed" and not cancelled:
            cancelled = True
            lib.cancel_ingest()

    lib.model.connect("progress", cancel_on_first_embed)
    lib.ingest([docs])
    assert lib.op is not None
    _wait_ingest(qtbot, window)
    assert cancelled and "cancelled" in lib.ingestion.progress_label.text()
    sid = engine.catalog.spaces.named("s").space_id
    visible = engine.documents("s")
    assert engine.chunks.doc_ids(sid) == {d.doc_id for d in visible}
    assert engine.chunks.count(sid) == sum(d.chunks for d in visible)
    assert len(visible) < 3
    assert lib.table.rowCount() == len(visible)


def test_locked_space_unlocks_with_its_passphrase(qtbot, window: MainWindow, engine: Engine,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lib = window.library
    lib.create_space("vault", passphrase="open sesame", remember=False)
    _settle(qtbot)
    lib.ingest([corpus("python_peps", "pep-0020.rst")])
    _wait_ingest(qtbot, window)
    monkeypatch.delenv("BINY_PASSPHRASE")
    engine.keys.lock_all()  # a new session: nothing unlocked yet
    lib.refresh_spaces(select="vault")
    _settle(qtbot)
    assert lib.locked and lib.spaces_panel.unlock_btn.isVisible()
    assert lib.table.rowCount() == 0 and "locked" in lib.empty_hint.text()
    assert "locked" in window.space_label.text()
    errors: list[str] = []
    lib.error.connect(lambda msg, _detail: errors.append(msg))
    lib.unlock("wrong")
    _settle(qtbot)
    assert errors and "does not open space 'vault'" in errors[0]
    assert lib.locked
    lib.unlock("open sesame")
    _settle(qtbot)
    assert not lib.locked and lib.table.rowCount() == 1
    window.grab().save(str(tmp_path / "unlocked.png"))


def test_identifier_question_marks_the_pinned_chunk_and_more_material(  # type: ignore[no-untyped-def]
        qtbot, window: MainWindow, tmp_path: Path) -> None:
    from biny.console.screens.inspector import _HitRow

    lib = window.library
    lib.create_space("laws")
    _settle(qtbot)
    lib.ingest([corpus("cn_laws", "民法典__继承编.md"), corpus("cn_laws", "社会法__劳动法(2018-12-29).md")])
    _wait_ingest(qtbot, window)
    insp = window.inspector
    window.rail.setCurrentRow(1)
    insp.question.setText("劳动法第十八条规定了哪些劳动合同无效？")
    insp.ask()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    first = insp.context.itemWidget(insp.context.item(0))
    assert isinstance(first, _HitRow) and first.hit.pinned
    assert "PINNED" in first.findChild(QLabel, "pinned").text()
    # Drawn by the decision that kept it, never as rejected (a pin may lie beyond the distance cut).
    assert first.bar.decision == "other" and "pinned" in first.findChild(QLabel, "kept_by").text()
    assert "第十八条" in insp.chunk_view.toPlainText()
    window.grab().save(str(tmp_path / "inspector_pinned.png"))

    insp.question.setText("继承人有哪些权利？")
    insp.k.setValue(2)
    insp.auto_cut.setChecked(False)
    insp.cut.setValue(0.5)
    insp.ask()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    assert insp.more_btn.isEnabled()
    before = insp.context.count()
    insp.more()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    assert insp.context.count() > before and not insp.more_btn.isEnabled()


class _UIThreadGuard:
    """Stands in for the engine and records every use of it on the UI thread.

    The console may read only ``home`` and ``settings`` (plain values) on the UI thread; any
    other attribute — a method, the memory namespace, the embedder — is touched there only
    if it is called there, which the console must never do (it goes through console/ops.py).
    Deterministic: it checks *where* engine work runs, not how long the event loop waited.
    """

    ALLOWED = frozenset({"home", "settings"})

    def __init__(self, target: object, used: list[str], prefix: str = "") -> None:
        self._target, self._used, self._prefix = target, used, prefix

    def __getattr__(self, name: str) -> object:
        import threading

        if threading.current_thread() is threading.main_thread() and name not in self.ALLOWED:
            self._used.append(self._prefix + name)
        value = getattr(self._target, name)
        return _UIThreadGuard(value, self._used, "memory.") if name == "memory" else value


def test_no_engine_work_on_the_ui_thread(qtbot, engine: Engine, tmp_path: Path,  # type: ignore[no-untyped-def]
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Create, switch, lock and unlock spaces, ingest 20 documents, add and recall facts, ask: all off the UI thread."""
    docs = tmp_path / "twenty"
    docs.mkdir()
    source = corpus("cn_laws", "民法典__继承编.md").read_text(encoding="utf-8").split("\n\n")
    for i in range(20):
        (docs / f"doc{i:02d}.md").write_text("\n\n".join(source[i * 3 : i * 3 + 6]) or "x", encoding="utf-8")
    used: list[str] = []
    window = MainWindow(_UIThreadGuard(engine, used),  # type: ignore[arg-type]
                        None, QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    _settle(qtbot)
    lib = window.library
    lib.create_space("twenty", passphrase="first passphrase", remember=False)
    _settle(qtbot)
    lib.ingest([docs])
    _wait_ingest(qtbot, window)
    assert lib.table.rowCount() == 20
    lib.create_space("other", encrypted=False)
    _settle(qtbot)
    lib.select_space("twenty")
    _settle(qtbot)
    assert lib.current_space == "twenty"
    monkeypatch.delenv("BINY_PASSPHRASE")
    engine.keys.lock_all()  # the test, not the console, locks: a new session
    lib.refresh_spaces(select="twenty")
    _settle(qtbot)
    assert lib.locked
    lib.unlock("first passphrase")
    _settle(qtbot)
    assert not lib.locked and lib.table.rowCount() == 20
    window.rail.setCurrentRow(_index(window, window.memory))
    window.memory.add("Ana reads the inheritance chapter first.", "user:ana")
    _settle(qtbot)
    errors: list[str] = []
    window.memory.error.connect(lambda msg, _d: errors.append(msg))
    window.memory.question.setText("What does Ana read first?")
    window.memory.recall()
    _settle(qtbot)
    assert window.memory.result is not None, errors
    window.rail.setCurrentRow(1)
    window.inspector.question.setText("遗产按照什么顺序继承？")
    window.inspector.ask()
    _settle(qtbot)
    assert window.inspector.result is not None and window.inspector.result.chunks
    window.rail.setCurrentRow(_index(window, window.structured))  # reads the index: off the UI thread
    _settle(qtbot)
    assert used == []


def test_memory_screen_facts_and_recall_chain(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    mem = window.memory
    window.rail.setCurrentRow(_index(window, window.memory))
    mem.add("Ana drinks her coffee black, without sugar.", "user:ana")
    mem.add("Ana prefers oat milk in a latte.", "user:ana")
    mem.add("Bob takes two sugars.", "user:bob")
    _settle(qtbot)
    mem.scope.setCurrentText("user:ana")
    _settle(qtbot)
    assert mem.table.rowCount() == 2
    assert [mem.scope.itemText(i) for i in range(mem.scope.count())] == ["user:ana", "user:bob"]
    mem.table.selectRow(0)
    fid = mem.selected()
    assert fid is not None
    mem.edit(fid, "Ana drinks her coffee black, with one sugar.")
    _settle(qtbot)
    assert any(mem.table.item(r, 2).text() == "2" for r in range(mem.table.rowCount()))
    mem.question.setText("How does Ana take her coffee?")
    mem.recall()
    qtbot.waitUntil(lambda: not mem.busy, timeout=60_000)
    steps = [mem.chain.topLevelItem(i).text(0).split()[0] for i in range(mem.chain.topLevelItemCount())]
    assert steps[:7] == ["M1", "M2", "M3", "M4", "M5", "M6", "M7"]
    assert "one sugar" in mem.block.text() and "two sugars" not in mem.block.text()
    ranked = [mem.chain.topLevelItem(3).child(i).text(1) for i in range(mem.chain.topLevelItem(3).childCount())]
    assert ranked and "Ana drinks her coffee black, with one sugar." in ranked[0]  # the fact's words, not its id
    window.grab().save(str(tmp_path / "memory.png"))


def test_inspector_shows_a_cited_answer_and_opens_its_sources(qtbot, window: MainWindow,  # type: ignore[no-untyped-def]
                                                              tmp_path: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from tests.conftest import ROOT

    lib = window.library
    lib.create_space("demo")
    _settle(qtbot)
    lib.ingest([ROOT / "resources" / "demo" / "pricing.md", ROOT / "resources" / "demo" / "handbook.md"])
    _wait_ingest(qtbot, window)
    insp = window.inspector
    window.rail.setCurrentRow(1)
    insp.question.setText("If our usage grows 30%, what will the Starter plan cost us?")
    insp.ask()
    _settle(qtbot)
    shown = insp.answer_view.toPlainText()
    assert "Extracted from the passages" in shown and "$49" in shown and "[1]" in shown
    assert "cite:1" in insp.answer_view.toHtml()  # citations are links to their passage
    turn = insp.history.item(0)  # the conversation shows the turn with its answer
    assert turn.text().startswith("You: If our usage grows 30%") and "→" in turn.text()
    assert insp.result is not None and insp.result.answer is not None and turn.toolTip() == insp.result.answer.text
    row = insp.context.itemWidget(insp.context.item(0))
    assert re.search(r"closer than (\d+% of unrelated questions|every unrelated question)",
                     row.findChild(QLabel, "hit").text())  # plain words
    insp.context.setCurrentRow(-1)
    insp.open_citation(1)
    assert insp.context.currentRow() == 0
    assert "#b2f2bb" in insp.chunk_view.toHtml()  # the quoted sentence is highlighted in its passage
    insp.copy_answer()
    copied = QApplication.clipboard().text()
    assert copied.startswith(insp.result.answer.text) and "Sources:\n[1] Tallow Plans and Pricing" in copied
    window.grab().save(str(tmp_path / "answer.png"))
    assert _rendered(tmp_path / "answer.png", window)


def test_a_model_answer_streams_into_the_inspector(qtbot, window: MainWindow, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    import threading
    from http.server import ThreadingHTTPServer

    from biny.core.llm.openai_compat import OpenAICompatible
    from tests.conftest import ROOT
    from tests.core.test_answers import ScriptedModel

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedModel)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    ScriptedModel.mode, ScriptedModel.requests = "ok", []
    ScriptedModel.respond = staticmethod(lambda body: "Starter is the smallest plan, for up to 10 sensors [1].")
    try:
        lib = window.library
        lib.create_space("demo")
        _settle(qtbot)
        lib.ingest([ROOT / "resources" / "demo" / "pricing.md"])
        _wait_ingest(qtbot, window)
        engine.models.set_llm(OpenAICompatible(f"http://127.0.0.1:{httpd.server_address[1]}/v1", "scripted"))
        insp = window.inspector
        shown: list[str] = []
        insp.model.connect("streamed", shown.append)  # the model's provisional text, as the screen receives it
        insp.question.setText("Which plan is for small workshops?")
        insp.ask()
        _settle(qtbot)
        assert len(shown) >= 3 and shown[-1].startswith("Starter is the smallest plan")  # arrived in pieces
        assert insp.result is not None and insp.result.answer is not None and insp.result.answer.mode == "model"
        assert "Composed from the passages" in insp.answer_view.toPlainText()
    finally:
        engine.models.set_llm(None)
        httpd.shutdown()
        httpd.server_close()


def test_remember_is_not_offered_where_there_is_no_keyring(qtbot, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    from biny.console.widgets.dialogs import NewSpaceDialog, UnlockDialog

    assert not engine.keys.can_remember_passphrase()  # the tests' keyring backend is the null one
    new = NewSpaceDialog(True, engine.keys.secret_source(), can_remember=False)
    unlock = UnlockDialog("vault", can_remember=False)
    qtbot.addWidget(new)
    qtbot.addWidget(unlock)
    for box in (new.remember, unlock.remember):
        assert not box.isChecked() and not box.isEnabled() and "BINY_PASSPHRASE" in box.toolTip()
    assert NewSpaceDialog(True, "OS keyring", can_remember=True).remember.isChecked()


def test_document_buttons_follow_the_selected_documents_status(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    lib = _one_document(qtbot, window, "s", corpus("python_peps", "pep-0020.rst"))
    assert lib.document_actions.archive_btn.isEnabled() and not lib.document_actions.restore_btn.isEnabled()
    assert lib.table.cell(0, 2) == "–" and re.search(r"Pages\s+–", lib.report.toPlainText())
    lib.document_actions.set_status("archived")
    _settle(qtbot)
    lib.table.selectRow(0)
    assert not lib.document_actions.archive_btn.isEnabled() and lib.document_actions.restore_btn.isEnabled()


def test_every_menu_action_and_shortcut_works(qtbot, window: MainWindow,  # type: ignore[no-untyped-def]
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialog, QFileDialog

    from biny.console.screens import library as library_screen

    opened: list[str] = []
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: (opened.append("files"), ([], ""))[1])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: (opened.append("folder"), "")[1])
    for dialog in (library_screen.NewSpaceDialog, library_screen.UnlockDialog):
        monkeypatch.setattr(dialog, "exec", lambda self, name=dialog.__name__: (opened.append(name),
                                                                               QDialog.DialogCode.Rejected)[1])
    window.library.create_space("s")
    _settle(qtbot)
    actions = {a.objectName(): a for a in window.actions_by_menu}
    keys = [a.shortcut().toString() for a in actions.values() if not a.shortcut().isEmpty()]
    assert len(keys) == len(set(keys)) == len(actions)  # every action has a shortcut, none twice

    expected_screen = {"screen_0": 0, "screen_1": 1, "screen_2": 2, "screen_3": 3, "add_files": 0, "add_folder": 0,
                       "ask": 1, "more": 1, "find": 1}
    for name, action in actions.items():
        if name == "quit":
            continue
        action.trigger()
        _settle(qtbot)
        if name in expected_screen:
            assert window.rail.currentRow() == expected_screen[name], name
    last = len(window.screens) - 1
    window.show_screen(last)
    actions["next_screen"].trigger()
    assert window.rail.currentRow() == 0  # wraps around
    actions["previous_screen"].trigger()
    assert window.rail.currentRow() == last
    assert opened.count("files") == 1 and opened.count("folder") == 1
    assert "NewSpaceDialog" in opened  # asked in the background, then shown
    # Every menu action with a key, and the review queue's own keys (A approve, X reject, …).
    assert window.shortcuts_dialog is not None
    assert window.shortcuts_dialog.table.rowCount() == len(actions) + len(QUEUE_KEYS)
    labels = [window.shortcuts_dialog.table.item(r, 0).text() for r in range(window.shortcuts_dialog.table.rowCount())]
    assert "Review queue: approve" in labels
    window.shortcuts_dialog.close()

    # The same through the keyboard (a screen switch and the shortcuts dialog).
    window.activateWindow()
    QTest.keySequence(window, actions["screen_2"].shortcut())
    assert window.rail.currentRow() == 2
    QTest.keySequence(window, actions["previous_screen"].shortcut())
    assert window.rail.currentRow() == 1
    actions["quit"].trigger()
    assert not window.isVisible()


def test_the_window_works_from_1024_by_700(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.size().toTuple() == (1024, 700), timeout=5000)
    assert window.minimumSizeHint().width() <= 1024 and window.minimumSizeHint().height() <= 700
    for i in range(len(window.screens)):
        window.show_screen(i)
        window.grab().save(str(tmp_path / f"screen{i}.png"))
        assert _rendered(tmp_path / f"screen{i}.png", window)


def test_the_trace_names_documents_and_opens_what_it_names(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    lib = window.library
    lib.create_space("mix")
    _settle(qtbot)
    lib.ingest([corpus("python_peps", "pep-0020.rst"), corpus("cn_laws", "民法典__附则.md")])
    _wait_ingest(qtbot, window)
    insp = window.inspector
    insp.question.setText("Is flat better than nested?")
    insp.ask()
    _settle(qtbot)
    result = insp.result
    assert result is not None and result.chunks
    pool = next(insp.stages.topLevelItem(i) for i in range(insp.stages.topLevelItemCount())
                if insp.stages.topLevelItem(i).text(0) == "pool")
    labels = [pool.child(i).text(1) for i in range(pool.childCount())]
    assert any(label.startswith("PEP 20") for label in labels)  # documents, not hex ids
    assert all(not re.match(r"^[0-9a-f]{10}", label) for label in labels)
    kept = next(pool.child(i) for i in range(pool.childCount()) if pool.child(i).data(0, Qt.ItemDataRole.UserRole)[0]
                == result.chunks[0].chunk_id)
    insp.context.setCurrentRow(-1)
    insp._trace_item_clicked(kept)
    assert insp.context.currentRow() == 0  # a chunk in the context opens in place
    threshold = next(insp.stages.topLevelItem(i) for i in range(insp.stages.topLevelItemCount())
                     if insp.stages.topLevelItem(i).text(0) == "threshold")
    dropped = [threshold.child(i) for i in range(threshold.childCount()) if threshold.child(i).text(0) == "dropped"]
    assert dropped and dropped[0].toolTip(1)  # the whole reason
    insp._trace_item_clicked(dropped[0])
    assert "not read or decrypted" in insp.chunk_view.toPlainText()


def test_light_dark_and_system_colours_are_applied_and_remembered(qtbot, engine: Engine,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path) -> None:
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    settings = QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat)
    window = MainWindow(engine, None, settings)
    qtbot.addWidget(window)
    _settle(qtbot)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    system = app.palette().color(QPalette.ColorRole.Window).lightness()
    try:
        window.settings_screen.appearance.setCurrentIndex(2)  # Dark
        assert app.palette().color(QPalette.ColorRole.Window).lightness() < 80
        assert app.palette().color(QPalette.ColorRole.WindowText).lightness() > 180
        qtbot.wait(100)  # the palette reaches the widgets through posted events
        window.grab().save(str(tmp_path / "dark.png"))
        assert _rendered(tmp_path / "dark.png", window)
        again = MainWindow(engine, None, settings)  # the next start remembers the choice
        qtbot.addWidget(again)
        _settle(qtbot)
        assert again.settings_screen.appearance.currentIndex() == 2
        window.settings_screen.appearance.setCurrentIndex(1)  # Light
        assert app.palette().color(QPalette.ColorRole.Window).lightness() > 200
    finally:
        window.settings_screen.appearance.setCurrentIndex(0)  # back to the system's, for the other tests
    assert app.palette().color(QPalette.ColorRole.Window).lightness() == system


def test_settings_screen_edits_retrieval_and_says_what_a_change_needs(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    from biny.core import EDITABLE_SETTINGS

    st = window.settings_screen
    # One row per editable setting, its range and help as core/config.py declares them (issue 47).
    assert list(st.tuning) == list(EDITABLE_SETTINGS)
    for name, box in st.tuning.items():
        spec = EDITABLE_SETTINGS[name]
        assert (box.minimum(), box.maximum()) == (spec.low, spec.high) and spec.help in box.toolTip(), name
    window.show_screen(len(window.screens) - 1)
    st.tuning["retrieval.k"].setValue(7)
    st.tuning["chunking.target_tokens"].setValue(250)
    st.save_tuning()
    _settle(qtbot)
    assert "re-ingest" in st.tune_status.text() and window.engine.settings.retrieval.k == 7
    st.tuning["chunking.overlap_tokens"].setValue(200)  # more than half the chunk size
    st.save_tuning()
    _settle(qtbot)
    assert st.tune_status.text().startswith("Not saved") and window.engine.settings.chunking.overlap_tokens == 30
    # The space-wide gate's words (issue 20) take effect on the next question.
    st.tuning["chunking.overlap_tokens"].setValue(30)
    st.tuning["retrieval.space_gate_words"].setValue(0.5)
    st.save_tuning()
    _settle(qtbot)
    assert window.engine.retrieval.params().space_gate_words == 0.5
    st.tuning["retrieval.space_gate_words"].setValue(0.4)
    st.save_tuning()
    _settle(qtbot)
    assert window.engine.retrieval.params().space_gate_words == 0.4


def test_column_widths_are_remembered(qtbot, engine: Engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    settings = QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat)
    first = MainWindow(engine, None, settings)
    qtbot.addWidget(first)
    _settle(qtbot)
    first.library.table.setColumnWidth(1, 133)  # the user widens "Type"
    first.memory.table.setColumnWidth(0, 151)
    first.close()
    again = MainWindow(engine, None, settings)
    qtbot.addWidget(again)
    _settle(qtbot)
    assert again.library.table.columnWidth(1) == 133 and again.memory.table.columnWidth(0) == 151


def test_the_report_names_the_pages_behind_its_counters(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from biny.core.progress import Progress, ProgressMeter

    lib = _one_document(qtbot, window, "r", corpus("pdfs", "research_report_1f978cd81fb7260c8f7644039ec2c054.pdf"))
    text = lib.report.toPlainText()
    assert re.search(r"Decorations skipped\s+6 — pages 1, 2, 3, 4", text), text
    assert re.search(r"Figures described\s+1 — page 1", text), text
    window.grab().save(str(tmp_path / "library_visual.png"))
    # Reading pages reports per page, in the label and the file's bar.
    lib.ingestion.show_progress(Progress(2, 5, "read", "scan.pdf", file="scan.pdf", file_index=0, file_count=1))
    lib.ingestion.meter = ProgressMeter()
    lib.ingestion.show_progress(Progress(2, 5, "read", "scan.pdf", file="scan.pdf", file_index=0, file_count=1,
                                         unit="pages"))
    assert lib.ingestion.progress_label.text().startswith("reading pages and figures scan.pdf")
    assert "2/5 pages" in lib.ingestion.progress_label.text()
    assert lib.ingestion.file_progress.value() == 40


def test_settings_checks_and_repairs_the_data_folder(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from biny.core.store.guard import writing

    src = tmp_path / "pep-0020.rst"
    shutil.copy(corpus("python_peps", "pep-0020.rst"), src)
    lib = _one_document(qtbot, window, "s", src)
    st = window.settings_screen
    st.check_btn.click()
    qtbot.waitUntil(lambda: st.check_btn.isEnabled() and "checked" in st.check_status.text(), timeout=60_000)
    assert "all consistent" in st.check_status.text() and not st.repair_btn.isEnabled()
    engine = window.engine
    row = engine.folder.catalog.spaces.named("s")
    with writing():  # damage the vector store behind the writer's back
        engine.folder.chunks.delete_docs(row.space_id, list(engine.folder.chunks.doc_ids(row.space_id)))
    st.check_btn.click()
    qtbot.waitUntil(lambda: st.repair_btn.isEnabled(), timeout=60_000)
    assert "damaged" in st.check_status.text() and "0 of its" in st.check_status.text()
    st.repair_btn.click()
    qtbot.waitUntil(lambda: "all repaired" in st.check_status.text(), timeout=180_000)
    assert engine.doctor.check().findings == []
    assert lib is window.library


def test_a_damaged_document_is_listed_and_says_what_to_do(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "继承编.md"  # a Chinese title in the list and the report
    shutil.copy(corpus("cn_laws", "民法典__继承编.md"), src)
    lib = _one_document(qtbot, window, "s", src)
    engine = window.engine
    row = engine.folder.catalog.spaces.named("s")
    doc_id = engine.documents("s")[0].doc_id
    engine.folder.writer.set_statuses(row.space_id, [doc_id], "damaged")  # as opening the folder marks it
    lib.refresh_documents()
    _settle(qtbot)
    lib.table.selectRow(0)
    _settle(qtbot)
    model = lib.table.model()
    cells = [model.index(0, c).data() for c in range(model.columnCount())]
    assert "damaged" in cells
    assert "Damaged:" in lib.report.toPlainText() and "Repair" in lib.report.toPlainText()
    for index, choice in ((1, "light"), (2, "dark")):
        window.settings_screen.appearance.setCurrentIndex(index)
        qtbot.wait(100)  # the palette reaches the widgets through posted events
        window.grab().save(str(tmp_path / f"library_damaged_{choice}.png"))
        assert _rendered(tmp_path / f"library_damaged_{choice}.png", window)
    window.settings_screen.appearance.setCurrentIndex(0)


def test_the_trace_shows_translated_words(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 20: an English question over a Chinese article — the passage kept beyond its cut by the question's
    looked-up words says so in the threshold stage, with its share."""
    import json

    zh = json.loads(corpus("xquad", "xquad.zh.json").read_text(encoding="utf-8"))["data"][1]  # Warsaw
    article = tmp_path / "华沙.txt"
    article.write_text("\n\n".join(p["context"] for p in zh["paragraphs"]), encoding="utf-8")
    _one_document(qtbot, window, "华沙", article)
    insp = window.inspector
    insp.question.setText("Where was the Summer Theatre located?")
    insp.ask()
    _settle(qtbot)
    assert insp.result is not None and any("萨克森花园" in h.text for h in insp.result.chunks)
    threshold = next(insp.stages.topLevelItem(i) for i in range(insp.stages.topLevelItemCount())
                     if insp.stages.topLevelItem(i).data(0, STAGE_ROLE) == "threshold")
    kept = [threshold.child(i).text(1) for i in range(threshold.childCount()) if threshold.child(i).text(0) == "kept"]
    assert any(re.search(r"kept beyond its cut: translated words \d+%", label) for label in kept)
    assert "dictionary: " in threshold.text(1) and "theatre (" in threshold.text(1)
    row = insp.context.itemWidget(insp.context.item(0))
    assert "holds renderings of" in " ".join(label.text() for label in row.findChildren(QLabel))
