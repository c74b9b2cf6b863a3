"""A LanceDB data file cut short is named as damage, with what to do — not "internal error … a bug" (issue 59)."""

from __future__ import annotations

from pathlib import Path

import pytest

from biny.core.cli import main
from tests.conftest import ROOT


def test_a_truncated_lance_data_file_is_named_not_a_bug(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "home")
    assert main(["--home", home, "space", "create", "s", "--unencrypted"]) == 0
    assert main(["--home", home, "ingest", str(ROOT / "resources" / "demo" / "pricing.md"), "--space", "s"]) == 0
    [data] = (tmp_path / "home" / "lance").glob("*.lance/data/*.lance")
    whole = data.read_bytes()
    data.write_bytes(whole[: len(whole) // 2])
    capsys.readouterr()
    assert main(["--home", home, "ask", "How much does the Team plan cost per month?", "--space", "s"]) == 2
    err = capsys.readouterr().err
    assert "could not be read" in err and "restore from a backup" in err and "internal error" not in err, err
    # The folder still opens (issue 59): doctor reports the space's table as unreadable, with how to restore it.
    assert main(["--home", home, "doctor"]) == 1
    out = capsys.readouterr().out
    assert "unreadable\ts: its passages and vectors could not be read whole" in out and "restore the space" in out
