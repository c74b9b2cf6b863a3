"""The console driven offscreen through its real screens (pytest-qt)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QLabel

from biny.console.app import MainWindow
from biny.console.ops import wait_all
from biny.console.screens.inspector import NO_PASSAGE
from biny.core.engine import Engine
from tests.conftest import corpus

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def window(qtbot, engine: Engine, tmp_path: Path):  # type: ignore[no-untyped-def]
    w = MainWindow(engine, None, QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    yield w
    wait_all()


def _wait_ingest(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: window.library.op is None, timeout=180_000)


def test_create_space_ingest_and_ask(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shots = tmp_path / "screens"
    shots.mkdir()
    lib = window.library
    lib.create_space("laws")
    assert lib.current_space == "laws"
    seen: list[int] = []
    lib.overall_progress.valueChanged.connect(seen.append)
    lib.ingest([corpus("cn_laws", "民法典__附则.md"), corpus("python_peps", "pep-0020.rst")])
    _wait_ingest(qtbot, window)
    assert lib.overall_progress.value() == lib.overall_progress.maximum() == 2
    assert lib.table.rowCount() == 2
    assert "2 ingested" in lib.progress_label.text()
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
    names = [insp.stages.topLevelItem(i).text(0) for i in range(insp.stages.topLevelItemCount())]
    assert names == ["rewrite", "pool", "threshold", "identifiers", "second_pass", "rerank", "nearest", "budget",
                     "final"]
    window.grab().save(str(shots / "inspector.png"))

    insp.question.setText("And is it better than nested code?")  # a follow-up: rewritten for retrieval
    insp.ask()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    assert insp.result is not None and insp.result.trace.stage("rewrite").data["method"] != "none"
    assert "Searched as" in insp.status.text()

    insp.question.setText("What is the best way to grow tomatoes on a balcony?")
    insp.ask()
    qtbot.waitUntil(lambda: not insp.busy, timeout=60_000)
    assert insp.context.count() == 0
    assert NO_PASSAGE in insp.status.text()
    window.grab().save(str(shots / "inspector_empty.png"))

    window.rail.setCurrentRow(3)
    assert window.settings_screen.encryption.text() == "this space is encrypted"
    assert "· encrypted" in window.space_label.text()
    st = window.settings_screen
    st.llm_url.setText("http://127.0.0.1:9/v1")
    st.llm_model.setText("local-model")
    st.llm_key.setText("sk-test")
    st.save_llm()
    assert "Saved." in st.llm_status.text() and not st.llm_key.text()
    config = (window.engine.home / "config.toml").read_text(encoding="utf-8")
    assert "local-model" in config and "sk-test" not in config  # the key never lands in the file
    window.grab().save(str(shots / "settings.png"))
    assert all((shots / f).stat().st_size > 10_000 for f in
               ("library.png", "inspector.png", "inspector_empty.png", "settings.png"))


def test_cancel_leaves_nothing_half_added(qtbot, window: MainWindow, engine: Engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("民法典__继承编.md", "民法典__人格权编.md", "民法典__附则.md"):
        shutil.copy(corpus("cn_laws", name), docs / name)
    lib = window.library
    lib.create_space("s")
    cancelled = False

    def cancel_on_first_embed(p) -> None:  # type: ignore[no-untyped-def]
        nonlocal cancelled
        if p.stage == "embed" and not cancelled:
            cancelled = True
            lib.cancel_ingest()

    lib.ingest([docs])
    assert lib.op is not None
    lib.op.signals.progress.connect(cancel_on_first_embed)
    _wait_ingest(qtbot, window)
    assert cancelled and "cancelled" in lib.progress_label.text()
    sid = engine.catalog.space("s").space_id
    visible = engine.documents("s")
    assert engine.chunks.doc_ids(sid) == {d.doc_id for d in visible}
    assert engine.chunks.count(sid) == sum(d.chunks for d in visible)
    assert len(visible) < 3
    assert lib.table.rowCount() == len(visible)


def test_locked_space_unlocks_with_its_passphrase(qtbot, window: MainWindow, engine: Engine,  # type: ignore[no-untyped-def]
                                                  monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lib = window.library
    lib.create_space("vault", passphrase="open sesame", remember=False)
    lib.ingest([corpus("python_peps", "pep-0020.rst")])
    _wait_ingest(qtbot, window)
    monkeypatch.delenv("BINY_PASSPHRASE")
    engine.lock_all()  # a new session: nothing unlocked yet
    lib.refresh_spaces(select="vault")
    assert lib.locked and lib.unlock_btn.isVisible()
    assert lib.table.rowCount() == 0 and "locked" in lib.empty_hint.text()
    assert "locked" in window.space_label.text()
    errors: list[str] = []
    lib.error.connect(lambda msg, _detail: errors.append(msg))
    assert not lib.unlock("wrong")
    assert errors and "does not open space 'vault'" in errors[0]
    assert lib.unlock("open sesame")
    assert not lib.locked and lib.table.rowCount() == 1
    window.grab().save(str(tmp_path / "unlocked.png"))


def test_identifier_question_marks_the_pinned_chunk_and_more_material(  # type: ignore[no-untyped-def]
        qtbot, window: MainWindow, tmp_path: Path) -> None:
    from biny.console.screens.inspector import _HitRow

    lib = window.library
    lib.create_space("laws")
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


def test_ui_thread_keeps_running_during_a_20_document_ingest(  # type: ignore[no-untyped-def]
        qtbot, window: MainWindow, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Counts event-loop stalls while 20 documents ingest in the background (reported, not timed)."""
    import time

    from PySide6.QtCore import QTimer

    docs = tmp_path / "twenty"
    docs.mkdir()
    source = corpus("cn_laws", "民法典__继承编.md").read_text(encoding="utf-8").split("\n\n")
    for i in range(20):
        (docs / f"doc{i:02d}.md").write_text("\n\n".join(source[i * 3 : i * 3 + 6]) or "x", encoding="utf-8")
    lib = window.library
    lib.create_space("twenty")
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    lib.ingest([docs])
    _wait_ingest(qtbot, window)
    timer.stop()
    stalls = [g for g in gaps if g > 0.1]
    with capsys.disabled():
        print(f"\nUI event loop during a 20-document ingest: {len(gaps)} ticks, max gap {max(gaps) * 1000:.0f} ms, "
              f"{len(stalls)} gap(s) over 100 ms")
    assert lib.table.rowCount() == 20
    assert len(gaps) > 20  # the loop kept turning while the engine worked


def test_memory_screen_facts_and_recall_chain(qtbot, window: MainWindow, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    mem = window.memory
    window.rail.setCurrentRow(2)
    mem.add("Ana drinks her coffee black, without sugar.", "user:ana")
    mem.add("Ana prefers oat milk in a latte.", "user:ana")
    mem.add("Bob takes two sugars.", "user:bob")
    mem.scope.setCurrentText("user:ana")
    assert mem.table.rowCount() == 2
    mem.table.selectRow(0)
    fid = mem.selected()
    assert fid is not None
    mem.edit(fid, "Ana drinks her coffee black, with one sugar.")
    assert any(mem.table.item(r, 2).text() == "2" for r in range(mem.table.rowCount()))
    mem.question.setText("How does Ana take her coffee?")
    mem.recall()
    qtbot.waitUntil(lambda: not mem.busy, timeout=60_000)
    steps = [mem.chain.topLevelItem(i).text(0).split()[0] for i in range(mem.chain.topLevelItemCount())]
    assert steps[:7] == ["M1", "M2", "M3", "M4", "M5", "M6", "M7"]
    assert "one sugar" in mem.block.text() and "two sugars" not in mem.block.text()
    window.grab().save(str(tmp_path / "memory.png"))
