"""What a question costs beside its model call: the pipeline's own Python, each question asked once (issue 57).

Run: ``python bench/question_python.py --home DIR --space NAME [--questions 300] [--profile FILE]`` on a space of
``scale_curve.py`` (K=5, no model; warmed on 100 other questions first, as a running session is).

The questions' vectors are embedded before timing and handed back by exact text, so what is timed is everything
but the question's own model call — the part of ask + answer above the floor's embedding, without the model's
swings from one run to the next (a second pass's derived texts are still embedded, as they are asked). Each question
is asked once: asked again, it finds its passages' term sets, sentence vectors and words already read, and costs less
than any question a user asks. Printed: p50 / mean / p95, the time in Python's collections (per question, and the
full ones), and each trace stage's p50 and mean, with the time outside every stage. ``--profile``: a cProfile of the
questions at or below the run's 60th percentile (the typical ones, not the few that search the space's spellings), for
``python -m pstats FILE``. Used for bench/README.md, "Figures of
2026-12-07, the question's Python".
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
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
TYPICAL = 60  # percentile: the questions profiled


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--space", required=True)
    ap.add_argument("--questions", type=int, default=300)
    ap.add_argument("--profile", type=Path)
    args = ap.parse_args()
    qs = scale_curve.questions(WARM + args.questions)
    warm, asked = qs[:WARM], qs[WARM:]
    with Engine.open(args.home) as eng:
        scale_curve.warmed(eng, args.space, warm)
        emb = eng.models.embedder
        embed = emb.embed_queries
        ready = {q: embed([q]) for q in asked}

        def handed(texts: list[str]) -> Any:
            # The question's vector is handed back; any text asked beside it (a version that embedded the second
            # pass's possible texts in the question's call) is still embedded: a cost beyond the floor's.
            if not texts or texts[0] not in ready:
                return embed(texts)
            rest = texts[1:]
            return np.vstack([ready[texts[0]], embed(rest)]) if rest else ready[texts[0]]

        emb.embed_queries = handed  # type: ignore[method-assign]
        stages: dict[str, list[float]] = defaultdict(list)
        total: list[float] = []
        profiles: list[tuple[float, cProfile.Profile]] = []
        paused: list[tuple[int, float]] = []  # (generation, seconds) of each of Python's collections in a question
        began: list[float] = [0.0]

        def collected(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                began[0] = time.perf_counter()
            else:
                paused.append((info["generation"], time.perf_counter() - began[0]))

        gc_ms: list[float] = []
        full: list[float] = []
        gc.callbacks.append(collected)
        for q in asked:
            paused.clear()
            eng.models.forget_queries()
            prof = cProfile.Profile() if args.profile else None
            if prof:
                prof.enable()
            t0 = time.perf_counter()
            r = eng.answer(args.space, q)
            ms = (time.perf_counter() - t0) * 1000
            if prof:
                prof.disable()
                profiles.append((ms, prof))
            total.append(ms)
            gc_ms.append(sum(p for _, p in paused) * 1000)
            full += [p * 1000 for g, p in paused if g == 2]
            inside = 0.0
            for s in r.trace.stages:
                stages[s.name].append(s.ms or 0.0)
                inside += s.ms or 0.0
            stages["(outside the stages)"].append(ms - inside)
        gc.callbacks.remove(collected)
    a = np.array(total)
    print(f"{args.space}: the pipeline's Python over {len(a)} questions asked once: p50 {np.median(a):.2f} ms, "
          f"mean {a.mean():.2f}, p95 {np.percentile(a, 95):.2f}")
    print(f"  Python's collections per question: p50 {np.median(gc_ms):.2f} ms, mean {np.mean(gc_ms):.2f}; "
          f"{len(full)} full, {sum(full):.0f} ms in all")
    common = {name: v for name, v in stages.items() if len(v) >= len(a) // 2}  # a stage most questions pass through
    for name, values in sorted(common.items(), key=lambda kv: -float(np.median(kv[1])))[:6]:
        print(f"  {name:22} p50 {np.median(values):7.2f}  mean {np.mean(values):7.2f}  (n {len(values)})")
    if args.profile and profiles:
        cut = np.percentile([ms for ms, _ in profiles], TYPICAL)
        typical = [p for ms, p in profiles if ms <= cut]
        merged = pstats.Stats(typical[0])
        for p in typical[1:]:
            merged.add(p)
        merged.dump_stats(str(args.profile))
        print(f"profile of the {len(typical)} questions at or below p{TYPICAL}: {args.profile}")


if __name__ == "__main__":
    main()
