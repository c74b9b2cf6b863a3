"""A citation opened at its place in a 1,000-page PDF (issue 61): seconds from the cited passage to its page on screen.

Run: ``python bench/source_open.py [--pages 1000] [--repeat 5]``. A PDF of ``--pages`` pages (one numbered paragraph
each, an unrelated-fact sentence on every page) is generated with PyMuPDF, ingested into an encrypted space, and for
passages cited from the start, the middle and the end of the book the time is measured of ``Engine.source`` (the
passage opened, the file checked against its ingest hash, the span placed on its page) and of rendering that page
with its highlight to an image (``console/widgets/source_viewer.py``) — what the source viewer does when it opens.
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication

    from biny.console.widgets.source_viewer import render_page

    app = QApplication([])  # noqa: F841 — a QImage needs the application
    settings = Settings()
    settings.visual.read_pages = settings.visual.read_figures = False
    settings.limits.parse_timeout_s = 600
    with tempfile.TemporaryDirectory() as tmp, Engine.open(Path(tmp) / "home", settings=settings) as eng:
        book = Path(tmp) / "book.pdf"
        _book(book, args.pages)
        eng.create_space("book")
        t = time.perf_counter()
        report = eng.ingest("book", [book])
        print(f"ingest of {args.pages} pages: {time.perf_counter() - t:.1f} s, {report.files[0].chunks} passages")
        rows = []
        for n in (3, args.pages // 2, args.pages - 2):
            result = eng.ask("book", f"What is the archive code of survey station {n}?")
            hit = next(h for h in result.chunks if f"station {n} " in h.text)
            source, render = [], []
            for _ in range(args.repeat):
                t = time.perf_counter()
                view = eng.source("book", hit.chunk_id)
                source.append(time.perf_counter() - t)
                page = view.rect_page or 1
                t = time.perf_counter()
                render_page(view.path, page, view.rects.get(page, []))
                render.append(time.perf_counter() - t)
            rows.append((n, page, view.coverage or 0.0, statistics.median(source), statistics.median(render)))
    print("\n| cited page | shown page | highlight covers | Engine.source s (median) | render s (median) | total s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n, page, cov, s, r in rows:
        print(f"| {n} | {page} | {cov:.0%} | {s:.3f} | {r:.3f} | {s + r:.3f} |")


if __name__ == "__main__":
    main()
