"""Fault injection (issues 22, 59): tampering, damage, hostile files and a full disk.

Each case ends with a clear message, the other documents stored, nothing wrong shown, and the
data folder opening afterwards. Damage is done the way an attacker or a failing disk would: to the
stored bytes, outside biny's writer (the read caches are then dropped, as a reopen would).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import subprocess
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from biny.core.config import LimitSettings, Settings
from biny.core.crypto.space import SpaceCrypto
from biny.core.engine import Engine
from biny.core.errors import CorruptDocument, DataTampered
from biny.core.ingest import parse_file, sniff
from biny.core.store import rowmac
from biny.core.store.lance import ChunkRecord, ChunkStore
from tests.conftest import CountingEmbedder, corpus

PUMPS = "\n\n".join(f"Pump P-{i:03d} is serviced every {i + 2} weeks by the night shift, who log pressure, "
                    f"temperature and vibration readings for unit {i}." for i in range(24))
VALVES = "\n\n".join(f"Relief valve V-{i:02d} opens at {10 + i} bar and is replaced after {i + 3}0,000 cycles "
                     "by the day shift." for i in range(24))
Q_PUMP = "How often is pump P-003 serviced?"
Q_VALVE = "At what pressure does relief valve V-05 open?"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    pumps, valves = tmp_path / "pumps.md", tmp_path / "valves.md"
    pumps.write_text(PUMPS, encoding="utf-8")
    valves.write_text(VALVES, encoding="utf-8")
    return pumps, valves


def _settings() -> Settings:
    s = Settings()
    s.chunking.target_tokens = 48  # several passages per document, cheaply
    s.chunking.overlap_tokens = 0
    return s


def _table(eng: Engine, space: str) -> tuple[str, Any]:
    sid = eng.catalog.spaces.named(space).space_id
    return sid, eng.chunks.db.open_table(eng.chunks.table_name(sid))


def _rows(tbl: Any) -> list[dict[str, Any]]:
    return tbl.search().select(["chunk_id", "doc_id", "ct"]).limit(10_000).to_arrow().to_pylist()


def test_a_flipped_ciphertext_byte_stops_the_question_naming_the_document(
        tmp_path: Path, files: tuple[Path, Path], embedder: CountingEmbedder) -> None:
    """Issue 59: never an answer from the passages that are left — the question ends in DataTampered."""
    with Engine.open(tmp_path / "home", settings=_settings(), embedder=embedder) as eng:
        eng.create_space("s", passphrase="correct horse battery staple", remember=False)
        eng.ingest("s", [files[0]])
        top = eng.ask("s", Q_PUMP, k=50, max_distance=2.0).chunks
        assert len(top) >= 2
        sid, tbl = _table(eng, "s")
        ct = bytearray(next(r["ct"] for r in _rows(tbl) if r["chunk_id"] == top[0].chunk_id))
        ct[30] ^= 0x01
        tbl.update(where=f"chunk_id = '{top[0].chunk_id}'", values={"ct": bytes(ct)})
        eng.vectors.invalidate(sid)
        with pytest.raises(DataTampered, match="'pumps' — 1 passage\\(s\\) no longer match") as caught:
            eng.ask("s", Q_PUMP, k=50, max_distance=2.0)
        assert "biny doctor --deep" in str(caught.value)


def test_a_ciphertext_that_passes_its_code_but_does_not_open_still_stops_the_question(
        tmp_path: Path, files: tuple[Path, Path], embedder: CountingEmbedder) -> None:
    """The sentence check (issue 20) opens passages before the final context: a ciphertext that fails to open
    there (its row code recomputed, as only the key's holder could) ends the question, never judged without it."""
    with Engine.open(tmp_path / "home", settings=_settings(), embedder=embedder) as eng:
        eng.create_space("s", passphrase="correct horse battery staple", remember=False)
        eng.ingest("s", [files[0]])
        every = replace(eng.retrieval.params(), sentence_window=50.0)  # every kept passage is read by sentence
        top = eng.ask("s", Q_PUMP, params=replace(every, sentence_check=False)).chunks  # nothing read yet
        assert top
        sid, tbl = _table(eng, "s")
        row = tbl.search().where(f"chunk_id = '{top[0].chunk_id}'").to_arrow().to_pylist()[0]
        ct = bytearray(row["ct"])
        ct[30] ^= 0x01
        changed = {**row, "ct": bytes(ct)}
        changed["mac"] = rowmac.row_mac(eng.keys.crypto("s").mac_key, changed)
        tbl.merge_insert("chunk_id").when_matched_update_all().execute(
            pa.Table.from_pylist([changed], schema=tbl.schema))
        eng.vectors.invalidate(sid)
        with pytest.raises(DataTampered, match="ciphertext fails its check when opened"):
            eng.ask("s", Q_PUMP, params=every)


def test_a_passage_sealed_for_one_document_does_not_open_under_another(tmp_path: Path,
                                                                       embedder: CountingEmbedder) -> None:
    with Engine.open(tmp_path / "home", embedder=embedder) as eng:
        eng.create_space("s", passphrase="correct horse battery staple", remember=False)
        crypto: SpaceCrypto = eng.keys.crypto("s")
        rec = ChunkRecord("c1", "doc-a", 0, "secret text", 0, 11, None, None, [], 3, 3.0, [], [], [])
        crypto.seal_record(rec)
        moved = ChunkRecord(**{**{f: getattr(rec, f) for f in rec.__slots__}, "doc_id": "doc-b"})
        with pytest.raises(DataTampered):
            crypto.open_record(moved)
        assert crypto.open_record(rec).text == "secret text"


def test_passages_swapped_between_documents_are_caught(tmp_path: Path, files: tuple[Path, Path],
                                                       embedder: CountingEmbedder) -> None:
    with Engine.open(tmp_path / "home", settings=_settings(), embedder=embedder) as eng:
        eng.create_space("s", passphrase="correct horse battery staple", remember=False)
        eng.ingest("s", list(files))
        docs = {d.title: d.doc_id for d in eng.documents("s")}
        sid, tbl = _table(eng, "s")
        rows = _rows(tbl)
        a = next(r for r in rows if r["doc_id"] == docs["pumps"])
        b = next(r for r in rows if r["doc_id"] == docs["valves"])
        # Each row takes the other's chunk id and ciphertext: counts per document stay right.
        tbl.update(where=f"chunk_id = '{a['chunk_id']}'", values={"chunk_id": "swap-tmp", "ct": b["ct"]})
        tbl.update(where=f"chunk_id = '{b['chunk_id']}'", values={"chunk_id": a["chunk_id"], "ct": a["ct"]})
        tbl.update(where="chunk_id = 'swap-tmp'", values={"chunk_id": b["chunk_id"]})
        eng.vectors.invalidate(sid)
        # Neither document answers, and nothing is shown under the wrong document: the question stops, naming both.
        with pytest.raises(DataTampered) as caught:
            eng.ask("s", Q_VALVE, k=50, max_distance=2.0)
        assert "'pumps' — " in str(caught.value) and "'valves' — " in str(caught.value)
        assert "not the ones" in str(caught.value)


def test_a_changed_doc_id_marks_the_document_damaged_and_reingest_repairs_it(
        tmp_path: Path, files: tuple[Path, Path], embedder: CountingEmbedder) -> None:
    home = tmp_path / "home"
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        eng.create_space("s", encrypted=False)
        eng.ingest("s", list(files))
        docs = {d.title: d.doc_id for d in eng.documents("s")}
        sid, tbl = _table(eng, "s")
        moved = next(r["chunk_id"] for r in _rows(tbl) if r["doc_id"] == docs["pumps"])
        tbl.update(where=f"chunk_id = '{moved}'", values={"doc_id": docs["valves"]})
        eng.vectors.invalidate(sid)
        with pytest.raises(DataTampered, match=r"'pumps' — .*'valves' — "):
            eng.ask("s", Q_PUMP, k=50, max_distance=2.0)  # neither document is trusted while it does not match
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        assert any("2 document(s) marked damaged" in n for n in eng.folder.recovery_notes)
        assert {d.title: d.status for d in eng.documents("s")} == {"pumps": "damaged", "valves": "damaged"}
        with pytest.raises(DataTampered, match="marked damaged"):
            eng.ask("s", Q_PUMP, k=50, max_distance=2.0)
        report = eng.ingest("s", list(files))
        assert [f.outcome for f in report.files] == ["ingested", "ingested"]  # never "unchanged"
        assert {d.title: d.status for d in eng.documents("s")} == {"pumps": "active", "valves": "active"}
        assert "every 5 weeks" in eng.ask("s", Q_PUMP).chunks[0].text
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        assert eng.folder.recovery_notes == []


def test_a_non_finite_vector_on_disk_stops_the_question(tmp_path: Path, files: tuple[Path, Path],
                                                        embedder: CountingEmbedder) -> None:
    home = tmp_path / "home"
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        eng.create_space("s", encrypted=False)
        eng.ingest("s", [files[0]])
        target = eng.ask("s", Q_PUMP).chunks[0].chunk_id
        _, tbl = _table(eng, "s")
        row = tbl.search().select(["chunk_id", "vector"]).where(f"chunk_id = '{target}'").to_arrow().to_pylist()[0]
        raw = np.asarray(row["vector"], dtype=np.float32).tobytes()
    # A flipped exponent byte on disk: the vector's first number becomes NaN (LanceDB never writes one).
    hits = [(f, f.read_bytes().find(raw)) for f in (home / "lance").rglob("*.lance") if f.is_file()]
    path, at = next((f, i) for f, i in hits if i >= 0)
    data = bytearray(path.read_bytes())
    data[at:at + 4] = np.array([np.nan], dtype=np.float32).tobytes()
    path.write_bytes(bytes(data))
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        with pytest.raises(DataTampered, match="'pumps' — a stored vector is not a number"):
            eng.ask("s", Q_PUMP, k=50, max_distance=2.0)
        assert eng.documents("s")[0].status == "active"


# ---- hostile files -----------------------------------------------------------------------------

def _docx_with(path: Path, members: list[tuple[str, bytes]]) -> None:
    template = corpus("docx", "word_sample.docx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(template)) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item.filename))
        for name, data in members:
            dst.writestr(name, data)


def test_a_zip_member_larger_than_its_header_says_is_refused(tmp_path: Path) -> None:
    import struct

    path = tmp_path / "liar.docx"
    _docx_with(path, [("word/media/filler.bin", bytes(40 * 1024 * 1024))])
    raw = bytearray(path.read_bytes())
    name = b"word/media/filler.bin"
    at = 0
    while (at := raw.find(b"PK\x01\x02", at)) >= 0:  # central directory entries
        length = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46:at + 46 + length] == name:
            struct.pack_into("<I", raw, at + 24, 1024)  # claims 1 KB
            struct.pack_into("<I", raw, struct.unpack_from("<I", raw, at + 42)[0] + 22, 1024)  # local header too
        at += 4
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptDocument, match="damaged zip container"):
        parse_file(path, LimitSettings())


def test_a_picture_of_a_hundred_megapixels_is_skipped_not_decoded(tmp_path: Path) -> None:
    import docx
    from PIL import Image

    png = io.BytesIO()
    Image.new("RGB", (11000, 10000), (250, 250, 250)).save(png, "PNG")
    document = docx.Document()
    document.add_paragraph("A report with one enormous picture.")
    document.add_picture(io.BytesIO(png.getvalue()))
    path = tmp_path / "pixels.docx"
    document.save(str(path))
    # Measured in a child process (VmHWM: the peak of its own memory, not the forking parent's, which
    # ru_maxrss would report): before, opening this 40 KB file took 1 GB of memory.
    code = ("import re, sys; from pathlib import Path; from biny.core.config import LimitSettings; "
            "from biny.core.ingest import parse_file; d = parse_file(Path(sys.argv[1]), LimitSettings()); "
            "print(d.warnings); "
            "print(int(re.search(r'VmHWM:\\s+(\\d+)', Path('/proc/self/status').read_text()).group(1)) // 1024)")
    out = subprocess.run([os.sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    warnings, rss_mb = out.stdout.strip().splitlines()
    assert "too large to read safely" in warnings and "11000×10000" in warnings
    assert int(rss_mb) < 400


def test_an_oversized_xml_part_is_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import docx

    document = docx.Document()
    for i in range(4000):
        document.add_paragraph(f"Paragraph {i}: " + "words " * 40)
    path = tmp_path / "long.docx"
    document.save(str(path))
    assert parse_file(path, LimitSettings()).blocks  # read at the real limit
    monkeypatch.setattr(sniff, "MAX_XML_PART_MB", 1)
    with pytest.raises(Exception, match="over 1 MB of XML"):
        parse_file(path, LimitSettings())


def test_a_page_nested_deeper_than_libxml_allows_still_gives_its_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "nested.html"
    path.write_text("<html><head><title>Deep</title></head><body><nav><p>Home · About</p></nav>" + "<div>" * 100_000
                    + "<p>The one paragraph of this page.</p>" + "</div>" * 100_000 + "</body></html>",
                    encoding="utf-8")
    doc = parse_file(path, LimitSettings())
    assert doc.title == "Deep" and [b.text for b in doc.blocks] == ["The one paragraph of this page."]


# ---- a full disk -------------------------------------------------------------------------------

@contextlib.contextmanager
def _small_disk(where: Path, mb: int) -> Iterator[bool]:
    """A tmpfs of ``mb`` MB at ``where`` when this process may mount one (root in a container), else
    nothing (the caller injects the error instead)."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={mb}m", "tmpfs", str(where)], capture_output=True).returncode == 0
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _fill(disk: Path) -> Path:
    filler = disk / "filler.bin"
    with filler.open("wb") as fh:
        try:
            while True:
                fh.write(b"\0" * (1 << 16))
                fh.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler


def test_a_full_disk_fails_the_file_keeps_what_is_stored_and_reads_still_work(
        tmp_path: Path, files: tuple[Path, Path], embedder: CountingEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = tmp_path / "disk"
    with _small_disk(disk, 48) as mounted:
        home = disk / "home"
        with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
            eng.create_space("s", encrypted=False)
            assert eng.ingest("s", [files[0]]).ok
            assert eng.ask("s", Q_PUMP).chunks
            if mounted:
                filler = _fill(disk)
            else:  # no tmpfs here: the store's write fails as LanceDB reports a full disk
                def full(*_: object, **__: object) -> None:
                    raise RuntimeError("LanceError(IO): Generic LocalFileSystem error: No space left on device "
                                       "(os error 28)")
                monkeypatch.setattr(ChunkStore, "add", full)
            report = eng.ingest("s", [files[1]])
            assert [f.outcome for f in report.files] == ["failed"]
            assert "is full" in report.files[0].message and "Traceback" not in report.files[0].message
            # What was stored is intact and readable while the disk is still full.
            assert "every 5 weeks" in eng.ask("s", Q_PUMP).chunks[0].text
            assert [d.title for d in eng.documents("s")] == ["pumps"]
        with Engine.open(home, settings=_settings(), embedder=embedder) as eng:  # opens on the full disk
            assert [d.title for d in eng.documents("s")] == ["pumps"]
            assert eng.ask("s", Q_PUMP).chunks
        if mounted:
            filler.unlink()
        monkeypatch.undo()
        with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
            assert eng.ingest("s", [files[1]]).ok
            assert sorted(d.title for d in eng.documents("s")) == ["pumps", "valves"]
            assert eng.ask("s", Q_VALVE).chunks


def test_the_cli_names_a_full_disk_instead_of_a_traceback(tmp_path: Path, files: tuple[Path, Path],
                                                          capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from biny.core.cli import main

    home = str(tmp_path / "home")
    assert main(["--home", home, "space", "create", "s", "--unencrypted"]) == 0
    capsys.readouterr()

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ChunkStore, "add", full)
    assert main(["--home", home, "ingest", str(files[0]), "--space", "s", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["files"][0]["outcome"] == "failed" and "is full" in out["files"][0]["message"]
    assert "Free some space" in out["files"][0]["message"]


# ---- keys and plaintext at rest ---------------------------------------------------------------------

def _raw(home: Path) -> bytes:
    return b"".join(f.read_bytes() for f in sorted(home.rglob("*")) if f.is_file())


def test_after_a_passphrase_change_the_old_wrapped_key_is_gone_from_the_files(
        tmp_path: Path, files: tuple[Path, Path], embedder: CountingEmbedder) -> None:
    home = tmp_path / "team's data"  # a quote in the path: the rewrite quotes it in SQL
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        eng.create_space("s", passphrase="the old passphrase", remember=False)
        eng.ingest("s", list(files))
        fact = eng.memory.add("The night shift logs pump readings hourly.", scope="plant")
        old = eng.catalog.spaces.named("s")
    # Closing checkpoints: the old wrapping is now in the catalog file's blocks, not only in its log.
    assert old.wrapped_key is not None and old.wrapped_key in _raw(home)
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        eng.keys.unlock("s", "the old passphrase")
        old_salt = json.loads(old.kdf)["salt"].encode()
        tables = {t: eng.catalog.con.execute(f'SELECT count(*) FROM "{t}"').fetchone()
                  for (t,) in eng.catalog.con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        assert eng.keys.change_passphrase("s", "the old passphrase", "a new passphrase")
        new = eng.catalog.spaces.named("s")
        # Everything else came through the rewrite of the catalog file unchanged.
        assert {t: eng.catalog.con.execute(f'SELECT count(*) FROM "{t}"').fetchone() for t in tables} == tables
        assert "every 5 weeks" in eng.ask("s", Q_PUMP).chunks[0].text
        assert eng.memory.get(fact.fact_id).text == fact.text  # the memory key was re-wrapped too
    raw = _raw(home)
    assert new.wrapped_key is not None and new.wrapped_key in raw  # the search finds a live wrapping …
    assert old.wrapped_key is not None and old.wrapped_key not in raw  # … and the old one is not there
    assert old_salt not in raw
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        eng.keys.unlock("s", "a new passphrase")
        assert sorted(d.title for d in eng.documents("s")) == ["pumps", "valves"]


def test_an_interrupted_ingest_is_cleaned_at_open_without_naming_a_sealed_path(tmp_path: Path,
                                                                               embedder: CountingEmbedder) -> None:
    from biny.core.store.catalog import DocumentRow

    home = tmp_path / "home"
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        eng.create_space("s", passphrase="correct horse battery staple", remember=False)
        row = eng.catalog.spaces.named("s")
        stored = eng.keys.crypto("s").stored_path(str(tmp_path / "secret-plans.md"))
        assert stored.startswith("bi:")
        # What a kill -9 between "begin" and "commit" leaves: a pending row.
        pending = DocumentRow("d1", row.space_id, stored, "", "text", "h", 1, "pending", 10)
        eng.folder.writer.docs.begin_document(pending)
    with Engine.open(home, settings=_settings(), embedder=embedder) as eng:
        said = "s: removed half-ingested a document (its name is sealed); ingest it again"
        assert eng.folder.recovery_notes == [said]
        eng.keys.unlock("s", "correct horse battery staple")
        assert eng.documents("s") == []


@pytest.mark.parametrize(("exc", "kind"), [
    (OSError(28, "No space left on device"), "StorageFull"),
    (OSError(30, "Read-only file system"), "StorageReadOnly"),
    (RuntimeError("LanceError(IO): Execution error: corrupt file: checksum mismatch"), "StoreDamaged"),
    (duckdb.IOException("IO Error: Could not read from file"), "StoreDamaged"),
    (duckdb.BinderException('Binder Error: Referenced column "x" not found in FROM clause!'), None),
    (duckdb.CatalogException("Catalog Error: Table with name nothing does not exist!"), None),
    (RuntimeError("Table 'chunks' was not found"), None),
])
def test_only_io_and_corruption_are_storage_errors(exc: BaseException, kind: str | None) -> None:
    """A binder error is a bug in biny, not a damaged data folder (exit 3 with the traceback logged, not exit 2
    telling the user to restore a backup)."""
    from biny.core.store.failures import storage_problem

    problem = storage_problem(exc)
    assert (type(problem).__name__ if problem is not None else None) == kind


def test_a_sql_bug_exits_3_with_its_traceback_in_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from biny.core.cli import main

    def broken(self: Engine) -> list[object]:
        raise duckdb.BinderException('Binder Error: Referenced column "nme" not found in FROM clause!')

    monkeypatch.setattr(Engine, "spaces", broken)
    home = tmp_path / "home"
    assert main(["--home", str(home), "space", "list"]) == 3
    err = capsys.readouterr().err
    assert "This is a bug in biny" in err and "doctor" not in err
    assert "BinderException" in (home / "logs" / "biny.log").read_text(encoding="utf-8")
