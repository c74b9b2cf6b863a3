"""Natural questions, asked as people ask them (issue 55): answered right, first sentence, refusals.

Run: ``python bench/eval_natural.py --home bench-data [--split test] [--variants rules,judge]``

The questions are hand-written (bench/questions/natural/, see its README): over the demo, FastAPI's docs, PEPs,
Chinese laws and hardware datasheets, in English, Chinese, German and Japanese, with questions the material cannot
answer about the same products and topics. Each corpus is a space ``nat-<corpus>`` of the files
``corpora.json`` lists, built here on first use. Without a language model, as a fresh install answers.

Per corpus and language, and overall:

- answered right: the gold (verbatim, or one of its accepted forms) is in the extracted answer;
- first sentence: the gold is in the answer's first sentence (up to its first citation);
- false refusals: an answerable question answered "not in your material";
- refused: an unanswerable question answered "not in your material";
- wrong structured: an answer from the structured index to a question it cannot answer (unanswerable, or not
  holding the gold).

The ``test`` split is never used to fit anything (bench/fit_judge.py fits on ``dev``). The ``fresh`` split
(``fresh_*.jsonl``) was written later by another hand, over the same files, and is read only for figures: the test
split had been looked at question by question while mending faults, the fresh one is not.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fit_judge

from biny.core.engine import Engine

NATURAL = Path(__file__).resolve().parent / "questions" / "natural"
VARIANTS = {"rules": {}, "judge": {"relevance_decides": True}}


def _first_sentence(text: str) -> str:
    m = re.search(r"\[\d+\]", text)
    return text[: m.end()] if m else text


def _unmarked(text: str) -> str:
    return re.sub(r"\[\d+\]", "", text)


def load(split: str) -> list[dict[str, object]]:
    rows = []
    for path in sorted(NATURAL.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                r = json.loads(line)
                if split == "all" or r["split"] == split:
                    rows.append(r)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--split", default="test", choices=["dev", "test", "fresh", "all"])
    ap.add_argument("--variants", default="rules,judge")
    ap.add_argument("--show", action="store_true", help="print each question's answer")
    args = ap.parse_args()
    rows = load(args.split)
    with Engine.open(args.home) as eng:
        eng.models.set_llm(None)
        fit_judge.build_natural(eng)
        base = eng.retrieval.params()
        print(f"{len(rows)} natural questions ({args.split} split), model {eng.models.embedder.model_id}, K={base.k}")
        for variant in args.variants.split(","):
            params = replace(base, **VARIANTS[variant])
            tally: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
            times = []
            for r in rows:
                t0 = time.perf_counter()
                res = eng.answer(f"nat-{r['corpus']}", str(r["question"]), params=params)
                times.append(time.perf_counter() - t0)
                a = res.answer
                text = _unmarked(a.text) if a is not None else ""
                refused = a is None or a.mode == "none"
                golds = [str(r["answer"]), *[str(x) for x in r.get("answer_any", [])]] if r["answerable"] else []
                right = bool(golds) and not refused and any(g in text for g in golds)
                first = right and a is not None and any(g in _unmarked(_first_sentence(a.text)) for g in golds)
                structured = a is not None and a.mode == "structured"
                for key in ("all", f"{r['corpus']}", f"lang {r['lang']}"):
                    t = tally[key]
                    if r["answerable"]:
                        t["answerable"] += 1
                        t["right"] += right
                        t["first"] += first
                        t["false_refusal"] += refused
                    else:
                        t["unanswerable"] += 1
                        t["refused"] += refused
                    t["wrong_structured"] += structured and not right
                if args.show:
                    mark = "ok" if right or (not r["answerable"] and refused) else "XX"
                    print(f"  {mark} [{r['id']}] {r['question']} → {(a.text if a else '')[:140]!r}")
            print(f"\nvariant {variant}: answer p50 {sorted(times)[len(times) // 2] * 1000:.0f} ms")
            print(f"{'set':<16}{'n ans':>6}{'right':>8}{'first':>8}{'false ref':>10}{'n unans':>8}{'refused':>9}"
                  f"{'wrong SQL':>10}")
            for key in sorted(tally, key=lambda k: (k != "all", k)):
                t = tally[key]
                n, u = max(t["answerable"], 1), max(t["unanswerable"], 1)
                print(f"{key:<16}{t['answerable']:>6}{t['right'] / n:>8.3f}{t['first'] / n:>8.3f}"
                      f"{t['false_refusal'] / n:>10.3f}{t['unanswerable']:>8}{t['refused'] / u:>9.3f}"
                      f"{t['wrong_structured']:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
