"""Would an English question glossed into Chinese judge Chinese passages better than the question itself? (issue
20, fifteenth pass: English questions over Chinese text keep 0.610 of their answers where no threshold finds 0.885.)

Across scripts the model's distances bunch together; a gloss — each of the question's words replaced by its
most common CC-CEDICT rendering (jieba's counts), "What was the source of the mistake?" → "失误 来源" — asks the
Chinese passages in their own script. Run after ``bench/eval_retrieval.py`` has built its spaces
(``python bench/gloss_query.py --home bench-data-v``). For the XQuAD en→zh questions it records the distance of
the nearest passage holding the answer (no threshold, top 10), for the unanswerable sets (the same questions of the
CMRC space; English questions on the 8 articles ``xquad-zh-40`` lacks) the nearest passage's distance — each for
the question, its gloss and the mean of the two — and prints the AUC of each: the chance an answering passage
lies nearer than an unanswerable question's nearest.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import jieba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_retrieval import MemoEmbedder, build_spaces, english_to_chinese_items, xquad_other_articles

from biny.core.engine import Engine
from biny.core.retrieve.candidates import RetrievalParams
from biny.core.text import dictionary
from biny.core.text.question import Question


def gloss(question: str, per_word: int) -> str:
    """The question's words the dictionary knows, each by its ``per_word`` most common renderings."""
    out: list[str] = []
    for w in dictionary.english_words(Question.parse(question)):
        out += sorted(w.renderings, key=lambda h: -int(jieba.get_FREQ(h) or 0))[:per_word]
    return " ".join(out)


def nearest(eng: Engine, space: str, text: str, params: RetrievalParams, answer: str | None = None) -> float:
    """The nearest passage's distance, or the nearest holding ``answer``; NaN when none is in the top."""
    if not text:
        return float("nan")
    hits = eng.ask(space, text, params=params).chunks
    return min((h.distance for h in hits if answer is None or answer in h.text), default=float("nan"))


def auc(pos: list[float], neg: list[float]) -> float:
    p = np.array([x for x in pos if not np.isnan(x)])
    n = np.array([x for x in neg if not np.isnan(x)])
    return float(np.mean(p[:, None] < n[None, :]) + 0.5 * np.mean(p[:, None] == n[None, :]))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--per-word", type=int, default=1)
    args = ap.parse_args()
    items = english_to_chinese_items()
    others = [q.text for q in xquad_other_articles(args.n, random.Random("en-zh20261203"))]
    rows: dict[str, dict[str, list[float]]] = {s: {"question": [], "gloss": []} for s in ("answer", "cmrc", "zh-40")}
    with Engine.open(args.home, embedder=MemoEmbedder()) as eng, tempfile.TemporaryDirectory() as tmp:
        build_spaces(eng, Path(tmp), {"xquad-zh", "cmrc", "xquad-zh-40"})
        params = replace(eng.retrieval.params(10), use_threshold=False)
        asked = [("answer", "xquad-zh", q, a) for q, a in items[: args.n]]
        asked += [("cmrc", "cmrc", q, None) for q, _ in items[: args.n]]
        asked += [("zh-40", "xquad-zh-40", q, None) for q in others]
        for row, space, q, a in asked:
            rows[row]["question"].append(nearest(eng, space, q, params, a))
            rows[row]["gloss"].append(nearest(eng, space, gloss(q, args.per_word), params, a))
    for r in rows.values():
        r["mean of both"] = [(x + y) / 2 for x, y in zip(r["question"], r["gloss"], strict=True)]
    print(f"{'asked by':<14}{'AUC vs cmrc':>13}{'AUC vs zh-40':>14}{'answers with a gloss hit':>27}")
    for kind in ("question", "gloss", "mean of both"):
        pos = rows["answer"][kind]
        found = sum(not np.isnan(x) for x in pos)
        print(f"{kind:<14}{auc(pos, rows['cmrc'][kind]):>13.3f}{auc(pos, rows['zh-40'][kind]):>14.3f}"
              f"{found:>20} of {len(pos)}")
    for q, _ in items[:3]:
        print(f"  {q} → {gloss(q, args.per_word)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
