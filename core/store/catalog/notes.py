"""The ``situating_notes`` table: the I7 cache of a passage's situating note, keyed by model, title and text."""

from __future__ import annotations

from biny.core.store.catalog.table import Table
from biny.core.store.guard import mutation


class NoteTable(Table):
    def get(self, key: str) -> str | None:
        row = self._row("SELECT note FROM situating_notes WHERE note_key = ?", [key])
        return str(row[0]) if row else None

    @mutation
    def put(self, key: str, note: str) -> None:
        self._run("INSERT OR REPLACE INTO situating_notes VALUES (?, ?)", [key, note])
