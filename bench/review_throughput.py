"""Review queue throughput (SPEC C5): 50 public-web answers decided by keyboard, offscreen.

Run: ``QT_QPA_PLATFORM=offscreen python bench/review_throughput.py [--items 50]``.

A loopback server plays the search endpoint and a saved encyclopedia page; 50 questions
become 50 review items. The Review screen then gets ``a`` and ``x`` alternately; for each
key the time until the next item is on screen is measured (the UI's share of a decision),
and the background time until every decision is stored. Goal: each decision ≤ 100 ms to
the next item — the UI is never the bottleneck for a person (≥ 300 decisions/hour).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=50)
    args = ap.parse_args()
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from biny.console import ops
    from biny.console.app import MainWindow
    from biny.core.config import Settings
    from biny.core.engine import Engine
    from tests.core.test_web import Web

    wiki = (ROOT.parent / "shared" / "corpora" / "html_pages" / "readability" / "wikipedia" / "source.html")
    Web.pages = {"/wiki/mozilla": (200, "text/html", wiki.read_bytes())}
    Web.results = ["/wiki/mozilla", "/missing"]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Web)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    home = Path(tempfile.mkdtemp())
    settings = Settings()
    settings.web.search_url = f"http://127.0.0.1:{httpd.server_address[1]}/search"
    engine = Engine.open(home / "home", settings=settings)
    engine.create_space("kb", encrypted=False)
    engine.ingest("kb", [ROOT / "resources" / "demo" / "pricing.md"])
    engine.web.set_enabled("kb", True)
    t0 = time.perf_counter()
    topics = ["history", "founders", "products", "browser", "community", "license", "foundation", "revenue",
              "mobile", "mission"]
    for i in range(args.items):
        engine.answer("kb", f"What does the page say about Mozilla's {topics[i % len(topics)]} (case {i})?")
    made = time.perf_counter() - t0
    window = MainWindow(engine, "kb", QSettings(str(home / "c.ini"), QSettings.Format.IniFormat))
    window.resize(1280, 800)
    window.show()

    def settle() -> None:
        while not ops.idle():
            app.processEvents()
            time.sleep(0.005)
        for _ in range(10):
            app.processEvents()

    settle()
    screen = window.review
    window.rail.setCurrentRow([w for _, w in window.screens].index(screen))
    settle()
    assert screen.queue.count() == args.items, screen.queue.count()
    gaps: list[float] = []
    t_ui = time.perf_counter()
    for i in range(args.items):
        before = screen.shown_id
        t = time.perf_counter()
        QTest.keyClick(screen.queue, Qt.Key.Key_A if i % 2 == 0 else Qt.Key.Key_X)
        app.processEvents()
        gaps.append((time.perf_counter() - t) * 1000)
        assert screen.shown_id != before or i == args.items - 1
    ui = time.perf_counter() - t_ui
    t_bg = time.perf_counter()
    settle()
    background = time.perf_counter() - t_bg
    statuses = [i.status for i in engine.web.items("kb", ("pending", "approved", "rejected"))]
    print(f"\n## Review queue throughput ({args.items} items, offscreen, this machine)\n")
    print(f"items made (search, read, mask, compose, queue): {made:.1f} s ({made / args.items * 1000:.0f} ms each)")
    print(f"key → next item on screen: p50 {statistics.median(gaps):.1f} ms, p95 "
          f"{sorted(gaps)[int(0.95 * (len(gaps) - 1))]:.1f} ms, max {max(gaps):.1f} ms")
    print(f"UI time for {args.items} decisions: {ui:.2f} s → {args.items / ui * 3600:,.0f} decisions/hour of UI time")
    print(f"then storing them in the background: {background:.1f} s (approvals ingest their entry)")
    print(f"stored: {statuses.count('approved')} approved, {statuses.count('rejected')} rejected, "
          f"{statuses.count('pending')} pending")
    engine.close()
    httpd.shutdown()


if __name__ == "__main__":
    main()
