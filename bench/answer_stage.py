"""The answer stage's cost and accuracy without a model (issue 57): p50/p95 of the stage and gold in the answer.

Run: ``python bench/answer_stage.py --home bench-data [--n 200] [--sets en,zh,zh-en]`` on the spaces
``eval_retrieval.py`` builds (``xquad-en``, ``xquad-zh``); K=5, no model. Each question is asked once to warm the
caches a real session has warm (its question vector, the space's matrix), then answered; the figure is the
"answer" stage of the trace alone. ``--json FILE`` writes the per-question figures (for a before/after table).
Also prints how many embedder calls the answer stages made (issue 57: none once sentence vectors are stored).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval as er

from biny.core.engine import Engine


class CountingEmbedder(er.MemoEmbedder):
    """The bench's embedder, counting the texts it embeds (queries the memo answers are not counted)."""

    def __init__(self) -> None:
        super().__init__()
        self.passages = 0

    def embed_passages(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.passages += len(texts)
        return super().embed_passages(texts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--sets", default="en,zh,zh-en")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    rng = random.Random(20261130)  # the retrieval bench's seed: the same questions as eval_answers.py
    xq_en, _ = er.xquad_questions("en", args.n, rng)
    xq_zh, xq_zh_en = er.xquad_questions("zh", args.n, rng)
    sets = {"en": ("XQuAD en→en", "xquad-en", xq_en), "zh": ("XQuAD zh→zh", "xquad-zh", xq_zh),
            "zh-en": ("XQuAD zh→en", "xquad-en", xq_zh_en)}
    emb = CountingEmbedder()
    out: dict[str, dict[str, list[float]]] = {}
    with Engine.open(args.home, embedder=emb) as eng:
        eng.set_llm(None)
        print(f"{'set':<16}{'n':>5}{'in answer':>10}{'p50 ms':>9}{'p95 ms':>9}{'embedded':>10}")
        for key in args.sets.split(","):
            label, space, qs = sets[key]
            ms: list[float] = []
            gold: list[float] = []
            before = emb.passages
            for q in qs:
                eng.ask(space, q.text)  # warm: question vector, matrix, baselines
                t0 = time.perf_counter()
                r = eng.answer(space, q.text)
                stage = r.trace.stage("answer")
                ms.append(stage.ms if stage else (time.perf_counter() - t0) * 1000)
                assert r.answer is not None and q.answer_in is not None
                gold.append(float(q.answer_in(r.answer.text)))
            out[key] = {"ms": ms, "gold": gold}
            print(f"{label:<16}{len(qs):>5}{np.mean(gold):>10.3f}{np.percentile(ms, 50):>9.2f}"
                  f"{np.percentile(ms, 95):>9.2f}{emb.passages - before:>10}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
