"""DuckDB tables of memory facts and conversation turns, stored sealed (SPEC I8 applied to M).

A fact row keeps its vector in the clear (recall runs on vectors, like chunks) and
everything a person wrote sealed in ``ct``: text, scope and source. The scope is also
kept as a keyed hash (``scope``) so a scope's facts are found without opening any.
Rows written before sealing existed have ``ct`` NULL and plaintext columns; the memory
service seals them through the writer the first time it opens the owner's key.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb
import numpy as np

from biny.core.embed.base import Vectors
from biny.core.store.guard import mutation


@dataclass(slots=True)
class FactRow:
    fact_id: str
    scope: str  # keyed hash of the scope (plaintext on legacy rows)
    status: str
    revision: int
    created_at: datetime
    updated_at: datetime
    model: str
    ct: bytes | None  # sealed {"text", "scope", "source"}; None on legacy rows
    text: str = ""  # legacy plaintext only
    source: str = ""  # legacy plaintext only


def _schema(dim: int) -> list[str]:
    return [
        f"""CREATE TABLE IF NOT EXISTS facts (
            fact_id VARCHAR PRIMARY KEY,
            scope VARCHAR NOT NULL,
            text VARCHAR NOT NULL,
            status VARCHAR NOT NULL,
            revision INTEGER NOT NULL,
            created_at TIMESTAMP NOT NULL,
            updated_at TIMESTAMP NOT NULL,
            source VARCHAR NOT NULL DEFAULT '',
            model VARCHAR NOT NULL,
            vector FLOAT[{dim}] NOT NULL
        )""",
        "ALTER TABLE facts ADD COLUMN IF NOT EXISTS ct BLOB",
        "ALTER TABLE facts ADD COLUMN IF NOT EXISTS sealed_by VARCHAR DEFAULT ''",
        """CREATE TABLE IF NOT EXISTS conversation_turns (
            conversation_id VARCHAR NOT NULL,
            n INTEGER NOT NULL,
            role VARCHAR NOT NULL,
            content VARCHAR NOT NULL,
            added_at TIMESTAMP NOT NULL,
            PRIMARY KEY (conversation_id, n)
        )""",
        "ALTER TABLE conversation_turns ADD COLUMN IF NOT EXISTS ct BLOB",
    ]


_COLS = "fact_id, scope, status, revision, created_at, updated_at, model, ct, text, source"


class FactTable:
    """Reads answer directly; every write is a ``@mutation`` the writer calls."""

    def __init__(self, connection: Callable[[], duckdb.DuckDBPyConnection], lock: AbstractContextManager[Any], dim: int,
                 owner: str) -> None:
        # The catalog's connection, looked up on each use: rewriting the catalog file reconnects it.
        self._connection = connection
        self.lock = lock
        self.dim = dim
        self.owner = owner  # "tenant/user" whose memory key seals the rows this table reads

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        return self._connection()

    @mutation
    def migrate(self) -> None:
        with self.lock:
            for statement in _schema(self.dim):
                self.con.execute(statement)

    # ---- writes (through StoreWriter only) ------------------------------------------------
    @mutation
    def insert(self, row: FactRow, vector: list[float]) -> None:
        with self.lock:
            self.con.execute(
                "INSERT INTO facts (fact_id, scope, text, status, revision, created_at, updated_at, source, model, "
                "vector, ct, sealed_by) VALUES (?, ?, '', ?, ?, ?, ?, '', ?, ?, ?, ?)",
                [row.fact_id, row.scope, row.status, row.revision, row.created_at, row.updated_at, row.model,
                 vector, row.ct, self.owner])

    @mutation
    def update(self, fact_id: str, ct: bytes, vector: list[float] | None, model: str, updated_at: datetime,
               *, new_revision: bool) -> None:
        """Replace a fact's sealed content (and vector); a new revision unless only re-sealing."""
        with self.lock:
            bump = "revision + 1" if new_revision else "revision"
            if vector is None:
                self.con.execute(f"UPDATE facts SET ct = ?, text = '', source = '', revision = {bump}, "
                                 "updated_at = ?, sealed_by = ? WHERE fact_id = ?",
                                 [ct, updated_at, self.owner, fact_id])
            else:
                self.con.execute(f"UPDATE facts SET ct = ?, text = '', source = '', vector = ?, model = ?, "
                                 f"revision = {bump}, updated_at = ?, sealed_by = ? WHERE fact_id = ?",
                                 [ct, vector, model, updated_at, self.owner, fact_id])

    @mutation
    def set_scope_key(self, fact_id: str, scope_key: str) -> None:
        with self.lock:
            self.con.execute("UPDATE facts SET scope = ? WHERE fact_id = ?", [scope_key, fact_id])

    @mutation
    def set_status(self, fact_id: str, status: str, updated_at: datetime) -> None:
        with self.lock:
            self.con.execute("UPDATE facts SET status = ?, updated_at = ? WHERE fact_id = ?",
                             [status, updated_at, fact_id])

    @mutation
    def add_turn(self, conversation_key: str, role: str, ct: bytes, added_at: datetime) -> None:
        with self.lock:
            row = self.con.execute("SELECT coalesce(max(n), 0) FROM conversation_turns WHERE conversation_id = ?",
                                   [conversation_key]).fetchone()
            n = int(row[0]) + 1 if row else 1
            self.con.execute("INSERT INTO conversation_turns VALUES (?, ?, ?, '', ?, ?)",
                             [conversation_key, n, role, added_at, ct])

    @mutation
    def seal_turn(self, conversation_id: str, n: int, conversation_key: str, ct: bytes) -> None:
        with self.lock:
            self.con.execute("UPDATE conversation_turns SET conversation_id = ?, content = '', ct = ? "
                             "WHERE conversation_id = ? AND n = ?", [conversation_key, ct, conversation_id, n])

    # ---- reads ----------------------------------------------------------------------------
    @staticmethod
    def legacy_rows(con: duckdb.DuckDBPyConnection, lock: AbstractContextManager[Any]) -> int:
        """Facts or turns stored in plaintext by an older version (0 if the tables do not exist)."""
        with lock:
            cols = {(r[0], r[1]) for r in con.execute(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_name IN ('facts', 'conversation_turns')").fetchall()}
            n = 0
            for table in ("facts", "conversation_turns"):
                if (table, "fact_id" if table == "facts" else "n") not in cols:
                    continue
                where = " WHERE ct IS NULL" if (table, "ct") in cols else ""
                row = con.execute(f"SELECT count(*) FROM {table}{where}").fetchone()
                n += int(row[0]) if row else 0
        return n

    def _rows(self, where: str, params: list[Any]) -> list[FactRow]:
        with self.lock:
            rows = self.con.execute(f"SELECT {_COLS} FROM facts WHERE {where}", params).fetchall()
        return [FactRow(*r) for r in rows]

    def get(self, fact_id: str) -> FactRow | None:
        rows = self._rows("fact_id = ? AND sealed_by = ?", [fact_id, self.owner])
        return rows[0] if rows else None

    def rows(self, statuses: tuple[str, ...], scope_key: str | None = None) -> list[FactRow]:
        marks = ", ".join("?" for _ in statuses)
        where = f"status IN ({marks}) AND sealed_by = ?"
        params: list[Any] = [*statuses, self.owner]
        if scope_key is not None:
            where += " AND scope = ?"
            params.append(scope_key)
        return self._rows(where + " ORDER BY updated_at DESC", params)

    def legacy(self) -> list[FactRow]:
        """Rows stored before sealing (plaintext), to be sealed."""
        return self._rows("ct IS NULL", [])

    def current(self, fact_ids: list[str]) -> dict[str, FactRow]:
        """One consistent read of the candidates' present state (for the M5 re-check)."""
        if not fact_ids:
            return {}
        return {r.fact_id: r for r in self._rows("fact_id IN (SELECT unnest(?)) AND sealed_by = ?",
                                                 [fact_ids, self.owner])}

    def candidates(self, scope_key: str, model: str) -> tuple[list[tuple[str, int]], Vectors]:
        """(fact_id, revision) and vectors of a scope's active facts, as of now."""
        with self.lock:
            rows = self.con.execute(
                "SELECT fact_id, revision, vector FROM facts WHERE scope = ? AND status = 'active' AND model = ? "
                "AND sealed_by = ?", [scope_key, model, self.owner]).fetchall()
        ids = [(r[0], int(r[1])) for r in rows]
        return ids, np.asarray([r[2] for r in rows], dtype=np.float32).reshape(len(rows), self.dim)

    def all_vectors(self, model: str) -> Vectors:
        with self.lock:
            rows = self.con.execute("SELECT vector FROM facts WHERE status = 'active' AND model = ? AND sealed_by = ?",
                                    [model, self.owner]).fetchall()
        return np.asarray([r[0] for r in rows], dtype=np.float32).reshape(len(rows), self.dim)

    def turns(self, conversation_key: str) -> list[tuple[str, bytes | None, str]]:
        """(role, sealed content, legacy plaintext content) in order."""
        with self.lock:
            return [(r[0], r[1], r[2]) for r in self.con.execute(
                "SELECT role, ct, content FROM conversation_turns WHERE conversation_id = ? ORDER BY n",
                [conversation_key]).fetchall()]

    def legacy_turns(self) -> list[tuple[str, int, str, str]]:
        """(conversation_id, n, role, content) of turns stored before sealing."""
        with self.lock:
            return [(r[0], int(r[1]), r[2], r[3]) for r in self.con.execute(
                "SELECT conversation_id, n, role, content FROM conversation_turns WHERE ct IS NULL").fetchall()]
