"""Parse the next file while the current one embeds (issue 23: hide parsing behind embedding).

One file ahead, on one worker thread: PDF parsing and OCR run in child processes and the
embedder releases the GIL, so the two overlap on a 2-core machine; a bounded lookahead keeps
one parsed document in memory at most. Progress stays per file: the parse ahead reports only
once the ingest loop is waiting for it (its latest step is replayed then), so a screen never
shows two files' steps at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Generic, TypeVar

from biny.core.progress import Progress

T = TypeVar("T")


class Ahead(Generic[T]):
    """One parse started early; ``result`` waits for it and lets its progress through from then on."""

    def __init__(self, pool: ThreadPoolExecutor, path: Path,
                 work: Callable[[Path, Callable[[Progress], None]], T], emit: Callable[[Progress], None]) -> None:
        self.path = path
        self._emit = emit
        self._lock = threading.Lock()
        self._live = False
        self._latest: Progress | None = None
        self._future: Future[T] = pool.submit(work, path, self._progress)

    def _progress(self, p: Progress) -> None:
        with self._lock:
            self._latest = p
            live = self._live
        if live:
            self._emit(p)

    def result(self) -> T:
        with self._lock:
            self._live = True
            latest = self._latest
        if latest is not None:
            self._emit(latest)
        return self._future.result()


class Lookahead(Generic[T]):
    """``start(path)`` begins work on a file; ``take(path)`` returns a started one, or None."""

    def __init__(self, work: Callable[[Path, Callable[[Progress], None]], T]) -> None:
        self._work = work
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="biny-parse-ahead")
        self._ahead: Ahead[T] | None = None

    def start(self, path: Path, emit: Callable[[Progress], None]) -> None:
        self._ahead = Ahead(self._pool, path, self._work, emit)

    def take(self, path: Path) -> Ahead[T] | None:
        ahead, self._ahead = self._ahead, None
        return ahead if ahead is not None and ahead.path == path else None

    def close(self) -> None:
        """Stop taking work; a parse under way finishes in the background and is dropped."""
        self._ahead = None
        self._pool.shutdown(wait=False, cancel_futures=True)
