"""An opened data folder: its lock, its stores and the one writer over them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from biny.core.config import Settings
from biny.core.store.catalog import Catalog
from biny.core.store.lance import ChunkStore
from biny.core.store.lock import FolderLock
from biny.core.store.review import ReviewStore
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

    @classmethod
    def open(cls, home: Path, settings: Settings) -> DataFolder:
        """Lock the folder, open the stores, migrate them and recover interrupted runs (at open, never in a read)."""
        lock = FolderLock(home)
        lock.acquire()
        try:
            catalog = Catalog(home / "catalog.duckdb")
            chunks = ChunkStore(home / "lance")
            rs = settings.retrieval
            vectors = VectorCache(chunks, AnnPolicy(rs.ann_min_rows, rs.ann_probe_share, home / "cache" / "ann"))
            writer = StoreWriter(catalog, chunks, vectors)
            writer.migrate()
            notes = writer.recover()
        except BaseException:
            lock.release()
            raise
        return cls(home, settings, catalog, chunks, vectors, writer, lock, notes)

    @property
    def structured(self) -> StructuredStore:
        """The structured index's rows (reads; writes go through ``writer``)."""
        return self.writer.structured

    @property
    def review(self) -> ReviewStore:
        """The review queue (reads; writes go through ``writer``)."""
        return self.writer.review

    def log_exception(self, what: str) -> Path:
        """Append the current exception's traceback to the folder's log; returns the log's path."""
        import traceback
        from datetime import UTC, datetime

        path = self.home / "logs" / "biny.log"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(f"--- {datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC: {what}\n{traceback.format_exc()}\n")
        except OSError:
            pass  # a full or read-only disk: the message on screen still names the failure
        return path

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    def close(self) -> None:
        self.vectors.close()
        self.catalog.close()
        self.lock.release()
