"""The terminal shows what documents contain, never obeys it (issue 59).

The command line runs as a separate process and its bytes are read: a document whose text clears the screen
(ESC [2J) and retitles the window (OSC 0), with an escape and a newline in its file name, must come out with no
raw ESC or C1 byte on stdout or stderr, the text shown as escapes, and a file name with a newline on one row.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from biny.core.cli.output import safe_text

CLEAR, RETITLE = "\x1b[2J", "\x1b]0;owned\x07"


def _biny(home: Path, *args: str) -> tuple[int, bytes]:
    env = {**os.environ, "BINY_LANG": "en"}
    done = subprocess.run([sys.executable, "-m", "biny.core.cli", "--home", str(home), *args],
                          capture_output=True, env=env, timeout=600)
    return done.returncode, done.stdout + done.stderr


def test_safe_text_escapes_what_a_terminal_acts_on() -> None:
    shown = safe_text(f"a{CLEAR}b{RETITLE}c\x9b31md\re\u202ef\n\tg")
    assert not any(ch in shown for ch in "\x1b\x07\x9b\r\u202e")
    assert shown == "a\\u001b[2Jb\\u001b]0;owned\\u0007c\\u009b31md\\u000de\\u202ef\n\tg"


def test_the_cli_prints_no_raw_escape_from_documents_and_file_names(tmp_path: Path) -> None:
    home = tmp_path / "home"
    name = tmp_path / f"notes{CLEAR}two\nlines.md"
    name.write_text(f"# Pump{RETITLE} manual\n\nThe pump {CLEAR}is serviced every 90 days by the site "
                    "engineer.\u009b31m Replacement seals are kept in the store room.\n", encoding="utf-8")
    code, _ = _biny(home, "space", "create", "s", "--unencrypted")
    assert code == 0
    outputs = []
    for args in (("ingest", str(name), "--space", "s"), ("docs", "--space", "s"),
                 ("ask", "How often is the pump serviced?", "--space", "s"),
                 ("ask", "How often is the pump serviced?", "--space", "s", "--json")):
        code, out = _biny(home, *args)
        assert code == 0, out.decode(errors="replace")
        assert b"\x1b" not in out and b"\x07" not in out and "\x9b".encode() not in out, (args, out)
        outputs.append(out.decode())
    ingest, docs, ask, ask_json = outputs
    assert "\\u001b[2J" in ask and "serviced every 90 days" in ask  # shown, as an escape
    assert "two\\nlines.md" in ingest.splitlines()[0]  # the name's newline does not split the line
    row = next(line for line in docs.splitlines() if "chunks" in line)
    assert "two\\nlines.md" in row and "Pump\\x1b]0;owned\\x07 manual" in row
    import json

    assert "\x1b[2J" in json.loads(ask_json.splitlines()[-1])["chunks"][0]["text"]  # JSON carries the text exactly


def test_an_encrypted_spaces_log_holds_no_file_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from biny.core.config import Settings
    from biny.core.engine import Engine
    from biny.core.ingest import job
    from tests.conftest import CountingEmbedder

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError(f"unexpected failure while reading {secret}")

    monkeypatch.setattr(job, "chunk_document", broken)
    secret = tmp_path / "merger-plan-acme.md"
    secret.write_text("# Merger plan\n\nAcme is bought in May.\n", encoding="utf-8")
    with Engine.open(tmp_path / "home", settings=Settings(), embedder=CountingEmbedder()) as eng:
        eng.create_space("vault", passphrase="correct horse battery")
        out = eng.ingest("vault", [secret]).files[0]
        assert out.outcome == "failed" and "RuntimeError" in out.message  # the person at the terminal is told
    log = (tmp_path / "home" / "logs" / "biny.log").read_text(encoding="utf-8")
    assert "RuntimeError" in log and "<withheld>" in log  # the failure is logged …
    assert "merger-plan-acme" not in log and str(tmp_path) not in log  # … without the file's name
