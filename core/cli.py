"""The ``biny`` command line: the same Engine the console uses, for scripts.

Exit codes: 0 success; 1 some files failed to ingest (the rest are stored);
2 nothing could run — a usage or environment error (message on stderr); 3 a bug (a short
message on stderr, the traceback in <data folder>/logs/biny.log); 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from biny.core import cli_analysis, cli_index, cli_review
from biny.core.answer.compose import EXTRACTED_NOTE
from biny.core.errors import BinyError, PassphraseRequired
from biny.core.i18n import N_, t
from biny.core.progress import Progress
from biny.core.store.failures import storage_problem


def _json_default(obj: object) -> Any:
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    raise TypeError(type(obj).__name__)


def _dump(data: object, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False, default=_json_default) + "\n")


def _space_parser(sub: Any) -> None:
    sp = sub.add_parser("space", help=t("create, list, delete or re-embed spaces"))
    ssub = sp.add_subparsers(dest="space_cmd", required=True)
    c = ssub.add_parser("create", help=t("create a space (encrypted unless --unencrypted)"))
    c.add_argument("name")
    c.add_argument("--unencrypted", action="store_true",
                   help=t("store chunk text in plaintext (only for content that is not confidential)"))
    u = ssub.add_parser("unlock", help=t("check a space's passphrase (and optionally remember it)"))
    u.add_argument("name")
    u.add_argument("--remember", action="store_true", help=t("store it in the OS keyring (or opted-in file)"))
    pw = ssub.add_parser("passphrase", help=t("change the passphrase of a space's owner (re-wraps keys only)"))
    pw.add_argument("name")
    pw.add_argument("--old-from-env", metavar="VAR", help=t("read the current passphrase from this variable"))
    pw.add_argument("--new-from-env", metavar="VAR", help=t("read the new passphrase from this variable"))
    ex = ssub.add_parser("export", help=t("back up a space (wrapped key included) to a .tar file"))
    ex.add_argument("name")
    ex.add_argument("dest", type=Path)
    im = ssub.add_parser("import", help=t("restore a space from a backup"))
    im.add_argument("archive", type=Path)
    im.add_argument("--name", default=None, help=t("import under another name"))
    ssub.add_parser("list", help=t("list spaces")).add_argument("--json", action="store_true")
    d = ssub.add_parser("delete", help=t("delete a space and everything in it"))
    d.add_argument("name")
    d.add_argument("--yes", action="store_true", help=t("do not ask for confirmation"))
    r = ssub.add_parser("reembed", help=t("re-embed a space with the configured model (nothing to do if it already "
                                          "is)"))
    r.add_argument("name")
    r.add_argument("--force", action="store_true", help=t("re-embed even when the space already uses that model"))
    w = ssub.add_parser("web", help=t("switch the public-web fallback on or off for a space (off by default)"))
    w.add_argument("name")
    w.add_argument("state", choices=["on", "off"])


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="biny", description=t("Grounded answers from your own documents."))
    p.add_argument("--home", type=Path, default=None,
                   help=t("data folder (default: $BINY_HOME or the user data dir)"))
    sub = p.add_subparsers(dest="command", required=True)

    _space_parser(sub)

    ing = sub.add_parser("ingest", help=t("add files or folders to a space"))
    ing.add_argument("paths", nargs="+", type=Path)
    ing.add_argument("--space", required=True)
    ing.add_argument("--json", action="store_true", help=t("print the report as JSON"))

    docs = sub.add_parser("docs", help=t("list a space's documents"))
    docs.add_argument("--space", required=True)
    docs.add_argument("--json", action="store_true")

    ask = sub.add_parser("ask", help=t("retrieve the passages that answer a question"))
    ask.add_argument("question", nargs="?")
    ask.add_argument("--space", required=True)
    ask.add_argument("--k", type=int, default=None)
    ask.add_argument("--max-distance", type=float, default=None,
                     help=t("override the measured distance cut (for experiments)"))
    ask.add_argument("--questions", type=Path,
                     help=t("JSONL file: one question per line ({\"question\": ..., \"history\": [...]})"))
    ask.add_argument("--history", type=Path,
                     help=t("JSONL file of the conversation's earlier turns ({\"role\": \"user\", \"content\": ...})"))
    ask.add_argument("--answer", action="store_true",
                     help=t("also compose a grounded answer from the passages (a model if configured, else extracted)"))
    ask.add_argument("--json", action="store_true")

    mem = sub.add_parser("memory", help=t("facts per scope and their recall"))
    msub = mem.add_subparsers(dest="memory_cmd", required=True)
    ma = msub.add_parser("add", help=t("remember a fact"))
    ma.add_argument("text")
    ma.add_argument("--scope", required=True, help=t("e.g. user:ana or tenant:acme/user:ana"))
    ml = msub.add_parser("list", help=t("list facts"))
    ml.add_argument("--scope", default=None)
    ml.add_argument("--all", action="store_true", help=t("include deleted facts"))
    ml.add_argument("--json", action="store_true")
    me = msub.add_parser("edit", help=t("new revision of a fact"))
    me.add_argument("id")
    me.add_argument("text")
    for verb, verb_help in (("archive", N_("archive a fact")), ("delete", N_("delete a fact")),
                            ("restore", N_("restore a fact"))):
        msub.add_parser(verb, help=t(verb_help)).add_argument("id")
    mr = msub.add_parser("recall", help=t("run the recall chain for a question"))
    mr.add_argument("question")
    mr.add_argument("--scope", required=True)
    mr.add_argument("--k", type=int, default=5)
    mr.add_argument("--threshold", type=float, default=0.1)
    mr.add_argument("--json", action="store_true")

    cli_index.add_parser(sub)
    cli_review.add_parser(sub)
    cli_analysis.add_parsers(sub)

    demo = sub.add_parser("demo", help=t("create the demo space from the bundled corpus"))
    demo.add_argument("--space", default="demo")
    doc = sub.add_parser("doctor", help=t("check that catalog and vector store agree; --repair rebuilds from sources"))
    doc.add_argument("--space", help=t("one space (default: all)"))
    doc.add_argument("--repair", action="store_true", help=t("remove orphan passages, re-ingest damaged documents"))
    doc.add_argument("--json", action="store_true")
    team = sub.add_parser("storage", help=t("where the spaces live: this folder, or a team space on S3 and who "
                                            "writes it"))
    team.add_argument("--json", action="store_true")
    return p


class _Bar:
    """A terminal progress bar over files (tqdm on stderr)."""

    def __init__(self) -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=0, unit="file", file=sys.stderr, dynamic_ncols=True, leave=False,
                         disable=not sys.stderr.isatty())

    def __call__(self, p: Progress) -> None:
        # An ingest counts files (file_index of file_count) and names the step within the file;
        # other jobs (re-embed) count their own units.
        total, done = (p.file_count, p.file_index + (p.stage == "file_done")) if p.file_count else (p.total, p.done)
        if p.stage == "done":
            done = total
        if total and self._bar.total != total:
            self._bar.total = total
        self._bar.n = done
        step = f" {p.done}/{p.total}" if p.file_count and p.stage in ("embed", "read") else ""
        self._bar.set_description_str(f"{p.stage}{step} {p.file or p.detail}"[:60])
        self._bar.refresh()

    def close(self) -> None:
        self._bar.close()


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


def _global_options_everywhere(parser: argparse.ArgumentParser) -> None:
    """Accept the global options after a subcommand too (``biny ask … --home data``).

    Each subcommand gets its own copy with a suppressed default, so a value given before the
    subcommand is kept unless the same option is given again after it.
    """
    for action in parser._actions:  # argparse keeps subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                if not any("--home" in a.option_strings for a in sub._actions):
                    sub.add_argument("--home", type=Path, default=argparse.SUPPRESS,
                                     help=t("data folder (also accepted before the subcommand)"))
                _global_options_everywhere(sub)


# argparse's own words (usage, section titles, its errors), looked up through ``argparse._`` while the parser is
# built and used; marked here so the catalogue test holds them to a translation (issue 21).
_ARGPARSE_TEXTS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("argument %(argument_name)s: %(message)s"), N_("expected one argument"),
    N_("invalid %(type)s value: %(value)r"), N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("one of the arguments %s is required"), N_("not allowed with argument %s"),
)


@contextlib.contextmanager
def _argparse_in_language() -> Iterator[None]:
    """argparse translates through its module-level ``_`` (gettext); point it at the catalogue meanwhile."""
    original = argparse._  # type: ignore[attr-defined]
    argparse._ = t  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._ = original  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    with _argparse_in_language():
        parser = build_parser()
        _global_options_everywhere(parser)
        args = parser.parse_args(argv)
    from biny.core.engine import Engine

    try:
        with Engine.open(args.home) as engine:
            for note in engine.recovery_notes:
                print(t("recovered: {note}").format(note=note), file=sys.stderr)
            try:
                code = _run(engine, args)
            except PassphraseRequired:
                space = getattr(args, "space", None) or getattr(args, "name", None)
                if not space or not sys.stdin.isatty():
                    raise
                engine.unlock(space, _prompt(t("Passphrase for {space}: ").format(space=space)))
                code = _run(engine, args)
            for notice in engine.notices:
                print(notice, file=sys.stderr)
            return code
    except KeyboardInterrupt:
        print(t("Interrupted. Nothing half-ingested was kept."), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`biny … | head`): stop quietly, and keep the interpreter from
        # failing again when it flushes stdout at exit.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except BinyError as exc:
        print(t("error: {message}").format(message=exc), file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 — a bug: a short message and a log, never a bare traceback
        problem = storage_problem(exc)
        if problem is not None:  # disk full, read-only folder, damaged store: named, with what to do
            print(t("error: {message}").format(message=problem), file=sys.stderr)
            return 2
        log = _log_bug(args)
        print(t("internal error ({error}). This is a bug in biny; the details are in {log}.").format(
            error=f"{type(exc).__name__}: {exc}", log=log), file=sys.stderr)
        return 3


def _log_bug(args: argparse.Namespace) -> Path:
    """Write the current traceback to the data folder's log (or the temp folder's); returns where."""
    import tempfile
    import traceback
    from datetime import UTC, datetime

    from biny.core.engine import default_home

    for folder in (Path(args.home or default_home()) / "logs", Path(tempfile.gettempdir())):
        path = folder / "biny.log"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"--- {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC: biny {args.command}\n"
                         f"{traceback.format_exc()}\n")
            return path
        except OSError:
            continue
    return Path(t("(no writable log folder)"))


def _run(engine: Any, args: argparse.Namespace) -> int:
    handler = _COMMANDS.get(args.command)
    return handler(engine, args) if handler is not None else 2


def _space(engine: Any, args: argparse.Namespace) -> int:
    out = sys.stdout
    if args.space_cmd == "create":
        passphrase = None
        if not args.unencrypted and not engine.passphrase_available():
            passphrase = _prompt(t("Passphrase for the new space: "), confirm=True)
        s = engine.create_space(args.name, encrypted=not args.unencrypted, passphrase=passphrase)
        state = t("encrypted") if s.encrypted else t("NOT encrypted")
        print(t("created space {name} ({model}, {state})").format(name=repr(s.name), model=s.embed_model, state=state))
    elif args.space_cmd == "unlock":
        engine.unlock(args.name, _prompt(t("Passphrase for {name}: ").format(name=args.name)), remember=args.remember)
        print(t("passphrase accepted for {name}").format(name=repr(args.name)))
    elif args.space_cmd == "passphrase":
        old, new = _old_and_new(args)
        changed = engine.change_passphrase(args.name, old, new)
        print(t("re-wrapped the keys of {n} space(s): {names}").format(n=len(changed), names=", ".join(changed)))
    elif args.space_cmd == "export":
        print(t("wrote {path}").format(path=engine.export_space(args.name, args.dest)))
    elif args.space_cmd == "import":
        s = engine.import_space(args.archive, name=args.name)
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
        bar = _Bar()
        try:
            n = engine.reembed(args.name, progress=bar, force=args.force)
        finally:
            bar.close()
        if n:
            print(t("re-embedded {n} chunks with {model}").format(n=n, model=engine.embedder.model_id))
        else:
            print(t("{name} is already embedded with {model}: nothing to do (--force re-embeds anyway)")
                  .format(name=repr(args.name), model=engine.embedder.model_id))
    return 0


def _shown(path: str) -> str:
    """A file name for a terminal line: control characters (a newline in a name) written as escapes."""
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode() for c in path)


def _ingest(engine: Any, args: argparse.Namespace) -> int:
    out = sys.stdout
    if not engine.expand_paths(args.paths):
        raise BinyError(t("Nothing to ingest: no supported file (PDF, DOCX, HTML, Markdown, text, "
                          "CSV/TSV/JSONL/XLSX) in {value}.").format(value=', '.join(map(str, args.paths))))
    bar = _Bar()
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


def _docs(engine: Any, args: argparse.Namespace) -> int:
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
            print(f"{d.title}\t{d.kind}\trev {d.revision}\t{d.status}\t{d.chunks} chunks\t"
                  f"{d.chars_per_token:.2f} chars/token\t{d.path}" + (f"\t{drawn}" if drawn else ""))
    return 0


def _ask(engine: Any, args: argparse.Namespace) -> int:
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


def _doctor(engine: Any, args: argparse.Namespace) -> int:
    """Exit 0 when everything agrees (or was repaired), 1 when findings remain."""
    report = engine.doctor.check(args.space, repair=args.repair)
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


def _storage(engine: Any, args: argparse.Namespace) -> int:
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


def _demo(engine: Any, args: argparse.Namespace) -> int:
    from biny.core.demo import build_demo

    report = build_demo(engine, args.space, progress=_Bar())
    print(t("demo space {name}: {ingested} ingested, {unchanged} unchanged, {failed} failed").format(
        name=repr(args.space), ingested=len(report.by("ingested")), unchanged=len(report.by("unchanged")),
        failed=len(report.by("failed"))))
    return 0 if report.ok else 1


def _memory(engine: Any, args: argparse.Namespace) -> int:
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


def _ask_many(engine: Any, args: argparse.Namespace) -> int:
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


def _print_answer(answer: Any) -> None:
    label = {"extractive": t("Answer (extracted from your material, no model):"),
             "web": t("Answer from PUBLIC web pages — not your material:")}.get(answer.mode, t("Answer:"))
    print(f"{label}\n  " + answer.text.replace("\n", "\n  "))
    if answer.untraced_numbers:
        print("  ! " + t("numbers not found in the cited sources: {numbers}").format(
            numbers=", ".join(answer.untraced_numbers)))
    if answer.removed_citations or answer.removed_placeholders:
        print("  ! " + t("removed: {items}").format(
            items=", ".join(answer.removed_citations + answer.removed_placeholders)))
    # The label already says an extracted answer is extracted; a note says more only when something went wrong.
    if answer.mode not in ("none", "model") and answer.note and answer.note != t(EXTRACTED_NOTE):
        print("  " + t("note: {message}").format(message=answer.note))
    for s in answer.sources:  # W4: read pages and results only found, both listed
        print(f"  {'[read] ' if s['read'] else '[found]'} {s['url']}" + (f" — {s['error']}" if s["error"] else ""))
    if answer.review_id:
        print(f"  queued for review: biny review show {answer.review_id}")
    print()


def _print_result(result: Any) -> None:
    if result.structured is not None:
        if result.answer is not None:
            print(t("Answer:") + f"\n  {result.answer.text}\n")
        cli_index.print_structured(result)
        return
    if result.answer is not None:
        _print_answer(result.answer)
        if result.answer.mode == "none":
            return
        print(t("Sources:"))
    if not result.chunks:
        print(t("No passage is close enough to answer this: it is probably not in this space."))
    for n, h in enumerate(result.chunks, 1):
        pin = " [" + t("pinned") + "]" if h.pinned else ""
        cal = ", " + t("{s} vs baseline").format(s=f"{h.calibrated:+.2f}") if h.calibrated is not None else ""
        page = " " + t("p.{n}").format(n=h.page) if h.page else ""
        print(f"[{n}] {h.document}{page} — " + t("distance {d}").format(d=f"{h.distance:.3f}") + f"{cal}{pin}")
        print("    " + h.text.replace("\n", "\n    ")[:800])
    cut = f"{result.max_distance:.3f}" if result.max_distance is not None else t("none")
    print(t("(cut {cut} from {reference} reference)").format(cut=cut, reference=result.reference))


def _asdict(obj: Any) -> dict[str, Any]:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    return dict(obj)


_COMMANDS = {"space": _space, "ingest": _ingest, "docs": _docs, "ask": _ask, "memory": _memory, "demo": _demo,
             "index": cli_index.run, "review": cli_review.run, "map": cli_analysis.run_map,
             "eval": cli_analysis.run_eval, "doctor": _doctor, "storage": _storage}

if __name__ == "__main__":
    sys.exit(main())

