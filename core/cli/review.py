"""``biny review …``: the queue of public-web answers (SPEC W5–W7) from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biny.core.errors import BinyError
from biny.core.i18n import t

if TYPE_CHECKING:  # the engine is imported when a command runs (a quick --help)
    from biny.core.engine import Engine


def add_parser(sub: Any) -> None:
    rv = sub.add_parser("review", help=t("the review queue of public-web answers: list, show, approve, reject, undo"))
    rsub = rv.add_subparsers(dest="review_cmd", required=True)
    ls = rsub.add_parser("list", help=t("items waiting for review (or --all)"))
    ls.add_argument("--space", required=True)
    ls.add_argument("--all", action="store_true", help=t("approved and rejected ones too"))
    ls.add_argument("--json", action="store_true")
    sh = rsub.add_parser("show", help=t("one item: question, answer, sources, snapshot, proposed entry"))
    sh.add_argument("id")
    sh.add_argument("--json", action="store_true")
    ap = rsub.add_parser("approve", help=t("ingest the proposed entry (or your edit of it) into the space"))
    ap.add_argument("id")
    ap.add_argument("--edit", type=Path, default=None, help=t("a file holding the entry text to store instead"))
    ap.add_argument("--confirm-flagged", action="append", default=[], metavar="SENTENCE",
                    help=t("approve although the entry holds this sentence addressed to a model or the reader "
                           "(its text, or 12+ characters of it; repeat for each)"))
    ap.add_argument("--confirm-contradicted", action="append", default=[], metavar="SENTENCE",
                    help=t("approve although the entry holds this sentence your own material states otherwise "
                           "(its text, or 12+ characters of it; repeat for each)"))
    rj = rsub.add_parser("reject", help=t("reject; the pages read are not proposed again for this space"))
    rj.add_argument("id")
    rj.add_argument("--reason", default="")
    rsub.add_parser("undo", help=t("put a decided item back in the queue")).add_argument("id")


def _dump(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def run(engine: Engine, args: argparse.Namespace) -> int:
    cmd = args.review_cmd
    if cmd == "list":
        statuses = ("pending", "approved", "rejected") if args.all else ("pending",)
        items = engine.web.items(args.space, statuses)
        if args.json:
            _dump([{"review_id": i.review_id, "status": i.status, "created_at": i.created_at,
                    "question": i.question, "questions": i.questions or [i.question],
                    "sources": [s.to_dict() for s in i.sources],
                    "untraced_numbers": i.untraced_numbers, "flagged": i.flagged,
                    "contradicted": i.contradicted} for i in items])
        else:
            for i in items:
                read = sum(s.read for s in i.sources)
                print(f"{i.review_id}\t{t(i.status)}\t" + t("{read} read / {found} found").format(
                    read=read, found=len(i.sources)) + f"\t{i.question}")
            if not items:
                print(t("the queue is empty"))
        return 0
    if cmd == "show":
        item = engine.web.item(args.id)
        if args.json:
            _dump(item.to_dict())
        else:
            print(f"[{t(item.status)}] {item.question}\n\n" + t("Answer:") + f" {item.answer}\n")
            for s in item.sources:
                print(f"  {t('read') if s.read else t('found')} {s.url}" + (f" — {s.error}" if s.error else ""))
            if item.untraced_numbers:
                print("  ! " + t("numbers not found in the sources: {numbers}").format(
                    numbers=", ".join(item.untraced_numbers)))
            for f in item.flagged:
                print("  ! " + t("left out, addressed to a model or the reader: {text} ({url})").format(
                    text=f["text"], url=f["url"]))
            for c in item.contradicted:
                where = f"{c['title']}, p. {c['page']}" if c.get("page") else c["title"]
                print("  ! " + t("contradicted by {where}: {sentence}\n      your material says: {mine}").format(
                    where=where, sentence=c["sentence"], mine=c["mine"]))
            print("\n" + t("Proposed entry:") + "\n" + (item.edited or item.entry.markdown()))
        return 0
    if cmd == "approve":
        edited = None
        if args.edit is not None:
            try:
                edited = args.edit.read_text(encoding="utf-8")
            except OSError as exc:
                raise BinyError(t("Cannot read {edit}: {reason}")
                                .format(edit=args.edit, reason=exc.strerror or exc)) from exc
        item = engine.web.approve(args.id, edited, confirm_flagged=args.confirm_flagged,
                                  confirm_contradicted=args.confirm_contradicted)
        print(t("approved {id}: stored as document {doc} in {space}").format(id=item.review_id, doc=item.doc_id,
                                                                             space=repr(item.space)))
        return 0
    if cmd == "reject":
        item = engine.web.reject(args.id, args.reason)
        print(t("rejected {id}; its pages will not be proposed again in {space}").format(id=item.review_id,
                                                                                         space=repr(item.space)))
        return 0
    item = engine.web.undo(args.id)
    print(t("{id} is back in the queue").format(id=item.review_id))
    return 0
