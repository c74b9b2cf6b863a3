"""Issue 58: an ingest you can watch — its figures, and the command line's progress on a terminal only."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

from biny.core.progress import Progress, ProgressMeter
from tests.conftest import corpus


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_meter_counts_files_units_rate_and_time_left() -> None:
    clock = Clock()
    meter = ProgressMeter(clock)
    f = meter.update(Progress(0, 3, "file", "a.pdf", file="a.pdf", file_index=0, file_count=3))
    assert (f.files_done, f.files_total, f.unit) == (0, 3, "files")
    assert f.step_text() == "file 1/3 a.pdf: starting"
    meter.update(Progress(1, 10, "read", "a.pdf", file="a.pdf", file_index=0, file_count=3, unit="pages"))
    clock.now += 2.0
    f = meter.update(Progress(5, 10, "read", "a.pdf", file="a.pdf", file_index=0, file_count=3, unit="pages"))
    assert f.rate == 2.0 and f.eta_s == 2.5  # 4 pages in 2 s; 5 more at that rate
    assert f.rate_text() == "5/10 pages, 2.0 pages/s, 0:02 left"
    # The next file's pages read ahead while this one embeds: each step keeps its own rate.
    meter.update(Progress(32, 400, "embed", "a.pdf", file="a.pdf", file_index=0, file_count=3, unit="chunks"))
    meter.update(Progress(1, 4, "read", "b.pdf", file="b.pdf", file_index=1, file_count=3, unit="pages"))
    clock.now += 4.0
    f = meter.update(Progress(192, 400, "embed", "a.pdf", file="a.pdf", file_index=0, file_count=3, unit="chunks"))
    assert f.rate == 40.0 and f.eta_s == 5.2 and f.files_done == 0
    assert "192/400 chunks, 40.0 chunks/s, 0:05 left" == f.rate_text()
    f = meter.update(Progress(1, 3, "file_done", "a.pdf", file="a.pdf", file_index=0, file_count=3,
                              outcome="ingested"))
    assert f.files_done == 1 and f.step_text().startswith("file 2/3")
    f = meter.update(Progress(3, 3, "done", "", file_count=3))
    assert f.files_done == 3 and f.step_text() == "done"


def test_a_table_reports_rows_and_a_document_chunks(engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    engine.create_space("p", encrypted=False)
    table = tmp_path / "t.csv"
    table.write_text("name,city\n" + "".join(f"person {i},city {i % 7}\n" for i in range(40)), encoding="utf-8")
    seen: list[Progress] = []
    engine.ingest("p", [corpus("python_peps", "pep-0020.rst"), table], progress=seen.append)
    units = {(p.file, p.stage, p.unit) for p in seen if p.stage == "embed"}
    assert ("pep-0020.rst", "embed", "chunks") in units and ("t.csv", "embed", "rows") in units
    rows = [p for p in seen if p.unit == "rows"]
    assert rows[-1].done == rows[-1].total == 40


def _cli(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "biny.core.cli", "--home", str(home), *args]


def _on_a_terminal(cmd: list[str]) -> tuple[int, str]:
    """Run ``cmd`` with stdout and stderr on a pseudo-terminal; everything it wrote, and its exit code."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 120, 0, 0))  # a terminal 120 columns wide
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its side
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return proc.wait(timeout=60), out.decode("utf-8", "replace")


def test_the_command_line_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    subprocess.run(_cli(home, "space", "create", "p", "--unencrypted"), check=True, capture_output=True)
    # Small embedding batches, so one short document reports several steps (and so a rate and a time left).
    config = home / "config.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("batch_size = 16", "batch_size = 3"),
                      encoding="utf-8")
    docs = [corpus("python_peps", name) for name in ("pep-0257.rst", "pep-0020.rst", "pep-0002.rst", "pep-0560.rst")]

    code, shown = _on_a_terminal(_cli(home, "ingest", str(docs[0]), "--space", "p"))
    assert code == 0, shown
    lines = shown.replace("\r", "\n").splitlines()
    progress = [line for line in lines if "chunks/s" in line or "file 1/1" in line]
    assert progress, shown
    assert any("embedding" in line and "/s" in line and "left" in line for line in progress), progress
    assert "1 ingested" in shown

    code, shown = _on_a_terminal(_cli(home, "ingest", str(docs[1]), "--space", "p", "--json"))
    assert code == 0 and '"ingested"' in shown
    assert "file 1/1" not in shown and "embedding" not in shown and "\r" not in shown.replace("\r\n", "\n")

    piped = subprocess.run(_cli(home, "ingest", str(docs[2]), "--space", "p"), capture_output=True, text=True)
    assert piped.returncode == 0 and "1 ingested" in piped.stdout
    assert "file 1/1" not in piped.stderr and "embedding" not in piped.stderr

    forced = subprocess.run(_cli(home, "ingest", str(docs[3]), "--space", "p", "--json", "--progress"),
                            capture_output=True, text=True)
    assert forced.returncode == 0 and "file 1/1" in forced.stderr and "chunks" in forced.stderr
