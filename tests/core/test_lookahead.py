"""Parsing the next file while the current one embeds (issue 23): same outcomes, progress per file."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from biny.core.engine import Engine
from biny.core.ingest.lookahead import Ahead
from biny.core.progress import Progress
from biny.core.services import documents
from tests.conftest import corpus


def test_a_parse_ahead_reports_only_once_it_is_waited_for() -> None:
    emitted, release = threading.Event(), threading.Event()
    first = Progress(1, 3, "read", "next.pdf")

    def work(path: Path, emit: Any) -> str:
        emit(first)
        emitted.set()
        release.wait()
        return f"parsed {path.name}"

    seen: list[Progress] = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        ahead = Ahead(pool, Path("next.pdf"), work, seen.append)
        assert emitted.wait(timeout=60)
        assert seen == [], "the file being embedded owns the progress display"
        release.set()
        assert ahead.result() == "parsed next.pdf"
    assert seen == [first], "its latest step is shown when the loop reaches it"


def test_lookahead_keeps_outcomes_order_and_progress_per_file(engine: Engine, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = documents.parse_document

    def counting(path: Path, *args: Any) -> Any:
        parsed.append(path.name)
        return real(path, *args)

    monkeypatch.setattr(documents, "parse_document", counting)
    steps: list[Progress] = []
    started: list[tuple[str, int]] = []
    real_start = documents.Lookahead.start

    def start(self: Any, path: Path, emit: Any) -> None:
        started.append((path.name, sum(p.stage == "file_done" for p in steps)))
        real_start(self, path, emit)

    monkeypatch.setattr(documents.Lookahead, "start", start)
    engine.create_space("s", encrypted=False)
    bad = tmp_path / "empty.txt"
    bad.write_bytes(b"")
    files = [corpus("python_peps", "pep-0020.rst"), bad, corpus("pdfs", "kampo.pdf"),
             corpus("cn_laws", "民法典__附则.md")]
    report = engine.ingest("s", files, progress=steps.append)
    # The next file's parse is handed to the worker before the current file embeds and is done.
    assert started == [("empty.txt", 0), ("kampo.pdf", 1), ("民法典__附则.md", 2)]
    assert [f.outcome for f in report.files] == ["ingested", "failed", "ingested", "ingested"]
    assert "empty" in report.files[1].message
    assert sorted(parsed) == sorted(p.name for p in files), "each file parsed exactly once"
    indices = [p.file_index for p in steps if p.stage != "done"]
    assert indices == sorted(indices), "no step of a later file shows before an earlier file is done"
    # Unchanged files are recognised before any parse: a second run parses nothing.
    parsed.clear()
    again = engine.ingest("s", files)
    assert [f.outcome for f in again.files] == ["unchanged", "failed", "unchanged", "unchanged"]
    assert parsed == ["empty.txt"], "only the file that is not stored is parsed again"
