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
from biny.core.ingest.keys import KEYS_VERSION, passage_keys
from biny.core.services.doctor import passage_counts
from biny.core.store.guard import writing
from biny.core.text.terms import STEM_MARK, query_terms
from tests.conftest import corpus


def _space(engine: Engine, tmp_path: Path) -> tuple[str, Path, Path]:
    engine.create_space("s", encrypted=False)
    a, b = tmp_path / "pep-0020.rst", tmp_path / "pep-0257.rst"
    shutil.copy(corpus("python_peps", "pep-0020.rst"), a)
    shutil.copy(corpus("python_peps", "pep-0257.rst"), b)
    assert len(engine.ingest("s", [a, b]).by("ingested")) == 2
    return engine.folder.catalog.spaces.named("s").space_id, a, b


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
        row = eng.folder.catalog.spaces.named("s")
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


def _age(engine: Engine, name: str) -> list[str]:
    """Store a space's passages as a version before ``KEYS_VERSION`` did (no stems, no language marks) and
    record version 0, as a data folder written then holds them. Returns the doc ids."""
    row, crypto = engine.folder.catalog.spaces.named(name), engine.keys.crypto(name)
    docs = engine.documents(name)
    keys = {}
    for doc in docs:
        title = doc.title  # the listing opens titles already
        for rec in engine.folder.chunks.doc_chunks(row.space_id, doc.doc_id):
            k = passage_keys(crypto.open_record(rec).text, title)
            keys[rec.chunk_id] = crypto.seal_keys(k.ids, [w for w in k.terms if not w.startswith(STEM_MARK)],
                                                  [a for a in k.aspects if not a.startswith("lang:")])
    engine.folder.writer.rekey(row.space_id, keys, [d.doc_id for d in docs], 0)
    return [d.doc_id for d in docs]


def _stored(engine: Engine, name: str) -> dict[str, tuple[list[str], list[str], list[str], list[float]]]:
    row = engine.folder.catalog.spaces.named(name)
    return {rec.chunk_id: (rec.ids, rec.terms, rec.aspects, [float(x) for x in vec])
            for doc in engine.documents(name)
            for rec, vec in engine.folder.chunks.doc_vectors(row.space_id, doc.doc_id)}


RUSSIAN = ("В игрушечных паровых машинах нагревательным элементом часто служит спиртовка. Паровые машины "
           "приводили в движение фабрики и железные дороги XIX века.")


def test_passages_indexed_by_an_older_version_are_found_and_indexed_again(engine: Engine, tmp_path: Path) -> None:
    """A space ingested before stems and language marks: reported, then re-keyed from the stored text alone —
    the same passages, vectors and text, keys as ingest computes them now, and stems matching again."""
    from biny.core.retrieve import lexical

    space_id, a, _ = _space(engine, tmp_path)
    ru = tmp_path / "паровые машины.txt"
    ru.write_text(RUSSIAN, encoding="utf-8")
    assert engine.ingest("s", [ru]).ok
    fresh = _stored(engine, "s")
    assert any(STEM_MARK in w for _, terms, _, _ in fresh.values() for w in terms)
    assert {d.keys_version for d in engine.catalog.docs.of(space_id)} == {KEYS_VERSION}
    doc_ids = _age(engine, "s")
    aged = _stored(engine, "s")
    assert aged.keys() == fresh.keys() and not any(STEM_MARK in w for _, terms, _, _ in aged.values() for w in terms)
    q = "Какой нагревательный элемент используют в игрушечной паровой машине?"
    vm = engine.vectors.get(space_id, engine.catalog.docs.active_ids(space_id), 384)
    assert lexical.units(query_terms(q), vm, engine.keys.crypto("s").blind) == query_terms(q)  # whole words only

    [f] = engine.doctor.check("s").findings
    n = sum(d.chunks for d in engine.documents("s"))
    assert f.kind == "outdated" and f"3 document(s), {n} passage(s)" in f.detail and "--repair" in f.action
    a.unlink()  # no source file is needed: the stored text is
    fixed = engine.doctor.check("s", repair=True)
    assert fixed.healthy and fixed.findings[0].repaired
    assert _stored(engine, "s") == fresh, "keys as ingest computes them; vectors and chunk ids unchanged"
    assert {d.keys_version for d in engine.catalog.docs.of(space_id)} == {KEYS_VERSION}
    assert {d.doc_id for d in engine.documents("s")} == set(doc_ids) and engine.doctor.check("s").findings == []
    vm = engine.vectors.get(space_id, engine.catalog.docs.active_ids(space_id), 384)
    assert {"~нагре", "~элеме"} <= lexical.units(query_terms(q), vm, engine.keys.crypto("s").blind)
    assert "спиртовка" in engine.ask("s", q).chunks[0].text


def test_an_encrypted_space_is_indexed_again_only_when_unlocked(engine: Engine, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    engine.create_space("sealed", encrypted=True)
    ru = tmp_path / "паровые машины.txt"
    ru.write_text(RUSSIAN, encoding="utf-8")
    assert engine.ingest("sealed", [ru]).ok
    fresh = _stored(engine, "sealed")
    assert not any(w.startswith(("~", "lang:")) for _, terms, aspects, _ in fresh.values() for w in terms + aspects)
    _age(engine, "sealed")
    assert _stored(engine, "sealed") != fresh
    monkeypatch.delenv("BINY_PASSPHRASE")
    engine.keys.lock_all()
    [f] = engine.doctor.check("sealed", repair=True).findings
    assert f.kind == "locked" and not f.repaired and "BINY_PASSPHRASE" in f.action
    catalog = engine.folder.catalog
    assert {d.keys_version for d in catalog.docs.of(catalog.spaces.named("sealed").space_id)} == {0}, \
        "nothing written without the key"
    engine.keys.unlock("sealed", "test passphrase — not a real secret")
    assert engine.doctor.check("sealed", repair=True).healthy
    assert _stored(engine, "sealed") == fresh, "blinded keys, as ingest stores them"
