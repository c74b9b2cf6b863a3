"""A question about one row in the console (issue 64): the Inspector shows the answer citing its row and opens the
row on click; the Structured screen takes a curator's words for a field."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from biny.console.app import MainWindow
from biny.console.screens.inspector import STAGE_ROLE
from biny.console.screens.structured import NAME, SYNONYMS
from biny.core.engine import Engine
from tests.conftest import ROOT
from tests.console.test_console import _index, _rendered, _settle, _wait_ingest, window  # noqa: F401 — fixture

pytestmark = pytest.mark.usefixtures("qapp")

def _sensors(qtbot, win: MainWindow, engine: Engine) -> None:  # type: ignore[no-untyped-def]
    lib = win.library
    lib.create_space("products", encrypted=False)
    _settle(qtbot)
    lib.ingest([ROOT / "resources" / "demo" / "sensors.csv"])
    _wait_ingest(qtbot, win)
    engine.index.build("products", exact=["SKU", "Product Url"])


def test_the_inspector_shows_a_row_answer_citing_its_row_and_opens_it(qtbot, window: MainWindow,  # noqa: F811
                                                                       engine: Engine,
                                                                       tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _sensors(qtbot, window, engine)
    insp = window.inspector
    window.rail.setCurrentRow(_index(window, insp))
    insp.question.setText("What is the price of the Leak Puck?")
    insp.ask()
    _settle(qtbot)
    shown = insp.answer_view.toPlainText()
    assert "The Tallow Leak Puck costs $24.00 [1]." in shown, shown
    assert "cite:1" in insp.answer_view.toHtml()  # the citation is a link to the row
    assert insp.context.count() == 1  # the row is the context: its passage, listed and openable
    insp.chunk_view.setHtml("")
    insp.open_citation(1)
    assert insp.context.currentRow() == 0
    opened = insp.chunk_view.toPlainText()
    assert "Tallow Leak Puck" in opened and "Price: $24.00" in opened
    assert "#b2f2bb" in insp.chunk_view.toHtml()  # the answered line is highlighted in the row
    shot = tmp_path / "row-answer.png"  # looked at by eye when the screen changes
    window.grab().save(str(shot))
    assert _rendered(shot, window)


def test_the_structured_screen_takes_a_curators_words_for_a_field(qtbot, window: MainWindow,  # noqa: F811
                                                                  engine: Engine) -> None:  # type: ignore[no-untyped-def]
    _sensors(qtbot, window, engine)
    screen = window.structured
    window.rail.setCurrentRow(_index(window, screen))
    _settle(qtbot)
    row = next(r for r in range(screen.fields.rowCount())
               if screen.fields.item(r, NAME).text() == "Battery life (months)")
    cell = screen.fields.item(row, SYNONYMS)
    assert cell.flags() & Qt.ItemFlag.ItemIsEditable and "battery" in cell.toolTip()
    cell.setText("Standzeit, 续航能力")
    _settle(qtbot)
    assert engine.index.synonyms("products")["Battery life (months)"] == ["Standzeit", "续航能力"]
    assert screen.fields.item(row, SYNONYMS).text() == "Standzeit, 续航能力"  # re-read from the stored index
    routed = engine.index.route("products", "Wie lange ist die Standzeit des Door Contact?")
    assert routed is not None and routed.call is not None and routed.call.field == "Battery life (months)"


def test_the_inspector_names_what_the_material_never_mentions(qtbot, window: MainWindow,  # noqa: F811
                                                              engine: Engine,
                                                              tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 55: a question naming what no passage mentions is refused with the name, and the trace's stage says
    which passages it set aside and why."""
    lib = window.library
    lib.create_space("manual", encrypted=False)
    _settle(qtbot)
    lib.ingest([ROOT / "resources" / "demo" / "handbook.md"])
    _wait_ingest(qtbot, window)
    insp = window.inspector
    window.rail.setCurrentRow(_index(window, insp))
    insp.question.setText("Can the hub connect to Zigbee sensors?")
    insp.ask()
    _settle(qtbot)
    shown = insp.answer_view.toPlainText()
    assert "mentions “Zigbee”" in shown, shown
    assert "No passage of this space mentions “Zigbee”" in insp.status.text()
    stages = insp.stages
    rows = [stages.topLevelItem(i) for i in range(stages.topLevelItemCount())]
    stage = next(r for r in rows if r.data(0, STAGE_ROLE) == "unmentioned")
    assert stage.text(0) == "names the material lacks" and "Zigbee" in stage.text(1)
    shot = tmp_path / "unmentioned.png"  # looked at by eye when the screen changes
    window.grab().save(str(shot))
    assert _rendered(shot, window)
