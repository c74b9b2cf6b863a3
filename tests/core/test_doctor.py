"""`biny doctor`: catalog and vector store checked against each other, repaired from sources (issue 22)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import uuid
from pathlib import Path

import numpy as np
import pytest

from biny.core.cli import main
from biny.core.engine import Engine
from biny.core.services.doctor import passage_counts
from biny.core.store.guard import writing
from tests.conftest import corpus


def _space(engine: Engine, tmp_path: Path) -> tuple[str, Path, Path]:
    engine.create_space("s", encrypted=False)
    a, b = tmp_path / "pep-0020.rst", tmp_path / "pep-0257.rst"
    shutil.copy(corpus("python_peps", "pep-0020.rst"), a)
    shutil.copy(corpus("python_peps", "pep-0257.rst"), b)
    assert len(engine.ingest("s", [a, b]).by("ingested")) == 2
    return engine.folder.catalog.space("s").space_id, a, b


def _doc(engine: Engine, path: Path):  # type: ignore[no-untyped-def]
    return next(d for d in engine.documents("s") if d.path == str(path.resolve()))


def test_a_healthy_folder_is_reported_healthy(engine: Engine, tmp_path: Path) -> None:
    _space(engine, tmp_path)
    report = engine.doctor.check()
    assert report.healthy and report.findings == [] and report.documents == 2 and report.passages > 2


def test_lost_passages_are_found_and_rebuilt_from_the_source(engine: Engine, tmp_path: Path) -> None:
    space_id, _, b = _space(engine, tmp_path)
    doc = _doc(engine, b)
    victims = [r.chunk_id for r in engine.folder.chunks.doc_chunks(space_id, doc.doc_id)][:2]
    table = engine.folder.chunks._table(space_id)
    table.delete("chunk_id IN (" + ", ".join(f"'{c}'" for c in victims) + ")")  # a damaged store
    found = engine.doctor.check("s")
    assert not found.healthy
    [f] = found.findings
    assert f.kind == "damaged" and f.doc_id == doc.doc_id and f"{doc.chunks - 2} of its {doc.chunks}" in f.detail
    assert "--repair" in f.action
    fixed = engine.doctor.check("s", repair=True)
    assert fixed.healthy and fixed.findings[0].repaired and "rebuilt from" in fixed.findings[0].action
    again = _doc(engine, b)
    assert again.revision == doc.revision + 1 and again.chunks == doc.chunks
    assert engine.doctor.check("s").findings == []
    assert engine.ask("s", "What should a one-line docstring look like?").chunks


def test_without_the_source_nothing_is_deleted_and_the_finding_says_what_to_do(engine: Engine,
                                                                              tmp_path: Path) -> None:
    space_id, a, _ = _space(engine, tmp_path)
    doc = _doc(engine, a)
    with writing():  # damage the store behind the writer's back
        engine.folder.chunks.delete_docs(space_id, [doc.doc_id])
    a.unlink()
    report = engine.doctor.check("s", repair=True)
    [f] = report.findings
    assert not f.repaired and f"restore {a.resolve()}" in f.action
    assert _doc(engine, a).status == "active", "kept listed until the user decides"


def test_orphan_passages_are_found_and_removed(engine: Engine, tmp_path: Path) -> None:
    space_id, a, _ = _space(engine, tmp_path)
    doc = _doc(engine, a)
    rec, vec = engine.folder.chunks.doc_vectors(space_id, doc.doc_id)[0]
    stray = dataclasses.replace(rec, chunk_id=uuid.uuid4().hex, doc_id=uuid.uuid4().hex)
    with writing():
        engine.folder.chunks.add(space_id, [stray], vec[None, :])
    [f] = engine.doctor.check("s").findings
    assert f.kind == "orphans" and "1 passage(s) of 1 document(s)" in f.detail
    assert engine.doctor.check("s", repair=True).healthy
    assert engine.doctor.check("s").findings == []


def test_cli_doctor_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    src = tmp_path / "pep-0020.rst"
    shutil.copy(corpus("python_peps", "pep-0020.rst"), src)
    assert main(["--home", home, "space", "create", "s"]) == 0
    assert main(["--home", home, "ingest", str(src), "--space", "s"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "doctor", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["healthy"] is True and out["findings"] == [] and out["documents"] == 1
    with Engine.open(home) as eng:
        row = eng.folder.catalog.space("s")
        with writing():
            eng.folder.chunks.delete_docs(row.space_id, list(eng.folder.chunks.doc_ids(row.space_id)))
    assert main(["--home", home, "doctor"]) == 1
    assert "damaged" in capsys.readouterr().out
    assert main(["--home", home, "doctor", "--repair", "--space", "s"]) == 0
    assert "repaired" in capsys.readouterr().out


def test_invalid_vectors_count_against_their_document() -> None:
    vectors = np.ones((4, 3), dtype=np.float32)
    vectors[2, 1] = np.nan
    vectors[3, 0] = np.inf
    have, bad = passage_counts(["a", "a", "b", "b"], vectors)
    assert have == {"a": 2, "b": 2} and bad == {"b": 2}
