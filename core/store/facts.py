"""DuckDB tables of memory facts and conversation turns, stored sealed (SPEC I8 applied to M).

A fact row keeps its vector in the clear (recall runs on vectors, like chunks) and
everything a person wrote sealed in ``ct``: text, scope and source. The scope is also
kept as a keyed hash (``scope``) so a scope's facts are found without opening any.
Rows written before sealing existed have ``ct`` NULL and plaintext columns; the memory
service seals them through the writer the first time it opens the owner's key.

Each row carries ``mac`` (issue 59), a keyed code (store/rowmac.py ``record_mac``, a key derived from the owner's
memory key) over everything that decides what recall returns: id, scope hash, status, revision, times, model,
ciphertext, vector and owner. The sealed text alone was bound (AES-GCM); a vector swapped between facts, a deleted
fact set active again or an old revision put back was not. Every write recomputes the code of the row it changed
(``_recode``); every read recomputes the codes of the rows it returns and raises ``DataTampered`` on a mismatch.
Once every fact of the owner has a code the catalog records a mark (``MemoryKeyTable.binding``); from then on a
fact without one is a mismatch too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb
import numpy as np

from biny.core.crypto.memory import MemoryCrypto
from biny.core.embed.base import Vectors
from biny.core.errors import DataTampered
from biny.core.i18n import t
from biny.core.store import rowmac
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
        "ALTER TABLE facts ADD COLUMN IF NOT EXISTS mac VARCHAR DEFAULT ''",
    ]


_COLS = "fact_id, scope, status, revision, created_at, updated_at, model, ct, text, source"
# What a fact's code covers, in order, then the code: every read selects these after ``_COLS``.
_CODED = ("fact_id", "scope", "status", "revision", "created_at", "updated_at", "model", "ct", "vector", "sealed_by")
_READ = f"{_COLS}, {', '.join(_CODED)}, mac"
_VECTOR = len(_COLS.split(",")) + _CODED.index("vector")  # where a read row holds the vector


def fact_code(key: bytes, values: Sequence[Any]) -> str:
    """The code of one fact from its ``_CODED`` values as DuckDB returns them."""
    parts: list[str | bytes | int | None] = []
    for name, value in zip(_CODED, values, strict=True):
        if name == "vector":
            parts.append(np.asarray(value, dtype="<f4").tobytes())
        elif isinstance(value, datetime):
            parts.append(value.isoformat())
        elif value is None or isinstance(value, bytes | str | int):
            parts.append(value)
        else:
            parts.append(bytes(value))
    return rowmac.record_mac(key, "memory-fact", *parts)


def fact_key(crypto: MemoryCrypto) -> bytes:
    """The key of an owner's fact codes, derived from their memory key (never stored)."""
    return rowmac.derive_record_key(crypto.keys.data_key, "memory facts")


def facts_mark(key: bytes, owner: str) -> str:
    return rowmac.bound_mark(key, f"memory|{owner}")


def tampered_facts(owner: str, fact_ids: Sequence[str]) -> DataTampered:
    return DataTampered(t("Memory of {owner} failed its integrity check: {n} fact(s) changed after they were "
                          "written ({ids}). Nothing was recalled. Run `biny doctor --deep` to see what is damaged, "
                          "then restore the data folder from a backup, or run `biny doctor --repair` to set those "
                          "facts aside (marked deleted, never recalled).").format(owner=owner, n=len(fact_ids),
                                                                      ids=", ".join(sorted(fact_ids))))


def fact_columns(con: duckdb.DuckDBPyConnection, lock: AbstractContextManager[Any]) -> set[str]:
    """The facts table's columns ("" set: no table yet): whether it was ever opened by a version with codes."""
    with lock:
        return {str(r[0]) for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'facts'").fetchall()}


class FactTable:
    """Reads answer directly; every write is a ``@mutation`` the writer calls."""

    def __init__(self, connection: Callable[[], duckdb.DuckDBPyConnection], lock: AbstractContextManager[Any], dim: int,
                 owner: str) -> None:
        # The catalog's connection, looked up on each use: rewriting the catalog file reconnects it.
        self._connection = connection
        self.lock = lock
        self.dim = dim
        self.owner = owner  # "tenant/user" whose memory key seals the rows this table reads
        # The key of the facts' codes and whether every fact has one (set by the memory service; None: unchecked).
        self.mac_key: bytes | None = None
        self.bound = False

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
            self._recode(row.fact_id)

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
            self._recode(fact_id)

    @mutation
    def set_scope_key(self, fact_id: str, scope_key: str) -> None:
        with self.lock:
            self.con.execute("UPDATE facts SET scope = ? WHERE fact_id = ?", [scope_key, fact_id])
            self._recode(fact_id)

    @mutation
    def set_status(self, fact_id: str, status: str, updated_at: datetime) -> None:
        with self.lock:
            self.con.execute("UPDATE facts SET status = ?, updated_at = ? WHERE fact_id = ?",
                             [status, updated_at, fact_id])
            self._recode(fact_id)

    @mutation
    def _recode(self, fact_id: str) -> None:
        """The changed row's code, from its values as stored (caller holds the lock)."""
        if self.mac_key is None:
            return
        row = self.con.execute(f"SELECT {', '.join(_CODED)} FROM facts WHERE fact_id = ?", [fact_id]).fetchone()
        if row is not None:
            self.con.execute("UPDATE facts SET mac = ? WHERE fact_id = ?", [fact_code(self.mac_key, row), fact_id])

    @mutation
    def bind(self) -> int:
        """Codes for this owner's facts written before they existed; a fact whose code fails keeps it (binding
        never launders a changed row). Returns how many were coded."""
        with self.lock:
            ids = [r[0] for r in self.con.execute("SELECT fact_id FROM facts WHERE sealed_by = ? AND ct IS NOT NULL "
                                                  "AND coalesce(mac, '') = ''", [self.owner]).fetchall()]
            for fact_id in ids:
                self._recode(fact_id)
        return len(ids)

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

    def _read(self, where: str, params: list[Any]) -> list[tuple[Any, ...]]:
        """Rows (``_READ``) whose codes were recomputed: ``DataTampered`` if one fails (issue 59)."""
        with self.lock:
            rows = self.con.execute(f"SELECT {_READ} FROM facts WHERE {where}", params).fetchall()
        if self.mac_key is not None:
            bad = self.mismatched(rows)
            if bad:
                raise tampered_facts(self.owner, bad)
        return rows

    def mismatched(self, rows: Sequence[tuple[Any, ...]]) -> list[str]:
        """The ids of ``rows`` (read as ``_READ``) whose code fails; a row without one only once bound."""
        assert self.mac_key is not None
        first = len(_COLS.split(","))
        bad = []
        for r in rows:
            stored = str(r[-1] or "")
            if r[7] is None or (not stored and not self.bound):
                continue  # stored before sealing or before codes: sealed and coded when the owner's key opens
            if not rowmac.same(stored, fact_code(self.mac_key, r[first:-1])):
                bad.append(str(r[0]))
        return bad

    def problems(self) -> tuple[list[str], int]:
        """Every fact of the owner read and checked (``doctor --deep``): ids failing their code, facts uncoded."""
        with self.lock:
            rows = self.con.execute(f"SELECT {_READ} FROM facts WHERE sealed_by = ?", [self.owner]).fetchall()
        return self.mismatched(rows), sum(1 for r in rows if not r[-1])

    def _rows(self, where: str, params: list[Any]) -> list[FactRow]:
        return [FactRow(*r[:10]) for r in self._read(where, params)]

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
        rows = self._read("scope = ? AND status = 'active' AND model = ? AND sealed_by = ?",
                          [scope_key, model, self.owner])
        ids = [(r[0], int(r[3])) for r in rows]
        return ids, np.asarray([r[_VECTOR] for r in rows], dtype=np.float32).reshape(len(rows), self.dim)

    def all_vectors(self, model: str) -> Vectors:
        rows = self._read("status = 'active' AND model = ? AND sealed_by = ?", [model, self.owner])
        return np.asarray([r[_VECTOR] for r in rows], dtype=np.float32).reshape(len(rows), self.dim)

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
