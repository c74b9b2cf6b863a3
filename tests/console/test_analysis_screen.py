"""The Analysis screen (SPEC C3) offscreen: star map with hover and click, collection lasso, export, runs."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from biny.console.app import MainWindow
from biny.core.demo import build_demo
from tests.console.test_console import _index, _rendered, _settle, window  # noqa: F401 — fixture

pytestmark = pytest.mark.usefixtures("qapp")
Q = "Which plan is for small workshops?"


def test_analyst_maps_hovers_opens_exports_and_evaluates(qtbot, window: MainWindow,  # noqa: F811
                                                         tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert build_demo(window.engine).ok
    window.library.refresh_spaces(select="demo")
    _settle(qtbot)
    screen = window.analysis
    window.rail.setCurrentRow(_index(window, screen))
    # Before any question the star map and histogram say how to draw one, not a blank canvas.
    hint = [t.get_text() for t in screen.star_canvas.figure.texts]
    assert hint and hint[0].startswith("Type a question above and press Draw")
    assert [t.get_text() for t in screen.hist_canvas.figure.texts] == hint
    screen.question.setText(Q)
    screen.draw()
    _settle(qtbot)
    assert not screen.star_canvas.figure.texts  # the drawing replaced it
    sm = screen.star
    assert sm is not None and "pool candidates" in screen.status.text() and screen.star_canvas.figure.axes
    screen.star_canvas.draw()
    ax = screen.star_canvas.figure.axes[0]
    target = next(p for p in sm.points if p.status != "dropped")
    x, y = ax.transData.transform((target.angle, target.radius))
    screen._hovered(SimpleNamespace(x=x, y=y))
    assert target.document in screen.hover.text() and "closer than" in screen.hover.text()
    assert target.reason and target.reason in screen.hover.text()  # why it was kept (issue 49)
    dropped = next((p for p in sm.points if p.status == "dropped"), None)
    if dropped is not None:
        assert dropped.reason and dropped.reason in screen.describe(dropped)
    window.grab().save(str(tmp_path / "star.png"))
    assert _rendered(tmp_path / "star.png", window)
    screen._clicked(SimpleNamespace(x=x, y=y))  # opens the chunk in the Inspector
    _settle(qtbot)
    assert window.rail.currentRow() == 1 and target.chunk_id in window.inspector.chunk_view.toPlainText()
    window.rail.setCurrentRow(_index(window, screen))
    for fmt in ("png", "svg"):
        assert screen.export(tmp_path / f"map.{fmt}").stat().st_size > 1000
    screen.tabs.setCurrentIndex(1)
    col = screen.col
    assert col is not None and col.question is not None
    xs, ys = col.coords[:, 0], col.coords[:, 1]
    pad = 1.0
    screen._lassoed([(xs.min() - pad, ys.min() - pad), (xs.max() + pad, ys.min() - pad),
                     (xs.max() + pad, ys.max() + pad), (xs.min() - pad, ys.max() + pad)])
    assert screen.selection.count() == len(col.chunk_ids)
    qs = tmp_path / "set.jsonl"
    qs.write_text("\n".join(json.dumps(i) for i in [
        {"question": Q, "expected_document": "Tallow Plans and Pricing"},
        {"question": "Why do cats purr when they are happy?", "unanswerable": True}]), encoding="utf-8")
    screen.tabs.setCurrentIndex(3)
    ev = screen.evaluation  # the question set, its runs and their comparison
    ev.eval_file.setText(str(qs))
    ev.evaluate()
    _settle(qtbot)
    first = ev.run
    assert first is not None and ev.metrics.rowCount() == 5 and ev.runs.count() == 1
    assert not ev.compare_btn.isEnabled()  # one run: nothing to compare with, and it says so
    ev.evaluate()
    _settle(qtbot)
    assert ev.run is not None and ev.run.run_id != first.run_id and not ev.compare_btn.isEnabled()
    ev.runs.setCurrentRow(1)  # newest first: clicking the older run shows it (issue 49)
    _settle(qtbot)
    assert ev.run is not None and ev.run.run_id == first.run_id and first.run_id in screen.status.text()
    assert ev.compare_btn.isEnabled()
    ev.compare()
    _settle(qtbot)
    assert f"From {first.run_id}" in ev.comparison.text() and "0 worse" in ev.comparison.text()


def test_the_collection_map_is_made_when_the_analysis_screen_is_shown_not_at_start(  # type: ignore[no-untyped-def]
        qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Choosing a space on the Library no longer maps its whole collection (the matrix and a PCA, beside the first
    question); the map is made once the analyst opens the screen, and again for another space chosen there."""
    assert build_demo(window.engine).ok
    window.engine.create_space("other", encrypted=False)
    asked: list[str] = []
    real = window.analysis.model.collection
    monkeypatch.setattr(window.analysis.model, "collection",
                        lambda space, *a: (asked.append(space), real(space, *a))[1])
    window.library.refresh_spaces(select="demo")
    _settle(qtbot)
    assert window.analysis.space == "demo" and asked == [] and window.analysis.col is None
    window.rail.setCurrentRow(_index(window, window.analysis))
    _settle(qtbot)
    assert asked == ["demo"] and window.analysis.col is not None and len(window.analysis.col.chunk_ids) > 0
    window.rail.setCurrentRow(0)
    window.rail.setCurrentRow(_index(window, window.analysis))  # shown again, same space: nothing to redo
    _settle(qtbot)
    assert asked == ["demo"]
    window.on_space("other")  # chosen while the screen is shown: drawn at once
    _settle(qtbot)
    assert asked == ["demo", "other"]
