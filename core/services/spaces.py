"""Spaces: list, create (encrypted unless asked otherwise, I8), delete; export and import (backup)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

from biny.core.errors import BinyError
from biny.core.i18n import t
from biny.core.results import SpaceInfo
from biny.core.services.folder import DataFolder
from biny.core.services.keys import KeySession
from biny.core.services.models import Models
from biny.core.store import backup
from biny.core.store.catalog import SpaceRow, now


class Spaces:
    def __init__(self, folder: DataFolder, models: Models, keys: KeySession,
                 on_forget: Sequence[Callable[[str], None]] = ()) -> None:
        self.folder = folder
        self.models = models
        self.keys = keys
        self.on_forget = tuple(on_forget)  # caches to clear when a space goes

    def _info(self, s: SpaceRow) -> SpaceInfo:
        documents, chunks = self.folder.catalog.docs.totals(s.space_id)
        return SpaceInfo(s.name, s.space_id, s.created_at, s.embed_model, s.dim, s.encrypted, documents, chunks,
                         s.tenant, s.owner, not self.keys.is_unlocked(s),
                         self.folder.catalog.spaces.web_enabled(s.space_id))

    def all(self) -> list[SpaceInfo]:
        return [self._info(s) for s in self.folder.catalog.spaces.all()]

    def get(self, name: str) -> SpaceInfo:
        return self._info(self.folder.catalog.spaces.named(name))

    def create(self, name: str, *, encrypted: bool = True, passphrase: str | None = None,
               remember: bool = True) -> SpaceInfo:
        name = name.strip()
        if not name or len(name) > 100 or any(c in name for c in "/\\\x00"):
            raise BinyError(t("A space name must be 1–100 characters without slashes."))
        emb = self.models.embedder
        tenant, user = self.keys.owner
        row = SpaceRow(uuid.uuid4().hex[:12], name, now(), emb.model_id, emb.dim, encrypted, tenant, user)
        if encrypted:
            self.keys.new_space_keys(row, passphrase, remember)
        try:
            self.folder.writer.create_space(row)
        except BaseException:
            self.keys.forget(row.space_id)
            raise
        return self.get(name)

    def delete(self, name: str) -> None:
        row = self.folder.catalog.spaces.named(name)
        self.folder.writer.delete_space(row)
        self.folder.vectors.forget(row.space_id)
        self.keys.forget(row.space_id)
        for forget in self.on_forget:  # opened (plaintext) metadata goes with the space
            forget(row.space_id)


class Backup:
    """``engine.backup``: a space to a .tar file and back (issue 56 took these off the Engine)."""

    def __init__(self, folder: DataFolder, spaces: Spaces) -> None:
        self._folder = folder
        self._spaces = spaces

    def export_space(self, space: str, dest: Path | str) -> Path:
        """Write a space (catalog rows incl. its wrapped key, and its Lance table) to a .tar file. Encrypted spaces
        stay encrypted in the backup (ciphertext and the wrapped key; the passphrase reads it after import)."""
        catalog = self._folder.catalog
        return backup.export_space(catalog, self._folder.local_lance("export"), catalog.spaces.named(space),
                                   Path(dest))

    def import_space(self, archive: Path | str, *, name: str | None = None) -> SpaceInfo:
        """Restore a space exported by ``export_space`` (optionally under another name)."""
        _, space_name = self._folder.writer.import_space(self._folder.local_lance("import"), Path(archive), name)
        return self._spaces.get(space_name)
