"""A space's first question in a fresh engine, part by part (issue 57: the matrix load at scale).

Run: ``python bench/cold_load.py --home DIR --space NAME [--runs 3]``.

Each run is a fresh interpreter that opens the data folder and answers one question; the first answer loads the
space's matrix, its term sets, their frequencies, the row codes' check and the baselines. Printed per run: the
folder's open, the first and a second answer, and the time inside each named part of the load (wall time, the
parts wrapped in place; a part that runs twice is summed). Then the p50 of each over the runs. Take it on an idle
machine: the load is one thread of Python and Arrow, and a busy core stretches it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

QUESTIONS = ("What is the name of a Bodhisattva vow?", "¿Qué causa la inmunodeficiencia?")

# (module, owner or None, attribute): the load's parts, as named in the table.
PARTS = {
    "matrix load (all)": ("biny.core.store.vectors", "VectorCache", "_load"),
    "vectors unpacked": ("biny.core.store.vectors", None, "_unpacked"),
    "row codes checked": ("biny.core.store.vectors", None, "check_rows"),
    "term sets": ("biny.core.store.vectors", "TermSets", "from_arrow"),
    "term frequencies": ("biny.core.store.vectors", "TermSets", "doc_freq"),
    "documents opened": ("biny.core.services.retrieval", "Retriever", "_opened_documents"),
    "baselines": ("biny.core.services.retrieval", "Retriever", "baselines"),
}


def _wrap(spent: dict[str, float], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - t
    return timed


def child(home: Path, space: str) -> None:
    import importlib

    spent: dict[str, float] = defaultdict(float)
    for name, (module, owner, attr) in PARTS.items():
        mod = importlib.import_module(module)
        target = getattr(mod, owner) if owner else mod
        original = target.__dict__[attr]
        if isinstance(original, classmethod):
            setattr(target, attr, classmethod(_wrap(spent, name, original.__func__)))
        else:
            setattr(target, attr, _wrap(spent, name, original))
    from biny.core.engine import Engine

    t = time.perf_counter()
    with Engine.open(home) as eng:
        out = {"open": time.perf_counter() - t}
        for i, q in enumerate(QUESTIONS):
            t = time.perf_counter()
            eng.answer(space, q)
            out["first answer" if i == 0 else "second answer"] = time.perf_counter() - t
    out.update(spent)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--space", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.home, args.space)
        return
    print(f"load average {os.getloadavg()[0]:.2f}", flush=True)
    runs: list[dict[str, float]] = []
    for _ in range(args.runs):
        done = subprocess.run([sys.executable, __file__, "--child", "--home", str(args.home), "--space", args.space],
                              check=True, capture_output=True, text=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print("  " + "  ".join(f"{k} {v:.2f}" for k, v in runs[-1].items()), flush=True)
    print(f"\n| part (s, p50 of {len(runs)}) | time |\n|---|---|")
    for key in runs[0]:
        print(f"| {key} | {statistics.median(r.get(key, 0.0) for r in runs):.2f} |")


if __name__ == "__main__":
    main()
