"""The answer stage's cost and accuracy without a model (issue 57): p50/p95 of the stage and gold in the answer.

Run: ``python bench/answer_stage.py --home bench-data [--n 200] [--sets en,zh,zh-en] [--variants ...]`` on the
spaces ``eval_retrieval.py`` builds (``xquad-en``, ``xquad-zh``); K=5, no model. Each question is asked once to warm
what a session has warm (its question vector, the space's matrix), then answered once per variant, the variants
interleaved question by question in this one process (a loaded machine slows them alike). The figure is the trace's
"answer" stage alone. Variants:

- ``stored``: the sentence vectors stored at ingest (``biny space reembed`` fills a space stored before them);
- ``embedded``: as before issue 57 — every sentence, and every sentence with the one before it, embedded now;
- ``f32`` / ``f16`` / ``int8``: the sentences embedded now (cached), kept as float32, float16 or 8-bit scalar
  codes, and a sentence with the one before it read as the normalised mean of the two: the storage forms compared
  on the same questions (their times include embedding and mean nothing).

Also prints how many texts each variant had embedded (issue 57: none for ``stored``). ``--json FILE`` writes the
per-question figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval as er

from biny.core.answer import extractive
from biny.core.embed.sentences import FLOAT16, INT8, decode, encode, sentence_vectors_for
from biny.core.engine import Engine
from biny.core.results import AskResult
from biny.core.text.question import Question


class CountingEmbedder(er.MemoEmbedder):
    """The bench's embedder, counting the passage texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.passages = 0

    def embed_passages(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.passages += len(texts)
        return super().embed_passages(texts)


def _variants(eng: Engine) -> dict[str, Callable[..., Any]]:
    answers = eng._answers
    stored = answers._stored
    fresh: dict[str, tuple[list[tuple[int, int]], np.ndarray]] = {}

    def made_now(form: int | None) -> Callable[[str, Question, AskResult], tuple[extractive.Stored, int]]:
        def read(space: str, asked: Question, result: AskResult) -> tuple[extractive.Stored, int]:
            out = []
            for h in result.chunks:
                if h.text not in fresh:
                    fresh[h.text] = sentence_vectors_for(h.text, eng.models.embedder)
                offsets, vectors = fresh[h.text]
                found = decode(encode(offsets, vectors, form)) if form is not None else None
                out.append(found[1] if found is not None else vectors)
            query = result.trace.retrieval_query or asked.text
            return extractive.Stored(eng.models.embed_queries([query])[0], out), 0
        return read

    return {"stored": stored, "embedded": lambda *a: (None, 0), "f32": made_now(None), "f16": made_now(FLOAT16),
            "int8": made_now(INT8)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--sets", default="en,zh,zh-en")
    ap.add_argument("--variants", default="stored,embedded")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--prev-weight", type=float, default=None,
                    help="weigh the sentence before by this much (the rest on the sentence) instead of the plain mean")
    args = ap.parse_args()
    if args.prev_weight is not None:
        w = args.prev_weight

        def weighted(before: np.ndarray, vector: np.ndarray) -> np.ndarray:
            mean = w * before + (1 - w) * vector
            return (mean / np.linalg.norm(mean)).astype(np.float32)

        extractive.placed = weighted  # type: ignore[assignment]
    rng = random.Random(20261130)  # the retrieval bench's seed: the same questions as eval_answers.py
    xq_en, _ = er.xquad_questions("en", args.n, rng)
    xq_zh, xq_zh_en = er.xquad_questions("zh", args.n, rng)
    sets = {"en": ("XQuAD en→en", "xquad-en", xq_en), "zh": ("XQuAD zh→zh", "xquad-zh", xq_zh),
            "zh-en": ("XQuAD zh→en", "xquad-en", xq_zh_en)}
    emb = CountingEmbedder()
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    with Engine.open(args.home, embedder=emb) as eng:
        eng.models.set_llm(None)
        variants = _variants(eng)
        names = args.variants.split(",")
        print(f"{'set':<14}{'variant':<10}{'n':>5}{'in answer':>10}{'p50 ms':>9}{'p95 ms':>9}{'embedded':>10}")
        for key in args.sets.split(","):
            label, space, qs = sets[key]
            figures = {v: {"ms": [], "gold": []} for v in names}
            embedded = dict.fromkeys(names, 0)
            for q in qs:
                eng.ask(space, q.text)  # warm: question vector, matrix, baselines, the sentence check's reads
                for v in names:
                    eng._answers._stored = variants[v]  # type: ignore[method-assign]
                    before = emb.passages
                    r = eng.answer(space, q.text)
                    embedded[v] += emb.passages - before
                    stage = r.trace.stage("answer")
                    assert stage is not None and r.answer is not None and q.answer_in is not None
                    figures[v]["ms"].append(stage.ms)
                    figures[v]["gold"].append(float(q.answer_in(r.answer.text)))
            out[key] = figures
            for v in names:
                ms, gold = figures[v]["ms"], figures[v]["gold"]
                print(f"{label:<14}{v:<10}{len(qs):>5}{np.mean(gold):>10.3f}{np.percentile(ms, 50):>9.2f}"
                      f"{np.percentile(ms, 95):>9.2f}{embedded[v]:>10}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(out), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
