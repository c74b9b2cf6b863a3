"""Smaller cases of issue 59: a truncated or missing backup says so (never "internal error" or "the data folder
could not be read"), and a passphrase shorter than 8 characters is refused with the reason."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from biny.core.cli import main
from biny.core.config import Settings
from biny.core.crypto.keys import MIN_PASSPHRASE
from biny.core.engine import Engine
from biny.core.errors import WrongPassphrase
from tests.conftest import ROOT, CountingEmbedder


def test_a_truncated_or_missing_backup_is_named_and_nothing_is_imported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home, other = str(tmp_path / "home"), str(tmp_path / "other")
    archive = tmp_path / "kb.tar"
    assert main(["--home", home, "space", "create", "kb", "--unencrypted"]) == 0
    assert main(["--home", home, "ingest", str(ROOT / "resources" / "demo" / "pricing.md"), "--space", "kb"]) == 0
    assert main(["--home", home, "space", "export", "kb", str(archive)]) == 0
    whole = archive.read_bytes()
    with tarfile.open(archive) as tar:  # cut inside the last member's data, and inside the first header
        last = [m for m in tar.getmembers() if m.isfile() and m.size > 2][-1]
    capsys.readouterr()
    for cut in (last.offset_data + last.size // 2, 300):
        archive.write_bytes(whole[:cut])
        assert main(["--home", other, "space", "import", str(archive)]) == 2
        err = capsys.readouterr().err
        assert "damaged or incomplete" in err and "internal error" not in err, err
    assert main(["--home", other, "space", "list"]) == 0
    assert "kb" not in capsys.readouterr().out  # nothing half-imported
    assert main(["--home", other, "space", "import", str(tmp_path / "nowhere.tar")]) == 2
    err = capsys.readouterr().err
    assert "No backup file at" in err and "nowhere.tar" in err and "data folder" not in err
    archive.write_bytes(whole)  # the same backup, whole, imports
    assert main(["--home", other, "space", "import", str(archive)]) == 0


def test_a_short_passphrase_is_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    home = str(tmp_path / "home")
    monkeypatch.setenv("BINY_PASSPHRASE", "x")
    assert main(["--home", home, "space", "create", "s"]) == 2
    assert f"at least {MIN_PASSPHRASE} characters; this one has 1" in capsys.readouterr().err
    with Engine.open(tmp_path / "home2", settings=Settings(), embedder=CountingEmbedder()) as eng:
        with pytest.raises(WrongPassphrase, match="at least 8"):
            eng.create_space("s", passphrase="1234567")
        eng.create_space("s", passphrase="12345678")  # eight is enough
        with pytest.raises(WrongPassphrase, match="this one has 3"):
            eng.keys.change_passphrase("s", "12345678", "abc")
