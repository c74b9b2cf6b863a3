"""A curator's corrections in the console (issue 61): the Library's "Passages…" lists a document's passages, the
source viewer disables, enables, edits and undoes one and shows its history, a note is added to the document —
all in an encrypted space, each checked in what the engine then stores and retrieves."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from biny.console import ops
from biny.console.screens.library import LibraryScreen
from biny.core.engine import Engine
from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("qapp")

NEW = "The Starter plan costs 99 euros a month from May, billed yearly."
NOTE = "Curator's note: the Starter plan is discontinued for new customers after June."


def _stored(engine: Engine, space: str) -> dict[str, tuple[bytes, bytes]]:
    """chunk id → (plaintext column, ciphertext) as stored."""
    sid = engine.catalog.spaces.named(space).space_id
    return {r["chunk_id"]: (str(r["text"]).encode(), bytes(r["ct"] or b""))
            for r in engine.chunks.scan(sid, ["chunk_id", "text", "ct"]).to_pylist()}


def _library(qtbot, engine: Engine) -> LibraryScreen:  # type: ignore[no-untyped-def]
    lib = LibraryScreen(engine)
    qtbot.addWidget(lib)
    lib.show()
    qtbot.waitUntil(lambda: ops.idle() and lib.table.rowCount() > 0, timeout=60_000)
    return lib


def test_a_curator_disables_edits_undoes_and_notes_from_the_console(qtbot, engine: Engine,  # type: ignore[no-untyped-def]
                                                                    tmp_path: Path) -> None:
    engine.create_space("demo")  # encrypted
    engine.ingest("demo", [ROOT / "resources" / "demo" / "pricing.md"])
    doc = engine.documents("demo")[0]
    target = engine.ask("demo", "How much does the Starter plan cost?").chunks[0].chunk_id
    lib = _library(qtbot, engine)
    lib.table.selectRow(0)
    dialog = lib.document_actions.open_passages()
    assert dialog is not None and dialog.chunk_ids() == [c.chunk_id for c in engine.document_chunks("demo",
                                                                                                    doc.doc_id)]
    dialog.list.setCurrentRow(dialog.chunk_ids().index(target))
    dialog.list.setFocus()
    qtbot.keyClick(dialog.list, Qt.Key.Key_Return)  # Enter opens the passage in the source viewer
    viewer = dialog.viewer
    assert viewer is not None and viewer.isVisible() and viewer.view is not None
    assert viewer.view.chunk_id == target and viewer.disable_btn.text() == "Disable"

    # Disable: stored, never retrieved, and the Library says so.
    qtbot.mouseClick(viewer.disable_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ops.idle() and viewer.view is not None and viewer.view.disabled, timeout=60_000)
    assert engine.passages.disabled("demo") == {target: doc.doc_id}
    assert target not in [h.chunk_id for h in engine.ask("demo", "How much does the Starter plan cost?").chunks]
    assert viewer.disable_btn.text() == "Enable" and "disabled" in viewer.history.text()
    qtbot.waitUntil(lambda: ops.idle() and "(1 disabled)" in lib.table.cell(0, 3),
                    timeout=60_000)
    assert dialog.list.item(dialog.chunk_ids().index(target)).text().startswith("⊘")
    qtbot.mouseClick(viewer.disable_btn, Qt.MouseButton.LeftButton)  # and enable it again
    qtbot.waitUntil(lambda: ops.idle() and viewer.view is not None and not viewer.view.disabled, timeout=60_000)
    assert engine.passages.disabled("demo") == {}

    # Edit: only this passage's row changes, its new text sealed; the history names who and what; undo restores.
    before = _stored(engine, "demo")
    original = engine.source("demo", target).text
    qtbot.mouseClick(viewer.edit_btn, Qt.MouseButton.LeftButton)
    assert viewer.editor.isVisible() and viewer.editor.toPlainText() == original
    viewer.editor.setPlainText(NEW)
    qtbot.mouseClick(viewer.save_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ops.idle() and viewer.view is not None and viewer.view.edited, timeout=60_000)
    after = _stored(engine, "demo")
    assert {c for c in before if before[c] != after[c]} == {target}
    assert b"99 euros" not in after[target][0] + after[target][1]  # sealed: neither column holds the text
    assert engine.source("demo", target).text == NEW and not viewer.editor.isVisible()
    assert engine.ask("demo", "What does the Starter plan cost from May?").chunks[0].chunk_id == target
    changes = engine.passages.history("demo", target)
    assert [c.action for c in changes] == ["disable", "enable", "edit"]
    assert "edited" in viewer.history.text() and changes[-1].author in viewer.history.text()
    viewer.grab().save(str(tmp_path / "edited.png"))  # looked at when this was written: span, state, history
    qtbot.mouseClick(viewer.undo_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ops.idle() and viewer.view is not None and not viewer.view.edited, timeout=60_000)
    assert engine.source("demo", target).text == original and _stored(engine, "demo") == before
    assert "undone" in viewer.history.text()

    # A note added to the document from the list: sealed, retrieved like its passages.
    dialog.note.setPlainText(NOTE)
    qtbot.mouseClick(dialog.note_btn, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ops.idle() and len(dialog.chunk_ids()) == len(before) + 1, timeout=60_000)
    (note,) = set(dialog.chunk_ids()) - set(before)
    assert b"discontinued" not in b"".join(a + b for a, b in _stored(engine, "demo").values())
    assert engine.source("demo", note).note and engine.source("demo", note).text == NOTE
    assert engine.ask("demo", "Is the Starter plan discontinued for new customers?").chunks[0].chunk_id == note
    assert [c.action for c in engine.passages.history("demo", note)] == ["note"]
    ops.wait_all()
