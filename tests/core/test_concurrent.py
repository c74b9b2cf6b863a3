"""Issue 58: readers are never locked out by a writer — asked, listed and exported while another process ingests.

The run (tests/core/beside.py, once a session): one process ingests 200 small documents through the command line;
meanwhile another process asks questions of the same space and of another one, lists documents and spaces, and
exports the other space, round after round. Every round answers from a committed version; a second writer, on the
same space or on another, is refused clearly, naming the first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from biny.core.engine import Engine
from biny.core.store.stamp import FolderStamp
from tests.core.beside import DOCS, Beside


def test_readers_answer_while_another_process_ingests(ingested_beside_readers: Beside) -> None:
    b = ingested_beside_readers
    assert b.ingest_code == 0 and b.reader_code == 0, b.reader_err
    rounds = b.rounds
    meanwhile = [r for r in rounds if not r["last"]]
    assert len(meanwhile) >= 2, "the ingest ended before the reader could overlap it"
    assert meanwhile[0]["docs"] < DOCS, "the first round came after the ingest: nothing was read beside it"
    counts = [r["docs"] for r in rounds]
    assert counts == sorted(counts), "a reader saw documents disappear: not a committed version"
    for r in rounds:
        assert r["spaces"] == ["a", "b"]
        assert any("Beautiful is better than ugly" in text for text in r["other"])
        # Only whole documents are ever found: each note is one passage, committed with its document.
        assert all(re.fullmatch(r"Note (\d+)\n\nThe \w+ of item \1 is kept in room \d+\. [a-z ]+ \1\.\n?", text)
                   for text in r["same"]), r["same"]
    assert any("room 3." in text for text in rounds[-1]["same"])
    assert sum(f["outcome"] == "ingested" for f in json.loads(b.ingest_out)["files"]) == DOCS
    assert b.tar.stat().st_size > 0


def test_a_second_writer_is_refused_naming_the_first(ingested_beside_readers: Beside) -> None:
    b = ingested_beside_readers
    same = b.refused_same
    assert same is not None and same.returncode == 2, same
    for message in (same.stderr, b.refused_other):
        assert "Another biny (PID " in message and "is writing to the data folder" in message
        assert f"PID {b.ingest_pid})" in message and "(ingesting into space 'a')" in message
        assert "wait until it has finished (asking, listing and exporting work meanwhile)" in message
    with Engine.open(b.home) as eng:  # neither refused writer changed anything
        assert len(eng.documents("b")) == 1


def test_a_reader_answers_from_what_another_writer_committed_since(tmp_path: Path) -> None:
    """Issue 58: an engine that has answered keeps answering from the latest commit of another writer on the same
    folder (the console open while the command line ingests), not from the matrix it loaded first — the document
    list and the answers agree. Two engines in one process share no caches but the folder, as two processes."""
    (tmp_path / "pumps.md").write_text("# Pumps\n\nThe blue pump is kept in the cellar behind the boiler.\n",
                                       encoding="utf-8")
    (tmp_path / "valves.md").write_text("# Valves\n\nThe red valve V-9 is kept in the attic beside the water tank.\n",
                                        encoding="utf-8")
    home = tmp_path / "home"
    question = "Where is the red valve V-9 kept?"
    with Engine.open(home) as writer:
        writer.create_space("s", encrypted=False)
        assert writer.ingest("s", [tmp_path / "pumps.md"]).ok
        with Engine.open(home) as reader:
            assert [h.document for h in reader.ask("s", question).chunks] == []  # not in the material yet
            assert writer.ingest("s", [tmp_path / "valves.md"]).ok
            assert len(reader.documents("s")) == 2
            after = reader.ask("s", question)
            assert [h.document for h in after.chunks] == ["Valves"] and "attic" in after.chunks[0].text
            # And a removal: the reader stops citing what the other writer deleted.
            writer.set_document_status("s", next(d.doc_id for d in writer.documents("s") if d.title == "Valves"),
                                       "deleted")
            assert [h.document for h in reader.ask("s", question).chunks] == []


def test_the_folder_stamp_moves_for_other_writers_only(tmp_path: Path) -> None:
    """store/stamp.py: a write seen by the process that made it is not news to it; one made elsewhere is, once.
    A stamp that cannot be written (a full disk, a read-only folder) never fails the write it follows."""
    path = tmp_path / "cache" / "written"
    mine, theirs = FolderStamp(path), FolderStamp(path)
    assert not mine.moved() and not theirs.moved()  # nothing written yet
    mine.bump()
    assert not mine.moved()
    assert theirs.moved() and not theirs.moved()  # seen once
    mine.bump()
    mine.bump()  # two writes within one timestamp tick still differ: a new file each time
    assert theirs.moved()
    blocked = FolderStamp(tmp_path / "file" / "written")
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    blocked.bump()  # no error: the write it follows is committed
    assert not blocked.moved()
    assert sorted(p.name for p in path.parent.iterdir()) == ["written"]  # no part file left behind
