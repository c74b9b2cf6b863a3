"""What the name check costs per question (issue 55/57; core/retrieve/mentions.py).

Asks the natural questions (`eval_natural.py`'s spaces, both splits) once each in a fresh process and times the
stage's own call: the first run of a process pays for the word lists and the space's sorted terms; `--repeat 2`
also shows the warm figure. Prints mean, p50, p90 and max in milliseconds.

    python bench/mentions_cost.py --home bench-nat [--repeat 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_natural as en

from biny.core.engine import Engine
from biny.core.retrieve import mentions


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-nat"))
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    rows = en.load("dev") + en.load("test")
    times: list[float] = []
    real = mentions.unmentioned

    def timed(*a: object) -> list[str]:
        t0 = time.perf_counter()
        out = real(*a)  # type: ignore[arg-type]
        times.append((time.perf_counter() - t0) * 1000)
        return out

    with Engine.open(args.home) as eng:
        eng.models.set_llm(None)
        params = eng.retrieval.params()
        for space in sorted({f"nat-{r['corpus']}" for r in rows}):
            eng.ask(space, "warm-up: what is this about?", params=params)  # loads the space's matrix
        mentions.unmentioned = timed  # type: ignore[assignment]
        try:
            for run in range(1, args.repeat + 1):
                times.clear()
                for r in rows:
                    eng.ask(f"nat-{r['corpus']}", str(r["question"]), params=params)
                ts = sorted(times)
                print(f"run {run}: {len(ts)} questions, mean {sum(ts) / len(ts):.2f} ms, p50 {ts[len(ts) // 2]:.2f},"
                      f" p90 {ts[int(len(ts) * 0.9)]:.2f}, max {ts[-1]:.1f}")
        finally:
            mentions.unmentioned = real  # type: ignore[assignment]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
