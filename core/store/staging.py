"""Vectors embedded for a document that is not committed yet, kept so a killed ingest never embeds them again
(issue 58: "no chunk is embedded twice").

An ingest embeds a document's passages (and their sentences) batch by batch and writes them only when the whole
document commits (store/writer.py). A kill before that commit used to lose every vector computed for the document.
Now each batch, once computed, is written here at once as one file — ``<root>/<space id>/<group>/<n>.vec``, the
group naming the document (or the table) being ingested, the file's bytes given by the ingest (sealed in an
encrypted space, ingest/staged.py) — and the next run reads the group's files before it embeds anything.

Nothing here is a passage: readers never look in this folder, so nothing of a half-ingested document becomes
visible. A file is written under a temporary name, flushed to disk, then renamed, so a kill or a power loss leaves
either the whole file or none (a temporary a kill left is never read, and goes with its group). A group goes when its
document commits; at open, the folders of deleted spaces and groups untouched for 30 days (a document killed mid-way
and never ingested again) go too.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from pathlib import Path

from biny.core.store.guard import mutation

SUFFIX = ".vec"
# A group no run has added to for this long is of a document nobody resumed: forgotten at open.
MAX_AGE_S = 30 * 24 * 3600.0


class StagingArea:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _group(self, space_id: str, group: str) -> Path:
        return self.root / space_id / group

    def read(self, space_id: str, group: str) -> list[bytes]:
        """The group's files, oldest first (a read: no lock, nothing changed)."""
        folder = self._group(space_id, group)
        try:
            names = sorted(p for p in folder.iterdir() if p.suffix == SUFFIX)
        except OSError:
            return []
        out = []
        for path in names:
            try:
                out.append(path.read_bytes())
            except OSError:
                continue  # removed meanwhile, or unreadable: embedded again, never trusted
        return out

    @mutation
    def put(self, space_id: str, group: str, blob: bytes) -> None:
        folder = self._group(space_id, group)
        folder.mkdir(parents=True, exist_ok=True)
        n = sum(1 for p in folder.iterdir() if p.suffix == SUFFIX)
        tmp = folder / f".{uuid.uuid4().hex}.tmp"
        with tmp.open("wb") as fh:
            fh.write(blob)
            fh.flush()
            os.fsync(fh.fileno())  # power loss: the rename below never names a file whose bytes are not on disk
        os.replace(tmp, folder / f"{n:06d}-{uuid.uuid4().hex[:8]}{SUFFIX}")

    @mutation
    def drop(self, space_id: str, group: str | None = None) -> None:
        """Forget a group's files (its document committed), or a space's whole folder (``group`` None)."""
        shutil.rmtree(self.root / space_id if group is None else self._group(space_id, group), ignore_errors=True)

    @mutation
    def prune(self, space_ids: set[str], max_age_s: float = MAX_AGE_S) -> None:
        """At open: forget the folders of spaces the catalog no longer lists, and groups no run has added to for
        ``max_age_s`` (a document killed mid-way and never ingested again)."""
        try:
            spaces = [p for p in self.root.iterdir() if p.is_dir()]
        except OSError:
            return
        cutoff = time.time() - max_age_s
        for space in spaces:
            if space.name not in space_ids:
                shutil.rmtree(space, ignore_errors=True)
                continue
            for group in (p for p in space.iterdir() if p.is_dir()):
                try:
                    newest = max((f.stat().st_mtime for f in group.iterdir()), default=0.0)
                except OSError:
                    continue
                if newest < cutoff:
                    shutil.rmtree(group, ignore_errors=True)
