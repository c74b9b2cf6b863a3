"""Tampering corpus (issue 59): each change to a closed data folder ends in a named error on `ask` — exit 2, the
space and the document named, nothing printed on stdout — and in a `doctor --deep` finding. Plain and encrypted
spaces; real LanceDB and DuckDB; the data folder is changed outside biny, as a person editing its files would.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import lancedb
import numpy as np
import pyarrow as pa
import pytest

from biny.core.cli import main
from biny.core.engine import Engine
from biny.core.errors import DataTampered
from biny.core.store import rowmac

PRICING = ("# Tallow pricing\n\n" + "Plans are billed per site. " * 120 + "\n\n"
           + "\n\n".join(f"The {name} plan costs ${price} per month and covers up to {n} sensors at {sites} sites, "
                         f"with history kept for {days} days and alerts for {users} users."
                         for name, price, n, sites, days, users in [
                             ("Starter", 49, 10, 1, 90, 3), ("Team", 129, 100, 5, 730, 20),
                             ("Fleet", 399, 500, 25, 1095, 80), ("Campus", 899, 2000, 60, 1825, 200)]) + "\n")
SENSORS = ("# Sensor care\n\n"
           + "\n\n".join(f"Sensor model S-{i:02d} is recalibrated every {i + 3} months and its battery lasts "
                         f"{i + 12} months in rooms below {20 + i} degrees." for i in range(40)) + "\n")
QUESTION = "How much does the Team plan cost per month?"


def _ingest(home: Path, src: Path, encrypted: bool) -> None:
    create = ["--home", str(home), "space", "create", "s"] + ([] if encrypted else ["--unencrypted"])
    assert main(create) == 0
    files = [src / "pricing.md", src / "sensors.md"]
    assert main(["--home", str(home), "ingest", *map(str, files), "--space", "s"]) == 0


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    """One ingested data folder per kind of space, copied for each case (ingest runs the real model once)."""
    src = tmp_path_factory.mktemp("src")
    (src / "pricing.md").write_text(PRICING, encoding="utf-8")
    (src / "sensors.md").write_text(SENSORS, encoding="utf-8")
    out = {}
    for encrypted in (False, True):
        home = tmp_path_factory.mktemp("enc" if encrypted else "plain") / "home"
        _ingest(home, src, encrypted)
        out[encrypted] = home
    return out


def _table(home: Path) -> Any:
    db = lancedb.connect(str(home / "lance"))
    [name] = [n for n in db.list_tables().tables if n.startswith("chunks_")]
    return db.open_table(name)


def _rows(home: Path) -> list[dict[str, Any]]:
    tbl = _table(home)
    return tbl.search().limit(tbl.count_rows()).to_arrow().to_pylist()


def _titles(home: Path) -> dict[str, str]:
    """doc_id → file name (plaintext spaces show the title; an encrypted one's is sealed, so match by row count)."""
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        return {r[0]: r[1] for r in con.execute("SELECT doc_id, title FROM documents").fetchall()}


def _set(home: Path, rows: list[dict[str, Any]]) -> None:
    """Write whole rows back by chunk id (a merge: LanceDB's SQL update cannot set an empty list)."""
    tbl = _table(home)
    tbl.merge_insert("chunk_id").when_matched_update_all().execute(pa.Table.from_pylist(rows, schema=tbl.schema))


def _two_documents(rows: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    a = rows[0]
    b = next(r for r in rows if r["doc_id"] != a["doc_id"])
    return a, b


def empty_terms(home: Path) -> None:
    row = max(_rows(home), key=lambda r: len(r["terms"]))
    _set(home, [{**row, "terms": []}])


def swap_vectors(home: Path) -> None:
    a, b = _two_documents(_rows(home))
    _set(home, [{**a, "vector": b["vector"]}, {**b, "vector": a["vector"]}])


def swap_content(home: Path) -> None:
    """Ciphertext (encrypted) or text (plain) swapped between passages of two documents."""
    a, b = _two_documents(_rows(home))
    field = "ct" if a["ct"] else "text"
    _set(home, [{**a, field: b[field]}, {**b, field: a[field]}])


def swap_sentence_vectors(home: Path) -> None:
    """The stored sentence vectors (issue 57) decide which sentences an answer shows: swapped, they are caught."""
    a, b = _two_documents(_rows(home))
    assert a["sentence_vectors"] and b["sentence_vectors"] and a["sentence_vectors"] != b["sentence_vectors"]
    _set(home, [{**a, "sentence_vectors": b["sentence_vectors"]}, {**b, "sentence_vectors": a["sentence_vectors"]}])


def change_ordinal(home: Path) -> None:
    row = _rows(home)[0]
    _set(home, [{**row, "ordinal": row["ordinal"] + 7}])


def change_doc_id(home: Path) -> None:
    a, b = _two_documents(_rows(home))
    _set(home, [{**a, "doc_id": b["doc_id"]}])


def clear_a_code(home: Path) -> None:
    row = _rows(home)[0]
    _set(home, [{**row, "mac": b""}])


def truncate_data_file(home: Path) -> None:
    data = max((home / "lance").glob("chunks_*.lance/data/*.lance"), key=lambda p: p.stat().st_size)
    whole = data.read_bytes()
    data.write_bytes(whole[: len(whole) // 2])


def delete_catalog(home: Path) -> None:
    for path in home.glob("catalog.duckdb*"):
        path.unlink()


# Each case: how to damage the folder, what `ask` says on stderr, the `doctor --deep` finding kinds allowed.
CASES: dict[str, tuple[Callable[[Path], None], tuple[str, ...], set[str]]] = {
    "empty terms": (empty_terms, ("failed its integrity check", "no longer match their integrity code"),
                    {"tampered"}),
    "swap vectors": (swap_vectors, ("failed its integrity check",), {"tampered"}),
    "swap ciphertext or text": (swap_content, ("failed its integrity check",), {"tampered"}),
    "swap sentence vectors": (swap_sentence_vectors, ("failed its integrity check",), {"tampered"}),
    "change ordinal": (change_ordinal, ("failed its integrity check",), {"tampered"}),
    "change doc_id": (change_doc_id, ("failed its integrity check", "marked damaged"), {"damaged"}),
    "clear a code": (clear_a_code, ("failed its integrity check",), {"tampered"}),
    "truncate a data file": (truncate_data_file, ("could not be read", "doctor --deep"), {"unreadable"}),
    "delete the catalog": (delete_catalog, ("catalog (catalog.duckdb) is missing", "Restore catalog.duckdb"),
                           {"unlisted"}),
}


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
@pytest.mark.parametrize("case", list(CASES))
def test_tampering_ends_in_a_named_error_and_a_deep_finding(case: str, encrypted: bool, built: dict[bool, Path],
                                                            tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    shutil.copytree(built[encrypted], home)
    titles = _titles(home)
    damage, said, kinds = CASES[case]
    damage(home)
    capsys.readouterr()
    for json_flag in ([], ["--json"]):
        code = main(["--home", str(home), "ask", QUESTION, "--space", "s", *json_flag])
        out, err = capsys.readouterr()
        assert code == 2, (case, out, err)
        assert out == "", "no answer, no refusal, no partial text"
        for words in said:
            assert words in err, (case, err)
        assert "internal error" not in err and "not in your material" not in err.lower()
        if "integrity check" in said[0] and not encrypted:  # a plaintext space names the document by its title
            assert any(title in err for title in titles.values()), err
    assert main(["--home", str(home), "doctor", "--deep", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["healthy"]
    found = {f["kind"] for f in report["findings"]}
    assert found & kinds, (case, report["findings"])
    assert all(f["action"] for f in report["findings"]), "every finding says how to restore"


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
def test_repair_rebuilds_a_tampered_document_from_its_file(encrypted: bool, built: dict[bool, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    shutil.copytree(built[encrypted], home)
    swap_vectors(home)
    assert main(["--home", str(home), "ask", QUESTION, "--space", "s"]) == 2
    assert main(["--home", str(home), "doctor", "--deep", "--repair"]) == 0
    capsys.readouterr()
    assert main(["--home", str(home), "doctor", "--deep"]) == 0
    assert main(["--home", str(home), "ask", QUESTION, "--space", "s"]) == 0
    assert "$129 per month" in capsys.readouterr().out


def _unbind(home: Path) -> None:
    """Make the folder look as an earlier version left it: no codes, no mark."""
    tbl = _table(home)
    rows = _rows(home)
    _set(home, [{**r, "mac": b""} for r in rows])
    assert tbl.count_rows() == len(rows)
    with duckdb.connect(str(home / "catalog.duckdb")) as con:
        con.execute("UPDATE spaces SET rows_bound = ''")


def test_a_plaintext_space_written_before_codes_is_bound_when_the_folder_opens(built: dict[bool, Path],
                                                                                tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(built[False], home)
    _unbind(home)
    with Engine.open(home) as eng:
        assert all(len(r["mac"]) == rowmac.MAC_BYTES for r in _rows(home))
        assert eng.doctor.check(deep=True).healthy
        assert "$129" in eng.ask("s", QUESTION).chunks[0].text
    change_ordinal(home)  # bound now: a change is caught
    with Engine.open(home) as eng, pytest.raises(DataTampered, match="integrity"):
        eng.ask("s", QUESTION)


def test_an_encrypted_space_written_before_codes_is_reported_until_repair_binds_it(built: dict[bool, Path],
                                                                                   tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(built[True], home)
    _unbind(home)
    with Engine.open(home) as eng:
        assert eng.ask("s", QUESTION).chunks  # answered, but not silently: a notice says the codes are missing
        assert any("not yet covered" in n for n in eng.keys.take_notices())
        [finding] = eng.doctor.check().findings
        assert finding.kind == "unbound" and "--repair" in finding.action
        fixed = eng.doctor.check(repair=True)
        assert fixed.healthy and fixed.findings[0].repaired
        assert eng.doctor.check(deep=True).findings == []
    clear_a_code(home)  # bound now: a row without a code is a mismatch, not a row "from before"
    with Engine.open(home) as eng, pytest.raises(DataTampered):
        eng.ask("s", QUESTION)


def test_binding_never_codes_a_row_whose_ciphertext_does_not_open(built: dict[bool, Path], tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(built[True], home)
    _unbind(home)
    swap_content(home)  # moved between documents: the ciphertext's own check still sees it
    with Engine.open(home) as eng:
        report = eng.doctor.check(repair=True)
        unbound = next(f for f in report.findings if f.kind == "unbound")
        assert not unbound.repaired and "damaged documents first" in unbound.action
        assert any(f.kind == "tampered" for f in eng.doctor.check(deep=True).findings)


def test_row_mac_and_table_macs_agree_and_cover_every_field() -> None:
    key = b"k" * 32
    row = {"chunk_id": "c1", "doc_id": "d1", "ordinal": 2, "char_start": 10, "char_end": 90, "page": None,
           "page_end": 3, "tokens": 20, "est_tokens": 19.5, "heading_path": '["A", "B"]', "text": "héllo wörld",
           "ct": b"", "sentence_vectors": b"\x01\x02", "ids": ["def|x1"], "terms": ["hello", "world"],
           "aspects": ["price"], "vector": np.linspace(-1, 1, 8, dtype=np.float32)}
    base = rowmac.row_mac(key, row)
    types = dict(rowmac._TYPES)
    table = pa.Table.from_arrays(
        [pa.array([row[f]], type=types[f]) for f in rowmac.MAC_FIELDS[:-1]]
        + [pa.FixedSizeListArray.from_arrays(pa.array(row["vector"]), 8)], names=list(rowmac.MAC_FIELDS))
    assert rowmac.table_macs(key, table) == [base] and len(base) == rowmac.MAC_BYTES
    changes = {"chunk_id": "c2", "doc_id": "d2", "ordinal": 3, "char_start": 11, "char_end": 91, "page": 0,
               "page_end": None, "tokens": 21, "est_tokens": 19.0, "heading_path": '["A"]', "text": "hello world",
               "ct": b"x", "sentence_vectors": b"\x02\x01", "ids": ["ref|x1"], "terms": ["hello"], "aspects": [],
               "vector": np.linspace(-1, 1, 8, dtype=np.float32)[::-1].copy()}
    assert set(changes) == set(rowmac.MAC_FIELDS)
    for name, value in changes.items():
        assert rowmac.row_mac(key, {**row, name: value}) != base, name
    # Moving bytes across a field boundary changes the code too (lengths are bound).
    assert rowmac.row_mac(key, {**row, "terms": ["hellow", "orld"]}) != base
    assert rowmac.row_mac(b"j" * 32, row) != base
    # The stored format: rows coded by earlier versions must still pass (this code was made by the per-part hashing
    # that came before the joined messages).
    assert base.hex() == "f28c1c3d9c43b5425d1197b21feb5ebd"


def test_a_large_sliced_table_gets_each_rows_own_code() -> None:
    """Above ``_SHARED_FROM`` rows the codes are computed on two threads; a sliced table (a scan's batch) reads its own
    rows: every code is the row's own, in order."""
    key = b"k" * 32
    rows = [{"chunk_id": f"c{i}", "doc_id": f"d{i % 9}", "ordinal": i, "char_start": i, "char_end": i + 40,
             "page": i if i % 3 else None, "page_end": None, "tokens": 9, "est_tokens": 9.5, "heading_path": "[]",
             "text": "é" * (i % 50), "ct": b"", "sentence_vectors": bytes(i % 5), "ids": [],
             "terms": [f"t{j}" for j in range(i % 7)], "aspects": ["price"] if i % 2 else [],
             "vector": np.full(8, i / 1200, dtype=np.float32)} for i in range(1200)]
    types = dict(rowmac._TYPES)
    table = pa.Table.from_arrays(
        [pa.array([r[f] for r in rows], type=types[f]) for f in rowmac.MAC_FIELDS[:-1]]
        + [pa.FixedSizeListArray.from_arrays(pa.array(np.concatenate([r["vector"] for r in rows])), 8)],
        names=list(rowmac.MAC_FIELDS))
    assert len(rows) > rowmac._SHARED_FROM
    codes = rowmac.table_macs(key, table)
    assert codes == [rowmac.row_mac(key, r) for r in rows] and len(set(codes)) == len(rows)
    assert rowmac.table_macs(key, table.slice(7, 900)) == codes[7:907]
    assert rowmac.table_macs(key, table.slice(3, 5).to_batches()[0]) == codes[3:8]


# ---- the structured index (issue 59): its rows answer questions without a passage, so they carry codes too --------
PRODUCTS = ("name,price,weight,maker\nOrion X2 Drill,$129.00,2.1 kg,Balder\nVega Sander,$89.50,1.4 kg,Kestrel\n"
            "Lyra Jigsaw,$74.00,1.9 kg,Balder\nDraco Planer,$159.00,3.2 kg,Kestrel\n"
            "Cygnus Router,$210.00,2.8 kg,Marlow\nAltair Grinder,$65.00,1.7 kg,Marlow\n")
ROW_QUESTION = "How much does the Draco Planer cost?"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    src = tmp_path_factory.mktemp("tables")
    (src / "products.csv").write_text(PRODUCTS, encoding="utf-8")
    out = {}
    for encrypted in (False, True):
        home = tmp_path_factory.mktemp("ienc" if encrypted else "iplain") / "home"
        assert main(["--home", str(home), "space", "create", "s"] + ([] if encrypted else ["--unencrypted"])) == 0
        assert main(["--home", str(home), "ingest", str(src / "products.csv"), "--space", "s"]) == 0
        assert main(["--home", str(home), "index", "build", "--space", "s"]) == 0
        out[encrypted] = home
    return out


def _catalog(home: Path, sql: str) -> None:
    with duckdb.connect(str(home / "catalog.duckdb")) as con:
        con.execute(sql)


def _index_rows(home: Path) -> list[tuple[str, int, str]]:
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        return [(r[0], r[1], r[2]) for r in con.execute(
            "SELECT doc_id, revision, data FROM structured_rows ORDER BY doc_id").fetchall()]


def index_value_changed(home: Path) -> None:
    """A plaintext row's price edited; an encrypted row's sealed data swapped with another row's."""
    rows = _index_rows(home)
    if "$159.00" in "".join(r[2] for r in rows):
        _catalog(home, "UPDATE structured_rows SET data = replace(data, '$159.00', '$99.00')")
        return
    (a, _, da), (b, _, db) = rows[0], rows[1]
    _catalog(home, f"UPDATE structured_rows SET data = CASE doc_id WHEN '{a}' THEN '{db}' ELSE '{da}' END "
                   f"WHERE doc_id IN ('{a}', '{b}')")


INDEX_CASES: dict[str, Callable[[Path], None]] = {
    "index: a value changed or swapped": index_value_changed,
    "index: a row deleted": lambda home: _catalog(
        home, "DELETE FROM structured_rows WHERE doc_id = (SELECT min(doc_id) FROM structured_rows)"),
    "index: a row's revision changed": lambda home: _catalog(home, "UPDATE structured_rows SET revision = revision + 1"
                                                                  " WHERE doc_id = (SELECT max(doc_id) FROM "
                                                                  "structured_rows)"),
    "index: its generation changed": lambda home: _catalog(home, "UPDATE structured_spec SET generation = 7"),
    "index: a row's code cleared": lambda home: _catalog(home, "UPDATE structured_rows SET mac = '' WHERE doc_id = "
                                                               "(SELECT min(doc_id) FROM structured_rows)"),
}


@pytest.mark.parametrize("encrypted", [False, True], ids=["plain", "encrypted"])
@pytest.mark.parametrize("case", list(INDEX_CASES))
def test_a_tampered_structured_index_ends_in_a_named_error_and_a_deep_finding(
        case: str, encrypted: bool, indexed: dict[bool, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    shutil.copytree(indexed[encrypted], home)
    capsys.readouterr()
    assert main(["--home", str(home), "ask", ROW_QUESTION, "--space", "s"]) == 0
    assert "$159.00" in capsys.readouterr().out
    INDEX_CASES[case](home)
    code = main(["--home", str(home), "ask", ROW_QUESTION, "--space", "s"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (case, out, err)
    assert "failed its integrity check: its structured index changed" in err and "biny index build" in err
    assert main(["--home", str(home), "doctor", "--deep", "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert any(f["kind"] == "tampered" and "structured index" in f["detail"] for f in findings), findings
    # The way back the finding names: the index built again from the documents answers as before.
    assert main(["--home", str(home), "index", "build", "--space", "s"]) == 0
    capsys.readouterr()
    assert main(["--home", str(home), "ask", ROW_QUESTION, "--space", "s"]) == 0
    assert "$159.00" in capsys.readouterr().out


def test_an_index_built_before_codes_is_bound_and_then_checked(indexed: dict[bool, Path], tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(indexed[False], home)
    _catalog(home, "UPDATE structured_rows SET mac = ''")
    _catalog(home, "UPDATE structured_spec SET mac = ''")
    with Engine.open(home) as eng:  # a plaintext space's index is coded when the folder opens, like its passages
        assert not [f for f in eng.doctor.check(deep=True).findings if "structured" in f.detail]
        assert "$159.00" in str(eng.index.answer("s", ROW_QUESTION)[1])
    index_value_changed(home)
    with Engine.open(home) as eng, pytest.raises(DataTampered, match="structured index"):
        eng.index.answer("s", ROW_QUESTION)


# ---- memory facts (issue 59): recall answers from them, so each carries a code under the owner's memory key ------
FACTS = ["Ana prefers answers in Portuguese.", "Ana's team ships on Thursdays.", "Ana is allergic to peanuts."]


@pytest.fixture(scope="module")
def remembered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("memory") / "home"
    with Engine.open(home) as eng:
        ids = [eng.memory.add(text, "user:ana").fact_id for text in FACTS]
        eng.memory.set_status(ids[2], "deleted")
    return home


def _facts_sql(home: Path, sql: str) -> None:
    with duckdb.connect(str(home / "catalog.duckdb")) as con:
        ids = [r[0] for r in con.execute("SELECT fact_id FROM facts ORDER BY created_at").fetchall()]
        con.execute(sql.format(a=ids[0], b=ids[1], deleted=ids[2]))


SWAP = ("UPDATE facts SET {col} = (SELECT {col} FROM facts f WHERE f.fact_id = CASE facts.fact_id WHEN '{{a}}' "
        "THEN '{{b}}' ELSE '{{a}}' END) WHERE fact_id IN ('{{a}}', '{{b}}')")
FACT_CASES: dict[str, str] = {
    "memory: vectors swapped": SWAP.format(col="vector"),
    "memory: a deleted fact set active": "UPDATE facts SET status = 'active' WHERE fact_id = '{deleted}'",
    "memory: an older revision claimed": "UPDATE facts SET revision = revision + 1 WHERE fact_id = '{a}'",
    "memory: sealed text swapped": SWAP.format(col="ct"),
    "memory: a code cleared": "UPDATE facts SET mac = '' WHERE fact_id = '{b}'",
}


@pytest.mark.parametrize("case", list(FACT_CASES))
def test_tampered_memory_facts_end_in_a_named_error_and_a_deep_finding(
        case: str, remembered: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    shutil.copytree(remembered, home)
    with Engine.open(home) as eng:
        assert eng.memory.recall("Which day does the team ship?", "user:ana").facts
    _facts_sql(home, FACT_CASES[case])
    capsys.readouterr()
    code = main(["--home", str(home), "memory", "recall", "What is Ana allergic to?", "--scope", "user:ana"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (case, out, err)
    assert "Memory of" in err and "failed its integrity check" in err
    assert main(["--home", str(home), "doctor", "--deep", "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert any(f["kind"] == "tampered" and f["space"] == "(memory)" for f in findings), findings
    # Repair sets the changed facts aside: recall works again and never returns them.
    assert main(["--home", str(home), "doctor", "--deep", "--repair"]) == 0
    with Engine.open(home) as eng:
        recalled = eng.memory.recall("What is Ana allergic to?", "user:ana")
        assert all("peanuts" not in f.text for f in recalled.facts)


def test_memory_facts_stored_before_codes_are_bound_once(remembered: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(remembered, home)
    with duckdb.connect(str(home / "catalog.duckdb")) as con:
        con.execute("UPDATE facts SET mac = ''")
        con.execute("DELETE FROM meta WHERE key LIKE 'facts_bound|%'")
    with Engine.open(home) as eng:
        assert len(eng.memory.facts("user:ana")) == 2
        assert not [f for f in eng.doctor.check(deep=True).findings if f.space == "(memory)"]
    _facts_sql(home, FACT_CASES["memory: a code cleared"])  # bound now: a fact without a code is a mismatch
    with Engine.open(home) as eng, pytest.raises(DataTampered, match="Memory of"):
        eng.memory.facts("user:ana")


def test_an_encrypted_spaces_older_index_is_reported_until_repair_codes_it(indexed: dict[bool, Path],
                                                                         tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(indexed[True], home)
    _catalog(home, "UPDATE structured_rows SET mac = ''")
    _catalog(home, "UPDATE structured_spec SET mac = ''")
    with Engine.open(home) as eng:
        assert "$159.00" in str(eng.index.answer("s", ROW_QUESTION)[1])  # read, not yet checkable
        [finding] = [f for f in eng.doctor.check().findings if "structured index" in f.detail]
        assert finding.kind == "unbound" and "--repair" in finding.action
        assert eng.doctor.check(repair=True).healthy
        assert eng.doctor.check(deep=True).findings == []
    index_value_changed(home)  # coded now: a swapped row is caught
    with Engine.open(home) as eng, pytest.raises(DataTampered, match="structured index"):
        eng.index.answer("s", ROW_QUESTION)
