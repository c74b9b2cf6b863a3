"""Every decision of an ask, dumped for a before/after comparison of a refactor that must change none (issue 56).

Run the same command on two checkouts over the same spaces and compare the two files:

    python bench/decisions_dump.py --home bench-data --out decisions-before    # on the commit before
    python bench/decisions_dump.py --home bench-data --out decisions-after     # on the commit after
    python bench/decisions_dump.py --compare decisions-before decisions-after

Per question: the final context (chunk ids, in order) and each stage's kept and dropped chunk ids; with --answers
also the extracted answer (mode, text, citations, note kind and note); with --words each stage's summary and
reasons, as shown in the language chosen (BINY_LANG). Questions: the
first --n of XQuAD en, zh (and zh over the English articles), CMRC, the other XQuAD languages whose spaces exist,
and the natural questions of every ``nat-<corpus>`` space present.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval as ev
import refactor_identity

from biny.core.engine import Engine

NATURAL = Path(__file__).resolve().parent / "questions" / "natural"


def questions(names: set[str], n: int) -> list[tuple[str, str]]:
    x = ev.CORPORA / "xquad"
    out: list[tuple[str, str]] = []
    for lang in ("en", "zh", *ev.LANGUAGES):
        data = json.loads((x / f"xquad.{lang}.json").read_text(encoding="utf-8"))
        qs = [qa["question"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]][:n]
        for space in (f"xquad-{lang}", f"xquad-{lang}-40", "xquad-en" if lang == "zh" else ""):
            if space in names:
                out += [(space, q) for q in qs]
    if "cmrc" in names:
        data = json.loads((ev.CORPORA / "cmrc2018" / "cmrc2018_dev.squad.json").read_text(encoding="utf-8"))
        out += [("cmrc", qa["question"]) for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]][:n]
    for path in sorted(NATURAL.glob("*.jsonl")):
        space = f"nat-{path.stem}"
        if space in names:
            out += [(space, json.loads(line)["question"]) for line in path.read_text("utf-8").splitlines() if line]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("bench-data"))
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--compare", nargs=2, type=Path)
    ap.add_argument("--answers", action="store_true", help="compose each answer too, and record it")
    ap.add_argument("--words", action="store_true", help="record each stage's summary and reasons too")
    args = ap.parse_args()
    if args.compare:
        return refactor_identity.compare(*args.compare)
    with Engine.open(args.home, embedder=ev.MemoEmbedder()) as eng, args.out.open("w", encoding="utf-8") as out:
        eng.models.set_llm(None)
        names = {s.name for s in eng.spaces()}
        asked = questions(names, args.n)
        for space, q in asked:
            r = eng.answer(space, q) if args.answers else eng.ask(space, q)
            stages = {s.name: {"kept": s.kept, "dropped": sorted(d.chunk_id for d in s.dropped)}
                      for s in r.trace.stages if s.name != "relevance"}  # the judge's record is new, not a decision
            if args.words:  # what each stage said, as a reader sees it (timings left out: they vary run to run)
                for s in r.trace.stages:
                    if s.name in stages:
                        stages[s.name] |= {"summary": str(s.summary),
                                           "reasons": sorted(f"{d.chunk_id}: {d.reason}" for d in s.dropped)}
            row = {"space": space, "question": q, "final": [h.chunk_id for h in r.chunks], "stages": stages}
            if r.answer is not None:
                a = r.answer
                row["answer"] = {"mode": a.mode, "text": a.text, "citations": [c.chunk_id for c in a.citations],
                                 "note_kind": a.note_kind, "note": str(a.note)}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{len(asked)} questions dumped to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
