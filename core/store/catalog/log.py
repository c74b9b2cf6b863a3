"""The ``ingest_log`` table: what happened to each file an ingest was given (ingested, unchanged, failed…)."""

from __future__ import annotations

from typing import Any

from biny.core.store.catalog.schema import now
from biny.core.store.catalog.table import Table
from biny.core.store.guard import mutation

_COLS = ("path", "logged_at", "outcome", "doc_id", "message")


class IngestLog(Table):
    @mutation
    def add(self, space_id: str, path: str, outcome: str, message: str = "", doc_id: str | None = None) -> None:
        self._run("INSERT INTO ingest_log (space_id, path, logged_at, outcome, doc_id, message) "
                  "VALUES (?, ?, ?, ?, ?, ?)", [space_id, path, now(), outcome, doc_id, message])

    def recent(self, space_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """The newest entries first."""
        rows = self._rows(f"SELECT {', '.join(_COLS)} FROM ingest_log WHERE space_id = ? ORDER BY id DESC LIMIT ?",
                          [space_id, limit])
        return [dict(zip(_COLS, r, strict=True)) for r in rows]
