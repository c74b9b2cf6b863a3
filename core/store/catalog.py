"""The DuckDB catalog: spaces, documents (with revision and status), ingest log, baselines.

Values are always bound as parameters (no SQL by f-string with values). All writes
come from ``writer.StoreWriter`` holding ``Catalog.lock``; reads take it too,
because one DuckDB connection is shared between threads.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from biny.core.errors import SpaceExists, SpaceNotFound
from biny.core.i18n import t
from biny.core.store.guard import mutation, write_stamp

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS spaces (
    space_id VARCHAR PRIMARY KEY,
    name VARCHAR UNIQUE NOT NULL,
    created_at TIMESTAMP NOT NULL,
    embed_model VARCHAR NOT NULL,
    dim INTEGER NOT NULL,
    encrypted BOOLEAN NOT NULL DEFAULT FALSE,
    tenant VARCHAR NOT NULL DEFAULT 'default',
    owner VARCHAR NOT NULL DEFAULT '',
    kdf VARCHAR NOT NULL DEFAULT '',
    wrapped_key BLOB
);
CREATE TABLE IF NOT EXISTS documents (
    doc_id VARCHAR PRIMARY KEY,
    space_id VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    title VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL,
    revision INTEGER NOT NULL,
    status VARCHAR NOT NULL,          -- pending | active | archived | replaced | deleted
    bytes BIGINT NOT NULL,
    pages INTEGER NOT NULL DEFAULT 0,
    pages_without_text INTEGER NOT NULL DEFAULT 0,
    pages_ocr INTEGER NOT NULL DEFAULT 0,
    figures_described INTEGER NOT NULL DEFAULT 0,
    decorations_skipped INTEGER NOT NULL DEFAULT 0,
    visual_pages VARCHAR NOT NULL DEFAULT '{}',  -- pages behind the three counters above (JSON)
    chunks INTEGER NOT NULL DEFAULT 0,
    chars INTEGER NOT NULL DEFAULT 0,
    chars_per_token DOUBLE NOT NULL DEFAULT 0,
    cjk_share DOUBLE NOT NULL DEFAULT 0,
    resplits INTEGER NOT NULL DEFAULT 0,
    warnings VARCHAR NOT NULL DEFAULT '[]',
    ingested_at TIMESTAMP NOT NULL,
    meta_ct VARCHAR NOT NULL DEFAULT ''   -- encrypted spaces: sealed {title, path, warnings}
);
CREATE SEQUENCE IF NOT EXISTS ingest_log_seq;
CREATE TABLE IF NOT EXISTS ingest_log (
    id BIGINT PRIMARY KEY DEFAULT nextval('ingest_log_seq'),
    space_id VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    logged_at TIMESTAMP NOT NULL,
    outcome VARCHAR NOT NULL,         -- ingested | unchanged | failed | cancelled | interrupted
    doc_id VARCHAR,
    message VARCHAR NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS situating_notes (
    note_key VARCHAR PRIMARY KEY,     -- hash of (model, title, chunk text); keyed hash in encrypted spaces
    note VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS memory_keys (
    tenant VARCHAR NOT NULL,
    owner VARCHAR NOT NULL,
    kdf VARCHAR NOT NULL,             -- the owner's memory key, wrapped like a space's data key
    wrapped_key BLOB NOT NULL,
    PRIMARY KEY (tenant, owner)
);
CREATE TABLE IF NOT EXISTS baselines (
    space_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,            -- passage_pairs | question_nearest:<script>
    measured_at TIMESTAMP NOT NULL,
    chunk_count INTEGER NOT NULL,
    dist VARCHAR NOT NULL,            -- JSON: n, median, quantiles, values
    PRIMARY KEY (space_id, kind)
);
CREATE TABLE IF NOT EXISTS eval_runs (
    run_id VARCHAR PRIMARY KEY,
    space_id VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    name VARCHAR NOT NULL,            -- the question set's file name
    metrics VARCHAR NOT NULL,         -- JSON: per variant, numbers only
    payload VARCHAR NOT NULL          -- JSON per question and variant; sealed in encrypted spaces
);
CREATE TABLE IF NOT EXISTS review_items (
    review_id VARCHAR PRIMARY KEY,
    space_id VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    status VARCHAR NOT NULL,          -- pending | approved | rejected
    payload VARCHAR NOT NULL,         -- JSON: question, answer, sources, snapshot, entry; sealed in encrypted spaces
    decided_at TIMESTAMP,
    decided_by VARCHAR NOT NULL DEFAULT '',
    reason VARCHAR NOT NULL DEFAULT '',  -- sealed in encrypted spaces
    doc_id VARCHAR                    -- the document an approval wrote
);
CREATE TABLE IF NOT EXISTS review_rejections (
    space_id VARCHAR NOT NULL,
    review_id VARCHAR NOT NULL,
    url_key VARCHAR NOT NULL,         -- normalised URL; a keyed hash of it in encrypted spaces
    content_hash VARCHAR NOT NULL,    -- of the page's main text; keyed in encrypted spaces
    simhash BIGINT NOT NULL,
    rejected_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS structured_spec (
    space_id VARCHAR PRIMARY KEY,
    spec VARCHAR NOT NULL,            -- JSON IndexSpec; sealed text in encrypted spaces
    generation INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS structured_rows (
    space_id VARCHAR NOT NULL,
    doc_id VARCHAR NOT NULL,
    revision INTEGER NOT NULL,
    data VARCHAR NOT NULL,            -- JSON {field: verbatim value}; sealed in encrypted spaces
    PRIMARY KEY (space_id, doc_id)
);
"""

CATALOG_VERSION = "6"
# Tables holding a space's rows, in the order a backup restores them.
SPACE_TABLES = ("spaces", "documents", "baselines", "structured_spec", "structured_rows", "review_items",
                "review_rejections", "eval_runs")

# Columns added after version 1; existing data folders gain them at open.
MIGRATIONS = [
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS tenant VARCHAR DEFAULT 'default'",
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS owner VARCHAR DEFAULT ''",
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS kdf VARCHAR DEFAULT ''",
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS wrapped_key BLOB",
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS meta_ct VARCHAR DEFAULT ''",
    # W1: the public-web fallback, off unless switched on for the space.
    "ALTER TABLE spaces ADD COLUMN IF NOT EXISTS web BOOLEAN DEFAULT FALSE",
    # I5: the pages behind pages_ocr / figures_described / decorations_skipped.
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS visual_pages VARCHAR DEFAULT '{}'",
    # Digest over the document's chunk ids at commit (store/integrity.py); '' for documents stored before it.
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS chunk_digest VARCHAR DEFAULT ''",
    # How the document's passages were keyed (ingest/keys.py KEYS_VERSION); 0 for documents stored before.
    "ALTER TABLE documents ADD COLUMN IF NOT EXISTS keys_version INTEGER DEFAULT 0",
]


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(slots=True)
class SpaceRow:
    space_id: str
    name: str
    created_at: datetime
    embed_model: str
    dim: int
    encrypted: bool
    tenant: str = "default"
    owner: str = ""
    kdf: str = ""
    wrapped_key: bytes | None = None


@dataclass(slots=True)
class DocumentRow:
    doc_id: str
    space_id: str
    path: str
    title: str
    kind: str
    content_hash: str
    revision: int
    status: str
    bytes: int
    pages: int = 0
    pages_without_text: int = 0
    pages_ocr: int = 0
    figures_described: int = 0
    decorations_skipped: int = 0
    # I5 report: counter name → the 1-based pages it counts (DOCX: image ordinals, 0 = header/footer).
    visual_pages: dict[str, list[int]] = field(default_factory=dict)
    chunks: int = 0
    chars: int = 0
    chars_per_token: float = 0.0
    cjk_share: float = 0.0
    resplits: int = 0
    warnings: list[str] = field(default_factory=list)
    ingested_at: datetime = field(default_factory=now)
    meta_ct: str = ""
    chunk_digest: str = ""
    keys_version: int = 0


_DOC_COLS = [
    "doc_id", "space_id", "path", "title", "kind", "content_hash", "revision", "status", "bytes",
    "pages", "pages_without_text", "pages_ocr", "figures_described", "decorations_skipped", "visual_pages",
    "chunks", "chars", "chars_per_token", "cjk_share", "resplits", "warnings", "ingested_at", "meta_ct",
    "chunk_digest", "keys_version",
]
_JSON_COLS = ("warnings", "visual_pages")
_SPACE_COLS = "space_id, name, created_at, embed_model, dim, encrypted, tenant, owner, kdf, wrapped_key"


class Catalog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.RLock()
        self.con = duckdb.connect(str(path))
        self._space_rows: dict[str, tuple[int, SpaceRow]] = {}

    @mutation
    def rewrite(self) -> None:
        """Copy every table into a fresh file and swap it in (issue 22).

        DuckDB leaves a changed or deleted value's bytes in the file's freed blocks — an old wrapped key
        and its salt after a passphrase change, plaintext sealed since — and offers no way to zero them;
        a copy holds only the live rows. The old file is replaced only once the copy is complete, so a
        failure (a full disk) leaves it as it was.
        """
        fresh = self.path.with_name(self.path.name + ".rewrite")
        with self.lock:
            for stale in (fresh, Path(f"{fresh}.wal")):
                stale.unlink(missing_ok=True)
            name = self.con.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
            self.con.execute("CHECKPOINT")
            try:
                quoted = str(fresh).replace("'", "''")  # a data folder's path may hold a quote
                self.con.execute(f"ATTACH '{quoted}' AS fresh_copy")
                self.con.execute('COPY FROM DATABASE "{}" TO fresh_copy'.format(name.replace('"', '""')))
                self.con.execute("DETACH fresh_copy")
            except duckdb.Error:
                with contextlib.suppress(duckdb.Error):
                    self.con.execute("DETACH fresh_copy")
                fresh.unlink(missing_ok=True)
                raise
            self.con.close()
            os.replace(fresh, self.path)
            Path(f"{self.path}.wal").unlink(missing_ok=True)  # checkpointed above: nothing in it is live
            self.con = duckdb.connect(str(self.path))

    @mutation
    def migrate(self) -> None:
        """Create missing tables and columns (the writer runs this at open)."""
        with self.lock:
            self.con.execute(SCHEMA)
            for statement in MIGRATIONS:
                self.con.execute(statement)
            self.con.execute(
                "INSERT INTO meta VALUES ('catalog_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [CATALOG_VERSION],
            )

    def close(self) -> None:
        with self.lock:
            self.con.close()

    def reopen(self, path: Path) -> None:
        """Read another catalog file from now on (a team space's newer snapshot, store/remote.py)."""
        fresh = duckdb.connect(str(path))
        with self.lock:
            old, self.con, self.path = self.con, fresh, path
            self._space_rows.clear()
        old.close()

    def checkpoint(self) -> None:
        """Write the log into the file, so a copy of the file holds every committed change."""
        with self.lock:
            self.con.execute("CHECKPOINT")

    # ---- spaces -------------------------------------------------------------------------
    def spaces(self) -> list[SpaceRow]:
        with self.lock:
            rows = self.con.execute(f"SELECT {_SPACE_COLS} FROM spaces ORDER BY name").fetchall()
        return [SpaceRow(*r) for r in rows]

    def space(self, name: str) -> SpaceRow:
        # Asked several times per question; a DuckDB point query costs ~0.7 ms, so rows are kept until
        # the next write (issue 23: ask overhead). Callers must not modify the row.
        stamp = write_stamp()
        cached = self._space_rows.get(name)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        with self.lock:
            row = self.con.execute(f"SELECT {_SPACE_COLS} FROM spaces WHERE name = ?", [name]).fetchone()
        if row is None:
            known = ", ".join(s.name for s in self.spaces()) or t("none yet")
            raise SpaceNotFound(
                t("No space named {name} (spaces: {known}). Create it with `biny space create {plain}`.").format(
                    name=repr(name), known=known, plain=name))
        found = SpaceRow(*row)
        self._space_rows[name] = (stamp, found)
        return found

    def space_by_id(self, space_id: str) -> SpaceRow:
        """The space a stored row (review item, evaluation run) belongs to."""
        with self.lock:
            row = self.con.execute(f"SELECT {_SPACE_COLS} FROM spaces WHERE space_id = ?", [space_id]).fetchone()
        if row is None:
            raise SpaceNotFound(t("The space {id} no longer exists.").format(id=space_id))
        return SpaceRow(*row)

    @mutation
    def insert_space(self, row: SpaceRow) -> None:
        with self.lock:
            exists = self.con.execute("SELECT 1 FROM spaces WHERE name = ?", [row.name]).fetchone()
            if exists:
                raise SpaceExists(t("A space named {name!r} already exists.").format(name=row.name))
            self.con.execute(
                f"INSERT INTO spaces ({_SPACE_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [row.space_id, row.name, row.created_at, row.embed_model, row.dim, row.encrypted,
                 row.tenant, row.owner, row.kdf, row.wrapped_key],
            )

    @mutation
    def set_wrapped_key(self, space_id: str, kdf: str, wrapped: bytes) -> None:
        with self.lock:
            self.con.execute("UPDATE spaces SET kdf = ?, wrapped_key = ? WHERE space_id = ?",
                             [kdf, wrapped, space_id])

    def memory_key(self, tenant: str, owner: str) -> tuple[str, bytes] | None:
        """(kdf params, wrapped key) of an owner's memory key, if one was made."""
        with self.lock:
            row = self.con.execute("SELECT kdf, wrapped_key FROM memory_keys WHERE tenant = ? AND owner = ?",
                                   [tenant, owner]).fetchone()
        return None if row is None else (str(row[0]), bytes(row[1]))

    @mutation
    def set_memory_key(self, tenant: str, owner: str, kdf: str, wrapped: bytes) -> None:
        with self.lock:
            self.con.execute("INSERT OR REPLACE INTO memory_keys VALUES (?, ?, ?, ?)", [tenant, owner, kdf, wrapped])

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
            self.con.execute("BEGIN TRANSACTION")
            try:
                for table in SPACE_TABLES:
                    for row in rows.get(table, []):
                        cols = list(row)
                        self.con.execute(
                            f'INSERT INTO "{table}" ({", ".join(cols)}) VALUES ({", ".join("?" for _ in cols)})',
                            [row[c] for c in cols],
                        )
                self.con.execute("COMMIT")
            except duckdb.Error:
                self.con.execute("ROLLBACK")
                raise

    # ---- evaluation runs (analysts) -------------------------------------------------------
    @mutation
    def add_eval_run(self, run_id: str, space_id: str, name: str, metrics: str, payload: str) -> None:
        with self.lock:
            self.con.execute("INSERT INTO eval_runs VALUES (?, ?, ?, ?, ?, ?)",
                             [run_id, space_id, now(), name, metrics, payload])

    def eval_runs(self, space_id: str) -> list[tuple[str, datetime, str, str]]:
        """(run_id, created_at, name, metrics JSON), newest first."""
        with self.lock:
            rows = self.con.execute("SELECT run_id, created_at, name, metrics FROM eval_runs WHERE space_id = ? "
                                    "ORDER BY created_at DESC", [space_id]).fetchall()
        return [(str(a), b, str(c), str(d)) for a, b, c, d in rows]

    def eval_run(self, run_id: str) -> tuple[str, str, str, str] | None:
        """(space_id, name, metrics, payload) of one run."""
        with self.lock:
            row = self.con.execute("SELECT space_id, name, metrics, payload FROM eval_runs WHERE run_id = ?",
                                   [run_id]).fetchone()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]), str(row[3]))

    def web_enabled(self, space_id: str) -> bool:
        with self.lock:
            row = self.con.execute("SELECT web FROM spaces WHERE space_id = ?", [space_id]).fetchone()
        return bool(row and row[0])

    @mutation
    def set_web(self, space_id: str, on: bool) -> None:
        with self.lock:
            self.con.execute("UPDATE spaces SET web = ? WHERE space_id = ?", [on, space_id])

    @mutation
    def set_space_model(self, space_id: str, model: str, dim: int) -> None:
        with self.lock:
            self.con.execute(
                "UPDATE spaces SET embed_model = ?, dim = ? WHERE space_id = ?", [model, dim, space_id]
            )

    @mutation
    def delete_space(self, space_id: str) -> None:
        with self.lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                for table in ("documents", "ingest_log", *SPACE_TABLES[2:], "spaces"):
                    self.con.execute(f'DELETE FROM "{table}" WHERE space_id = ?', [space_id])
                self.con.execute("COMMIT")
            except duckdb.Error:
                self.con.execute("ROLLBACK")
                raise

    # ---- documents ----------------------------------------------------------------------
    def documents(self, space_id: str, statuses: tuple[str, ...] = ("active", "archived")) -> list[DocumentRow]:
        marks = ", ".join("?" for _ in statuses)
        with self.lock:
            rows = self.con.execute(
                f"SELECT {', '.join(_DOC_COLS)} FROM documents "
                f"WHERE space_id = ? AND status IN ({marks}) ORDER BY title, revision",
                [space_id, *statuses],
            ).fetchall()
        return [self._doc(r) for r in rows]

    def document(self, doc_id: str) -> DocumentRow | None:
        with self.lock:
            row = self.con.execute(
                f"SELECT {', '.join(_DOC_COLS)} FROM documents WHERE doc_id = ?", [doc_id]
            ).fetchone()
        return self._doc(row) if row else None

    @staticmethod
    def _doc(row: tuple[Any, ...]) -> DocumentRow:
        data = dict(zip(_DOC_COLS, row, strict=True))
        for c in _JSON_COLS:
            data[c] = json.loads(data[c] or ("[]" if c == "warnings" else "{}"))
        return DocumentRow(**data)

    def find_unchanged(self, space_id: str, content_hash: str) -> DocumentRow | None:
        with self.lock:
            row = self.con.execute(
                f"SELECT {', '.join(_DOC_COLS)} FROM documents WHERE space_id = ? AND content_hash = ? "
                "AND status IN ('active', 'archived') LIMIT 1",
                [space_id, content_hash],
            ).fetchone()
        return self._doc(row) if row else None

    def document_at(self, space_id: str, path: str) -> DocumentRow | None:
        """The visible (active or archived) revision stored under ``path``, if any."""
        with self.lock:
            row = self.con.execute(
                f"SELECT {', '.join(_DOC_COLS)} FROM documents WHERE space_id = ? AND path = ? "
                "AND status IN ('active', 'archived') ORDER BY revision DESC LIMIT 1", [space_id, path]).fetchone()
        return self._doc(row) if row else None

    def next_revision(self, space_id: str, path: str) -> int:
        with self.lock:
            row = self.con.execute(
                "SELECT max(revision) FROM documents WHERE space_id = ? AND path = ? AND status <> 'pending'",
                [space_id, path],
            ).fetchone()
        return int(row[0] or 0) + 1 if row else 1

    @mutation
    def insert_pending(self, doc: DocumentRow) -> None:
        values = [json.dumps(getattr(doc, c), ensure_ascii=False) if c in _JSON_COLS else getattr(doc, c)
                  for c in _DOC_COLS]
        with self.lock:
            self.con.execute(
                f"INSERT INTO documents ({', '.join(_DOC_COLS)}) VALUES ({', '.join('?' for _ in _DOC_COLS)})",
                values,
            )

    @mutation
    def activate(self, doc: DocumentRow) -> list[str]:
        """Make ``doc`` visible and retire earlier revisions of its path, atomically.

        Returns the doc_ids retired (their chunks can be deleted afterwards).
        """
        with self.lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                retired = [
                    r[0]
                    for r in self.con.execute(
                        "SELECT doc_id FROM documents WHERE space_id = ? AND path = ? "
                        "AND status IN ('active', 'archived', 'damaged') AND doc_id <> ?",
                        [doc.space_id, doc.path, doc.doc_id],
                    ).fetchall()
                ]
                self.con.execute(
                    "UPDATE documents SET status = 'replaced' WHERE doc_id IN (SELECT unnest(?))",
                    [retired],
                )
                self.con.execute(
                    "UPDATE documents SET status = 'active', chunks = ?, chars_per_token = ?, "
                    "cjk_share = ?, resplits = ?, chars = ?, ingested_at = ?, chunk_digest = ? WHERE doc_id = ?",
                    [doc.chunks, doc.chars_per_token, doc.cjk_share, doc.resplits, doc.chars,
                     now(), doc.chunk_digest, doc.doc_id],
                )
                self.con.execute(
                    "INSERT INTO ingest_log (space_id, path, logged_at, outcome, doc_id, message) "
                    "VALUES (?, ?, ?, 'ingested', ?, ?)",
                    [doc.space_id, doc.path, now(), doc.doc_id, f"revision {doc.revision}"],
                )
                self.con.execute("COMMIT")
            except duckdb.Error:
                self.con.execute("ROLLBACK")
                raise
        return retired

    @mutation
    def insert_pending_many(self, docs: list[DocumentRow]) -> None:
        """Many pending rows in one statement (a table's rows arrive by the thousand)."""
        if not docs:
            return
        batch = pa.table({c: [json.dumps(getattr(d, c), ensure_ascii=False) if c in _JSON_COLS else getattr(d, c)  # noqa: F841
                              for d in docs] for c in _DOC_COLS})
        with self.lock:
            # DuckDB reads the local Arrow table ``batch`` by its name (a replacement scan); unlike
            # ``register``/``from_arrow`` this works while the connection holds an earlier result.
            self.con.execute(f"INSERT INTO documents ({', '.join(_DOC_COLS)}) SELECT {', '.join(_DOC_COLS)} FROM batch")

    @mutation
    def activate_many(self, docs: list[DocumentRow], *, by_path: bool = True) -> list[str]:
        """``activate`` for many documents in one transaction; returns the doc_ids retired.

        ``by_path=False`` retires nothing: table rows are identified by content, and a row
        that changed or moved is retired by the caller's sweep, not by sharing a row number.
        """
        if not docs:
            return []
        space_id = docs[0].space_id
        ids = [d.doc_id for d in docs]
        stamp = now()
        with self.lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                retired = [r[0] for r in self.con.execute(
                    "SELECT doc_id FROM documents WHERE space_id = ? AND path IN (SELECT unnest(?)) "
                    "AND status IN ('active', 'archived', 'damaged') AND doc_id NOT IN (SELECT unnest(?))",
                    [space_id, [d.path for d in docs], ids]).fetchall()] if by_path else []
                self.con.execute("UPDATE documents SET status = 'replaced' WHERE doc_id IN (SELECT unnest(?))",
                                 [retired])
                self.con.execute("UPDATE documents SET status = 'active', ingested_at = ? "
                                 "WHERE doc_id IN (SELECT unnest(?))", [stamp, ids])
                digests = pa.table({"doc_id": ids, "digest": [d.chunk_digest for d in docs]})  # noqa: F841
                self.con.execute("UPDATE documents SET chunk_digest = digests.digest FROM digests "
                                 "WHERE documents.doc_id = digests.doc_id")
                self.con.execute("COMMIT")
            except duckdb.Error:
                self.con.execute("ROLLBACK")
                raise
        return retired

    def docs_under(self, space_id: str, prefix: str) -> list[str]:
        """Active or archived documents whose stored path starts with ``prefix`` (a table's rows)."""
        with self.lock:
            rows = self.con.execute(
                "SELECT doc_id FROM documents WHERE space_id = ? AND starts_with(path, ?) "
                "AND status IN ('active', 'archived')", [space_id, prefix]).fetchall()
        return [r[0] for r in rows]

    @mutation
    def set_statuses(self, doc_ids: list[str], status: str) -> None:
        with self.lock:
            self.con.execute("UPDATE documents SET status = ? WHERE doc_id IN (SELECT unnest(?))", [status, doc_ids])

    @mutation
    def set_keys_version(self, doc_ids: list[str], version: int) -> None:
        with self.lock:
            self.con.execute("UPDATE documents SET keys_version = ? WHERE doc_id IN (SELECT unnest(?))",
                             [version, doc_ids])

    @mutation
    def drop_document_row(self, doc_id: str) -> None:
        with self.lock:
            self.con.execute("DELETE FROM documents WHERE doc_id = ?", [doc_id])

    def pending_and_retired(self, space_id: str) -> tuple[list[str], list[str]]:
        with self.lock:
            rows = self.con.execute(
                "SELECT doc_id, status FROM documents WHERE space_id = ? "
                "AND status IN ('pending', 'replaced', 'deleted')",
                [space_id],
            ).fetchall()
        pending = [r[0] for r in rows if r[1] == "pending"]
        retired = [r[0] for r in rows if r[1] != "pending"]
        return pending, retired

    def known_doc_ids(self, space_id: str) -> set[str]:
        with self.lock:
            rows = self.con.execute(
                "SELECT doc_id FROM documents WHERE space_id = ? AND status IN ('active', 'archived')",
                [space_id],
            ).fetchall()
        return {r[0] for r in rows}

    def expected_chunks(self, space_id: str, *, active_only: bool = False) -> dict[str, tuple[int, str]]:
        """doc_id → (passages, chunk digest) of the documents whose passages are stored (store/integrity.py)."""
        statuses = "('active')" if active_only else "('active', 'archived')"
        with self.lock:
            rows = self.con.execute(
                f"SELECT doc_id, chunks, chunk_digest FROM documents WHERE space_id = ? AND status IN {statuses}",
                [space_id]).fetchall()
        return {r[0]: (int(r[1]), str(r[2] or "")) for r in rows}

    def known_doc_ids_active(self, space_id: str) -> set[str]:
        with self.lock:
            rows = self.con.execute(
                "SELECT doc_id FROM documents WHERE space_id = ? AND status = 'active'", [space_id]
            ).fetchall()
        return {r[0] for r in rows}

    # ---- log ----------------------------------------------------------------------------
    @mutation
    def log(self, space_id: str, path: str, outcome: str, message: str = "", doc_id: str | None = None) -> None:
        with self.lock:
            self.con.execute(
                "INSERT INTO ingest_log (space_id, path, logged_at, outcome, doc_id, message) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [space_id, path, now(), outcome, doc_id, message],
            )

    def ingest_log(self, space_id: str, limit: int = 200) -> list[dict[str, Any]]:
        with self.lock:
            rows = self.con.execute(
                "SELECT path, logged_at, outcome, doc_id, message FROM ingest_log WHERE space_id = ? "
                "ORDER BY id DESC LIMIT ?",
                [space_id, limit],
            ).fetchall()
        return [dict(zip(("path", "logged_at", "outcome", "doc_id", "message"), r, strict=True)) for r in rows]

    # ---- situating notes (I7 cache) ----
    def get_note(self, key: str) -> str | None:
        with self.lock:
            row = self.con.execute("SELECT note FROM situating_notes WHERE note_key = ?", [key]).fetchone()
        return str(row[0]) if row else None

    @mutation
    def put_note(self, key: str, note: str) -> None:
        with self.lock:
            self.con.execute("INSERT OR REPLACE INTO situating_notes VALUES (?, ?)", [key, note])

    # ---- baselines ----------------------------------------------------------------------
    @mutation
    def save_baseline(self, space_id: str, kind: str, chunk_count: int, dist: dict[str, Any]) -> None:
        with self.lock:
            self.con.execute(
                "INSERT OR REPLACE INTO baselines VALUES (?, ?, ?, ?, ?)",
                [space_id, kind, now(), chunk_count, json.dumps(dist)],
            )

    def baselines(self, space_id: str) -> dict[str, dict[str, Any]]:
        with self.lock:
            rows = self.con.execute(
                "SELECT kind, chunk_count, dist FROM baselines WHERE space_id = ?", [space_id]
            ).fetchall()
        return {r[0]: {"chunk_count": r[1], **json.loads(r[2])} for r in rows}
