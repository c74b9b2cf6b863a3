"""Facts: text per scope with status and revision, embedded with the same model.

Facts live in DuckDB with their vector in the same row (``FLOAT[dim]``): the
M5 re-check must read status, scope, revision and text in one consistent read,
and an edit must change text, vector and revision together. Fact stores are
small (per user/agent), so exact search over a scope's rows is the right index.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb
import numpy as np

from biny.core.embed.base import Embedder, Vectors
from biny.core.errors import BinyError
from biny.core.store.catalog import now

STATUSES = ("active", "archived", "deleted")


class FactNotFound(BinyError):
    pass


@dataclass(slots=True)
class Fact:
    fact_id: str
    scope: str
    text: str
    status: str
    revision: int
    created_at: datetime
    updated_at: datetime
    source: str


def _schema(dim: int) -> str:
    return f"""
    CREATE TABLE IF NOT EXISTS facts (
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
    );
    CREATE TABLE IF NOT EXISTS conversation_turns (
        conversation_id VARCHAR NOT NULL,
        n INTEGER NOT NULL,
        role VARCHAR NOT NULL,
        content VARCHAR NOT NULL,
        added_at TIMESTAMP NOT NULL,
        PRIMARY KEY (conversation_id, n)
    );
    """


def check_scope(scope: str) -> str:
    scope = scope.strip()
    if not scope or len(scope) > 300 or any(c in scope for c in "\n\r\x00"):
        raise BinyError("A scope is a non-empty string such as 'user:ana' or 'tenant:acme/user:ana'.")
    return scope


_COLS = "fact_id, scope, text, status, revision, created_at, updated_at, source"


class FactStore:
    def __init__(self, con: duckdb.DuckDBPyConnection, lock: threading.RLock, embedder: Embedder) -> None:
        self.con = con
        self.lock = lock
        self.embedder = embedder
        with self.lock:
            self.con.execute(_schema(embedder.dim))

    def _embed(self, text: str) -> list[float]:
        return [float(x) for x in self.embedder.embed_passages([text])[0]]

    def add(self, text: str, scope: str, source: str = "") -> Fact:
        text = text.strip()
        if not text:
            raise BinyError("A fact needs some text.")
        scope = check_scope(scope)
        vec = self._embed(text)
        fact_id = uuid.uuid4().hex[:12]
        ts = now()
        with self.lock:
            self.con.execute(
                "INSERT INTO facts VALUES (?, ?, ?, 'active', 1, ?, ?, ?, ?, ?)",
                [fact_id, scope, text, ts, ts, source, self.embedder.model_id, vec],
            )
        return self.get(fact_id)

    def get(self, fact_id: str) -> Fact:
        with self.lock:
            row = self.con.execute(f"SELECT {_COLS} FROM facts WHERE fact_id = ?", [fact_id]).fetchone()
        if row is None:
            raise FactNotFound(f"No fact with id {fact_id}.")
        return Fact(*row)

    def facts(self, scope: str | None = None, statuses: tuple[str, ...] = ("active", "archived")) -> list[Fact]:
        marks = ", ".join("?" for _ in statuses)
        sql = f"SELECT {_COLS} FROM facts WHERE status IN ({marks})"
        params: list[Any] = list(statuses)
        if scope is not None:
            sql += " AND scope = ?"
            params.append(check_scope(scope))
        with self.lock:
            rows = self.con.execute(sql + " ORDER BY updated_at DESC", params).fetchall()
        return [Fact(*r) for r in rows]

    def scopes(self) -> list[str]:
        with self.lock:
            return [r[0] for r in self.con.execute(
                "SELECT DISTINCT scope FROM facts WHERE status <> 'deleted' ORDER BY scope").fetchall()]

    def edit(self, fact_id: str, text: str) -> Fact:
        """A new revision: text, vector and revision change together."""
        text = text.strip()
        if not text:
            raise BinyError("A fact needs some text.")
        current = self.get(fact_id)
        if current.status == "deleted":
            raise FactNotFound(f"Fact {fact_id} was deleted.")
        vec = self._embed(text)
        with self.lock:
            self.con.execute(
                "UPDATE facts SET text = ?, vector = ?, revision = revision + 1, updated_at = ?, model = ? "
                "WHERE fact_id = ?",
                [text, vec, now(), self.embedder.model_id, fact_id],
            )
        return self.get(fact_id)

    def set_status(self, fact_id: str, status: str) -> Fact:
        if status not in STATUSES:
            raise BinyError(f"Unknown fact status {status!r}.")
        self.get(fact_id)
        with self.lock:
            self.con.execute("UPDATE facts SET status = ?, updated_at = ? WHERE fact_id = ?",
                             [status, now(), fact_id])
        return self.get(fact_id)

    def candidates(self, scope: str) -> tuple[list[tuple[str, int]], Vectors]:
        """(fact_id, revision) and vectors of a scope's active facts, as of now."""
        with self.lock:
            rows = self.con.execute(
                "SELECT fact_id, revision, vector FROM facts WHERE scope = ? AND status = 'active' "
                "AND model = ?", [check_scope(scope), self.embedder.model_id]).fetchall()
        ids = [(r[0], int(r[1])) for r in rows]
        vecs = np.asarray([r[2] for r in rows], dtype=np.float32).reshape(len(rows), self.embedder.dim)
        return ids, vecs

    def all_vectors(self) -> Vectors:
        with self.lock:
            rows = self.con.execute("SELECT vector FROM facts WHERE status = 'active' AND model = ?",
                                    [self.embedder.model_id]).fetchall()
        return np.asarray([r[0] for r in rows], dtype=np.float32).reshape(len(rows), self.embedder.dim)

    def current(self, fact_ids: list[str]) -> dict[str, Fact]:
        """One consistent read of the candidates' present state (for the M5 re-check)."""
        if not fact_ids:
            return {}
        with self.lock:
            rows = self.con.execute(f"SELECT {_COLS} FROM facts WHERE fact_id IN (SELECT unnest(?))",
                                    [fact_ids]).fetchall()
        return {r[0]: Fact(*r) for r in rows}

    # ---- canonical conversation history (M7: the reference block is never stored here) ---------
    def add_turn(self, conversation_id: str, role: str, content: str) -> None:
        with self.lock:
            row = self.con.execute("SELECT coalesce(max(n), 0) FROM conversation_turns WHERE conversation_id = ?",
                                   [conversation_id]).fetchone()
            n = int(row[0]) + 1 if row else 1
            self.con.execute("INSERT INTO conversation_turns VALUES (?, ?, ?, ?, ?)",
                             [conversation_id, n, role, content, now()])

    def history(self, conversation_id: str) -> list[tuple[str, str]]:
        with self.lock:
            return [(r[0], r[1]) for r in self.con.execute(
                "SELECT role, content FROM conversation_turns WHERE conversation_id = ? ORDER BY n",
                [conversation_id]).fetchall()]
