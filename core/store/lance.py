"""LanceDB: one table of chunks (text, location, 384-d vector) per space.

LanceDB commits are atomic per table, not across tables or with DuckDB; the
writer's protocol (pending row → chunks → activate) makes a document visible only
when both sides are committed.

Issue 56 split the store along its responsibilities: ``ChunkStore`` holds the tables, adds and deletes documents'
passages and reads them back; ``views`` (store/chunk_views.py) holds the in-memory views an answer's final context
is taken from; ``maintenance`` (store/chunk_maintenance.py) migrates, codes, compacts and rewrites stored rows in
place. The rows themselves — records, schema, integrity codes, reads in slices — are store/chunk_rows.py's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from biny.core.embed.base import Vectors
from biny.core.store import rowmac
from biny.core.store.chunk_maintenance import ChunkMaintenance
from biny.core.store.chunk_rows import (
    META_COLS,
    ChunkRecord,
    chunk_schema,
    quote_list,
    read_ahead,
    signed,
    slices,
    to_arrow,
)
from biny.core.store.chunk_views import ContextViews
from biny.core.store.guard import mutation, write_stamp
from biny.core.store.heap import settle

# ChunkRecord and to_arrow are the store's row type and row maker, imported from here by its users.
__all__ = ["ChunkRecord", "ChunkStore", "to_arrow"]


class ChunkStore:
    """The chunk tables of a data folder (or a team space's bucket): opened, pinned to a snapshot, created and
    dropped; a document's passages appended and deleted; read back by scan, by id, by row position and by
    document. Writes run only inside the single writer (store/guard.py)."""

    def __init__(self, path: Path | str, storage_options: dict[str, str] | None = None) -> None:
        settle()  # before the first scan: LanceDB's read buffers are then returned when freed (store/heap.py)
        # A local folder, or an s3:// address with its storage options (a team space, store/remote.py).
        self.db = lancedb.connect(str(path), storage_options=storage_options)
        # Table name → version to read at (a team space's reader sees the published snapshot); None: latest.
        self.pinned: dict[str, int] | None = None
        self._readers: dict[str, tuple[int, lancedb.table.Table]] = {}
        self.views = ContextViews(self)  # what an answer's final context is taken from, kept until the next write
        self.maintenance = ChunkMaintenance(self)  # the writer's migrations, codes, compaction, rewrites in place

    # ---- the tables -----------------------------------------------------------------------------------
    @staticmethod
    def table_name(space_id: str) -> str:
        return f"chunks_{space_id}"

    def _names(self) -> set[str]:
        if self.pinned is not None:
            return set(self.pinned)
        return set(self.db.list_tables().tables)

    def versions(self) -> dict[str, int]:
        """Every chunk table's current version (what a team space's snapshot records)."""
        return {n: int(self.db.open_table(n).version) for n in self.db.list_tables().tables if n.startswith("chunks_")}

    @mutation
    def ensure_table(self, space_id: str, dim: int) -> None:
        if self.table_name(space_id) not in self._names():
            self.db.create_table(self.table_name(space_id), schema=chunk_schema(dim))

    @mutation
    def drop_table(self, space_id: str) -> None:
        if self.table_name(space_id) in self._names():
            self.db.drop_table(self.table_name(space_id))

    def _table(self, space_id: str) -> lancedb.table.Table:
        name = self.table_name(space_id)
        tbl = self.db.open_table(name)
        if self.pinned is not None and name in self.pinned:
            tbl.checkout(self.pinned[name])
        return tbl

    def forget_reads(self, space_id: str) -> None:
        """Drop the read handle and context view kept for a space: the next read sees the table as it is now."""
        self._readers.pop(space_id, None)
        self.views.forget(space_id)

    def forget_all_reads(self) -> None:
        self._readers.clear()
        self.views.forget_all()

    def _reader(self, space_id: str) -> lancedb.table.Table:
        """A handle for reads, kept until the next write: opening one costs ~0.5–0.9 ms, more than the take
        of a final context (issue 23: ask overhead). A handle stays at the version it opened, which the
        write stamp guarantees is the latest."""
        stamp = write_stamp()
        cached = self._readers.get(space_id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        tbl = self._table(space_id)
        self._readers[space_id] = (stamp, tbl)
        return tbl

    def batches(self, space_id: str, columns: list[str], where: str | None = None,
                size: int = 4096) -> Iterator[pa.RecordBatch]:
        """Selected columns of every row (optionally filtered), streamed as record batches of about ``size`` rows
        (a whole space's text and vectors are never held at once)."""
        for part in read_ahead(slices(self._table(space_id), columns, where, size)):
            yield from (b for b in part.to_batches() if b.num_rows)

    # ---- documents' passages, appended and deleted (the writer's ingest and removal) -------------------
    @mutation
    def add(self, space_id: str, records: list[ChunkRecord], vectors: Vectors, mac_key: bytes | None = None) -> None:
        """Append rows; each gets its code under ``mac_key`` (store/rowmac.py). Without a key (tests damaging a
        store on purpose) the code is left empty, which a bound space treats as a mismatch."""
        if not records:
            return
        self._table(space_id).add(signed(to_arrow(records, vectors), mac_key))

    @mutation
    def delete_docs(self, space_id: str, doc_ids: list[str]) -> None:
        if doc_ids and self.table_name(space_id) in self._names():
            self._table(space_id).delete(f"doc_id IN ({quote_list(doc_ids)})")

    # ---- reads ----------------------------------------------------------------------------------------
    def rows(self, space_id: str, chunk_ids: list[str]) -> pa.Table:
        """The given passages' whole stored rows (vector included), as they are on disk (a curator's correction
        keeps them to undo it, issue 61: store/passages.py)."""
        return self.scan(space_id, [*META_COLS, "vector"], f"chunk_id IN ({quote_list(chunk_ids)})")

    def count(self, space_id: str) -> int:
        if self.table_name(space_id) not in self._names():
            return 0
        return int(self._table(space_id).count_rows())

    def scan(self, space_id: str, columns: list[str], where: str | None = None) -> pa.Table:
        """Read selected columns of every row (optionally filtered)."""
        tbl = self._table(space_id)
        n = tbl.count_rows()
        if n == 0:
            return pa.table({c: [] for c in columns})
        parts = list(slices(tbl, columns, where))
        return pa.concat_tables(parts) if len(parts) > 1 else parts[0]

    def ids(self, space_id: str) -> tuple[list[str], list[str]]:
        """Every stored row's (doc_id, chunk_id), as two parallel lists (store/integrity.py)."""
        if self.table_name(space_id) not in self._names():
            return [], []
        tbl = self.scan(space_id, ["doc_id", "chunk_id"])
        return tbl.column("doc_id").to_pylist(), tbl.column("chunk_id").to_pylist()

    def doc_ids(self, space_id: str) -> set[str]:
        if self.table_name(space_id) not in self._names():
            return set()
        col = self.scan(space_id, ["doc_id"]).column("doc_id").to_pylist()
        return set(col)

    def fetch(self, space_id: str, chunk_ids: list[str], offsets: list[int] | None = None) -> dict[str, ChunkRecord]:
        """Full records (text included) for the given chunk ids only.

        ``offsets`` (row positions from the scan the caller's matrix was built from) let
        LanceDB take those rows directly: a filtered scan reads the whole table
        (bench/query_latency.py: ~70 ms at 2.7k chunks, p95 of the whole ask). If a
        write moved rows since, the ids will not match and the filtered scan answers.
        """
        if not chunk_ids:
            return {}
        rows: list[dict[str, Any]] | None = None
        if offsets is not None and len(offsets) == len(chunk_ids):
            try:
                taken = self._reader(space_id).take_offsets([int(o) for o in offsets]).select(META_COLS).to_arrow()
                if sorted(taken.column("chunk_id").to_pylist()) == sorted(chunk_ids):
                    rows = taken.to_pylist()
            except (ValueError, OSError, RuntimeError):  # an offset past a shrunk table
                rows = None
        if rows is None:
            rows = self.scan(space_id, META_COLS, f"chunk_id IN ({quote_list(chunk_ids)})").to_pylist()
        out: dict[str, ChunkRecord] = {}
        for row in rows:
            row["heading_path"] = json.loads(row["heading_path"])
            out[row["chunk_id"]] = ChunkRecord(**row)
        return out

    def doc_vectors(self, space_id: str, doc_id: str,
                    mac_key: bytes | None = None) -> list[tuple[ChunkRecord, npt.NDArray[np.float32]]]:
        """A document's chunks with their stored vectors (re-ingest reuses unchanged ones). With ``mac_key``, a row
        whose code does not match is left out (issue 59: a swapped vector is embedded again, never carried on)."""
        if self.table_name(space_id) not in self._names():
            return []
        table = self.scan(space_id, [*META_COLS, "vector", "mac"], f"doc_id IN ({quote_list([doc_id])})")
        if mac_key and table.num_rows:
            table = table.filter(pa.array(~rowmac.mismatched(mac_key, table, bound=False)))
        rows = table.drop_columns(["mac"]).to_pylist() if "mac" in table.column_names else table.to_pylist()
        out = []
        for row in rows:
            vec = np.asarray(row.pop("vector"), dtype=np.float32)
            row["heading_path"] = json.loads(row["heading_path"])
            out.append((ChunkRecord(**row), vec))
        return out

    def doc_chunks(self, space_id: str, doc_id: str) -> list[ChunkRecord]:
        rows = self.scan(space_id, META_COLS, f"doc_id IN ({quote_list([doc_id])})").to_pylist()
        out = []
        for row in rows:
            row["heading_path"] = json.loads(row["heading_path"])
            out.append(ChunkRecord(**row))
        return sorted(out, key=lambda r: r.ordinal)
