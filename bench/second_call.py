"""When the second pass's texts are embedded (issue 57): beside every question, or only when its check fails.

Run: ``python bench/second_call.py --home DIR --space NAME [--questions 200]`` on a space of ``scale_curve.py``
(K=5, no model, warmed on 30 other questions). Each question is answered both ways, in alternating order, its cached
vectors forgotten before each:

- ``on failure`` — the product: the question is embedded alone; a failed check (retrieve/second_pass.py) embeds its
  derived texts in one more call;
- ``beside`` — the form before: every text a check could ask for (each named term with each subset of the asked
  aspects' words, each aspect under the terms; none above 8) embedded in the question's own call, so a failed check
  finds its texts cached by exact text. Reproduced here by embedding them just before the pipeline runs.

Printed per form: ask+answer p50 / mean / p95, and how many questions made more than one model call. Used for
bench/README.md, "Figures of 2026-12-07, the question's Python".
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale_curve

from biny.core.engine import Engine
from biny.core.retrieve import second_pass
from biny.core.retrieve.candidates import Context
from biny.core.services import retrieval
from biny.core.text.question import Question

WARM = 30
BESIDE_AT_MOST = 8  # the form before embedded none above this many texts


def every_text(question: Question, ctx: Context) -> list[str]:
    """The texts the form before embedded beside the question (its ``possible_queries``)."""
    terms = second_pass._terms(question, ctx)
    asked = sorted(set(question.aspects))
    out: dict[str, None] = {}
    for n in range(len(asked) + 1):
        for missing in itertools.combinations(asked, n):
            for q, _, _ in second_pass._queries(question, terms, terms, list(missing)):
                out[q] = None
            if len(out) > BESIDE_AT_MOST:
                return []
    return list(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--space", required=True)
    ap.add_argument("--questions", type=int, default=200)
    args = ap.parse_args()
    qs = scale_curve.questions(args.questions + WARM)
    asked, warm = qs[: args.questions], qs[args.questions:]
    product = retrieval.retrieve
    beside = [False]

    def retrieve(question: Question, history: list[str], vm: Any, baselines: Any, params: Any,
                 ctx: Context) -> Any:
        if beside[0] and params.use_second_pass and (spare := every_text(question, ctx)):
            ctx.embed_queries([question.text, *spare])  # one call; the pipeline's own finds the question cached
        return product(question, history, vm, baselines, params, ctx)

    retrieval.retrieve = retrieve  # type: ignore[assignment]
    with Engine.open(args.home) as eng:
        scale_curve.warmed(eng, args.space, warm)
        emb = eng.models.embedder
        embed = emb.embed_queries
        calls = [0]

        def counted(texts: list[str]) -> Any:
            calls[0] += 1
            return embed(texts)

        emb.embed_queries = counted  # type: ignore[method-assign]
        times: dict[str, list[float]] = {"on failure": [], "beside": []}
        more: dict[str, int] = {"on failure": 0, "beside": 0}
        for i, q in enumerate(asked):
            for form in ("beside", "on failure") if i % 2 else ("on failure", "beside"):
                beside[0] = form == "beside"
                eng.models.forget_queries()
                calls[0] = 0
                t0 = time.perf_counter()
                eng.answer(args.space, q)
                times[form].append((time.perf_counter() - t0) * 1000)
                more[form] += calls[0] > 1
    for form, t in times.items():
        a = np.array(t)
        print(f"{form:>10}: ask+answer p50 {np.median(a):.1f} ms, mean {a.mean():.1f}, p95 {np.percentile(a, 95):.1f};"
              f" questions with a second model call {more[form]}/{len(a)}")


if __name__ == "__main__":
    main()
