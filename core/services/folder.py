"""An opened data folder: its lock, its stores and the one writer over them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from biny.core.config import Settings
from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.services.team import TeamStorage
from biny.core.store.catalog import Catalog
from biny.core.store.lance import ChunkStore
from biny.core.store.lock import FolderLock
from biny.core.store.remote import is_remote
from biny.core.store.review import ReviewStore
from biny.core.store.staging import StagingArea
from biny.core.store.stamp import FolderStamp
from biny.core.store.structured import StructuredStore
from biny.core.store.vectors import AnnPolicy, VectorCache
from biny.core.store.writer import StoreWriter


@dataclass(slots=True)
class DataFolder:
    home: Path
    settings: Settings
    catalog: Catalog
    chunks: ChunkStore
    vectors: VectorCache
    writer: StoreWriter
    lock: FolderLock
    recovery_notes: list[str]
    # Spaces on object storage ([storage] uri; services/team.py), else None.
    team: TeamStorage | None = None

    @classmethod
    def open(cls, home: Path, settings: Settings) -> DataFolder:
        """Open the stores; migrate them and recover interrupted runs when no other process is writing (at open,
        never in a read). Opening takes no lock (issue 58): readers work while another process writes; each write
        takes the writer lock (store/lock.py)."""
        lock = FolderLock(home)
        # The folder's upkeep needs the writer lock; a writer at work did it when it opened, and its pending
        # documents are its own, not an interrupted run's.
        upkeep = lock.try_acquire(t("opening the folder"))
        team = None
        try:
            if is_remote(settings.storage):
                team = TeamStorage.connect(home, settings.storage)
                catalog = Catalog(team.catalog_path)
                chunks = ChunkStore(team.bucket.lance_uri, team.bucket.lance_options())
            else:
                catalog = Catalog(home / "catalog.duckdb", shared=True)
                chunks = ChunkStore(home / "lance")
            rs = settings.retrieval
            # A local folder is written by one process at a time and read by any number (issue 58): each write ends
            # by saying so on disk, and readers reload what it changed before their next answer (store/stamp.py).
            stamp = FolderStamp(home / "cache" / "written") if team is None else None
            vectors = VectorCache(chunks, AnnPolicy(rs.ann_min_rows, rs.ann_probe_share, home / "cache" / "ann"),
                                  stamp)
            writer = StoreWriter(catalog, chunks, vectors)
            if stamp is not None:
                writer.after_write.append(stamp.bump)
            writer.folder_lock = lock
            writer.staging = StagingArea(home / "staging")
            if team is not None:
                team.attach(catalog, chunks, vectors, writer)
            # A team space's reader changes nothing: migrations and recovery are the writer's.
            notes = [team.read_only_message()] if team is not None and not team.writing else []
            if not notes and upkeep:
                writer.upkeep.migrate()
                notes = writer.upkeep.recover()
                notes += writer.upkeep.unlisted_tables()
                writer.upkeep.bind_plain_spaces()
        except BaseException:
            if team is not None:
                team.close()
            raise
        finally:
            if upkeep:
                lock.release()
        return cls(home, settings, catalog, chunks, vectors, writer, lock, notes, team)

    @property
    def structured(self) -> StructuredStore:
        """The structured index's rows (reads; writes go through ``writer``)."""
        return self.writer.structured

    @property
    def review(self) -> ReviewStore:
        """The review queue (reads; writes go through ``writer``)."""
        return self.writer.review

    def log_exception(self, what: str, withheld: tuple[str, ...] = ()) -> Path:
        """Append the current exception's traceback to the folder's log; returns the log's path. Each of
        ``withheld`` (an encrypted space's file names) is replaced in the text written."""
        import traceback
        from datetime import UTC, datetime

        path = self.home / "logs" / "biny.log"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            text = traceback.format_exc()
            for value in sorted({w for w in withheld if len(w) >= 3}, key=len, reverse=True):
                text = text.replace(value, "<withheld>")
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"--- {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC: {what}\n{text}\n")
        except OSError:
            pass  # a full or read-only disk: the message on screen still names the failure
        return path

    def local_lance(self, what: str) -> Path:
        """The chunk tables' folder, for export and import (which copy files)."""
        if self.team is not None:
            raise BinyError(t("A space on object storage cannot be {action} as a file: copy the bucket's prefix "
                              "(with its versions) instead, or use a local data folder.")
                            .format(action=t("exported") if what == "export" else t("imported")))
        return self.home / "lance"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    def close(self) -> None:
        self.vectors.close()
        self.catalog.close()
        if self.team is not None:
            self.team.close()
        while self.lock.held:  # an ingest interrupted mid-run leaves nothing held
            self.lock.release()
