"""An answered question against its physical floor (issue 57): ask + answer (K=5, no model) beside the query
embedding + matrix product + top-k, interleaved question by question in one process, at 1k and 10k passages.

Run: ``python bench/cost_floor.py --home DIR [--sizes 1000,10000] [--questions 200]``. Spaces ``p1000``,
``p10000`` … are built once into ``DIR`` from the shared corpora (PEPs, laws, FastAPI docs, XQuAD in every
language; copies past the first), with fitted-Gaussian passage and sentence vectors (console_memory.py's stand-in:
the costs of a scan, a take and the answer's reading do not depend on the vectors' values) and the real model for
every question. Hit rates mean nothing here; the costs are what is measured. Before each question the engine's
question cache is cleared, so both sides pay one query embedding. Ratio: ask + answer p50 over the floor's p50.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from console_memory import CORPORA, FittedEmbedder, source_texts

from biny.core.engine import Engine
from biny.core.errors import SpaceNotFound


def build(eng: Engine, space: str, target: int) -> int:
    try:
        eng.space(space)
    except SpaceNotFound:
        eng.create_space(space, encrypted=True)
    texts = source_texts()
    have = sum(d.chunks for d in eng.documents(space))
    copy, at = 0, 0
    t0 = time.time()
    while have < target:
        with tempfile.TemporaryDirectory() as tmp:
            batch = texts[at : at + 20]
            for name, text in batch:
                (Path(tmp) / f"copy{copy:03d}-{name}").write_text(f"Copy {copy}\n\n{text}", encoding="utf-8")
            eng.ingest(space, [Path(tmp)])
        at += 20
        if at >= len(texts):
            copy, at = copy + 1, 0
        have = sum(d.chunks for d in eng.documents(space))
        print(f"  {space}: {have} passages ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    return have


def questions(n: int) -> list[str]:
    out = []
    for lang in ("en", "zh", "de", "es"):
        data = json.loads((CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        out += [qa["question"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]]
    random.Random(57).shuffle(out)
    return out[:n]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--questions", type=int, default=200)
    ap.add_argument("--build-only", action="store_true")
    args = ap.parse_args()
    emb = FittedEmbedder()
    qs = questions(args.questions)
    with Engine.open(args.home, embedder=emb) as eng:  # type: ignore[arg-type]
        eng.models.set_llm(None)
        print(f"{'passages':>9}{'floor p50':>11}{'p95':>8}{'ask p50':>9}{'p95':>8}{'ask+answer p50':>16}{'p95':>8}"
              f"{'answer p50':>12}{'ratio':>7}")
        for size in (int(s) for s in args.sizes.split(",")):
            space = f"p{size}"
            n = build(eng, space, size)
            if args.build_only:
                continue
            row = eng.catalog.spaces.named(space)
            vm = eng._retriever.matrix(row)
            for q in qs[:5]:  # warm: matrix, baselines, caches a running session has
                eng.answer(space, q)
            floor, ask, full, stage = [], [], [], []
            for q in qs:
                eng.models.forget_queries()
                t0 = time.perf_counter()
                v = emb._real.embed_queries([q])[0]
                sims = vm.matrix @ v
                top = np.argpartition(-sims, 5)[:5]
                top[np.argsort(-sims[top])]
                floor.append((time.perf_counter() - t0) * 1000)
                eng.models.forget_queries()
                t0 = time.perf_counter()
                eng.ask(space, q)
                ask.append((time.perf_counter() - t0) * 1000)
                eng.models.forget_queries()
                t0 = time.perf_counter()
                r = eng.answer(space, q)
                full.append((time.perf_counter() - t0) * 1000)
                s = r.trace.stage("answer")
                stage.append(s.ms if s else 0.0)
            p = np.percentile
            print(f"{n:>9}{p(floor, 50):>11.2f}{p(floor, 95):>8.2f}{p(ask, 50):>9.2f}{p(ask, 95):>8.2f}"
                  f"{p(full, 50):>16.2f}{p(full, 95):>8.2f}{p(stage, 50):>12.2f}"
                  f"{p(full, 50) / p(floor, 50):>7.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
