"""Issue 58: readers are never locked out by a writer — asked, listed and exported while another process ingests.

One process ingests 200 small documents through the command line; meanwhile another process asks questions of the
same space and of another one, lists documents and spaces, and exports the other space, round after round (one
process that loops, as the console does: a fresh process per question only repeated the start-up). Every round
succeeds, answering from what was committed so far (the document count only grows, only whole documents are found).
A second writer — on the same space from the command line, on the other space from this process — is refused
clearly, naming the ingest's PID and what it does. The space this run stores is the clean ingest the resume test
(test_resume.py) compares its killed-and-resumed one with.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from biny.core.engine import Engine
from biny.core.errors import DataFolderInUse
from tests.conftest import corpus

WORDS = ("apple river stone cloud garden engine silver winter forest harbor lantern meadow copper violet orbit "
         "canyon").split()
DOCS = 200  # the figure


def _cli(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "biny.core.cli", "--home", str(home), *args]


def notes(folder: Path, n: int) -> Path:
    """``n`` tiny Markdown notes, each naming its room (one passage, two sentences each); note i is the same
    whatever ``n``."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        r = random.Random(i)
        (folder / f"note{i:03d}.md").write_text(
            f"# Note {i}\n\nThe {r.choice(WORDS)} of item {i} is kept in room {i % 17}. "
            + " ".join(r.choice(WORDS) for _ in range(8)) + f" {i}.\n", encoding="utf-8")
    return folder


READER = """
import json, sys, time
from pathlib import Path
from biny.core.engine import Engine

home, stop, out, tar = sys.argv[1:5]
with Engine.open(home) as eng, open(out, "a", encoding="utf-8") as log:
    rounds = 0
    while True:
        last = Path(stop).exists()
        same = eng.ask("a", "what is kept in room 3?")
        other = eng.ask("b", "Is beautiful better than ugly?")
        listed = eng.documents("a")
        spaces = [s.name for s in eng.spaces()]
        if rounds == 0:
            eng.backup.export_space("b", tar)
        rounds += 1
        log.write(json.dumps({"docs": len(listed), "same": [h.text for h in same.chunks],
                              "other": [h.text for h in other.chunks], "spaces": spaces, "last": last}) + "\\n")
        log.flush()
        if last:
            break
        time.sleep(0.3)  # a person (or the console) between questions
"""


@dataclass
class Beside:
    home: Path
    docs: Path
    rounds: list[dict] = field(default_factory=list)  # type: ignore[type-arg]
    reader_code: int | None = None
    reader_err: str = ""
    ingest_out: str = ""
    ingest_code: int | None = None
    refused_same: subprocess.CompletedProcess[str] | None = None
    refused_other: str = ""
    tar: Path = Path()
    ingest_pid: int = 0


def _holds_lock(home: Path, ingest: subprocess.Popen[str]) -> None:
    """Wait until the ingest holds the writer lock for its run (its start-up and the model's load come first)."""
    deadline = time.monotonic() + 300
    while "ingesting into space" not in _lock_text(home):
        assert ingest.poll() is None and time.monotonic() < deadline, "the ingest never started"
        time.sleep(0.05)


def _lock_text(home: Path) -> str:
    try:
        return (home / "biny.lock").read_text(encoding="utf-8")
    except OSError:
        return ""


def _second_writers(home: Path, beside: Beside) -> None:
    """A second writer on the same space (the command line) and on another space (this process) while the ingest
    runs: both refused, each waiting only the writer's short wait."""
    same = subprocess.Popen(_cli(home, "ingest", str(corpus("python_peps", "pep-0257.rst")), "--space", "a"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with Engine.open(home) as eng:
        with pytest.raises(DataFolderInUse) as refused:
            eng.ingest("b", [corpus("python_peps", "pep-0257.rst")])
        beside.refused_other = str(refused.value)
    out, err = same.communicate(timeout=600)
    beside.refused_same = subprocess.CompletedProcess(same.args, same.returncode, out, err)


def ingest_beside_readers(tmp: Path) -> Beside:
    """The run described above (done once a session: tests/core/conftest.py; the resume test reuses its space)."""
    home = tmp / "home"
    beside = Beside(home, notes(tmp / "notes", DOCS), tar=tmp / "b.tar")
    with Engine.open(home) as eng:
        for space in ("a", "b"):
            eng.create_space(space, encrypted=False)
        eng.ingest("b", [corpus("python_peps", "pep-0020.rst")])
    ingest = subprocess.Popen(_cli(home, "ingest", str(beside.docs), "--space", "a", "--json"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop, log = tmp / "stop", tmp / "rounds.jsonl"
    reader = None
    try:
        _holds_lock(home, ingest)
        beside.ingest_pid = ingest.pid
        reader = subprocess.Popen([sys.executable, "-c", READER, str(home), str(stop), str(log), str(beside.tar)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _second_writers(home, beside)
        beside.ingest_out, _ = ingest.communicate(timeout=1200)
        beside.ingest_code = ingest.returncode
        stop.touch()
        _, beside.reader_err = reader.communicate(timeout=600)
        beside.reader_code = reader.returncode
    finally:
        for proc in (ingest, reader):
            if proc is not None and proc.poll() is None:
                proc.kill()
    beside.rounds = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return beside


