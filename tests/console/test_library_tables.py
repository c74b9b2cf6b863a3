"""The Library offers tables as readily as documents (issue 63): the Add-files dialog's default filter names every
format ingest reads, CSV/TSV/XLSX/JSONL included, and an empty space's hint names tables and the structured index."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtWidgets import QFileDialog

from biny.console.app import MainWindow
from biny.core.engine import Engine
from tests.console.test_console import _settle, window  # noqa: F401 — fixture

pytestmark = pytest.mark.usefixtures("qapp")


def test_the_add_files_dialog_defaults_to_every_readable_format(qtbot, window: MainWindow,  # noqa: F811
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    asked: list[str] = []

    def fake(parent: Any, caption: str, folder: str, filters: str) -> tuple[list[str], str]:
        asked.append(filters)
        return [], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", staticmethod(fake))
    window.library.pick_files()
    assert len(asked) == 1
    default = asked[0].split(";;")[0]
    patterns = set(re.findall(r"\*(\.\w+)", default))
    assert {".csv", ".tsv", ".xlsx", ".jsonl", ".pdf", ".docx", ".html", ".md", ".txt"} <= patterns
    assert patterns == set(Engine.readable_suffixes())  # every format ingest reads, from one list
    assert "All files (*)" in asked[0].split(";;")


def test_an_empty_space_names_tables_and_the_structured_index(qtbot, window: MainWindow) -> None:  # noqa: F811  # type: ignore[no-untyped-def]
    window.library.create_space("empty", encrypted=False)
    _settle(qtbot)
    hint = window.library.empty_hint
    assert hint.isVisible()
    assert "tables (CSV, TSV, XLSX, JSONL)" in hint.text() and "Structured index screen" in hint.text()
