"""A data folder whose spaces live on object storage (issue 21: team setup; store/remote.py explains the design).

The local data folder keeps what is per machine — config.toml, caches, logs, the local copy of the catalog —
and ``[storage] uri`` names the bucket holding the chunk tables and the published catalog. The machine that
gets the writer lease writes (and publishes after every write); any other opens the last published snapshot
read-only and moves to a newer one on ``refresh``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biny.core.config import StorageSettings
from biny.core.errors import ReadOnlyFolder
from biny.core.i18n import t
from biny.core.store.catalog import Catalog
from biny.core.store.lance import ChunkStore
from biny.core.store.remote import Bucket, Lease, LeaseInfo, Manifest, Snapshots
from biny.core.store.vectors import VectorCache
from biny.core.store.writer import StoreWriter

if TYPE_CHECKING:
    from biny.core.services.folder import DataFolder

_SNAPSHOT_NAMES = itertools.count(1)


def _fresh(path: Path) -> None:
    """Remove a local catalog file and its write-ahead log (a stale log would be replayed onto a new file)."""
    for p in (path, Path(f"{path}.wal")):
        p.unlink(missing_ok=True)


@dataclass(slots=True)
class _Attached:
    catalog: Catalog
    chunks: ChunkStore
    vectors: VectorCache


class TeamStorage:
    def __init__(self, bucket: Bucket, lease: Lease, snapshots: Snapshots, work: Path,
                 held_by: LeaseInfo | None, manifest: Manifest | None, catalog_path: Path) -> None:
        self.bucket = bucket
        self.lease = lease
        self.snapshots = snapshots
        self.work = work
        self.held_by = held_by  # who writes, when this machine only reads
        self.manifest = manifest
        self.catalog_path = catalog_path
        self._stores: _Attached | None = None
        self._writer: StoreWriter | None = None

    @property
    def writing(self) -> bool:
        return self.held_by is None

    @classmethod
    def connect(cls, home: Path, settings: StorageSettings) -> TeamStorage:
        """Reach the bucket, try for the writer lease, and bring the catalog it publishes to this machine."""
        bucket = Bucket.from_settings(settings)
        client = bucket.client()
        lease = Lease(bucket, client, settings.lease_s)
        snapshots = Snapshots(bucket, client)
        work = home / "team"
        work.mkdir(parents=True, exist_ok=True)
        held_by = lease.acquire()
        try:
            manifest = snapshots.manifest()
            path = work / ("catalog.duckdb" if held_by is None else f"snapshot-{next(_SNAPSHOT_NAMES)}.duckdb")
            _fresh(path)  # the bucket's catalog is the truth; a local copy may be behind another machine's writes
            if manifest is not None:
                snapshots.download(manifest, path)
        except BaseException:
            lease.release()
            raise
        return cls(bucket, lease, snapshots, work, held_by, manifest, path)

    def attach(self, catalog: Catalog, chunks: ChunkStore, vectors: VectorCache, writer: StoreWriter) -> None:
        self._stores = _Attached(catalog, chunks, vectors)
        self._writer = writer
        if self.writing:
            writer.before_write.append(self._confirm_lease)
            writer.after_write.append(self.publish)
            self.lease.start_heartbeat()
        else:
            chunks.pinned = dict(self.manifest.versions) if self.manifest else {}
            writer.read_only = self.read_only_message()

    def read_only_message(self) -> str:
        who = self.held_by.who if self.held_by else "another machine"
        until = self.held_by.until() if self.held_by else "?"
        return (t("The team space at {uri} is being written by {who} (lease renewed until {until}); this machine "
                  "reads its last published state. Refresh to see new documents; to write, close that biny first and "
                  "reopen.").format(uri=self.bucket.uri, who=who, until=until))

    def _confirm_lease(self) -> None:
        # One conditional PUT before each write: if another machine took the lease (ours expired while this
        # one slept), the write is refused instead of racing theirs.
        if not self.lease.renew():
            lost = self.lease.lost or t("This machine no longer holds the team space's writer lease.")
            if self._writer is not None:
                self._writer.read_only = lost  # from now on refused up front, before any parsing
            raise ReadOnlyFolder(lost)

    def publish(self) -> None:
        assert self._stores is not None
        self._stores.catalog.checkpoint()
        self.manifest = self.snapshots.publish(self.catalog_path, self._stores.chunks.versions(), self.lease.who)

    def refresh(self) -> bool:
        """A reader moves to the newest published state; True when there was one. A writer is always current."""
        if self.writing or self._stores is None:
            return False
        latest = self.snapshots.manifest()
        if latest is None or (self.manifest is not None and latest.etag == self.manifest.etag):
            return False
        path = self.work / f"snapshot-{next(_SNAPSHOT_NAMES)}.duckdb"
        _fresh(path)
        self.snapshots.download(latest, path)
        old = self.catalog_path
        stores = self._stores
        stores.catalog.reopen(path)
        stores.chunks.pinned = dict(latest.versions)
        stores.vectors.retire_all()
        self.manifest, self.catalog_path = latest, path
        _fresh(old)
        return True

    def status(self) -> dict[str, Any]:
        published = self.manifest.published if self.manifest else None
        return {
            "uri": self.bucket.uri,
            "mode": "writer" if self.writing else "read-only",
            "writer": self.lease.who if self.writing else (self.held_by.who if self.held_by else None),
            "lease_until": None if self.writing or self.held_by is None else self.held_by.until(),
            "snapshot_published": None if published is None else
            datetime.fromtimestamp(published, UTC).isoformat(timespec="seconds"),
            "snapshot_by": self.manifest.by if self.manifest else None,
            "tables": dict(self.manifest.versions) if self.manifest else {},
        }

    def close(self) -> None:
        self.lease.release()


class Team:
    """``engine.team``: the team side of the open data folder, for the console and the CLI."""

    def __init__(self, folder: DataFolder) -> None:
        self._folder = folder

    def status(self) -> dict[str, Any] | None:
        """Where the spaces live and who writes (None: this data folder holds them itself)."""
        team = self._folder.team
        return None if team is None else team.status()

    def refresh(self) -> bool:
        """Read-only consoles: move to the newest published state. True when there was a newer one."""
        team = self._folder.team
        return team is not None and team.refresh()
