"""OCR engines compared (SPEC I2): character error rate and seconds per page, per language, and
the pages/s of ingesting every shared PDF with and without reading pages and figures.

Fixture: text pages of the shared PDFs rendered to images at the ingest resolution; the truth is
the page's own text layer (NFKC, letters/digits/ideographs only). Reading-order differences count as errors
for every engine alike. Needs the bench extras (rapidfuzz) and, for Tesseract, Debian's
tesseract-ocr, -chi-sim, -jpn.

    python bench/ocr.py [--dpi 150] [--no-ingest]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PDFS = ROOT.parent / "shared" / "corpora" / "pdfs"
# Text-only pages (no figures) so the text layer is the whole truth.
PAGES = {
    "zh": [("research_report_1f978cd81fb7260c8f7644039ec2c054.pdf", 3), ("NS4150B.pdf", 3), ("NS4150B.pdf", 4)],
    "en": [("redp5110_sampled.pdf", 2), ("redp5110_sampled.pdf", 6), ("ISO-IEC-29500-3.pdf", 9)],
    "ja": [("nlp2004slides.pdf", 17), ("nlp2004slides.pdf", 22), ("kampo.pdf", 1)],
}


def _norm(text: str) -> str:
    """Letters, digits and ideographs only: dot leaders of a contents page and punctuation style
    (full- or half-width) are not what retrieval depends on."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text))


def _fixture(dpi: int) -> dict[str, list[tuple[str, Any]]]:
    import numpy as np
    import pymupdf

    out: dict[str, list[tuple[str, Any]]] = {}
    for lang, pages in PAGES.items():
        for name, page_no in pages:
            doc = pymupdf.open(PDFS / name)
            doc.authenticate("")
            page = doc[page_no - 1]
            pix = page.get_pixmap(dpi=dpi, alpha=False)
            img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.h, pix.w, pix.n)
            out.setdefault(lang, []).append((page.get_text(), img))
    return out


def _engines() -> dict[str, Any]:
    from biny.core.ingest.ocr import engine_available, make_engine

    found = {}
    for name in ("rapidocr", "tesseract"):
        missing = engine_available(name)
        if missing:
            print(f"{name}: not available ({missing})")
            continue
        found[name] = make_engine(name)
    return found


def compare(dpi: int) -> None:
    from rapidfuzz.distance import Levenshtein

    fixture = _fixture(dpi)
    print(f"\nCER and seconds per page at {dpi} dpi (lower is better)")
    print("CER is ordered (reading-order differences count); 'missed' is order-free: the share of the page's")
    print("characters (as a multiset) the engine did not produce.")
    print(f"{'engine':<10} {'lang':<5} {'pages':>5} {'CER':>7} {'missed':>7} {'s/page':>7}")
    for name, read in _engines().items():
        read(fixture["en"][0][1])  # load models before timing
        for lang, pages in fixture.items():
            errors = chars = missed = 0
            seconds = []
            for truth, img in pages:
                t0 = time.perf_counter()
                got = read(img)
                seconds.append(time.perf_counter() - t0)
                ref = _norm(truth)
                errors += Levenshtein.distance(_norm(got), ref)
                missed += sum((Counter(ref) - Counter(_norm(got))).values())
                chars += len(ref)
            print(f"{name:<10} {lang:<5} {len(pages):>5} {errors / max(1, chars):>7.3f} {missed / max(1, chars):>7.3f} "
                  f"{statistics.mean(seconds):>7.2f}")


def ingest_rate(read: bool) -> None:
    from biny.core.engine import Engine

    with tempfile.TemporaryDirectory() as home:
        engine = Engine.open(Path(home))
        try:
            if not read:
                engine.settings.visual.read_pages = engine.settings.visual.read_figures = False
            engine.create_space("pdfs", encrypted=False)
            files = sorted(PDFS.glob("*.pdf"))
            t0 = time.perf_counter()
            report = engine.ingest("pdfs", files)
            seconds = time.perf_counter() - t0
            docs = engine.documents("pdfs")
            pages = sum(d.pages for d in docs)
            print(f"{'reading on ' if read else 'reading off'}: {len(docs)} PDFs, {pages} pages in {seconds:.1f} s "
                  f"= {pages / seconds:.2f} pages/s; pages OCR'd {sum(d.pages_ocr for d in docs)}, figures described "
                  f"{sum(d.figures_described for d in docs)}, decorations skipped "
                  f"{sum(d.decorations_skipped for d in docs)}; failed {len(report.by('failed'))}")
        finally:
            engine.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dpi", type=int, default=150)
    ap.add_argument("--no-ingest", action="store_true", help="only compare the engines")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "build" / "typecheck"))
    compare(args.dpi)
    if not args.no_ingest:
        print("\nWhole ingest of the shared PDFs (embedding included)")
        ingest_rate(False)
        ingest_rate(True)


if __name__ == "__main__":
    main()
