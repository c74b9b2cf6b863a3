"""One process writes a data folder at a time (DuckDB allows one writing process)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from biny.core.errors import DataFolderInUse
from biny.core.i18n import t


class FolderLock:
    """An exclusive ``flock`` on ``<home>/biny.lock`` holding the owner's PID.

    The OS drops the lock when the process dies, so a crash never leaves the folder
    locked; the PID in the file only serves the error message.
    """

    def __init__(self, home: Path) -> None:
        self.path = home / "biny.lock"
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        fh = self.path.open("a+", encoding="utf-8")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            pid = fh.read().strip() or "unknown"
            fh.close()
            raise DataFolderInUse(
                t("The data folder {folder} is in use by PID {pid}. Close that biny (console or CLI) first, or use "
                  "another --home.").format(folder=self.path.parent, pid=pid)
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None
