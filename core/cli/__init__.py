"""The ``biny`` command line: the same Engine the console uses, for scripts.

Exit codes: 0 success; 1 some files failed to ingest (the rest are stored);
2 nothing could run — a usage or environment error (message on stderr); 3 a bug (a short
message on stderr, the traceback in <data folder>/logs/biny.log); 130 interrupted.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from biny.core.cli.handlers import _COMMANDS, _prompt
from biny.core.cli.output import SafeStream
from biny.core.cli.parser import _argparse_in_language, _global_options_everywhere, build_parser
from biny.core.errors import BinyError, PassphraseRequired
from biny.core.i18n import t
from biny.core.store.failures import storage_problem

if TYPE_CHECKING:  # the engine is imported when a command runs (a quick --help)
    from biny.core.engine import Engine


def run() -> NoReturn:
    """The `biny` command and `python -m biny.core.cli`: :func:`main`, then leave without tearing the native
    libraries down. Python's own exit handlers still run (logs flushed, worker pools joined); the C++ static
    destructors and thread teardown of the loaded native libraries do not: about one run in ten aborted there with
    "FATAL: exception not rethrown" (exit 134) after the command had done its work and closed the data folder."""
    code = main()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    # Everything printed passes through a filter that shows terminal controls as escapes (issue 59): document
    # text, titles and file names reach stdout and stderr from many places, and none of them may drive the terminal.
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(out), SafeStream(err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    with _argparse_in_language():
        parser = build_parser()
        _global_options_everywhere(parser)
        args = parser.parse_args(argv)
    from biny.core.engine import Engine

    try:
        with Engine.open(args.home) as engine:
            for note in engine.folder.recovery_notes:
                # A warning (issue 59: chunk tables the catalog does not list) says itself what it is.
                warning = note.startswith(t("warning: {note}").format(note=""))
                print(note if warning else t("recovered: {note}").format(note=note), file=sys.stderr)
            try:
                code = _run(engine, args)
            except PassphraseRequired:
                space = getattr(args, "space", None) or getattr(args, "name", None)
                if not space or not sys.stdin.isatty():
                    raise
                engine.keys.unlock(space, _prompt(t("Passphrase for {space}: ").format(space=space)))
                code = _run(engine, args)
            for notice in engine.keys.take_notices():
                print(notice, file=sys.stderr)
            return code
    except KeyboardInterrupt:
        print(t("Interrupted. Nothing half-ingested was kept."), file=sys.stderr)
        if args.command in ("ingest", "demo"):
            # Issue 58: what was committed stays; the same command goes on from there (stored files and table
            # rows are found by their content and skipped, not embedded again).
            print(t("To resume, run the same command again: {command}").format(command=_resume_command(args)),
                  file=sys.stderr)
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


def _resume_command(args: argparse.Namespace) -> str:
    """The command that goes on with an interrupted ingest: the same files into the same space."""
    import shlex

    home = ["--home", str(args.home)] if args.home else []
    if args.command == "demo":
        return shlex.join(["biny", *home, "demo", "--space", args.space])
    return shlex.join(["biny", *home, "ingest", *map(str, args.paths), "--space", args.space])


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
            text = traceback.format_exc()
            # The files and the question named on the command line stay out of the log: a space may be encrypted,
            # and its file names and questions are as private as its text (issue 59).
            named = [str(p) for p in getattr(args, "paths", None) or []] + [getattr(args, "question", None) or ""]
            for value in sorted({v for v in named if len(v) >= 3}, key=len, reverse=True):
                text = text.replace(value, "<withheld>")
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"--- {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC: biny {args.command}\n{text}\n")
            return path
        except OSError:
            continue
    return Path(t("(no writable log folder)"))


def _run(engine: Engine, args: argparse.Namespace) -> int:
    handler = _COMMANDS.get(args.command)
    return handler(engine, args) if handler is not None else 2


__all__ = ["build_parser", "main"]
