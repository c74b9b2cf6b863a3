"""What another process committed to a local data folder, seen by a reader before its next read (issue 58).

Read caches — a space's matrix (store/vectors.py), the chunk tables' read handles and context views
(store/lance.py) — are retired by this process's own writes (store/guard.py ``write_stamp``). A reader beside
another process's ingest (the console open while the command line ingests) never saw those writes: its answers came
from the matrix it loaded first, while its document list, read from the shared catalog, grew.

So every write that others can see ends by replacing a small file in the data folder (``bump``, one of the writer's
after-write hooks), and each matrix lookup first compares that file's identity with the one last seen (``moved``:
one ``stat``). Replacing, not rewriting, gives the file a new inode each time, so two writes within the file
system's timestamp granularity still differ. A team space has its own published snapshots (services/team.py).
"""

from __future__ import annotations

import contextlib
import os
import threading
import uuid
from pathlib import Path


class FolderStamp:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._seen = self._read()

    def _read(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None  # never written (a new folder), or the cache folder was emptied: a later bump is seen
        return st.st_ino, st.st_mtime_ns

    def bump(self) -> None:
        """After this process's write: readers elsewhere reload before their next read. This process retires its
        own caches as it writes, so it takes the new stamp as seen."""
        part = self.path.with_name(f"{self.path.name}.{uuid.uuid4().hex[:8]}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part.write_text(uuid.uuid4().hex, encoding="utf-8")
            os.replace(part, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                part.unlink(missing_ok=True)
            # The write itself is committed; failing to say so (a full disk) must not report it as failed. Readers
            # elsewhere then see it at the next write that can say so, or when they open the folder again.
            return
        with self._lock:
            self._seen = self._read()

    def moved(self) -> bool:
        """Has another process written since this one last looked? Takes the new stamp as seen."""
        now = self._read()
        with self._lock:
            if now == self._seen:
                return False
            self._seen = now
            return True
