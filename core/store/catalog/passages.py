"""The ``passage_log`` table: a curator's corrections of single passages (issue 61).

Each entry is one action on one passage — ``disable``, ``enable``, ``edit`` or ``note`` (a passage added to a
document) — with its author and time. An edit keeps the row as it was stored before (``before``: the Lance row as
Arrow IPC bytes, so in an encrypted space its text stays sealed and its keys blinded), which is what undo writes
back. ``state`` is ``pending`` while the matching Lance write may or may not have happened, ``done`` after, and
``undone`` once undone (``undoing`` while that is under way); a data folder opened after a kill settles what was
pending (store/passages.py). A passage is disabled when its latest done ``disable``/``enable`` is a disable.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from biny.core.store.catalog.table import Table
from biny.core.store.guard import mutation

SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS passage_log_seq;
CREATE TABLE IF NOT EXISTS passage_log (
    entry_id VARCHAR PRIMARY KEY,
    seq BIGINT NOT NULL DEFAULT nextval('passage_log_seq'),  -- order within this folder; ``changed_at`` orders first
    space_id VARCHAR NOT NULL,
    chunk_id VARCHAR NOT NULL,
    doc_id VARCHAR NOT NULL,
    action VARCHAR NOT NULL,          -- disable | enable | edit | note
    author VARCHAR NOT NULL,
    changed_at TIMESTAMP NOT NULL,
    state VARCHAR NOT NULL,           -- pending | done | undoing | undone
    before BLOB                       -- edit: the row as stored before it (Arrow IPC; sealed where the space is)
);
"""

_COLS = "entry_id, seq, space_id, chunk_id, doc_id, action, author, changed_at, state, before"


@dataclass(slots=True)
class PassageEntry:
    entry_id: str
    seq: int
    space_id: str
    chunk_id: str
    doc_id: str
    action: str
    author: str
    at: datetime
    state: str
    before: bytes | None = None


def _entry(row: tuple[Any, ...]) -> PassageEntry:
    entry_id, seq, space_id, chunk_id, doc_id, action, author, at, state, before = row
    return PassageEntry(entry_id, seq, space_id, chunk_id, doc_id, action, author, at, state,
                        bytes(before) if before is not None else None)


class PassageLog(Table):
    # ---- reads ----------------------------------------------------------------------------
    def of(self, space_id: str, chunk_id: str) -> list[PassageEntry]:
        """A passage's entries, oldest first."""
        return [_entry(r) for r in self._rows(f"SELECT {_COLS} FROM passage_log WHERE space_id = ? AND chunk_id = ? "
                                              "ORDER BY changed_at, seq", [space_id, chunk_id])]

    def unsettled(self, space_id: str) -> list[PassageEntry]:
        return [_entry(r) for r in self._rows(f"SELECT {_COLS} FROM passage_log WHERE space_id = ? "
                                              "AND state IN ('pending', 'undoing') ORDER BY changed_at, seq",
                                              [space_id])]

    def disabled(self, space_id: str) -> dict[str, str]:
        """chunk_id → doc_id of every passage taken out of retrieval."""
        rows = self._rows(
            "SELECT chunk_id, doc_id, action FROM passage_log WHERE space_id = ? AND state = 'done' "
            "AND action IN ('disable', 'enable') "
            "QUALIFY row_number() OVER (PARTITION BY chunk_id ORDER BY changed_at DESC, seq DESC) = 1",
            [space_id])
        return {r[0]: r[1] for r in rows if r[2] == "disable"}

    def touched(self, space_id: str) -> dict[str, set[str]]:
        """chunk_id → the actions in force on it (done, not undone): what the Library and the viewer say."""
        out: dict[str, set[str]] = {}
        for chunk_id, action in self._rows("SELECT chunk_id, action FROM passage_log WHERE space_id = ? "
                                           "AND state = 'done' ORDER BY changed_at, seq", [space_id]):
            out.setdefault(chunk_id, set()).add(action)
        disabled = self.disabled(space_id)
        for chunk_id, actions in out.items():
            actions.discard("enable")
            if chunk_id not in disabled:
                actions.discard("disable")
        return {c: a for c, a in out.items() if a}

    # ---- writes ---------------------------------------------------------------------------
    @mutation
    def add(self, entry: PassageEntry) -> None:
        self._run("INSERT INTO passage_log (entry_id, space_id, chunk_id, doc_id, action, author, changed_at, state, "
                  "before) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  [entry.entry_id, entry.space_id, entry.chunk_id, entry.doc_id, entry.action, entry.author, entry.at,
                   entry.state, entry.before])

    @mutation
    def set_state(self, entry_id: str, state: str) -> None:
        self._run("UPDATE passage_log SET state = ? WHERE entry_id = ?", [state, entry_id])

    @mutation
    def drop(self, entry_id: str) -> None:
        self._run("DELETE FROM passage_log WHERE entry_id = ?", [entry_id])

    @mutation
    def settle_note(self, entry_id: str, state: str, doc_id: str, chunks: int, digest: str) -> None:
        """A note passage added or removed: its entry's state and its document's passage count and digest
        (store/integrity.py) in one transaction, so the catalog never disagrees with itself about it."""
        with self.db.lock:
            con = self.db.con
            con.execute("BEGIN TRANSACTION")
            try:
                con.execute("UPDATE passage_log SET state = ? WHERE entry_id = ?", [state, entry_id])
                con.execute("UPDATE documents SET chunks = ?, chunk_digest = ? WHERE doc_id = ?",
                            [chunks, digest, doc_id])
                con.execute("COMMIT")
            except Exception:
                con.execute("ROLLBACK")
                raise
