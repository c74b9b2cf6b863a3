"""``biny map`` and ``biny eval``: the analysts' figures and evaluation runs from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biny.core.errors import BinyError
from biny.core.i18n import N_, t

if TYPE_CHECKING:  # the engine is imported when a command runs (a quick --help)
    from biny.core.engine import Engine

EVAL_FORMAT = N_(
    'A question set is JSONL (one object per line) or CSV (a header row with the same names):\n'
    '  {"question": "How much does the Team plan cost?", "answer": "$129"}\n'
    '  {"question": "Which plan suits a workshop?", "expected_document": "Tallow Plans and Pricing"}\n'
    '  {"question": "…", "expected_text": "words of the passage that answers"}\n'
    '  {"question": "Who won the 1998 World Cup?", "unanswerable": true}\n'
    'A question with none of answer / expected_document / expected_text / unanswerable (the file `biny ask '
    '--questions` reads) runs unjudged: its distances are reported, it counts in no rate.')


def add_parsers(sub: Any) -> None:
    mp = sub.add_parser("map", help=t("the star map of a question (or --kind collection / histogram), as PNG or SVG"))
    mp.add_argument("question", nargs="?", default="")
    mp.add_argument("--space", required=True)
    mp.add_argument("--kind", choices=["star", "collection", "histogram"], default="star")
    mp.add_argument("--color-by", choices=["document", "language"], default="document",
                    help=t("collection: colour points by document or by script"))
    mp.add_argument("--out", type=Path, default=None, help=t("write the figure here (.png or .svg)"))
    mp.add_argument("--dark", action="store_true", help=t("dark colours"))
    mp.add_argument("--json", action="store_true", help=t("print the points and rings (star) as JSON"))
    ev = sub.add_parser("eval", help=t("run a question set (JSONL/CSV) against a space, with per-stage ablations"),
                        description=t("run a question set (JSONL/CSV) against a space, with per-stage ablations"),
                        epilog=t(EVAL_FORMAT), formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("file", type=Path)
    ev.add_argument("--space", required=True)
    ev.add_argument("--compare", default=None, metavar="RUN_ID", help=t("also list what got better or worse since"))
    ev.add_argument("--json", action="store_true")


def _dump(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def run_map(engine: Engine, args: argparse.Namespace) -> int:
    from biny.core.analysis import plots

    if args.kind != "collection" and not args.question:
        raise BinyError(t("Give a question (the star map and the histogram are drawn around one)."))
    data: dict[str, Any]
    if args.kind == "star":
        sm = engine.analysis.star_map(args.space, args.question)
        fig = plots.star_map_figure(sm, dark=args.dark)
        data = sm.to_dict()
    elif args.kind == "histogram":
        dist, ref, cut = engine.analysis.distances(args.space, args.question)
        fig = plots.histogram_figure(dist, ref, cut, args.question, dark=args.dark, label=t("every chunk's distance"))
        data = {"distances": len(dist), "cut": cut, "reference_median": None if ref is None else ref.median}
    else:
        col = engine.analysis.collection(args.space, question=args.question or None, color_by=args.color_by)
        fig = plots.collection_figure(col.coords, col.groups, col.question, args.space,
                                      t("{note}; 5-NN kept on the map: {share:.0%}")
                                       .format(note=col.note, share=col.preservation), dark=args.dark)
        data = {"points": len(col.chunk_ids), "total": col.total, "preservation": col.preservation, "note": col.note}
    if args.out is not None:
        try:
            plots.save_figure(fig, args.out)
        except ValueError as exc:
            raise BinyError(str(exc)) from exc
        data["out"] = str(args.out)
    if args.json:
        _dump(data)
    else:
        print(t("wrote {path}").format(path=args.out) if args.out
              else t("(nothing written: give --out FILE.png or .svg, or --json)"))
    return 0


def run_eval(engine: Engine, args: argparse.Namespace) -> int:
    run = engine.analysis.evaluate(args.space, args.file, compare_to=args.compare)
    if args.json:
        _dump(run.to_dict())
        return 0
    print(t("run {id}: {n} questions in {seconds} s").format(id=run.run_id, n=len(run.results),
                                                            seconds=f"{run.seconds:.1f}"))
    print(f"{'variant':<16}{'hit rate':>10}{'zero chunks':>13}{'chunks':>9}{'closer than':>13}")
    for variant, m in run.metrics.items():
        def fmt(v: Any) -> str:
            return "—" if v is None else f"{v:.3f}"
        print(f"{variant:<16}{fmt(m['hit_rate']):>10}{fmt(m['zero_chunk_rate']):>13}{m['mean_chunks']:>9.2f}"
              f"{fmt(m['mean_top_closer_than']):>13}")
    if run.comparison is not None:
        print(t("since {run}: {better} better, {worse} worse").format(
            run=args.compare, better=len(run.comparison["better"]), worse=len(run.comparison["worse"])))
        for q in run.comparison["worse"][:20]:
            print("  " + t("worse: {question}").format(question=q))
    return 0
