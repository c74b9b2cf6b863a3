"""Did a refactor change any decision? Dump every decision and answer of a fixed question set, run by two
checkouts over the same spaces, and compare (issue 56: "on your harness every row is identical just before and
just after it").

Unlike ``decisions_dump.py`` this script reads only what every version of the engine has had since the first
wave (``Engine.open``, ``ask``, ``answer``, the trace's stage names, kept and dropped ids, the answer's text, mode
and citations), so it runs unchanged on an old commit. Run it with each checkout importable as ``biny`` (its own
virtual environment, or that checkout installed in editable mode):

    python bench/refactor_identity.py --home DIR --build --out BEFORE   # the commit before, builds spaces
    python bench/refactor_identity.py --home DIR --out AFTER            # the commit after, same spaces
    python bench/refactor_identity.py --compare BEFORE AFTER

Spaces: XQuAD English and Chinese, built by the same version that dumps first. Questions: the first --n XQuAD
questions in English (over the English articles), in Chinese (over the Chinese ones and over the English ones).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_retrieval as ev

from biny.core.engine import Engine


def _questions(lang: str, n: int) -> list[str]:
    data = json.loads((ev.CORPORA / "xquad" / f"xquad.{lang}.json").read_text(encoding="utf-8"))
    return [qa["question"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]][:n]


def _row(space: str, q: str, r: Any) -> dict[str, object]:
    trace = r.trace
    stages = {s.name: {"kept": list(s.kept), "dropped": sorted(d.chunk_id for d in s.dropped)}
              for s in trace.stages if s.name != "relevance"}  # a judge recorded beside the rules decides nothing
    out: dict[str, object] = {"space": space, "question": q, "final": [h.chunk_id for h in r.chunks],
                              "stages": stages}
    a = getattr(r, "answer", None)
    if a is not None:
        out["answer"] = {"mode": a.mode, "text": a.text, "citations": [c.chunk_id for c in a.citations]}
    return out


def compare(before: Path, after: Path) -> int:
    """Print how many questions differ in anything recorded (and the first 20); 1 when any does."""
    a, b = ([json.loads(x) for x in p.read_text("utf-8").splitlines()] for p in (before, after))
    differ = [(x["space"], x["question"]) for x, y in zip(a, b, strict=True) if x != y]
    print(f"{len(a)} questions, {len(differ)} with any decision or answer different")
    for space, q in differ[:20]:
        print(f"  {space}: {q}")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--build", action="store_true", help="build the XQuAD spaces first (with this checkout)")
    ap.add_argument("--compare", nargs=2, type=Path)
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    with Engine.open(args.home, embedder=ev.MemoEmbedder()) as eng, tempfile.TemporaryDirectory() as tmp:
        eng.models.set_llm(None) if hasattr(eng, "models") else None  # the extractive path, model or not
        if args.build:
            ev.build_spaces(eng, Path(tmp), {"xquad-en", "xquad-zh"})
        en, zh = _questions("en", args.n), _questions("zh", args.n)
        asked = [("xquad-en", q) for q in en] + [("xquad-zh", q) for q in zh] + [("xquad-en", q) for q in zh]
        with args.out.open("w", encoding="utf-8") as out:
            for space, q in asked:
                out.write(json.dumps(_row(space, q, eng.answer(space, q)), ensure_ascii=False) + "\n")
        print(f"{len(asked)} questions dumped to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
