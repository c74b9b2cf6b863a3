"""A citation opened at its place in a 1,000-page PDF (issue 61): seconds from the cited passage to its page on screen.

Run: ``python bench/source_open.py [--pages 1000] [--repeat 20]``. A PDF of ``--pages`` pages (one numbered
paragraph each) is generated with PyMuPDF into a temporary folder and ingested into an encrypted space; the passages
starting on pages 3, the middle and ``pages - 2`` are taken by their chunk ids (``Engine.document_chunks``), and for
each the time is measured of ``Engine.source`` (the passage opened, the file checked against its ingest hash, the
span placed on its page) and of rendering that page with its highlight to an image
(``console/widgets/source_viewer.py``) — what the source viewer does when it opens. "cold": each opening in an
engine just opened on the folder (nothing of the space read yet; the file itself in the OS cache); "warm": the same
engine opens it again. p50 and p95 over ``--repeat`` openings.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("BINY_PASSPHRASE", "a bench passphrase, not a secret")

import pymupdf  # noqa: E402

from biny.core.config import Settings  # noqa: E402
from biny.core.engine import Engine  # noqa: E402

PLANETS = ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"]


def _book(path: Path, pages: int) -> None:
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page()
        planet = PLANETS[n % len(PLANETS)]
        text = (f"Chapter {n}. Survey station {n} on {planet} logged {n * 7 % 997} dust storms and a reactor "
                f"output of {n * 13 % 911} kilowatts. The crew of station {n} rotated every {n % 29 + 3} days, "
                f"and its archive code is ST-{n:04d}-{planet[:3].upper()}.")
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 400), text, fontsize=11)
    doc.save(str(path))
    doc.close()


def _percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _open(home: Path, settings: Settings, chunk_id: str, render: object, cold: bool, eng: Engine | None
          ) -> tuple[float, float, int]:
    """One opening: Engine.source, then the page rendered with its highlight; a cold one in a fresh engine."""
    engine = Engine.open(home, settings=settings) if cold or eng is None else eng
    try:
        t = time.perf_counter()
        view = engine.source("book", chunk_id)
        source = time.perf_counter() - t
        page = view.rect_page or 1
        t = time.perf_counter()
        render(view.path, page, view.rects.get(page, []))  # type: ignore[operator]
        return source, time.perf_counter() - t, page
    finally:
        if cold or eng is None:
            engine.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication

    from biny.console.widgets.source_viewer import render_page

    app = QApplication([])  # noqa: F841 — a QImage needs the application
    settings = Settings()
    settings.visual.read_pages = settings.visual.read_figures = False
    settings.limits.parse_timeout_s = 1200
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        home, book = Path(tmp) / "home", Path(tmp) / "book.pdf"
        _book(book, args.pages)
        with Engine.open(home, settings=settings) as eng:
            eng.create_space("book")
            t = time.perf_counter()
            report = eng.ingest("book", [book])
            print(f"ingest of {args.pages} pages: {time.perf_counter() - t:.1f} s, {report.files[0].chunks} passages")
            doc = eng.documents("book")[0]
            # The cited passage is picked by its id, no question asked: the one holding page n (a passage may
            # run over two or three of these short pages), else the nearest before it.
            passages = eng.document_chunks("book", doc.doc_id)
        rows = []
        with Engine.open(home, settings=settings) as warm:
            for n in (3, args.pages // 2, args.pages - 2):
                chunk = max((c for c in passages if (c.page or 0) <= n), key=lambda c: c.page or 0).chunk_id
                for cold in (True, False):
                    got = [_open(home, settings, chunk, render_page, cold, warm) for _ in range(args.repeat)]
                    rows.append((n, got[0][2], "cold" if cold else "warm", *_percentiles([g[0] for g in got]),
                                 *_percentiles([g[1] for g in got]), *_percentiles([g[0] + g[1] for g in got])))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("\n| cited page | shown page | engine | Engine.source p50 / p95 s | render p50 / p95 s | total p50 / p95 s |")
    print("|---:|---:|---|---:|---:|---:|")
    for n, page, kind, s50, s95, r50, r95, t50, t95 in rows:
        print(f"| {n} | {page} | {kind} | {s50:.3f} / {s95:.3f} | {r50:.3f} / {r95:.3f} | {t50:.3f} / {t95:.3f} |")


if __name__ == "__main__":
    main()
