"""The ``documents`` table: every revision of every document, with its status and ingest report (SPEC I)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from biny.core.store.catalog.schema import now
from biny.core.store.catalog.table import Table
from biny.core.store.guard import mutation


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
_SELECT = f"SELECT {', '.join(_DOC_COLS)} FROM documents"
_VISIBLE = "status IN ('active', 'archived')"


def _doc(row: tuple[Any, ...]) -> DocumentRow:
    data = dict(zip(_DOC_COLS, row, strict=True))
    for c in _JSON_COLS:
        data[c] = json.loads(data[c] or ("[]" if c == "warnings" else "{}"))
    return DocumentRow(**data)


def _values(doc: DocumentRow) -> list[Any]:
    return [json.dumps(getattr(doc, c), ensure_ascii=False) if c in _JSON_COLS else getattr(doc, c) for c in _DOC_COLS]


class DocumentTable(Table):
    # ---- reads ----------------------------------------------------------------------------
    def of(self, space_id: str, statuses: tuple[str, ...] = ("active", "archived")) -> list[DocumentRow]:
        marks = ", ".join("?" for _ in statuses)
        rows = self._rows(f"{_SELECT} WHERE space_id = ? AND status IN ({marks}) ORDER BY title, revision",
                          [space_id, *statuses])
        return [_doc(r) for r in rows]

    def count(self, space_id: str, statuses: tuple[str, ...] = ("active", "archived")) -> int:
        """How many documents ``of`` would list, counted in the catalog (a refusal names it: reading every row to
        count them took 4.7 s at 268k documents)."""
        return self.totals(space_id, statuses)[0]

    def totals(self, space_id: str, statuses: tuple[str, ...] = ("active", "archived")) -> tuple[int, int]:
        """(documents ``of`` would list, the chunks of the active ones), summed in the catalog: a space's line in
        every list of spaces, without reading each document."""
        marks = ", ".join("?" for _ in statuses)
        row = self._row(f"SELECT count(*), coalesce(sum(chunks) FILTER (WHERE status = 'active'), 0) FROM documents "
                        f"WHERE space_id = ? AND status IN ({marks})", [space_id, *statuses])
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def get(self, doc_id: str) -> DocumentRow | None:
        row = self._row(f"{_SELECT} WHERE doc_id = ?", [doc_id])
        return _doc(row) if row else None

    def find_unchanged(self, space_id: str, content_hash: str) -> DocumentRow | None:
        row = self._row(f"{_SELECT} WHERE space_id = ? AND content_hash = ? AND {_VISIBLE} LIMIT 1",
                        [space_id, content_hash])
        return _doc(row) if row else None

    def at(self, space_id: str, path: str) -> DocumentRow | None:
        """The visible (active or archived) revision stored under ``path``, if any."""
        row = self._row(f"{_SELECT} WHERE space_id = ? AND path = ? AND {_VISIBLE} ORDER BY revision DESC LIMIT 1",
                        [space_id, path])
        return _doc(row) if row else None

    def next_revision(self, space_id: str, path: str) -> int:
        row = self._row("SELECT max(revision) FROM documents WHERE space_id = ? AND path = ? AND status <> 'pending'",
                        [space_id, path])
        return int(row[0] or 0) + 1 if row else 1

    def under(self, space_id: str, prefix: str) -> list[str]:
        """Active or archived documents whose stored path starts with ``prefix`` (a table's rows)."""
        rows = self._rows(f"SELECT doc_id FROM documents WHERE space_id = ? AND starts_with(path, ?) AND {_VISIBLE}",
                          [space_id, prefix])
        return [r[0] for r in rows]

    def pending_and_retired(self, space_id: str) -> tuple[list[str], list[str]]:
        rows = self._rows("SELECT doc_id, status FROM documents WHERE space_id = ? "
                          "AND status IN ('pending', 'replaced', 'deleted')", [space_id])
        return [r[0] for r in rows if r[1] == "pending"], [r[0] for r in rows if r[1] != "pending"]

    def known_ids(self, space_id: str) -> set[str]:
        """The visible (active or archived) documents."""
        return {r[0] for r in self._rows(f"SELECT doc_id FROM documents WHERE space_id = ? AND {_VISIBLE}",
                                         [space_id])}

    def active_ids(self, space_id: str) -> set[str]:
        return {r[0] for r in self._rows("SELECT doc_id FROM documents WHERE space_id = ? AND status = 'active'",
                                         [space_id])}

    def expected_chunks(self, space_id: str, *, active_only: bool = False) -> dict[str, tuple[int, str]]:
        """doc_id → (passages, chunk digest) of the documents whose passages are stored (store/integrity.py)."""
        statuses = "status = 'active'" if active_only else _VISIBLE
        rows = self._rows(f"SELECT doc_id, chunks, chunk_digest FROM documents WHERE space_id = ? AND {statuses}",
                          [space_id])
        return {r[0]: (int(r[1]), str(r[2] or "")) for r in rows}

    # ---- writes ---------------------------------------------------------------------------
    @mutation
    def insert_pending(self, doc: DocumentRow) -> None:
        self._run(f"INSERT INTO documents ({', '.join(_DOC_COLS)}) VALUES ({', '.join('?' for _ in _DOC_COLS)})",
                  _values(doc))

    @mutation
    def insert_pending_many(self, docs: list[DocumentRow]) -> None:
        """Many pending rows in one statement (a table's rows arrive by the thousand)."""
        if not docs:
            return
        columns = zip(*map(_values, docs), strict=True)
        batch = pa.table({c: list(col) for c, col in zip(_DOC_COLS, columns, strict=True)})  # noqa: F841
        with self.db.lock:
            # DuckDB reads the local Arrow table ``batch`` by its name (a replacement scan); unlike
            # ``register``/``from_arrow`` this works while the connection holds an earlier result.
            self.db.con.execute(f"INSERT INTO documents ({', '.join(_DOC_COLS)}) SELECT {', '.join(_DOC_COLS)} "
                                "FROM batch")

    @mutation
    def activate(self, doc: DocumentRow) -> list[str]:
        """Make ``doc`` visible and retire earlier revisions of its path, atomically.

        Returns the doc_ids retired (their chunks can be deleted afterwards).
        """
        with self.db.lock:
            con = self.db.con
            con.execute("BEGIN TRANSACTION")
            try:
                retired = [r[0] for r in con.execute(
                    "SELECT doc_id FROM documents WHERE space_id = ? AND path = ? "
                    "AND status IN ('active', 'archived', 'damaged') AND doc_id <> ?",
                    [doc.space_id, doc.path, doc.doc_id]).fetchall()]
                con.execute("UPDATE documents SET status = 'replaced' WHERE doc_id IN (SELECT unnest(?))", [retired])
                con.execute(
                    "UPDATE documents SET status = 'active', chunks = ?, chars_per_token = ?, "
                    "cjk_share = ?, resplits = ?, chars = ?, ingested_at = ?, chunk_digest = ? WHERE doc_id = ?",
                    [doc.chunks, doc.chars_per_token, doc.cjk_share, doc.resplits, doc.chars,
                     now(), doc.chunk_digest, doc.doc_id])
                con.execute("INSERT INTO ingest_log (space_id, path, logged_at, outcome, doc_id, message) "
                            "VALUES (?, ?, ?, 'ingested', ?, ?)",
                            [doc.space_id, doc.path, now(), doc.doc_id, f"revision {doc.revision}"])
                con.execute("COMMIT")
            except duckdb.Error:
                con.execute("ROLLBACK")
                raise
        return retired

    @mutation
    def activate_many(self, docs: list[DocumentRow], *, by_path: bool = True) -> list[str]:
        """``activate`` for many documents in one transaction; returns the doc_ids retired.

        ``by_path=False`` retires nothing: table rows are identified by content, and a row
        that changed or moved is retired by the caller's sweep, not by sharing a row number.
        """
        if not docs:
            return []
        space_id, ids, stamp = docs[0].space_id, [d.doc_id for d in docs], now()
        with self.db.lock:
            con = self.db.con
            con.execute("BEGIN TRANSACTION")
            try:
                retired = [r[0] for r in con.execute(
                    "SELECT doc_id FROM documents WHERE space_id = ? AND path IN (SELECT unnest(?)) "
                    "AND status IN ('active', 'archived', 'damaged') AND doc_id NOT IN (SELECT unnest(?))",
                    [space_id, [d.path for d in docs], ids]).fetchall()] if by_path else []
                con.execute("UPDATE documents SET status = 'replaced' WHERE doc_id IN (SELECT unnest(?))", [retired])
                con.execute("UPDATE documents SET status = 'active', ingested_at = ? "
                            "WHERE doc_id IN (SELECT unnest(?))", [stamp, ids])
                digests = pa.table({"doc_id": ids, "digest": [d.chunk_digest for d in docs]})  # noqa: F841
                con.execute("UPDATE documents SET chunk_digest = digests.digest FROM digests "
                            "WHERE documents.doc_id = digests.doc_id")
                con.execute("COMMIT")
            except duckdb.Error:
                con.execute("ROLLBACK")
                raise
        return retired

    @mutation
    def set_statuses(self, doc_ids: list[str], status: str) -> None:
        self._run("UPDATE documents SET status = ? WHERE doc_id IN (SELECT unnest(?))", [status, doc_ids])

    @mutation
    def set_keys_version(self, doc_ids: list[str], version: int) -> None:
        self._run("UPDATE documents SET keys_version = ? WHERE doc_id IN (SELECT unnest(?))", [version, doc_ids])

    @mutation
    def drop(self, doc_id: str) -> None:
        self._run("DELETE FROM documents WHERE doc_id = ?", [doc_id])
