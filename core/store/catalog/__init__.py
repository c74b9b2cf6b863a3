"""The DuckDB catalog: one file, one connection, a class per table (issue 47).

``Catalog`` owns the connection and what spans tables — creating and migrating them, rewriting
the file, a space's rows for a backup, deleting a space; each table's statements live in its own
class, reached as ``catalog.spaces``, ``catalog.docs``, ``catalog.ingest_log``, ``catalog.notes``,
``catalog.baselines``, ``catalog.evals`` and ``catalog.memory_keys`` (the review queue and the
structured index keep theirs in store/review.py and store/structured.py). All writes come from
``writer.StoreWriter``; every use of the connection takes ``lock``, as it is shared between threads.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import duckdb

from biny.core.store.catalog.baselines import BaselineTable
from biny.core.store.catalog.documents import DocumentRow, DocumentTable
from biny.core.store.catalog.evals import EvalRunTable
from biny.core.store.catalog.log import IngestLog
from biny.core.store.catalog.notes import NoteTable
from biny.core.store.catalog.passages import SCHEMA as PASSAGE_SCHEMA
from biny.core.store.catalog.passages import PassageLog
from biny.core.store.catalog.schema import CATALOG_VERSION, MIGRATIONS, SCHEMA, SPACE_TABLES, now
from biny.core.store.catalog.spaces import MemoryKeyTable, SpaceRef, SpaceRow, SpaceTable
from biny.core.store.catalog.table import Db, DbUse
from biny.core.store.guard import mutation

__all__ = ["Catalog", "DocumentRow", "SpaceRef", "SpaceRow", "now"]


class Catalog:
    def __init__(self, path: Path, *, shared: bool = False) -> None:
        self.db = Db(path, shared=shared)
        self.spaces = SpaceTable(self.db)
        self.docs = DocumentTable(self.db)
        self.ingest_log = IngestLog(self.db)
        self.notes = NoteTable(self.db)
        self.baselines = BaselineTable(self.db)
        self.evals = EvalRunTable(self.db)
        self.memory_keys = MemoryKeyTable(self.db)
        self.passages = PassageLog(self.db)  # a curator's corrections of passages (issue 61)

    @property
    def path(self) -> Path:
        return self.db.path

    @property
    def lock(self) -> DbUse:
        return self.db.lock

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        return self.db.con

    @mutation
    def rewrite(self) -> None:
        """Copy every table into a fresh file and swap it in (issue 22).

        DuckDB leaves a changed or deleted value's bytes in the file's freed blocks — an old wrapped key
        and its salt after a passphrase change, plaintext sealed since — and offers no way to zero them;
        a copy holds only the live rows. The old file is replaced only once the copy is complete, so a
        failure (a full disk) leaves it as it was.
        """
        db = self.db
        fresh = db.path.with_name(db.path.name + ".rewrite")
        with db.lock:
            for stale in (fresh, Path(f"{fresh}.wal")):
                stale.unlink(missing_ok=True)
            name = db.con.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
            db.con.execute("CHECKPOINT")
            try:
                quoted = str(fresh).replace("'", "''")  # a data folder's path may hold a quote
                db.con.execute(f"ATTACH '{quoted}' AS fresh_copy")
                db.con.execute('COPY FROM DATABASE "{}" TO fresh_copy'.format(name.replace('"', '""')))
                db.con.execute("DETACH fresh_copy")
            except duckdb.Error:
                with contextlib.suppress(duckdb.Error):
                    db.con.execute("DETACH fresh_copy")
                fresh.unlink(missing_ok=True)
                raise
            db.con.close()
            os.replace(fresh, db.path)
            Path(f"{db.path}.wal").unlink(missing_ok=True)  # checkpointed above: nothing in it is live
            db.con = duckdb.connect(str(db.path))

    @mutation
    def migrate(self) -> None:
        """Create missing tables and columns (the writer runs this at open)."""
        with self.lock:
            self.con.execute(SCHEMA)
            self.con.execute(PASSAGE_SCHEMA)
            for statement in MIGRATIONS:
                self.con.execute(statement)
            self.con.execute(
                "INSERT INTO meta VALUES ('catalog_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [CATALOG_VERSION],
            )

    def read_all(self) -> list[str]:
        """Every table read whole, each problem as text (``biny doctor --deep``, issue 59). DuckDB has no
        ``PRAGMA integrity_check``; it verifies each block's checksum as it reads it, so a full read is the check."""
        problems = []
        with self.lock:
            try:
                tables = [r[0] for r in self.con.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()]
            except duckdb.Error as exc:
                return [str(exc)]
            for table in tables:
                try:
                    cur = self.con.execute(f'SELECT * FROM "{table}"')
                    while cur.fetchmany(4096):
                        pass
                except duckdb.Error as exc:
                    problems.append(f"{table}: {exc}")
        return problems

    def close(self) -> None:
        self.db.close()

    def reopen(self, path: Path) -> None:
        """Read another catalog file from now on (a team space's newer snapshot, store/remote.py)."""
        fresh = duckdb.connect(str(path))
        with self.lock:
            old, self.db.con, self.db.path = self.db.con, fresh, path
            self.spaces.forget()
        old.close()

    def checkpoint(self) -> None:
        """Write the log into the file, so a copy of the file holds every committed change."""
        with self.lock:
            self.con.execute("CHECKPOINT")

    # ---- a space's rows across tables -----------------------------------------------------
    def export_rows(self, space_id: str) -> dict[str, list[dict[str, Any]]]:
        """Every catalog row of a space, for a backup."""
        out: dict[str, list[dict[str, Any]]] = {}
        with self.lock:
            for table in SPACE_TABLES:
                cur = self.con.execute(f'SELECT * FROM "{table}" WHERE space_id = ?', [space_id])
                cols = [d[0] for d in cur.description or []]
                out[table] = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
        return out

    @mutation
    def import_rows(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        with self.lock:
            self._in_transaction([
                (f'INSERT INTO "{table}" ({", ".join(row)}) VALUES ({", ".join("?" for _ in row)})', list(row.values()))
                for table in SPACE_TABLES for row in rows.get(table, [])])

    @mutation
    def delete_space(self, space_id: str) -> None:
        self._in_transaction([(f'DELETE FROM "{table}" WHERE space_id = ?', [space_id])
                              for table in ("documents", "ingest_log", *SPACE_TABLES[2:], "spaces")])

    def _in_transaction(self, statements: list[tuple[str, list[Any]]]) -> None:
        with self.lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                for sql, params in statements:
                    self.con.execute(sql, params)
                self.con.execute("COMMIT")
            except duckdb.Error:
                self.con.execute("ROLLBACK")
                raise
