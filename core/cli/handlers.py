"""One handler per command: parsed arguments in, the Engine's work, an exit code out."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biny.core.cli import analysis as cli_analysis
from biny.core.cli import index as cli_index
from biny.core.cli import passages as cli_passages
from biny.core.cli import review as cli_review
from biny.core.cli.output import _asdict, _Bar, _dump, _print_result, _shown
from biny.core.errors import BinyError, PassphraseRequired
from biny.core.i18n import t

if TYPE_CHECKING:  # the engine is imported when a command runs (a quick --help)
    from biny.core.engine import Engine


def _prompt(label: str, *, confirm: bool = False) -> str:
    """Read a passphrase: BINY_PASSPHRASE, else an interactive prompt; never echoed."""
    import getpass
    import os

    env = os.environ.get("BINY_PASSPHRASE")
    if env:
        return env
    if not sys.stdin.isatty():
        raise PassphraseRequired(t("A passphrase is needed and there is no terminal to ask on: set BINY_PASSPHRASE."))
    first = getpass.getpass(label)
    if confirm and getpass.getpass("Repeat: ") != first:
        raise BinyError(t("The two passphrases differ; nothing was changed."))
    return first


def _old_and_new(args: argparse.Namespace) -> tuple[str, str]:
    """Old and new passphrase from two distinct sources — never one variable standing for both.

    Two environment variables (``--old-from-env A --new-from-env B``), else two lines on a
    non-terminal stdin, else two prompts on the terminal.
    """
    import getpass
    import os

    if args.old_from_env or args.new_from_env:
        if not (args.old_from_env and args.new_from_env) or args.old_from_env == args.new_from_env:
            raise BinyError(t("Give --old-from-env and --new-from-env, naming two different variables."))
        old, new = os.environ.get(args.old_from_env), os.environ.get(args.new_from_env)
        if not old or not new:
            raise BinyError(t("{value} is not set; nothing was changed.")
                             .format(value=args.old_from_env if not old else args.new_from_env))
    elif not sys.stdin.isatty():
        lines = sys.stdin.read().splitlines()
        if len(lines) < 2 or not lines[0] or not lines[1]:
            raise BinyError(t("Without a terminal, give the current and the new passphrase as two lines on stdin, or "
                              "--old-from-env VAR --new-from-env VAR. (BINY_PASSPHRASE is not used for a change.)"))
        old, new = lines[0], lines[1]
    else:
        old = getpass.getpass("Current passphrase: ")
        new = getpass.getpass("New passphrase: ")
        if getpass.getpass("Repeat: ") != new:
            raise BinyError(t("The two new passphrases differ; nothing was changed."))
    if old == new:
        raise BinyError(t("The new passphrase is the same as the current one; nothing was changed."))
    return old, new


def _bar(args: argparse.Namespace) -> _Bar:
    """Progress on stderr (issue 58): on a terminal unless --json asks for machine output; --progress forces it."""
    return _Bar(True if getattr(args, "progress", False) else False if getattr(args, "json", False) else None)


def _space(engine: Engine, args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.space_cmd == "create":
        passphrase = None
        if not args.unencrypted and not engine.keys.passphrase_available():
            passphrase = _prompt(t("Passphrase for the new space: "), confirm=True)
        s = engine.create_space(args.name, encrypted=not args.unencrypted, passphrase=passphrase)
        state = t("encrypted") if s.encrypted else t("NOT encrypted")
        print(t("created space {name} ({model}, {state})").format(name=repr(s.name), model=s.embed_model, state=state))
    elif args.space_cmd == "unlock":
        passphrase = _prompt(t("Passphrase for {name}: ").format(name=args.name))
        engine.keys.unlock(args.name, passphrase, remember=args.remember)
        print(t("passphrase accepted for {name}").format(name=repr(args.name)))
    elif args.space_cmd == "passphrase":
        old, new = _old_and_new(args)
        changed = engine.keys.change_passphrase(args.name, old, new)
        print(t("re-wrapped the keys of {n} space(s): {names}").format(n=len(changed), names=", ".join(changed)))
        if "(memory)" in changed:  # issue 58: a name no one created needs saying
            print(t("(memory) is the key of your remembered facts and conversations: it was sealed with the same "
                    "passphrase, so it opens with the new one too."))
        print(t("From now on the new passphrase opens them (set BINY_PASSPHRASE to it if you use that variable)."))
    elif args.space_cmd == "export":
        print(t("wrote {path}").format(path=engine.backup.export_space(args.name, args.dest)))
    elif args.space_cmd == "import":
        s = engine.backup.import_space(args.archive, name=args.name)
        print(t("imported space {name} ({n} documents)").format(name=repr(s.name), n=s.documents))
    elif args.space_cmd == "list":
        spaces = engine.spaces()
        if args.json:
            _dump([_asdict(s) for s in spaces], out)
        else:
            for s in spaces:
                enc = (t("encrypted, locked") if s.locked else t("encrypted")) if s.encrypted else t("not encrypted")
                print(s.name + "\t" + t("{n} documents").format(n=s.documents) + "\t"
                      + t("{n} chunks").format(n=s.chunks) + f"\t{s.embed_model}\t{enc}")
            if not spaces:
                print(t("no spaces yet: biny space create NAME"))
    elif args.space_cmd == "delete":
        if not args.yes:
            if not sys.stdin.isatty():
                raise BinyError(t("Refusing to delete without confirmation: add --yes."))
            answer = input(t("Delete space {name} and all its documents? [y/N] ").format(name=repr(args.name)))
            if answer.strip().lower() not in {"y", "yes"}:
                print(t("kept"))
                return 0
        engine.delete_space(args.name)
        print(t("deleted space {name}").format(name=repr(args.name)))
    elif args.space_cmd == "web":
        engine.web.set_enabled(args.name, args.state == "on")
        url = engine.settings.web.search_url
        hint = "" if url or args.state == "off" else t(" (set [web] search_url in config.toml to search)")
        print(t("public-web fallback {state} for {name}").format(state=t(args.state), name=repr(args.name)) + hint)
    elif args.space_cmd == "reembed":
        _reembed(engine, args)
    return 0


def _reembed(engine: Engine, args: argparse.Namespace) -> None:
    bar = _bar(args)
    info = engine.space(args.name)
    # The same model: only the sentence vectors of passages stored before them are made (issue 57).
    emb = engine.models.embedder
    filling = not args.force and (info.embed_model, info.dim) == (emb.model_id, emb.dim)
    try:
        n = engine.reembed(args.name, progress=bar, force=args.force)
    finally:
        bar.close()
    if n and filling:
        print(t("stored the sentence vectors of {n} passages (made with {model})").format(
            n=n, model=engine.models.embedder.model_id))
    elif n:
        print(t("re-embedded {n} chunks with {model}").format(n=n, model=engine.models.embedder.model_id))
    else:
        print(t("{name} is already embedded with {model}: nothing to do (--force re-embeds anyway)")
              .format(name=repr(args.name), model=engine.models.embedder.model_id))


def _ingest(engine: Engine, args: argparse.Namespace) -> int:
    out = sys.stdout
    if not engine.expand_paths(args.paths):
        raise BinyError(t("Nothing to ingest: no supported file (PDF, DOCX, HTML, Markdown, text, "
                          "CSV/TSV/JSONL/XLSX) in {value}.").format(value=', '.join(map(str, args.paths))))
    bar = _bar(args)
    try:
        report = engine.ingest(args.space, args.paths, progress=bar)
    finally:
        bar.close()
    if args.json:
        _dump({"files": [_asdict(f) for f in report.files], "cancelled": report.cancelled,
               "seconds": round(report.seconds, 2), "notes": report.notes}, out)
    else:
        for f in report.files:
            detail = t("{n} chunks, {message}").format(n=f.chunks, message=f.message) if f.outcome == "ingested" \
                else f.message
            print(f"{t(f.outcome):<10} {_shown(f.path)}: {_shown(detail)}")
        for note in report.notes:
            print(t("note: {message}").format(message=note))
        print(t("{ingested} ingested, {unchanged} unchanged, {failed} failed in {seconds} s").format(
            ingested=len(report.by("ingested")), unchanged=len(report.by("unchanged")),
            failed=len(report.by("failed")), seconds=f"{report.seconds:.1f}"))
    return 0 if report.ok else 1


def _docs(engine: Engine, args: argparse.Namespace) -> int:
    out = sys.stdout
    docs = engine.documents(args.space)
    if args.json:
        _dump([_asdict(d) for d in docs], out)
    else:
        for d in docs:
            # I5: what was read from pictures and what was skipped as decoration, when anything was.
            drawn = ", ".join(f"{n} {what}" for n, what in ((d.pages_ocr, "pages OCR'd"),
                                                           (d.figures_described, "figures described"),
                                                           (d.decorations_skipped, "decorations skipped")) if n)
            # A title or path holding a newline or a tab would split the row: shown as escapes (issue 59).
            print(f"{_shown(d.title)}\t{d.kind}\trev {d.revision}\t{d.status}\t{d.chunks} chunks\t"
                  f"{d.chars_per_token:.2f} chars/token\t{_shown(d.path)}" + (f"\t{drawn}" if drawn else ""))
    return 0


def _ask(engine: Engine, args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.questions:
        return _ask_many(engine, args)
    if not args.question:
        raise BinyError(t("Give a question, or --questions FILE.jsonl."))
    history = _read_history(args.history) if args.history else []
    asker = engine.answer if args.answer else engine.ask
    result = asker(args.space, args.question, k=args.k, max_distance=args.max_distance, history=history)
    if args.json:
        _dump(result.to_dict(), out)
    else:
        _print_result(result)
    return 0


def _doctor(engine: Engine, args: argparse.Namespace) -> int:
    """Exit 0 when everything agrees (or was repaired), 1 when findings remain."""
    report = engine.doctor.check(args.space, repair=args.repair, deep=args.deep)
    if args.json:
        _dump({**_asdict(report), "healthy": report.healthy}, sys.stdout)
    else:
        print(t("checked {spaces} space(s), {docs} document(s), {passages} passage(s)").format(
            spaces=report.spaces, docs=report.documents, passages=report.passages))
        for f in report.findings:
            name = f" {f.title!r}" if f.title else ""
            print(f"{'repaired' if f.repaired else f.kind}\t{f.space}{name}: {f.detail} — {f.action}")
        print(t("healthy") if report.healthy else t("problems found"))
    return 0 if report.healthy else 1


def _storage(engine: Engine, args: argparse.Namespace) -> int:
    """Issue 21: each command opens the bucket's latest published state, so there is nothing to refresh here."""
    status = engine.team.status() or {"uri": str(engine.home), "mode": "local"}
    if args.json:
        _dump(status, sys.stdout)
    elif status["mode"] == "local":
        print(t("local: the spaces live in {folder}").format(folder=status["uri"]))
    else:
        print(f"{status['mode']}\t{status['uri']}\twriter: {status['writer']}\tsnapshot: "
              f"{status['snapshot_published'] or 'none yet'}")
    return 0


def _demo(engine: Engine, args: argparse.Namespace) -> int:
    from biny.core.demo import build_demo

    bar = _bar(args)
    try:
        report = build_demo(engine, args.space, progress=bar)
    finally:
        bar.close()
    print(t("demo space {name}: {ingested} ingested, {unchanged} unchanged, {failed} failed").format(
        name=repr(args.space), ingested=len(report.by("ingested")), unchanged=len(report.by("unchanged")),
        failed=len(report.by("failed"))))
    return 0 if report.ok else 1


def _memory(engine: Engine, args: argparse.Namespace) -> int:
    cmd = args.memory_cmd
    if cmd == "add":
        f = engine.memory.add(args.text, args.scope, source="cli")
        print(f.fact_id)
    elif cmd == "list":
        statuses = ("active", "archived", "deleted") if args.all else ("active", "archived")
        facts = engine.memory.facts(args.scope, statuses)
        if args.json:
            _dump([{"id": f.fact_id, "scope": f.scope, "text": f.text, "status": f.status,
                    "revision": f.revision, "updated_at": f.updated_at} for f in facts], sys.stdout)
        else:
            for f in facts:
                print(f"{f.fact_id}\t{f.scope}\t{f.status}\trev {f.revision}\t{f.text}")
    elif cmd == "edit":
        f = engine.memory.edit(args.id, args.text)
        print(t("{id} is now revision {rev}").format(id=f.fact_id, rev=f.revision))
    elif cmd in {"archive", "delete", "restore"}:
        status = {"archive": "archived", "delete": "deleted", "restore": "active"}[cmd]
        f = engine.memory.set_status(args.id, status)
        print(f"{f.fact_id} {f.status}")
    elif cmd == "recall":
        result = engine.memory.recall(args.question, args.scope, k=args.k, threshold=args.threshold)
        if args.json:
            _dump(result.to_dict(), sys.stdout)
        else:
            for step in result.trace:
                print(f"{step.box} {step.label}: {step.summary}")
            print(result.reference_block or t("(no fact recalled)"))
    return 0


def _jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-empty line of a JSONL file; clear errors otherwise."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise BinyError(t("Cannot read {path}: {reason}").format(path=path, reason=exc.strerror or exc)) from exc
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise BinyError(t("{path}:{n} is not JSON ({msg}).").format(path=path, n=n, msg=exc.msg)) from exc


def _ask_many(engine: Engine, args: argparse.Namespace) -> int:
    for n, item in _jsonl(args.questions):
        if isinstance(item, str):
            item = {"question": item}
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise BinyError(t("{questions}:{n}: expected {{\"question\": \"...\"}}.")
                             .format(questions=args.questions, n=n))
        history = [h if isinstance(h, str) else h.get("content", "") for h in item.get("history", [])]
        asker = engine.answer if args.answer else engine.ask
        result = asker(args.space, item["question"], k=item.get("k", args.k), max_distance=args.max_distance,
                       history=history)
        row = result.to_dict()
        if "id" in item:
            row["id"] = item["id"]
        _dump(row, sys.stdout)
    return 0


def _read_history(path: Path) -> list[str]:
    """Earlier user turns from a JSONL conversation file (assistant turns are skipped)."""
    out = []
    for _, item in _jsonl(path):
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict) and item.get("role", "user") == "user" and isinstance(item.get("content"), str):
            out.append(item["content"])
    return out


_COMMANDS = {"space": _space, "ingest": _ingest, "docs": _docs, "ask": _ask, "memory": _memory, "demo": _demo,
             "index": cli_index.run, "review": cli_review.run, "map": cli_analysis.run_map,
             "eval": cli_analysis.run_eval, "doctor": _doctor, "storage": _storage,
             "show": cli_passages.run_show, "passage": cli_passages.run_passage}
