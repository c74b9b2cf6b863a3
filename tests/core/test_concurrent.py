"""Issue 58: readers are never locked out by a writer — asked, listed and exported while another process ingests.

One process ingests many small documents through the command line; meanwhile other processes ask questions of
the same space and of another one, list documents and spaces, and export the other space. Every one of them
succeeds, answering from what was committed so far (the document count only grows), and a second writer is
refused, naming the first.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from tests.conftest import corpus

WORDS = ("apple river stone cloud garden engine silver winter forest harbor lantern meadow copper violet orbit "
         "canyon").split()


def _cli(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "biny.core.cli", "--home", str(home), *args]


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_cli(home, *args), capture_output=True, text=True, timeout=600)


def notes(folder: Path, n: int) -> Path:
    """``n`` short Markdown notes, each naming its room (one passage each)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        r = random.Random(i)
        (folder / f"note{i:03d}.md").write_text(
            f"# Note {i}\n\nThe {r.choice(WORDS)} of item {i} is kept in room {i % 17}. "
            + " ".join(r.choice(WORDS) for _ in range(40)) + "\n", encoding="utf-8")
    return folder


def test_readers_answer_while_another_process_ingests(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for space in ("a", "b"):
        assert _run(home, "space", "create", space).returncode == 0
    assert _run(home, "ingest", str(corpus("python_peps", "pep-0020.rst")), "--space", "b").returncode == 0
    docs = notes(tmp_path / "notes", 80)

    ingest = subprocess.Popen(_cli(home, "ingest", str(docs), "--space", "a", "--json"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    counts: list[int] = []
    answered_meanwhile = 0
    refused: tuple[tuple[str, str], int | None] | None = None
    try:
        while ingest.poll() is None:
            # The readers run side by side, as people and scripts would; the export and a second writer once.
            calls = {"same": ("ask", "what is kept in room 3?", "--space", "a", "--json"),
                     "other": ("ask", "Is beautiful better than ugly?", "--space", "b", "--json"),
                     "listed": ("docs", "--space", "a", "--json"), "spaces": ("space", "list", "--json")}
            if refused is None:
                calls["exported"] = ("space", "export", "b", str(tmp_path / "b.tar"))
                calls["refused"] = ("ingest", str(corpus("python_peps", "pep-0257.rst")), "--space", "b")
            running = {k: subprocess.Popen(_cli(home, *v), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True) for k, v in calls.items()}
            done = {k: (p.communicate(timeout=600), p.returncode) for k, p in running.items()}
            still = ingest.poll() is None
            for k, ((_, stderr), code) in done.items():
                if k != "refused":
                    assert code == 0 and "in use" not in stderr, (k, stderr)
            refused = refused or done.get("refused")
            other = json.loads(done["other"][0][0])
            assert any("Beautiful is better than ugly" in c["text"] for c in other["chunks"])
            counts.append(len(json.loads(done["listed"][0][0])))
            answered_meanwhile += still
        out, err = ingest.communicate(timeout=60)
    finally:
        if ingest.poll() is None:
            ingest.kill()
    assert ingest.returncode == 0, err
    assert answered_meanwhile >= 2, "the ingest ended before the readers could overlap it"
    assert counts == sorted(counts), "a reader saw documents disappear: not a committed version"
    # Only whole documents are ever listed (each note is one passage, committed with its document).
    assert sum(f["outcome"] == "ingested" for f in json.loads(out)["files"]) == 80
    assert refused is not None and refused[1] == 2
    assert "is writing to the data folder" in refused[0][1] and "ingesting into space 'a'" in refused[0][1]
    final = _run(home, "ask", "what is kept in room 3?", "--space", "a", "--json")
    assert any("room 3." in c["text"] for c in json.loads(final.stdout)["chunks"])
    assert (tmp_path / "b.tar").stat().st_size > 0
