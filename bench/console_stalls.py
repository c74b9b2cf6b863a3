"""How long the console's event loop waits while the engine works (issue 14: ≤ 250 ms).

Run: ``python bench/console_stalls.py``. A real main window, offscreen, over a fresh data
folder: create an encrypted space, ingest 20 documents, create a second space, switch,
lock and unlock, add a fact and recall it, ask. A 10 ms timer records the gaps between
its ticks; a gap is time the UI could not repaint or react. Printed per step and overall.

Wall-clock figures belong here, not in tests (a shared 2-core box skews them); the test
suite instead asserts that no engine call happens on the UI thread at all
(tests/console/test_console.py::test_no_engine_work_on_the_ui_thread).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"


def main() -> int:
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from biny.console import ops
    from biny.console.app import MainWindow
    from biny.core import Engine

    app = QApplication(sys.argv[:1])
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "twenty"
        docs.mkdir()
        source = (CORPORA / "cn_laws" / "民法典__继承编.md").read_text(encoding="utf-8").split("\n\n")
        for i in range(20):
            (docs / f"doc{i:02d}.md").write_text("\n\n".join(source[i * 3 : i * 3 + 6]) or "x", encoding="utf-8")
        os.environ.pop("BINY_PASSPHRASE", None)
        engine = Engine.open(Path(tmp) / "home")
        window = MainWindow(engine, None, QSettings(str(Path(tmp) / "c.ini"), QSettings.Format.IniFormat))
        window.resize(1280, 800)
        window.show()

        def settle() -> None:
            while not ops.idle():
                app.processEvents()
                time.sleep(0.002)  # let the timer fire between checks, like a user's idle loop

        lib = window.library
        steps: list[tuple[str, Callable[[], object]]] = [
            ("open", lambda: None),
            ("create encrypted space (model load + scrypt)",
             lambda: lib.create_space("twenty", passphrase="bench passphrase", remember=False)),
            ("ingest 20 documents", lambda: lib.ingest([docs])),
            ("create a second space", lambda: lib.create_space("other", encrypted=False)),
            ("switch space", lambda: lib.select_space("twenty")),
            ("lock and unlock (scrypt)", lambda: (engine.keys.lock_all(), lib.unlock("bench passphrase"))),
            ("add a fact", lambda: window.memory.add("Ana reads the inheritance chapter first.", "user:ana")),
            ("ask", lambda: (window.inspector.question.setText("遗产按照什么顺序继承？"), window.inspector.ask())),
        ]
        timer.start()
        print(f"{'step':<46}{'ticks':>7}{'max gap ms':>12}{'> 250 ms':>10}")
        worst = 0.0
        for label, action in steps:
            gaps.clear()
            last[0] = time.perf_counter()
            action()
            settle()
            while lib.op is not None:
                settle()
            step_max = max(gaps, default=0.0) * 1000
            worst = max(worst, step_max)
            print(f"{label:<46}{len(gaps):>7}{step_max:>12.0f}{sum(g > 0.25 for g in gaps):>10}")
        timer.stop()
        print(f"worst gap over the run: {worst:.0f} ms (goal ≤ 250 ms)")
        ops.wait_all()
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
