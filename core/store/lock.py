"""One process writes a data folder at a time; any number read it meanwhile (issue 58).

The lock is a writer's lock: taken for each write (and held by an ingest for its whole run), never by opening the
folder to read. The catalog's file is shared the same way (store/catalog/table.py), and LanceDB versions its
tables, so a reader answers from what was last committed while a writer works.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from biny.core.errors import DataFolderInUse
from biny.core.i18n import t


class FolderLock:
    """An exclusive ``flock`` on ``<home>/biny.lock`` holding the writer's PID and what it is doing.

    The OS drops the lock when the process dies, so a crash never leaves the folder locked; the file's text only
    serves the error message. Re-entrant within the process: the outermost holder releases it.
    """

    def __init__(self, home: Path) -> None:
        self.path = home / "biny.lock"
        self._fh: IO[str] | None = None
        self._count = 0
        self._mutex = threading.RLock()

    @property
    def held(self) -> bool:
        return self._fh is not None

    def try_acquire(self, purpose: str = "") -> bool:
        """Take the lock if no other process holds it; True when taken (or already held here)."""
        with self._mutex:
            if self._fh is not None:
                self._count += 1
                return True
            fh = self.path.open("a+", encoding="utf-8")
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.close()
                return False
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()} {purpose}".rstrip())
            fh.flush()
            self._fh, self._count = fh, 1
            return True

    def acquire(self, purpose: str = "", wait_s: float = 0.0) -> None:
        """Take the lock, waiting up to ``wait_s`` for another process's short write; else DataFolderInUse
        naming the process and what it is doing."""
        deadline = time.monotonic() + wait_s
        while not self.try_acquire(purpose):
            if time.monotonic() >= deadline:
                raise DataFolderInUse(self._refusal()) from None
            time.sleep(0.05)

    def _refusal(self) -> str:
        try:
            pid, _, doing = self.path.read_text(encoding="utf-8").strip().partition(" ")
        except OSError:
            pid, doing = "", ""
        return t("Another biny (PID {pid}) is writing to the data folder {folder}{doing}; wait until it has "
                 "finished (asking, listing and exporting work meanwhile), or use another --home.").format(
            pid=pid or "unknown", folder=self.path.parent, doing=f" ({doing})" if doing else "")

    def release(self) -> None:
        with self._mutex:
            if self._fh is None:
                return
            self._count -= 1
            if self._count > 0:
                return
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None

    @contextmanager
    def holding(self, purpose: str = "", wait_s: float = 0.0) -> Iterator[None]:
        self.acquire(purpose, wait_s)
        try:
            yield
        finally:
            self.release()
