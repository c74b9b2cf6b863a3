"""The catalog's one DuckDB connection, and the base of its per-table classes.

One connection is shared between threads, so every use takes ``Db.lock``; writes come only from
``store.writer.StoreWriter`` (each is marked ``@mutation``). Values are always bound as parameters.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb


class Db:
    """The catalog file's connection; ``Catalog.rewrite``/``reopen`` swap ``con`` under ``lock``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.RLock()
        self.con = duckdb.connect(str(path))


class Table:
    """One table's statements over the shared connection."""

    def __init__(self, db: Db) -> None:
        self.db = db

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.db.lock:
            return self.db.con.execute(sql, list(params)).fetchall()

    def _row(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self.db.lock:
            return self.db.con.execute(sql, list(params)).fetchone()

    def _run(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self.db.lock:
            self.db.con.execute(sql, list(params))
