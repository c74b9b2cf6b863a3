"""``biny show`` (a citation at its place in its source) and ``biny passage …`` (a curator's corrections), issue 61."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biny.core.cli.output import safe_text
from biny.core.errors import BinyError
from biny.core.i18n import N_, t

if TYPE_CHECKING:  # the engine is imported when a command runs (a quick --help)
    from biny.core.engine import Engine
    from biny.core.results import SourceView

# A change's action and state as the history prints them (t() of the stored word).
_WORDS = (N_("disable"), N_("enable"), N_("edit"), N_("note"), N_("done"), N_("undone"), N_("pending"),
          N_("undoing"))
# Lines of the document shown before and after the cited span.
CONTEXT_LINES = 3


def add_parsers(sub: Any) -> None:
    sh = sub.add_parser("show", help=t("a cited passage at its place in its source: span, surrounding text, location"))
    sh.add_argument("ref", metavar="CITATION", help=t("the passage's chunk id (or a unique prefix of it, 6+ digits)"))
    sh.add_argument("--space", default=None, help=t("the space (default: look in every space)"))
    sh.add_argument("--json", action="store_true", help=t("page, rectangles and character offsets as JSON"))

    ps = sub.add_parser("passage", help=t("correct single passages: disable, enable, edit, note, history, undo"))
    psub = ps.add_subparsers(dest="passage_cmd", required=True)
    for verb, verb_help in (("disable", t("keep a passage stored but never retrieve it")),
                            ("enable", t("retrieve a disabled passage again")),
                            ("undo", t("undo the latest change to a passage")),
                            ("history", t("a passage's changes, with author and time"))):
        v = psub.add_parser(verb, help=verb_help)
        v.add_argument("ref", metavar="CHUNK_ID")
        v.add_argument("--space", default=None)
        if verb == "history":
            v.add_argument("--json", action="store_true")
        elif verb != "undo":
            v.add_argument("--author", default=None, help=t("who made the change (default: the OS user)"))
    ed = psub.add_parser("edit", help=t("replace a passage's text (only it is re-embedded; undo restores it)"))
    ed.add_argument("ref", metavar="CHUNK_ID")
    no = psub.add_parser("note", help=t("add a note passage to a document"))
    no.add_argument("doc_id", metavar="DOC_ID")
    for p in (ed, no):
        p.add_argument("--space", default=None if p is ed else argparse.SUPPRESS, required=p is no)
        p.add_argument("--author", default=None, help=t("who made the change (default: the OS user)"))
        given = p.add_mutually_exclusive_group(required=True)
        given.add_argument("--text", help=t("the new text"))
        given.add_argument("--file", type=Path, help=t("a file holding the new text"))


def _location(view: SourceView) -> str:
    parts = [view.document]
    if view.page is not None:
        pages = f"{view.page}–{view.page_end}" if view.page_end and view.page_end != view.page else str(view.page)
        parts.append(t("page {page}").format(page=pages))
    if view.heading_path:
        parts.append(" > ".join(view.heading_path))
    return " — ".join(parts)


def _tail(text: str, lines: int, *, last: bool) -> str:
    kept = text.split("\n")
    return "\n".join(kept[-lines:] if last else kept[:lines])


def print_view(view: SourceView) -> None:
    """The span between its surrounding lines, the span marked ⟦ ⟧; then where it is."""
    print(safe_text(_location(view)))
    marks = [t("disabled: never retrieved") if view.disabled else "", t("edited by a curator") if view.edited else "",
             t("a curator's note") if view.note else ""]
    print(f"{view.chunk_id}  " + t("characters {start}–{end}").format(start=view.span[0], end=view.span[1])
          + "".join(f"  [{m}]" for m in marks if m))
    print()
    body = _tail(view.before, CONTEXT_LINES, last=True) + "⟦" + view.text + "⟧" + _tail(view.after, CONTEXT_LINES,
                                                                                        last=False)
    print("  " + safe_text(body).replace("\n", "\n  "))
    print()
    for name, value in view.fields:
        print(f"  {safe_text(name)}: {safe_text(value)}")
    if view.rects:
        shown = ", ".join(t("page {page}: {n} line(s)").format(page=p, n=len(r)) for p, r in sorted(view.rects.items()))
        print(t("highlighted: {where} (covers {share} of the passage)").format(
            where=shown, share=f"{view.coverage or 0:.0%}"))
    elif view.scanned:
        print(t("the page was read by OCR: it has no text layer to highlight the passage on"))
    state = t("present") if view.present else t("missing or changed since it was ingested")
    print(t("file: {path} ({state})").format(path=safe_text(view.path), state=state))


def run_show(engine: Engine, args: argparse.Namespace) -> int:
    view = engine.source(args.space, args.ref)
    if args.json:
        sys.stdout.write(safe_text(json.dumps(view.to_dict(), ensure_ascii=False)) + "\n")
    else:
        print_view(view)
    return 0


def _text(args: argparse.Namespace) -> str:
    if args.text is not None:
        return str(args.text)
    try:
        return Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BinyError(t("Cannot read {path}: {reason}").format(path=args.file, reason=exc)) from exc


def run_passage(engine: Engine, args: argparse.Namespace) -> int:
    p = engine.passages
    cmd = args.passage_cmd
    if cmd == "note":
        chunk_id = p.note(args.space, args.doc_id, _text(args), author=args.author)
        print(t("added note passage {id}").format(id=chunk_id))
        return 0
    space, chunk_id = p.resolve(args.ref, args.space)
    if cmd in ("disable", "enable"):
        (p.disable if cmd == "disable" else p.enable)(space, chunk_id, author=args.author)
        print(t("passage {id}: {state}").format(id=chunk_id, state=t("disabled") if cmd == "disable" else t("enabled")))
    elif cmd == "edit":
        p.edit(space, chunk_id, _text(args), author=args.author)
        print(t("{id}: edited (re-embedded; `biny passage undo {id}` restores it)").format(id=chunk_id))
    elif cmd == "undo":
        change = p.undo(space, chunk_id)
        print(t("{id}: undid the {action} by {author} at {at}").format(
            id=chunk_id, action=t(change.action), author=safe_text(change.author), at=f"{change.at:%Y-%m-%d %H:%M}"))
    elif cmd == "history":
        changes = p.history(space, chunk_id)
        if args.json:
            sys.stdout.write(safe_text(json.dumps([c.to_dict() for c in changes], ensure_ascii=False)) + "\n")
        for c in [] if args.json else changes:
            print(f"{c.at:%Y-%m-%d %H:%M:%S}\t{t(c.action)}\t{safe_text(c.author)}\t{t(c.state)}"
                  + (f"\t{safe_text(c.before[:80])!r}" if c.before else ""))
        if not changes and not args.json:
            print(t("no changes to this passage"))
    return 0
