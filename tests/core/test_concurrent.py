"""Issue 58: readers are never locked out by a writer — asked, listed and exported while another process ingests.

The run (tests/core/beside.py, once a session): one process ingests 200 small documents through the command line;
meanwhile another process asks questions of the same space and of another one, lists documents and spaces, and
exports the other space, round after round. Every round answers from a committed version; a second writer, on the
same space or on another, is refused clearly, naming the first.
"""

from __future__ import annotations

import json
import re

from biny.core.engine import Engine
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
