"""``biny index …``: the structured index from the command line (SPEC S1–S7).

``propose`` shows the fields a space's headers offer (kept and dropped, with why);
``build`` makes the table (``--fields`` to choose, ``--exact`` for S6); ``show`` prints it;
``lint`` lists chunks that state attributes only as bare values (S7); ``drop`` removes it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from biny.core.errors import BinyError


def add_parser(sub: Any) -> None:
    ix = sub.add_parser("index", help="the structured index: propose, build, show, lint, drop (S1–S7)")
    isub = ix.add_subparsers(dest="index_cmd", required=True)
    pr = isub.add_parser("propose", help="propose fields from the documents' headers and validate them")
    b = isub.add_parser("build", help="build the index (embeds nothing)")
    b.add_argument("--fields", default=None, help="comma-separated field names to index (default: the kept ones)")
    b.add_argument("--exact", default=None,
                   help="comma-separated fields whose values are never retyped by a model (links, images, ids)")
    sh = isub.add_parser("show", help="the index's fields and a preview of its rows")
    sh.add_argument("--rows", type=int, default=20, help="rows to preview")
    li = isub.add_parser("lint", help="chunks that state attributes only as bare values (S7)")
    li.add_argument("--limit", type=int, default=50)
    dr = isub.add_parser("drop", help="remove the index (documents stay)")
    for p in (pr, b, sh, li, dr):
        p.add_argument("--space", required=True)
        p.add_argument("--json", action="store_true")


def _names(raw: str | None) -> list[str] | None:
    return [n.strip() for n in raw.split(",") if n.strip()] if raw else None


def _dump(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def run(engine: Any, args: argparse.Namespace) -> int:
    cmd = args.index_cmd
    if cmd == "propose":
        proposal = engine.index.propose(args.space)
        if args.json:
            _dump(proposal.to_dict())
            return 0
        print(f"{proposal.documents} documents, {proposal.with_header} with a machine-readable header")
        for f in proposal.fields:
            mark = "keep" if f.kept else "drop"
            print(f"  [{mark}] {f.name} ({f.type}, {f.coverage:.0%}): {f.reason}; e.g. {', '.join(f.examples[:2])}")
        if proposal.reason:
            print(proposal.reason)
        return 0
    if cmd == "build":
        info = engine.index.build(args.space, _names(args.fields), _names(args.exact))
        if args.json:
            _dump(info.to_dict())
        else:
            exact = [f.name for f in info.spec.fields if f.exact]
            print(f"indexed {info.rows} rows × {len(info.spec.fields)} fields in {info.seconds:.2f} s "
                  f"(embedded {info.embedded}); exact: {', '.join(exact) or 'none'}")
        return 0
    if cmd == "show":
        info = engine.index.info(args.space, preview=args.rows)
        if info is None:
            raise BinyError(f"Space {args.space!r} has no structured index; `biny index propose --space "
                            f"{args.space}` shows what it could hold.")
        if args.json:
            _dump(info.to_dict())
        else:
            print(f"{info.rows} rows of {info.documents} documents; title field: {info.spec.title_field or '-'}")
            for f in info.spec.fields:
                print(f"  {f.name}\t{f.type}{' (exact)' if f.exact else ''}\t{f.coverage:.0%}")
            for r in info.preview:
                print(f"  · {r['title']}")
        return 0
    if cmd == "lint":
        count, items = engine.index.lint(args.space, args.limit)
        if args.json:
            _dump({"flagged": count, "chunks": [i.to_dict() for i in items]})
        else:
            print(f"{count} chunks state attributes only as bare values")
            for i in items:
                shown = ", ".join(f"{n}: {v}" for n, v in i.attributes[:4])
                print(f"  {i.title}: {shown}\n    suggest: {i.suggestion}")
        return 0
    engine.index.drop(args.space)
    if args.json:
        _dump({"dropped": args.space})
    else:
        print(f"dropped the structured index of {args.space!r} (documents kept)")
    return 0


def print_structured(result: Any) -> None:
    """The plain-text form of an ``ask`` the index answered."""
    r = result.structured
    print(f"Answered by the structured index ({r.call.tool}): {r.result if not isinstance(r.result, list) else ''}")
    if isinstance(r.result, list):
        for title in r.result[:20]:
            print(f"  · {title}")
    print(f"  query: {r.query}")
    for line in result.trace.stages[0].data.get("evidence", []):
        print(f"  why: {line}")
