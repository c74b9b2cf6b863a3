"""Where an answered question's time goes, stage by stage, and what the slow ones spend outside every stage (issue 57).

Run: ``python bench/answer_tail.py --home DIR --space NAME [--questions 60] [--slow-ms 500]``, on a space of
``scale_curve.py`` (the same questions, K=5, no model; warmed on 100 other questions first, as a running session is).

Printed: ask+answer p50 / mean / p95; per stage of the trace, its p50 and mean; the question's model call(s), their
texts and time; and for every answer slower than ``--slow-ms``, its stages over 20 ms and Python's full collections
during it (``gc.callbacks``) — the time no stage accounts for is the lead to follow with a profile. Used for
bench/README.md, "Figures of 2026-12-07, later still".
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale_curve

from biny.core.engine import Engine

WARM = 100


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--space", required=True)
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--slow-ms", type=float, default=500.0)
    args = ap.parse_args()
    qs = scale_curve.questions(args.questions + WARM)
    asked, warm = qs[: args.questions], qs[args.questions :]

    pauses: list[tuple[int, float]] = []
    started = [0.0]

    def collected(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((int(info["generation"]), time.perf_counter() - started[0]))

    with Engine.open(args.home) as eng:
        scale_curve.warmed(eng, args.space, warm)
        emb = eng.models.embedder
        embed = emb.embed_queries
        calls: list[tuple[int, float]] = []

        def timed(texts: list[str]) -> Any:
            t0 = time.perf_counter()
            out = embed(texts)
            calls.append((len(texts), (time.perf_counter() - t0) * 1000))
            return out

        emb.embed_queries = timed  # type: ignore[method-assign]
        stages: dict[str, list[float]] = defaultdict(list)
        total: list[float] = []
        gc.callbacks.append(collected)
        try:
            for q in asked:
                eng.models.forget_queries()
                calls.clear()
                pauses.clear()
                t0 = time.perf_counter()
                r = eng.answer(args.space, q)
                ms = (time.perf_counter() - t0) * 1000
                total.append(ms)
                for s in r.trace.stages:
                    stages[s.name].append(s.ms or 0.0)
                stages["(model calls)"].append(sum(c[1] for c in calls))
                stages["(texts embedded)"].append(float(sum(c[0] for c in calls)))
                if ms > args.slow_ms:
                    slow = [(s.name, round(s.ms)) for s in r.trace.stages if s.ms and s.ms > 20]
                    full = [round(p * 1000) for g, p in pauses if g == 2]
                    print(f"slow {ms:7.0f} ms  stages over 20 ms {slow}  full collections {full} ms  {q[:50]!r}",
                          flush=True)
        finally:
            gc.callbacks.remove(collected)
    a = np.array(total)
    print(f"ask+answer over {len(a)} questions: p50 {np.median(a):.1f} ms, mean {a.mean():.1f}, "
          f"p95 {np.percentile(a, 95):.1f}")
    for name, values in sorted(stages.items(), key=lambda kv: -float(np.median(kv[1]))):
        print(f"  {name:22} p50 {np.median(values):8.2f}  mean {np.mean(values):8.2f}  (n {len(values)})")


if __name__ == "__main__":
    main()
