"""Questions about one row, asked the way people ask (issue 64): right, wrong row's value, absent refused.

Run: ``python bench/eval_rows.py [--questions FILE] [--home DIR] [--rows N] [--stand-in-embedder] [--no-index]
[--tables demo,goodbooks,amazon] [--misses]``.

Three tables: the demo (``biny demo``'s space: sensors.csv beside its handbook, FAQ and price pages),
goodbooks (the first ``--rows`` rows of ../shared/corpora/goodbooks10k/books.csv) and the Amazon product sample (the
first ``--rows`` rows of ../shared/corpora/amazon_products/test_sample_1000.csv), ingested once into ``--home`` and
reused; each table's structured index is built as the demo builds its own. Every question is asked through
``Engine.answer`` with no language model (the extractive answer a fresh install gives). ``--no-index`` asks with the
structured index switched off, so the answers come from retrieval over the row passages (answer/rows.py).
``--stand-in-embedder`` ingests (into ``<home>-standin``) with the real tokenizer and hashed vectors: minutes instead
of a quarter of an hour; the structured path reads no vector, retrieval's passages are then arbitrary (so use the
real model with ``--no-index``).

The question file (``--questions``; default bench/rows_dev.jsonl, the development set, written by hand) holds one
JSON object per line with keys ``table`` ("demo" | "goodbooks" | "amazon"), ``lang`` and ``question``, and either
``row`` (the row's name-field value as the CSV writes it), ``field`` (the field name as in the CSV header) and
``value`` (the expected value as written in the CSV), or ``absent: true`` (a row or field the table lacks).

Judged per question:
* right — an answer (not a refusal) holding the value (as written, or a spreadsheet's "1995.0" as 1995) and citing
  or reading the named row;
* wrong row's value — an answer citing or reading another row of the table;
* refused / other — a refusal, or an answer from some other passage;
* absent refused — a question about a row or field the table lacks answered "not in your material" (or "which one
  do you mean?"), by the structured index itself or after retrieval (counted apart: with the stand-in embedder
  retrieval's passages are arbitrary, so only the index's refusals say much there).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))
BOOKS = ROOT.parent / "shared" / "corpora" / "goodbooks10k" / "books.csv"
PRODUCTS = ROOT.parent / "shared" / "corpora" / "amazon_products" / "test_sample_1000.csv"

from bench.eval_structured import StandInEmbedder  # noqa: E402
from biny.core.demo import build_demo  # noqa: E402
from biny.core.engine import Engine  # noqa: E402
from biny.core.results import AskResult  # noqa: E402

WRONG = "wrong row's value"
EXACT = {"goodbooks": ["image_url", "small_image_url", "isbn"], "amazon": ["Product Url", "Image"]}


def _head(src: Path, dest: Path, rows: int) -> Path:
    """The first ``rows`` rows of a CSV (records, not lines: quoted cells hold line breaks)."""
    import csv

    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with src.open(newline="", encoding="utf-8") as fh, dest.open("w", newline="", encoding="utf-8") as out:
            reader = csv.reader(fh)
            writer = csv.writer(out)
            for i, rec in enumerate(reader):
                if i > rows:
                    break
                writer.writerow(rec)
    return dest


def _space(engine: Engine, name: str, src: Path, exact: list[str]) -> None:
    if name not in {s.name for s in engine.spaces()}:
        engine.create_space(name, encrypted=False)
    if not engine.documents(name):
        t0 = time.perf_counter()
        engine.ingest(name, [src])
        print(f"ingested {src.name} into {name!r} in {time.perf_counter() - t0:.0f} s", flush=True)
    if engine.index.info(name) is None:
        engine.index.build(name, exact=exact)


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def _values(value: str) -> list[str]:
    v = " ".join(value.split())
    out = [v]
    if v.endswith(".0") and v[:-2].lstrip("-").isdigit():
        out.append(v[:-2])  # a spreadsheet's year "1995.0" is the year 1995
    return out


def _rows_read(result: AskResult) -> list[str]:
    """The rows an answer reads: the looked-up row, else the cited passages' documents."""
    a = result.answer
    if result.structured is not None and result.structured.call.tool == "lookup":
        return [r["title"] for r in result.structured.rows]
    return [c.document for c in (a.citations if a is not None else [])]


def judge(q: dict[str, Any], result: AskResult, names: set[str]) -> str:
    a = result.answer
    refused = a is None or a.mode == "none"
    if q.get("absent"):
        return "absent refused" if refused else "absent answered"
    if refused:
        return "refused"
    assert a is not None
    read = [_norm(r) for r in _rows_read(result)]
    text = _norm(a.text)
    if _norm(q["row"]) in read[:1] and any(_norm(v) in text for v in _values(q["value"])):
        return "right"
    if read and read[0] in names and read[0] != _norm(q["row"]):
        return WRONG
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, default=ROOT / "bench" / "rows_dev.jsonl")
    ap.add_argument("--home", type=Path, default=ROOT / "bench-data" / "rows")
    ap.add_argument("--rows", type=int, default=300, help="goodbooks and Amazon: the first N rows")
    ap.add_argument("--stand-in-embedder", action="store_true")
    ap.add_argument("--no-index", action="store_true", help="answer without the structured index (retrieval only)")
    ap.add_argument("--tables", default="demo,goodbooks,amazon", help="comma-separated: only these tables' questions")
    ap.add_argument("--misses", action="store_true", help="print every question not judged right or refused")
    args = ap.parse_args()
    tables = [x.strip() for x in args.tables.split(",") if x.strip()]
    questions = [q for ln in args.questions.read_text("utf-8").splitlines() if ln.strip()
                 for q in [json.loads(ln)] if q["table"] in tables]
    embedder = None
    if args.stand_in_embedder:
        args.home = args.home.with_name(args.home.name + "-standin")
        embedder = StandInEmbedder()
    books = _head(BOOKS, args.home.parent / f"{args.home.name}-src" / f"books_{args.rows}.csv", args.rows)
    products = _head(PRODUCTS, args.home.parent / f"{args.home.name}-src" / f"products_{args.rows}.csv", args.rows)
    per: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    misses: list[str] = []
    with Engine.open(args.home, embedder=embedder) as engine:  # type: ignore[arg-type]
        engine.models.set_llm(None)
        if "demo" in tables and "demo" not in {s.name for s in engine.spaces()}:
            build_demo(engine)
        if "goodbooks" in tables:
            _space(engine, "goodbooks", books, EXACT["goodbooks"])
        if "amazon" in tables:
            _space(engine, "amazon", products, EXACT["amazon"])
        names = {t: {_norm(d.title) for d in engine.documents(t)} for t in tables}
        for q in questions:
            params = engine._retriever.params()
            if args.no_index:
                params = dataclasses.replace(params, use_structured=False)
            result = engine.answer(q["table"], q["question"], params=params)
            verdict = judge(q, result, names[q["table"]])
            per[(q["table"], q["lang"])][verdict] += 1
            if verdict == "absent refused" and getattr(result, "refused", None) is not None:
                per[(q["table"], q["lang"])]["by the index"] += 1  # the rest were refused after retrieval
            if verdict not in {"right", "absent refused"} and args.misses:
                text = (result.answer.text if result.answer else "")[:150].replace("\n", " / ")
                misses.append(f"  [{q['table']}/{q['lang']}] {verdict}: {q['question']} → {text}"
                              + (f"  (want {q['row'][:40]} · {q['field']} = {q['value'][:30]})" if "row" in q else ""))
    print(f"\n## Row questions ({args.questions.name}; {'index off' if args.no_index else 'index on'}; "
          f"{'stand-in embedder' if embedder else 'real embedder'})\n")
    print("| table | lang | row questions | right | wrong row's value | refused/other | absent | absent refused "
          "| of which by the index |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (table, lang), c in sorted(per.items()):
        n = c["right"] + c[WRONG] + c["refused"] + c["other"]
        absent = c["absent refused"] + c["absent answered"]
        for k, v in c.items():
            total[lang][k] += v
            total["all"][k] += v
        print(f"| {table} | {lang} | {n} | {c['right']} | {c[WRONG]} | "
              f"{c['refused'] + c['other']} | {absent} | {c['absent refused']} | {c['by the index']} |")
    for lang, c in sorted(total.items(), key=lambda x: (x[0] == "all", x[0])):
        n = c["right"] + c[WRONG] + c["refused"] + c["other"]
        absent = c["absent refused"] + c["absent answered"]
        print(f"| **all** | **{lang}** | {n} | {c['right']} ({c['right'] / max(n, 1):.3f}) | "
              f"{c[WRONG]} | {c['refused'] + c['other']} | {absent} | "
              f"{c['absent refused']} ({c['absent refused'] / max(absent, 1):.3f}) | {c['by the index']} |")
    if misses:
        print("\nMisses:")
        print("\n".join(misses))


if __name__ == "__main__":
    main()
