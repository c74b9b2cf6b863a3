"""The console's memory step by step, beside a process answering the same questions (issue 57).

Run: ``python bench/console_steps.py --home DIR --space NAME [--wait] [--cli]``.

An offscreen main window opens the space and asks ``QUESTIONS`` in its Inspector; the RSS and its peak (the
process's own VmRSS / VmHWM) are printed after each step — opened, shown, the Library idle (with ``--wait``: the
questions are asked only then), each question answered — and every 3 s while one runs. Without ``--wait`` the first
question is asked at once, as ``scale_curve.py``'s console probe does, so it runs beside the Library's listing.
``--cli``: the same questions answered by a bare engine, for the difference. Used for the figures of
bench/README.md, "Figures of 2026-12-07, later": where the console's extra memory went at 100k passages, and the
Library's listing at 1M.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from pathlib import Path

QUESTIONS = ["¿Qué causa la inmunodeficiencia?", "What is the name of a Bodhisattva vow?",
             "¿Para compensar qué desempeñan los comités un papel tan importante?"]
EVERY_S = 3.0
T0 = time.time()


def rss_mb() -> tuple[int, int]:
    status = Path("/proc/self/status").read_text()
    now = re.search(r"VmRSS:\s+(\d+)", status)
    peak = re.search(r"VmHWM:\s+(\d+)", status)
    return (int(now.group(1)) // 1024 if now else 0), (int(peak.group(1)) // 1024 if peak else 0)


def step(name: str) -> None:
    now, peak = rss_mb()
    print(f"{time.time() - T0:7.1f} s  {name:34} RSS {now:>6} MB  peak {peak:>6} MB", flush=True)


def cli(home: Path, space: str) -> None:
    from biny.core.engine import Engine

    with Engine.open(home) as eng:
        step("opened")
        for q in QUESTIONS:
            eng.answer(space, q)
            step(f"answered {q[:24]!r}")


def console(home: Path, space: str, wait: bool) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from biny.console.app import MainWindow
    from biny.console.ops import idle, wait_all
    from biny.core.engine import Engine

    app = QApplication([])

    def pump(busy: object, label: str) -> None:
        last = time.time()
        while busy():  # type: ignore[operator]
            app.processEvents()
            time.sleep(0.01)
            if time.time() - last > EVERY_S:
                step(f"  {label}")
                last = time.time()

    with Engine.open(home) as eng:
        step("opened")
        win = MainWindow(eng, space=space)
        win.resize(1400, 900)
        win.show()
        app.processEvents()
        step("shown")
        if wait:
            started = time.time()
            pump(lambda: not idle() or time.time() - started < 1.0, "library loading")
            step("library idle")
        for q in QUESTIONS:
            win.inspector.set_space(space)
            win.inspector.question.setText(q)
            win.inspector.ask()
            pump(lambda: win.inspector.busy, "asking")
            step(f"asked {q[:24]!r}")
        wait_all()
        step("all done")
        os._exit(0)  # skip PySide6's teardown after Python's own finalisation (as console_memory.py)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--space", required=True)
    ap.add_argument("--wait", action="store_true", help="ask only once the Library has listed the documents")
    ap.add_argument("--cli", action="store_true", help="a bare engine answering the same questions")
    args = ap.parse_args()
    if args.cli:
        cli(args.home, args.space)
    else:
        console(args.home, args.space, args.wait)


if __name__ == "__main__":
    main()
