"""A spawned child process for work on untrusted bytes (MuPDF parsing, rendering, OCR).

A crash or an endless loop in C code must fail one document, not the app (SPEC I1): the child
talks over a one-way pipe, and whatever happens the parent ends it — a grace of a few seconds,
then kill.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any


@contextmanager
def spawned(target: Callable[..., None], *args: Any) -> Iterator[tuple[BaseProcess, Connection]]:
    """Start ``target(*args, conn)`` in a fresh interpreter; yield (process, receiving end)."""
    ctx = mp.get_context("spawn")  # no fork: the parent holds DuckDB/Lance threads
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(*args, child), daemon=True)
    proc.start()
    child.close()
    try:
        yield proc, parent
    finally:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        parent.close()
