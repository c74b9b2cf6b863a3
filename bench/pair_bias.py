"""The stored pairs' bias (issue 55/57): a sentence's meaning is read as the mean of its distance alone and with
the sentence before it. From stored vectors the pair is their weighted mean (embed/sentences.py ``placed``); at
question time it is the two embedded as one text. This compares the two over the contexts the natural questions
get, for every sentence that has one before it.

Run: ``python bench/pair_bias.py --home DIR [--split dev] [--n 60]`` (the ``nat-*`` spaces of ``eval_natural.py``).
Prints the number of sentences and the mean, sd and p10/p50/p90 of (stored − embedded now) in the sentence's
distance.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_natural as en

import biny.core.answer.extractive as ex
from biny.core.engine import Engine


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--split", default="dev", choices=["dev", "test", "fresh"])
    ap.add_argument("--n", type=int, default=60)
    args = ap.parse_args()
    diffs: list[float] = []
    with Engine.open(args.home) as eng:
        eng.models.set_llm(None)
        stored_path = ex._meaning_distances

        def both(question: ex.Question, candidates: list[ex.Sentence], distances: ex.Distances | None,
                 query: ex.Vectors | None) -> np.ndarray | None:
            d = stored_path(question, candidates, distances, query)
            if query is not None and d is not None:
                bare = [ex.Sentence(c.passage, c.position, c.text, previous=c.previous) for c in candidates]
                now = stored_path(question, bare, eng.models.sentence_distances, None)
                assert now is not None
                diffs.extend(float(a - b) for c, a, b in zip(candidates, d, now, strict=True)
                             if c.previous and c.vector is not None)
            return d

        ex._meaning_distances = both
        for r in en.load(args.split)[: args.n]:
            eng.answer(f"nat-{r['corpus']}", str(r["question"]))
    found = np.asarray(diffs)
    print(f"{len(found)} sentences with one before them: stored − embedded now, mean {found.mean():.4f}, "
          f"sd {found.std():.4f}, p10/p50/p90 {np.percentile(found, [10, 50, 90]).round(4).tolist()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
