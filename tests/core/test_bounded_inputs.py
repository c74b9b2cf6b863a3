"""Every input bounded in kind and time (issue 59): pipes and devices refused by type, tables too wide refused,
text without sentences cut into pieces within a time budget, a document with no text reported empty, one bad
JSONL row skipped, and a note mentioning "%PDF-" read as the text it is.

Hang cases run on a daemon thread joined with a generous guard: without the fix they would never return (the
guard turns a hang into a failure; it measures nothing — the times are in bench/hostile_inputs.py).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from biny.core.config import LimitSettings, Settings
from biny.core.document import Block
from biny.core.engine import Engine
from biny.core.errors import DocumentTooLarge, UnsupportedFormat
from biny.core.ingest.bounds import MAX_RUN_CHARS, PIECE_CHARS, SplitBudget, bounded_blocks
from biny.core.ingest.parse import parse_file
from biny.core.ingest.rows import read_rows
from biny.core.results import FileOutcome
from tests.conftest import CountingEmbedder

GUARD_S = 120  # a hang, not a speed: the cases below finish in well under a second when fixed


def _returns(fn: Callable[[], Any]) -> Any:
    """``fn()``'s result (or its exception, raised here), run on a thread that must end within the guard."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(("ok", fn()))
        except BaseException as exc:  # noqa: BLE001 — handed to the test's thread
            box.append(("raised", exc))

    th = threading.Thread(target=run, daemon=True)
    th.start()
    th.join(GUARD_S)
    assert not th.is_alive(), "hung: the input was opened and read instead of refused"
    kind, value = box[0]
    if kind == "raised":
        raise value
    return value


@pytest.fixture(scope="module")
def eng(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = Engine.open(tmp_path_factory.mktemp("bounded") / "home", settings=Settings(),
                         embedder=CountingEmbedder())
    engine.create_space("s", encrypted=False)
    yield engine
    engine.close()


def _one(eng: Engine, path: Path) -> FileOutcome:
    report = _returns(lambda: eng.ingest("s", [path]))
    assert len(report.files) == 1
    return report.files[0]  # type: ignore[no-any-return]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_pipes_and_devices_are_refused_by_type_before_opening(eng: Engine, tmp_path: Path) -> None:
    fifo = tmp_path / "notes.txt"
    os.mkfifo(fifo)
    out = _one(eng, fifo)
    assert out.outcome == "failed" and "named pipe (FIFO)" in out.message and "regular file" in out.message
    for device, name in (("/dev/zero", "zeros.txt"), ("/dev/urandom", "random.csv")):
        link = tmp_path / name
        link.symlink_to(device)
        out = _one(eng, link)
        assert out.outcome == "failed" and "character device" in out.message, out.message
        assert f"{name} → {device}" in out.message  # the link and where it leads, both named
    with pytest.raises(UnsupportedFormat, match="named pipe"):
        _returns(lambda: parse_file(fifo, LimitSettings()))


def test_a_table_too_wide_or_too_large_is_refused_with_the_setting_named(tmp_path: Path) -> None:
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{i}" for i in range(10_000)) + "\n" + ",".join("v" for _ in range(10_000)) + "\n",
                    encoding="utf-8")
    with pytest.raises(DocumentTooLarge, match=r"10000 columns.*limits\.max_table_columns"):
        _returns(lambda: read_rows(wide, LimitSettings()))
    cells = tmp_path / "cells.csv"
    cells.write_text("a,b\n" + "1,2\n" * 600, encoding="utf-8")
    with pytest.raises(DocumentTooLarge, match=r"limits\.max_table_cells"):
        read_rows(cells, LimitSettings(max_table_cells=1000))
    assert len(read_rows(cells, LimitSettings()).rows) == 600  # within the limits: read
    wide_json = tmp_path / "wide.jsonl"
    wide_json.write_text(json.dumps({f"k{i}": i for i in range(2000)}) + "\n", encoding="utf-8")
    with pytest.raises(DocumentTooLarge, match="max_table_columns"):
        read_rows(wide_json, LimitSettings())


def test_one_over_deep_jsonl_row_is_skipped_and_counted(eng: Engine, tmp_path: Path) -> None:
    path = tmp_path / "products.jsonl"
    deep = "[" * 200_000 + "]" * 200_000  # past what the JSON parser can nest
    path.write_text("\n".join([json.dumps({"name": "Lamp", "price": "12"}), deep,
                               json.dumps({"name": "Desk", "price": "140"})]) + "\n", encoding="utf-8")
    table = read_rows(path, LimitSettings())
    assert [r[0] for r in table.rows] == ["Lamp", "Desk"] and table.skipped == 1
    out = _one(eng, path)
    assert out.outcome == "ingested" and "2 rows ingested" in out.message and "1 malformed lines skipped" in \
        out.message


def test_text_without_sentences_is_cut_into_bounded_pieces(tmp_path: Path) -> None:
    blocks, cut = bounded_blocks([Block("Intro sentence. " + "lorem " * 5000 + "The end.", page=3),
                                  Block("A normal paragraph. It has sentences.")])
    assert cut == 1 and all(len(b.text) <= PIECE_CHARS for b in blocks[:-1])
    assert blocks[0].text == "Intro sentence." and blocks[-1].text == "A normal paragraph. It has sentences."
    assert {b.page for b in blocks[:-1]} == {3}
    prose = [Block(("Every sentence ends. " * 200).strip())]
    assert bounded_blocks(prose) == (prose, 0)  # long prose with sentences is left whole
    chinese = [Block("没有标点的文字" * 1000)]  # no spaces, no sentence ends: cut anywhere
    pieces, cut = bounded_blocks(chinese)
    assert cut == 1 and len(pieces) > 1 and "".join(b.text for b in pieces) == chinese[0].text
    path = tmp_path / "one-word.txt"
    path.write_text("lorem " * 200_000, encoding="utf-8")  # 1.2 MB, one word
    doc = _returns(lambda: parse_file(path, LimitSettings()))
    assert max(len(b.text) for b in doc.blocks) <= MAX_RUN_CHARS and "cut into pieces" in doc.warnings[-1]


def test_the_split_budget_ends_in_an_error_naming_the_file_and_setting() -> None:
    budget = SplitBudget(0.0, "one-word.txt")
    with pytest.raises(DocumentTooLarge, match=r"one-word\.txt.*limits\.split_timeout_s"):
        budget.check()


def test_the_split_budget_fails_the_file_through_ingest(tmp_path: Path) -> None:
    settings = Settings()
    settings.limits.split_timeout_s = 0  # every file is over a zero budget
    with Engine.open(tmp_path / "home", settings=settings, embedder=CountingEmbedder()) as eng:
        eng.create_space("s", encrypted=False)
        path = tmp_path / "note.md"
        path.write_text("# Note\n\nThe filter is replaced every 90 days.\n", encoding="utf-8")
        out = eng.ingest("s", [path]).files[0]
        assert out.outcome == "failed" and "split_timeout_s" in out.message and eng.documents("s") == []


def test_a_document_with_no_text_is_empty_with_a_reason_never_active(eng: Engine, tmp_path: Path) -> None:
    import pymupdf

    path = tmp_path / "picture.pdf"
    pdf = pymupdf.open()
    page = pdf.new_page(width=600, height=600)
    page.draw_rect(pymupdf.Rect(50, 50, 550, 550), fill=(0.9, 0.9, 0.9))  # a blank picture: nothing to read
    pdf.save(str(path))
    pdf.close()
    out = _one(eng, path)
    assert out.outcome == "empty" and "yielded no text" in out.message, (out.outcome, out.message)
    assert all(d.title != "picture" for d in eng.documents("s"))
    assert not eng.ingest("s", [path]).ok  # the run is not reported as a success


def test_a_markdown_note_mentioning_the_pdf_magic_is_read_as_markdown(tmp_path: Path) -> None:
    path = tmp_path / "formats.md"
    path.write_text("# File formats\n\nA PDF file starts with the bytes %PDF-1.7 and ends with %%EOF.\n",
                    encoding="utf-8")
    doc = parse_file(path, LimitSettings())
    assert doc.kind == "markdown" and "%PDF-1.7" in doc.blocks[-1].text
