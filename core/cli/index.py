"""``biny index …``: the structured index from the command line (SPEC S1–S7).

``propose`` shows the fields a space's headers offer (kept and dropped, with why);
``build`` makes the table (``--fields`` to choose, ``--exact`` for S6); ``show`` prints it;
``lint`` lists chunks that state attributes only as bare values; ``drop`` removes it; ``synonyms`` lists the words
that name each field and lets a curator add or remove their own (issue 64).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.trace.records import StructuredRecord

if TYPE_CHECKING:  # the engine is imported when a command runs (a quick --help)
    from biny.core.engine import Engine


def add_parser(sub: Any) -> None:
    ix = sub.add_parser("index", help=t("the structured index: propose, build, show, lint, drop, synonyms"))
    isub = ix.add_subparsers(dest="index_cmd", required=True)
    pr = isub.add_parser("propose", help=t("propose fields from the documents' headers and validate them"))
    b = isub.add_parser("build", help=t("build the index (embeds nothing)"))
    b.add_argument("--fields", default=None, help=t("comma-separated field names to index (default: the kept ones)"))
    b.add_argument("--exact", default=None,
                   help=t("comma-separated fields whose values are never retyped by a model (links, images, ids)"))
    sh = isub.add_parser("show", help=t("the index's fields and a preview of its rows"))
    sh.add_argument("--rows", type=int, default=20, help=t("rows to preview"))
    li = isub.add_parser("lint", help=t("chunks that state attributes only as bare values"))
    li.add_argument("--limit", type=int, default=50)
    dr = isub.add_parser("drop", help=t("remove the index (documents stay)"))
    sy = isub.add_parser(
        "synonyms", help=t("words people use for a field (\"how much\" for Price): list, add, remove"),
        description=t("Without --field: every field with the words that name it (its own, the bundled en/zh/de/ja "
                      "synonym files', and yours). With --field: --add and --remove change your words for it; they "
                      "are stored with the index and kept across rebuilds. Example: biny index synonyms --space demo "
                      "--field \"Battery life (months)\" --add \"runtime, Standzeit\""))
    sy.add_argument("--field", default=None, help=t("the field (as `biny index show` names it)"))
    sy.add_argument("--add", default=None, help=t("comma-separated words or phrases to add"))
    sy.add_argument("--remove", default=None, help=t("comma-separated words or phrases to remove"))
    for p in (pr, b, sh, li, dr, sy):
        p.add_argument("--space", required=True)
        p.add_argument("--json", action="store_true")


def _names(raw: str | None) -> list[str] | None:
    return [n.strip() for n in raw.split(",") if n.strip()] if raw else None


def _dump(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def run(engine: Engine, args: argparse.Namespace) -> int:
    """`biny index propose|build|show|lint|synonyms|drop`."""
    handler = {"propose": _propose, "build": _build, "show": _show, "lint": _lint, "synonyms": _synonyms}
    return handler.get(args.index_cmd, _drop)(engine, args)


def _propose(engine: Engine, args: argparse.Namespace) -> int:
    proposal = engine.index.propose(args.space)
    if args.json:
        _dump(proposal.to_dict())
        return 0
    print(t("{docs} documents, {with_header} with a machine-readable header").format(
        docs=proposal.documents, with_header=proposal.with_header))
    for f in proposal.fields:
        mark = t("keep") if f.kept else t("drop")
        print(f"  [{mark}] {f.name} ({f.type}, {f.coverage:.0%}): {f.reason}; "
              + t("e.g. {examples}").format(examples=", ".join(f.examples[:2])))
    for note in proposal.notes:
        print(t("note: {text}").format(text=note))
    if proposal.reason:
        print(proposal.reason)
    if proposal.looked_for:
        print(t("Looked for: {forms}.").format(forms="; ".join(map(str, proposal.looked_for))))
    if proposal.openings:
        print(t("How the first {n} documents open:").format(n=len(proposal.openings)))
        for o in proposal.openings:
            print(f"  {o.title}")
            for line in o.lines or [t("(no text)")]:
                print(f"    | {line}")
    if proposal.next_step:
        print(t("Next: {step}").format(step=proposal.next_step))
    return 0


def _build(engine: Engine, args: argparse.Namespace) -> int:
    info = engine.index.build(args.space, _names(args.fields), _names(args.exact))
    if args.json:
        _dump(info.to_dict())
    else:
        exact = [f.name for f in info.spec.fields if f.exact]
        line = t("indexed {rows} rows × {fields} fields in {seconds} s (embedded {embedded}); exact: {exact}")
        print(line.format(
            rows=info.rows, fields=len(info.spec.fields), seconds=f"{info.seconds:.2f}", embedded=info.embedded,
            exact=", ".join(exact) or t("none")))
    return 0


def _show(engine: Engine, args: argparse.Namespace) -> int:
    index = engine.index.info(args.space, preview=args.rows)
    if index is None:
        raise BinyError(t("Space {name} has no structured index; `biny index propose --space {plain}` shows what "
                          "it could hold.").format(name=repr(args.space), plain=args.space))
    if args.json:
        _dump(index.to_dict())
    else:
        print(t("{rows} rows of {docs} documents; title field: {title}").format(
            rows=index.rows, docs=index.documents, title=index.spec.title_field or "-"))
        for spec in index.spec.fields:
            exact_mark = " (" + t("exact") + ")" if spec.exact else ""
            print(f"  {spec.name}\t{spec.type}{exact_mark}\t{spec.coverage:.0%}")
        for r in index.preview:
            print(f"  · {r['title']}")
    return 0


def _lint(engine: Engine, args: argparse.Namespace) -> int:
    count, items = engine.index.lint(args.space, args.limit)
    if args.json:
        _dump({"flagged": count, "chunks": [i.to_dict() for i in items]})
    else:
        print(t("{n} chunks state attributes only as bare values").format(n=count))
        for i in items:
            shown = ", ".join(f"{n}: {v}" for n, v in i.attributes[:4])
            print(f"  {i.title}: {shown}\n    " + t("suggest: {text}").format(text=i.suggestion))
    return 0


def _drop(engine: Engine, args: argparse.Namespace) -> int:
    engine.index.drop(args.space)
    if args.json:
        _dump({"dropped": args.space})
    else:
        print(t("dropped the structured index of {name} (documents kept)").format(name=repr(args.space)))
    return 0


def _synonyms(engine: Engine, args: argparse.Namespace) -> int:
    if (args.add or args.remove) and not args.field:
        raise BinyError(t("Say which field the words are for: --field NAME (`biny index synonyms --space {space}` "
                          "lists the fields).").format(space=args.space))
    current = engine.index.synonyms(args.space)
    if args.field is not None and args.field not in current:
        raise BinyError(t("The index of {space!r} has no field {field!r}; its fields: {names}.").format(
            space=args.space, field=args.field, names=", ".join(current)))
    if args.field and (args.add or args.remove):
        gone = {w.casefold() for w in _names(args.remove) or []}
        words = [w for w in current[args.field] if w.casefold() not in gone] + (_names(args.add) or [])
        current[args.field] = engine.index.set_synonyms(args.space, args.field, words)
    builtin = engine.index.builtin_synonyms(args.space)
    shown = [args.field] if args.field else list(current)
    if args.json:
        _dump({name: {"yours": current[name], "builtin": builtin.get(name, [])} for name in shown})
        return 0
    for name in shown:
        print(name)
        print("  " + t("yours: {words}").format(words=", ".join(current[name]) or t("none")))
        print("  " + t("built in: {words}").format(words=", ".join(builtin.get(name, [])) or t("none")))
    return 0


def print_structured(result: Any) -> None:
    """The plain-text form of an ``ask`` the index answered."""
    r = result.structured
    print(t("Answered by the structured index ({tool}):").format(tool=r.call.tool)
          + (f" {r.result}" if not isinstance(r.result, list) else ""))
    if isinstance(r.result, list):
        for title in r.result[:20]:
            print(f"  · {title}")
    print("  " + t("query: {sql}").format(sql=r.query))
    routed = result.trace.record(StructuredRecord)
    for line in routed.evidence if routed is not None else []:
        print("  " + t("why: {line}").format(line=line))
