"""Grounded answers without a model: is the gold answer in the extracted answer? (issue: grounded answers)

Run: ``python bench/eval_answers.py [--n 200] [--home bench-data]`` after (or instead of)
``eval_retrieval.py``: the same spaces (built once into ``--home``) and the same question sets.
Per set: the share of answerable questions whose gold answer text appears in the extractive
answer (≤ 3 sentences), beside the share with it anywhere in the retrieved context (the ceiling);
for unanswerable sets, the share answered with mode ``none`` beside the share with zero chunks
(they must be equal: nothing retrieved is the only way to "none"). Latency: the answer stage
alone (p50/p95, ms) on top of ``ask``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval as er

from biny.core.engine import Engine


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    args = ap.parse_args()
    rng = random.Random(20261130)  # the retrieval bench's seed: the same questions
    with Engine.open(args.home, embedder=er.MemoEmbedder()) as eng, tempfile.TemporaryDirectory() as tmp:
        eng.models.set_llm(None)  # the extractive path is what is measured
        er.build_spaces(eng, Path(tmp), {"xquad-en", "xquad-zh", "cmrc", "laws"})
        xq_en, _ = er.xquad_questions("en", args.n, rng)
        xq_zh, xq_zh_en = er.xquad_questions("zh", args.n, rng)
        cmrc = er.cmrc_questions(args.n, rng)
        other = er.cmrc_questions(args.n, random.Random(20261201), slice(150, None))
        sets = [("XQuAD en→en", "xquad-en", xq_en, True), ("XQuAD zh→zh", "xquad-zh", xq_zh, True),
                ("XQuAD zh→en", "xquad-en", xq_zh_en, True), ("CMRC dev zh", "cmrc", cmrc, True),
                ("XQuAD en→zh", "xquad-zh", er.english_to_chinese_sets(args.n)[0][2], True),
                ("unanswerable: XQuAD-en q → laws", "laws", xq_en, False),
                ("unanswerable: CMRC other articles → cmrc", "cmrc", other, False)]
        print(f"{'set':<42}{'in answer':>10}{'in context':>11}{'sentences':>10}{'none':>7}{'zero':>7}"
              f"{'p50 ms':>8}{'p95 ms':>8}")
        for label, space, qs, answerable in sets:
            in_answer = in_context = none = zero = 0
            sentences: list[int] = []
            ms: list[float] = []
            for q in qs:
                r = eng.answer(space, q.text)
                a = r.answer
                assert a is not None
                stage = r.trace.stage("answer")
                ms.append(stage.ms if stage else 0.0)
                zero += not r.chunks
                none += a.mode == "none"
                if answerable and q.answer_in is not None:
                    in_answer += q.answer_in(a.text)
                    in_context += q.check(r)
                sentences.append(sum(len(c.sentences) for c in a.citations))
            n = max(len(qs), 1)
            shown = (f"{in_answer / n:>10.3f}{in_context / n:>11.3f}" if answerable else f"{'':>10}{'':>11}")
            print(f"{label:<42}{shown}{np.mean(sentences):>10.2f}{none / n:>7.3f}{zero / n:>7.3f}"
                  f"{np.percentile(ms, 50):>8.2f}{np.percentile(ms, 95):>8.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
