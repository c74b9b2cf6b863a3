"""Smaller bad inputs (issue: hardening, point 5): each says what happened instead of failing or hiding it."""

from __future__ import annotations

from pathlib import Path

import pytest

from biny.core.cli import main
from biny.core.config import LimitSettings
from biny.core.ingest.parse import parse_file


def test_utf16_without_a_bom_is_read_as_text(tmp_path: Path) -> None:
    for enc in ("utf-16-be", "utf-16-le"):
        path = tmp_path / f"notes-{enc}.txt"
        path.write_bytes("# Maintenance\n\nReplace the filter every 90 days.\n".encode(enc))
        doc = parse_file(path, LimitSettings())
        assert "every 90 days" in " ".join(b.text for b in doc.blocks) and not doc.warnings


def test_nul_bytes_are_removed_and_said(tmp_path: Path) -> None:
    path = tmp_path / "damaged.txt"
    path.write_bytes(b"# Notes\n\n" + b"A" * 2000 + b"\x00\x00 and the rest of the text.\n")
    doc = parse_file(path, LimitSettings())
    assert any("2 NUL byte(s) removed" in w for w in doc.warnings)


def test_an_empty_folder_is_an_error_and_odd_file_names_stay_on_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert main(["--home", home, "space", "create", "s", "--unencrypted"]) == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    capsys.readouterr()
    assert main(["--home", home, "ingest", str(empty), "--space", "s"]) == 2
    assert "Nothing to ingest" in capsys.readouterr().err
    odd = tmp_path / "two\nlines.md"
    odd.write_text("# Title\n\nSome text about filters.\n", encoding="utf-8")
    assert main(["--home", home, "ingest", str(odd), "--space", "s"]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("ingested"))
    assert "two\\nlines.md" in line


def test_passphrase_change_needs_two_distinct_sources(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    home = str(tmp_path / "home")
    monkeypatch.setenv("BINY_PASSPHRASE", "first passphrase")
    assert main(["--home", home, "space", "create", "s"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal, nothing given: refused
    assert main(["--home", home, "space", "passphrase", "s"]) == 2
    assert "two lines on stdin" in capsys.readouterr().err
    monkeypatch.setenv("OLD_PW", "first passphrase")
    monkeypatch.setenv("NEW_PW", "second passphrase")
    assert main(["--home", home, "space", "passphrase", "s", "--old-from-env", "OLD_PW",
                 "--new-from-env", "OLD_PW"]) == 2  # one variable for both
    assert main(["--home", home, "space", "passphrase", "s", "--old-from-env", "OLD_PW",
                 "--new-from-env", "NEW_PW"]) == 0
    assert "re-wrapped" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin", io.StringIO("second passphrase\nthird passphrase\n"))
    assert main(["--home", home, "space", "passphrase", "s"]) == 0
    monkeypatch.setenv("BINY_PASSPHRASE", "third passphrase")
    assert main(["--home", home, "docs", "--space", "s"]) == 0  # the new one opens it


def test_a_broken_docx_fails_alone_and_the_files_after_it_are_stored(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Broken XML inside a DOCX and an XML entity bomb: each fails with its name; the good file after them lands."""
    import zipfile

    folder = tmp_path / "in"
    folder.mkdir()
    good_docx = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "docx"
    sample = next(iter(sorted(good_docx.glob("*.docx"))), None)
    if sample is None:
        pytest.skip("no DOCX in the shared corpora")
    with zipfile.ZipFile(sample) as zin:
        parts = {n: zin.read(n) for n in zin.namelist()}
    entities = "".join(f"<!ENTITY e{i} '{('&e' + str(i - 1) + ';') * 10 if i else '&a;' * 10}'>" for i in range(8))
    bomb = (f"<?xml version='1.0'?><!DOCTYPE d [<!ENTITY a 'aaaaaaaaaa'>{entities}]>"
            "<w:document xmlns:w='x'><w:body>&e7;</w:body></w:document>").encode()
    for name, body in (("a_broken.docx", b"<w:document xmlns:w='x'><w:body><w:p attr=oops></w:body>"),
                       ("b_bomb.docx", bomb)):
        with zipfile.ZipFile(folder / name, "w") as zout:
            for part, data in parts.items():
                zout.writestr(part, body if part == "word/document.xml" else data)
    (folder / "c_good.md").write_text("# Filters\n\nReplace the filter every 90 days.\n", encoding="utf-8")
    home = str(tmp_path / "home")
    assert main(["--home", home, "space", "create", "s", "--unencrypted"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "ingest", str(folder), "--space", "s", "--json"]) == 1  # some files failed
    import json

    files = {Path(f["path"]).name: f for f in json.loads(capsys.readouterr().out)["files"]}
    assert files["c_good.md"]["outcome"] == "ingested"
    for bad in ("a_broken.docx", "b_bomb.docx"):
        assert files[bad]["outcome"] == "failed" and bad in files[bad]["message"], files[bad]


def test_ingest_log_messages_are_sealed_in_an_encrypted_space(tmp_path: Path) -> None:
    from biny.core.engine import Engine
    from tests.conftest import CountingEmbedder

    bad = tmp_path / "acquisition-plan-2027.pdf"
    bad.write_bytes(b"MZ" + b"\0" * 64)  # an executable renamed .pdf
    with Engine.open(tmp_path / "home", embedder=CountingEmbedder()) as eng:
        eng.create_space("s")
        assert eng.ingest("s", [bad]).files[0].outcome == "failed"
        shown = eng.ingest_log("s")
        assert "acquisition-plan-2027.pdf" in shown[0]["message"]  # opened for the owner
        eng.catalog.con.execute("CHECKPOINT")
    for path in (tmp_path / "home").rglob("*"):
        if path.is_file():
            assert b"acquisition-plan" not in path.read_bytes(), path


def test_a_huge_text_file_is_refused_with_the_setting_to_change(tmp_path: Path) -> None:
    from biny.core.errors import DocumentTooLarge

    big = tmp_path / "dump.txt"
    big.write_bytes(b"A line of a very long log.\n" * (21 * 1024 * 1024 // 27 + 1))
    with pytest.raises(DocumentTooLarge, match=r"limits\.max_text_mb"):
        parse_file(big, LimitSettings())
