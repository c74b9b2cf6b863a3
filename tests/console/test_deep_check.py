"""The console's deep check (issue 59): `biny doctor --deep` from Settings, off the UI thread with its progress, the
findings listed with what to do. A passage changed behind biny's back is found; a screenshot is kept to look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QScrollArea

from biny.console import ops
from biny.console.app import MainWindow
from biny.core.engine import Engine
from biny.core.progress import Progress
from biny.core.store.guard import writing
from biny.core.store.lance import ChunkStore

pytestmark = pytest.mark.usefixtures("qapp")

TEXT = ("# Tallow pricing\n\n" + "\n\n".join(
    f"The {name} plan costs ${price} per month and covers up to {n} sensors." for name, price, n in
    [("Starter", 49, 10), ("Team", 129, 100), ("Fleet", 399, 500)]) + "\n")


def test_the_deep_check_runs_in_the_background_and_names_a_changed_passage(qtbot, engine: Engine,  # type: ignore[no-untyped-def]
                                                                           tmp_path: Path) -> None:
    src = tmp_path / "pricing.md"
    src.write_text(TEXT, encoding="utf-8")
    engine.create_space("s", encrypted=False)
    assert engine.ingest("s", [src]).ok
    window = MainWindow(engine, None, QSettings(str(tmp_path / "console.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitUntil(ops.idle, timeout=180_000)
    window.show_screen([widget for _, widget in window.screens].index(window.settings_screen))
    st = window.settings_screen
    seen: list[Progress] = []
    real = engine.doctor.check

    def check(*args: Any, **kwargs: Any) -> Any:  # the engine's own check; its progress recorded as it goes
        inner = kwargs.get("progress", lambda _p: None)
        kwargs["progress"] = lambda p: (seen.append(p), inner(p))
        return real(*args, **kwargs)

    engine.doctor.check = check  # type: ignore[method-assign]
    st.deep_btn.click()
    assert not st.deep_btn.isEnabled() and st.check_progress.isVisible(), "busy while it reads"
    qtbot.waitUntil(lambda: st.deep_btn.isEnabled(), timeout=120_000)
    assert "all consistent" in st.check_status.text() and not st.check_progress.isVisible()
    assert seen and seen[-1].done == seen[-1].total == 1 and any(p.detail == "s" for p in seen)

    row = engine.folder.catalog.spaces.named("s")
    with writing():  # a passage's position changed behind the writer's back: only its integrity code sees it
        engine.folder.chunks.db.open_table(ChunkStore.table_name(row.space_id)).update(
            where="ordinal = 0", values={"ordinal": 9})
    st.check_btn.click()  # the quick check compares counts and digests: it cannot see this
    qtbot.waitUntil(lambda: st.check_btn.isEnabled(), timeout=60_000)
    assert "all consistent" in st.check_status.text()
    st.deep_btn.click()
    qtbot.waitUntil(lambda: st.deep_btn.isEnabled(), timeout=120_000)
    text = st.check_status.text()
    assert "changed after it was written" in text and "pricing.md" in text, text
    assert "what to do:" in text and "biny doctor --repair" in text, text
    assert st.repair_btn.isEnabled()
    scroll = next(w for w in window.findChildren(QScrollArea) if w.widget() is st)
    scroll.ensureWidgetVisible(st.check_status)
    qtbot.wait(50)
    window.grab().save(str(tmp_path / "deep_check.png"))
    st.repair_btn.click()  # the repair after a deep check is a deep one: it rebuilds the document from its file
    qtbot.waitUntil(lambda: st.check_btn.isEnabled() and "all repaired" in st.check_status.text(), timeout=180_000)
    assert engine.doctor.check(deep=True).healthy
    ops.wait_all()
