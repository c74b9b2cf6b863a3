"""A curator's corrections of single passages (issue 61): disable, edit, note, history, undo — and the CLI.

Real stores, the real model, an encrypted space: each correction changes the next ask as expected, rewrites no
other passage's row (vectors and ciphertext compared before and after), and a kill between the catalog's entry
and the chunk table's write leaves the passage whole, one way or the other.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from biny.core.cli import main
from biny.core.config import Settings
from biny.core.engine import Engine
from tests.conftest import ROOT, CountingEmbedder, corpus

LAW = "民法典__继承编.md"
QUESTION = "继承从什么时候开始？"
MARS = "火星殖民地的氧气配额为每人每日三升，由殖民地管理委员会分配。"


def _rows(engine: Engine, space: str) -> dict[str, tuple[bytes, bytes, str]]:
    """Every stored row: chunk id → (vector bytes, ciphertext, plaintext column)."""
    sid = engine.catalog.spaces.named(space).space_id
    tbl = engine.chunks.scan(sid, ["chunk_id", "vector", "ct", "text"]).to_pylist()
    import numpy as np

    return {r["chunk_id"]: (np.asarray(r["vector"], dtype=np.float32).tobytes(), r["ct"], r["text"]) for r in tbl}


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ingest of the law into an encrypted space, shared by the module: each test works on a copy of the
    data folder (``laws``), so every test starts from the same stored rows without embedding them again."""
    from biny.core.config import Settings
    from tests.conftest import CountingEmbedder

    tmp = tmp_path_factory.mktemp("laws")
    dst = tmp / "docs" / LAW
    dst.parent.mkdir(parents=True)
    shutil.copy(corpus("cn_laws", LAW), dst)
    settings = Settings()
    settings.limits.parse_timeout_s = 60
    with Engine.open(tmp / "home", settings=settings, embedder=CountingEmbedder()) as engine:
        engine.create_space("laws")
        assert engine.ingest("laws", [dst]).ok
    return tmp / "home"


@pytest.fixture
def laws(ingested: Path, tmp_path: Path, embedder: CountingEmbedder, settings: Settings) -> Iterator[Engine]:
    home = tmp_path / "home"
    shutil.copytree(ingested, home)
    engine = Engine.open(home, settings=settings, embedder=embedder)
    try:
        yield engine
    finally:
        engine.close()


def _top(engine: Engine, question: str) -> list[str]:
    return [h.chunk_id for h in engine.ask("laws", question).chunks]


def test_disable_keeps_it_stored_never_retrieved_and_enable_or_undo_brings_it_back(laws: Engine) -> None:
    first = _top(laws, QUESTION)
    assert first
    target = first[0]
    before = _rows(laws, "laws")
    laws.passages.disable("laws", target, author="ana")
    assert _rows(laws, "laws") == before  # stored as it was: no row written
    assert target not in _top(laws, QUESTION)
    assert laws.passages.disabled("laws") == {target: laws.source("laws", target).doc_id}
    assert laws.source("laws", target).disabled
    laws.passages.undo("laws", target)
    assert _top(laws, QUESTION)[0] == target
    laws.passages.disable("laws", target)
    laws.passages.enable("laws", target)
    assert _top(laws, QUESTION)[0] == target
    assert [(c.action, c.state) for c in laws.passages.history("laws", target)] == [
        ("disable", "undone"), ("disable", "done"), ("enable", "done")]
    assert laws.passages.history("laws", target)[0].author == "ana"


def test_edit_reembeds_that_passage_only_and_undo_restores_it_exactly(laws: Engine) -> None:
    assert laws.space("laws").encrypted
    target = _top(laws, QUESTION)[0]
    original = laws.source("laws", target).text
    before = _rows(laws, "laws")
    laws.passages.edit("laws", target, MARS, author="curator")
    after = _rows(laws, "laws")
    changed = {c for c in before if before[c] != after[c]}
    assert changed == {target} and set(after) == set(before)
    assert after[target][2] == "" and MARS.encode() not in after[target][1]  # sealed like the rest
    assert _top(laws, "火星殖民地的氧气配额是多少？")[0] == target
    view = laws.source("laws", target)
    assert view.text == MARS and view.edited and view.original == original
    (change,) = laws.passages.history("laws", target)
    assert (change.action, change.author, change.before, change.state) == ("edit", "curator", original, "done")
    laws.passages.undo("laws", target)
    assert _rows(laws, "laws") == before  # the row as it was, bit for bit
    assert laws.source("laws", target).text == original and not laws.source("laws", target).edited
    assert _top(laws, QUESTION)[0] == target


def test_a_note_answers_with_its_document_and_survives_reopening(laws: Engine, tmp_path: Path) -> None:
    doc = laws.documents("laws")[0]
    before = _rows(laws, "laws")
    note = laws.passages.note("laws", doc.doc_id, MARS, author="ana")
    after = _rows(laws, "laws")
    assert set(after) - set(before) == {note} and all(after[c] == before[c] for c in before)
    hit = laws.ask("laws", "火星殖民地的氧气配额是多少？").chunks[0]
    assert hit.chunk_id == note and hit.doc_id == doc.doc_id
    assert laws.source("laws", note).note
    home = laws.home
    laws.close()
    with Engine.open(home, embedder=laws.models.embedder) as again:
        assert not again.folder.recovery_notes  # the document's count and digest include the note: nothing damaged
        assert again.documents("laws")[0].status == "active"
        again.passages.undo("laws", note)
        assert set(_rows(again, "laws")) == set(before)
        assert again.documents("laws")[0].chunks == doc.chunks


KILL = textwrap.dedent("""
    import os, signal, sys
    from biny.core.engine import Engine
    from biny.core.store.chunk_maintenance import ChunkMaintenance
    home, chunk, when = sys.argv[1], sys.argv[2], sys.argv[3]
    original = ChunkMaintenance.replace_rows
    def killed(self, space_id, rows, mac_key=None):
        if when == "after":
            original(self, space_id, rows, mac_key)
        os.kill(os.getpid(), signal.SIGKILL)
    ChunkMaintenance.replace_rows = killed
    with Engine.open(home) as engine:
        engine.passages.edit("laws", chunk, sys.argv[4])
""")


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_kill_mid_edit_leaves_the_passage_whole(laws: Engine, when: str) -> None:
    target = _top(laws, QUESTION)[0]
    original = laws.source("laws", target).text
    before = _rows(laws, "laws")
    home, embedder = laws.home, laws.models.embedder
    laws.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "build" / "typecheck")}
    proc = subprocess.run([sys.executable, "-c", KILL, str(home), target, when, MARS], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == -9, proc.stderr
    with Engine.open(home, embedder=embedder) as again:
        assert again.documents("laws")[0].status == "active"
        after = _rows(again, "laws")
        assert {c for c in before if before[c] != after[c]} <= {target}
        view = again.source("laws", target)
        history = again.passages.history("laws", target)
        if when == "before":  # the row was never written: the edit is gone from the history too
            assert view.text == original and history == [] and after == before
        else:  # the row was written: the edit stands, undoable
            assert view.text == MARS and [(c.action, c.state) for c in history] == [("edit", "done")]
            again.passages.undo("laws", target)
            assert _rows(again, "laws") == before


def test_cli_show_and_passage(laws: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    target = _top(laws, QUESTION)[0]
    home = str(laws.home)
    laws.close()

    def run(*args: str) -> tuple[int, str]:
        code = main(["--home", home, *args])
        return code, capsys.readouterr().out

    code, out = run("show", target[:12], "--space", "laws")
    assert code == 0 and "⟦" in out and "继承编" in out and target in out
    code, out = run("show", target, "--json")
    data = json.loads(out)
    assert data["chunk_id"] == target and data["char_end"] > data["char_start"] and "rects" in data
    assert run("passage", "disable", target[:10], "--space", "laws", "--author", "bo")[0] == 0
    code, out = run("show", target, "--json")
    assert json.loads(out)["disabled"] is True
    code, out = run("passage", "history", target, "--json")
    assert [(c["action"], c["author"]) for c in json.loads(out)] == [("disable", "bo")]
    assert run("passage", "undo", target)[0] == 0
    code, out = run("passage", "edit", target, "--text", "\x1b[2J" + MARS)
    code, out = run("show", target)
    assert "\x1b" not in out and "\\u001b[2J" in out  # a terminal control in a passage is shown, never obeyed


def test_an_answer_lists_the_sources_it_cites_and_the_rest_apart(laws: Engine,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    home = str(laws.home)
    laws.close()
    assert main(["--home", home, "ask", "遗嘱继承和遗赠有什么规定？", "--space", "laws", "--answer", "--json",
                 "--k", "6"]) == 0
    data = json.loads(capsys.readouterr().out)
    cited = {c["chunk_id"] for c in data["answer"]["citations"]}
    kept = [c["chunk_id"] for c in data["chunks"]]
    assert cited and data["also_retrieved"] == [c for c in kept if c not in cited]
    assert main(["--home", home, "ask", "遗嘱继承和遗赠有什么规定？", "--space", "laws", "--answer", "--k", "6"]) == 0
    out = capsys.readouterr().out
    sources = out[out.index("Sources:"):]
    if data["also_retrieved"]:  # every cited passage is listed before the heading of those not cited
        head = sources.index("Also retrieved")
        numbers = [int(n) for n in re.findall(r"^\[(\d+)\]", sources, re.M)]
        cited_n = {c["n"] for c in data["answer"]["citations"]}
        assert all(n in cited_n for n in numbers[: len(cited_n)])
        assert all(sources.index(f"[{n}]") < head for n in cited_n)


def test_a_note_caught_between_its_two_writes_is_removed_at_open(laws: Engine) -> None:
    """A kill after the note's row was appended but before the catalog counted it: the open removes the row and
    the entry, so the document is never taken for damaged."""
    import uuid

    from biny.core.store.catalog import now
    from biny.core.store.catalog.passages import PassageEntry
    from biny.core.store.lance import ChunkRecord

    doc = laws.documents("laws")[0]
    row = laws.catalog.spaces.named("laws")
    before = _rows(laws, "laws")
    rec = ChunkRecord(uuid.uuid4().hex, doc.doc_id, 999, MARS, doc.chars, doc.chars + len(MARS), None, None, [], 0,
                      0.0, [], [], [])
    rows = laws.passages._row(row, rec, doc.title)
    entry = PassageEntry(uuid.uuid4().hex, 0, row.space_id, rec.chunk_id, doc.doc_id, "note", "ana", now(), "pending")
    with laws.folder.writer._write():  # the first two steps of add_note, as a kill would leave them
        laws.catalog.passages.add(entry)
        laws.chunks.maintenance.add_rows(row.space_id, rows)
    home, embedder = laws.home, laws.models.embedder
    laws.close()
    with Engine.open(home, embedder=embedder) as again:
        assert not again.folder.recovery_notes and again.documents("laws")[0].status == "active"
        assert _rows(again, "laws") == before and again.passages.history("laws", rec.chunk_id) == []


def test_editing_a_table_rows_passage_updates_its_structured_index_row(engine: Engine, tmp_path: Path) -> None:
    """A table row's passage is its "field: value" lines; the structured index counts and filters those fields,
    so an edit (and its undo) re-reads that document's row, and no other."""
    from biny.core.structured.tools import ToolCall

    table = tmp_path / "parts.csv"
    table.write_text("name,price,stock\nwidget,12.50,7\ngadget,3.20,0\nsprocket,8.00,3\nflange,5.75,12\n",
                     encoding="utf-8")
    engine.create_space("rows")  # encrypted: the index's rows are sealed too
    assert engine.ingest("rows", [table]).ok
    engine.index.build("rows", fields=["name", "price", "stock"])

    def prices() -> dict[str, float]:
        found = engine.index.run("rows", ToolCall("top", field="price")).rows
        return {r["title"]: float(r["fields"]["price"]) for r in found}

    def generation() -> int:
        spec = engine.folder.structured.spec(engine.catalog.spaces.named("rows").space_id)
        assert spec is not None
        return spec[1]

    assert prices()["gadget"] == 3.2
    doc = next(d for d in engine.documents("rows") if d.title == "gadget")
    (chunk,) = engine.document_chunks("rows", doc.doc_id)
    sid = engine.catalog.spaces.named("rows").space_id
    before = {d: data for d, _, data in engine.folder.structured.rows(sid)}
    was = generation()
    engine.passages.edit("rows", chunk.chunk_id, chunk.text.replace("3.20", "30.20"), author="ana")
    assert prices()["gadget"] == 30.2 and generation() == was + 1
    after = {d: data for d, _, data in engine.folder.structured.rows(sid)}
    assert {d for d in before if before[d] != after[d]} == {doc.doc_id}  # only the edited row was written
    assert b"30.20" not in engine.catalog.con.execute("SELECT data FROM structured_rows").fetchall().__repr__().encode()
    top = engine.index.run("rows", ToolCall("top", field="price")).rows[0]
    assert top["title"] == "gadget"  # the index answers from the edited value
    engine.passages.undo("rows", chunk.chunk_id)
    assert prices()["gadget"] == 3.2
