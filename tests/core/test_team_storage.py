"""A team space on object storage (issue 21): one writer across machines, read-only consoles, refresh.

Against moto's S3 server on loopback (started here), with its conditional writes. Two "machines" are two
data folders with the same [storage] settings; no test waits for a clock — an expired lease is written
as the object a crashed writer would leave behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biny.core.engine import Engine
from biny.core.errors import ConfigError, ObjectStoreUnavailable, ReadOnlyFolder
from tests.conftest import CountingEmbedder
from tests.s3 import team_settings

PUMPS = "Pump P-7 is serviced every 6 weeks by the night shift, who log pressure and vibration readings."
VALVES = "The relief valve V-77 opens at 12 bar and is replaced after 40,000 cycles by the day shift."


def _doc(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def _open(home: Path, s3: str, bucket: str, embedder: CountingEmbedder) -> Engine:
    return Engine.open(home, settings=team_settings(s3, bucket), embedder=embedder)


def test_one_writer_others_read_and_refresh(tmp_path: Path, s3: str, bucket: str,
                                            embedder: CountingEmbedder) -> None:
    a = _open(tmp_path / "laptop-a", s3, bucket, embedder)
    try:
        assert a.team.status()["mode"] == "writer"  # type: ignore[index]
        a.create_space("plant", encrypted=False)
        a.ingest("plant", [_doc(tmp_path / "docs", "pumps.md", PUMPS)])
        assert not (tmp_path / "laptop-a" / "lance").exists()  # the chunk tables live in the bucket
        b = _open(tmp_path / "laptop-b", s3, bucket, embedder)
        try:
            status = b.team.status()
            writer = a.team.status()
            assert status is not None and writer is not None
            assert status["mode"] == "read-only" and status["writer"] == writer["writer"]
            assert any("being written by" in n for n in b.folder.recovery_notes)
            hit = b.ask("plant", "How often is pump P-7 serviced?").chunks
            assert hit and "6 weeks" in hit[0].text
            # A write from the reader is refused, naming who writes; nothing changes.
            with pytest.raises(ReadOnlyFolder, match="being written by"):
                b.ingest("plant", [_doc(tmp_path / "docs", "valves.md", VALVES)])
            with pytest.raises(ReadOnlyFolder):
                b.create_space("other", encrypted=False)
            # The writer adds a document: the reader sees it only after a refresh, all at once.
            a.ingest("plant", [_doc(tmp_path / "docs", "valves.md", VALVES)])
            valve = "At what pressure does relief valve V-77 open?"
            assert not b.ask("plant", valve).chunks
            assert len(b.documents("plant")) == 1
            assert b.team.refresh() is True
            assert len(b.documents("plant")) == 2
            hit = b.ask("plant", valve).chunks
            assert hit and "12 bar" in hit[0].text
            assert b.team.refresh() is False  # nothing newer
        finally:
            b.close()
    finally:
        a.close()
    # The writer closed: its lease is gone, so the next machine to open writes.
    c = _open(tmp_path / "laptop-c", s3, bucket, embedder)
    try:
        assert c.team.status()["mode"] == "writer"  # type: ignore[index]
        assert len(c.documents("plant")) == 2  # it starts from the published catalog, not its own empty one
        c.set_document_status("plant", c.documents("plant")[0].doc_id, "archived")
    finally:
        c.close()


def test_a_crashed_writers_lease_expires_and_it_cannot_write_after(tmp_path: Path, s3: str, bucket: str,
                                                                  embedder: CountingEmbedder) -> None:
    a = _open(tmp_path / "laptop-a", s3, bucket, embedder)
    a.create_space("plant", encrypted=False)
    folder_a = a.folder
    assert folder_a.team is not None
    # A's machine sleeps: its heartbeat stops and its lease, as stored, runs out.
    folder_a.team.lease._stop.set()
    client = folder_a.team.bucket.client()
    key = folder_a.team.bucket.key("lease.json")
    stored = json.loads(client.get_object(Bucket=bucket, Key=key)["Body"].read())
    stored["expires"] = 0.0
    client.put_object(Bucket=bucket, Key=key, Body=json.dumps(stored).encode())
    b = _open(tmp_path / "laptop-b", s3, bucket, embedder)
    try:
        assert b.team.status()["mode"] == "writer"  # type: ignore[index]
        b.ingest("plant", [_doc(tmp_path / "docs", "pumps.md", PUMPS)])
        # A wakes up and tries to write: refused, saying its lease was taken (the file fails with that, and
        # from then on A refuses before reading anything); B's document is intact.
        report = a.ingest("plant", [_doc(tmp_path / "docs", "valves.md", VALVES)])
        assert report.by("failed") and "expired and is now held by" in report.files[0].message
        with pytest.raises(ReadOnlyFolder, match="expired and is now held by"):
            a.ingest("plant", [_doc(tmp_path / "docs", "valves.md", VALVES)])
        assert [d.title for d in b.documents("plant")] == ["pumps"]
    finally:
        b.close()
        a.close()  # releasing a lease it no longer holds leaves the bucket alone


def test_bad_storage_settings_are_named(tmp_path: Path, s3: str, bucket: str, embedder: CountingEmbedder,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    s = team_settings(s3, bucket)
    s.storage.uri = "https://example.com/x"
    with pytest.raises(ConfigError, match="not an s3:// address"):
        Engine.open(tmp_path / "h1", settings=s, embedder=embedder)
    monkeypatch.delenv("TEAM_SECRET")
    with pytest.raises(ObjectStoreUnavailable, match="TEAM_SECRET"):
        Engine.open(tmp_path / "h2", settings=team_settings(s3, bucket), embedder=embedder)
    monkeypatch.setenv("TEAM_SECRET", "testing")
    dead = team_settings("http://127.0.0.1:9", bucket)  # nothing listens there
    with pytest.raises(ObjectStoreUnavailable, match="cannot be reached"):
        Engine.open(tmp_path / "h3", settings=dead, embedder=embedder)
    # The folder is not left locked by a failed open.
    Engine.open(tmp_path / "h3", settings=team_settings(s3, bucket), embedder=embedder).close()


def test_the_cli_says_who_writes_and_refuses_to_write_from_a_reader(
        tmp_path: Path, s3: str, bucket: str, embedder: CountingEmbedder,
        capsys: pytest.CaptureFixture[str]) -> None:
    from biny.core import cli
    from biny.core.config import save_settings

    home = tmp_path / "laptop-b"
    home.mkdir()
    save_settings(team_settings(s3, bucket), home / "config.toml")
    assert cli.main(["--home", str(home), "storage", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone["mode"] == "writer" and alone["uri"] == f"s3://{bucket}/biny"
    a = _open(tmp_path / "laptop-a", s3, bucket, embedder)
    try:
        a.create_space("plant", encrypted=False)
        assert cli.main(["--home", str(home), "storage", "--json"]) == 0
        seen = json.loads(capsys.readouterr().out)
        assert seen["mode"] == "read-only" and seen["writer"] == a.team.status()["writer"]  # type: ignore[index]
        code = cli.main(["--home", str(home), "ingest", "--space", "plant",
                         str(_doc(tmp_path / "docs", "pumps.md", PUMPS)), "--json"])
        assert code == 2
        assert "being written by" in capsys.readouterr().err
        assert a.documents("plant") == []
    finally:
        a.close()
