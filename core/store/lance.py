"""LanceDB: one table of chunks (text, location, 384-d vector) per space.

LanceDB commits are atomic per table, not across tables or with DuckDB; the
writer's protocol (pending row → chunks → activate) makes a document visible only
when both sides are committed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from biny.core.embed.base import Vectors
from biny.core.store import rowmac
from biny.core.store.guard import mutation, write_stamp
from biny.core.store.heap import give_back, settle


@dataclass(slots=True)
class ChunkRecord:
    chunk_id: str
    doc_id: str
    ordinal: int
    text: str
    char_start: int
    char_end: int
    page: int | None
    page_end: int | None
    heading_path: list[str]
    tokens: int
    est_tokens: float
    # R3/R4 lookups without reading text: identifier keys with tier, terms, aspect flags.
    ids: list[str]
    terms: list[str]
    aspects: list[str]
    # Encrypted spaces: text and heading path sealed here; ``text`` is empty on disk.
    ct: bytes = b""
    # Issue 57: the vectors of the sentences the answer reads (embed/sentences.py's blob), made with the passage's;
    # sealed like ``ct`` in an encrypted space. b"": none made (stored before them).
    sentence_vectors: bytes = b""


def chunk_schema(dim: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("doc_id", pa.string(), nullable=False),
            pa.field("ordinal", pa.int32(), nullable=False),
            pa.field("text", pa.string(), nullable=False),
            pa.field("char_start", pa.int32(), nullable=False),
            pa.field("char_end", pa.int32(), nullable=False),
            pa.field("page", pa.int32()),
            pa.field("page_end", pa.int32()),
            pa.field("heading_path", pa.string(), nullable=False),
            pa.field("tokens", pa.int32(), nullable=False),
            pa.field("est_tokens", pa.float32(), nullable=False),
            pa.field("ids", pa.list_(pa.string()), nullable=False),
            pa.field("terms", pa.list_(pa.string()), nullable=False),
            pa.field("aspects", pa.list_(pa.string()), nullable=False),
            pa.field("ct", pa.binary(), nullable=False),
            pa.field("vector", pa.list_(pa.float32(), dim), nullable=False),
            # A column of the passage's own row, not a side table keyed by chunk id (issue 57): the row is written,
            # kept, deleted and re-keyed as one (a re-ingest's delete by document, doctor's merge-insert of whole
            # rows), one take reads it beside the text. Sealed with the text in encrypted spaces, and in the row code
            # below: the sentences it points to decide what an answer says.
            pa.field("sentence_vectors", pa.binary(), nullable=False),
            # The row's integrity code over its ids, place, text, key lists, vectors (store/rowmac.py, issue 59).
            pa.field("mac", pa.binary(), nullable=False),
        ]
    )


_META_COLS = ["chunk_id", "doc_id", "ordinal", "text", "char_start", "char_end", "page",
              "page_end", "heading_path", "tokens", "est_tokens", "ids", "terms", "aspects", "ct", "sentence_vectors"]


# What an answer shows of a chunk: everything but its key lists (ids, terms, aspects), which the matrix holds, and
# its sentence vectors (~4 KB a passage: taken for the final context only, ``sentence_blobs``).
_CONTEXT_COLS = [c for c in _META_COLS if c not in ("ids", "terms", "aspects", "sentence_vectors")]
# Above this many chunks the context view is not held (≈1 KB of text or ciphertext per chunk) and each
# answer takes its rows from LanceDB instead (~2–3 ms).
VIEW_MAX_ROWS = 250_000
# The sentence vectors' own view (issue 57): ≈2.2 KB a passage, ≈220 MB at this many.
SENTENCE_VIEW_MAX_ROWS = 100_000


def to_arrow(records: list[ChunkRecord], vectors: Vectors) -> pa.Table:
    """Records and their vectors as rows of the chunk table, without their integrity codes (``signed`` adds them)."""
    dim = vectors.shape[1]
    schema = chunk_schema(dim)
    cols: dict[str, list[object]] = {c: [] for c in _META_COLS}
    for r in records:
        for c in _META_COLS:
            value = getattr(r, c)
            cols[c].append(json.dumps(value, ensure_ascii=False) if c == "heading_path" else value)
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    arrays = {c: pa.array(cols[c], type=schema.field(c).type) for c in _META_COLS}
    arrays["vector"] = pa.FixedSizeListArray.from_arrays(flat, dim)
    unsigned = pa.schema([f for f in schema if f.name != "mac"])
    return pa.Table.from_arrays([arrays[c] for c in unsigned.names], schema=unsigned)


def signed(rows: pa.Table, mac_key: bytes | None) -> pa.Table:
    """Rows with their integrity codes under ``mac_key`` (store/rowmac.py), any code they carried replaced. Without
    a key (tests damaging a store on purpose) the code is left empty, which a bound space treats as a mismatch."""
    if "mac" in rows.column_names:
        rows = rows.drop_columns(["mac"])
    macs = rowmac.table_macs(mac_key, rows) if mac_key else [b""] * rows.num_rows
    return rows.append_column(pa.field("mac", pa.binary(), nullable=False), pa.array(macs, type=pa.binary()))


# Rows a large read takes per query (issue 57). One query over a whole table decodes ahead of its reader on
# LanceDB's threads, and on glibc what they free stays mapped (store/heap.py): at 100,007 passages reading the
# context view's 104 MB in one query raised the process by ≈540 MB, the row-code check's stream by ≈745 MB.
# In slices, each slice's decode buffers are given back before the next is read.
SCAN_SLICE = 16_384


def _slices(tbl: lancedb.table.Table, columns: list[str], where: str | None, size: int) -> Iterator[pa.Table]:
    """The selected columns of every row of ``tbl`` (optionally filtered), as tables of at most ``size`` rows in
    the table's row order: each is its own bounded query on the one handle, so all read the same version. The
    first slice is yielded even when empty (its schema)."""
    n, at = tbl.count_rows(), 0
    while True:
        query = tbl.search().select(columns)
        if where:
            query = query.where(where)
        part = query.offset(at).limit(size).to_arrow()
        if part.num_rows or at == 0:
            yield part
        at += part.num_rows
        if part.num_rows < size or at >= n:
            return
        del part
        give_back()


def _quote_list(ids: list[str]) -> str:
    # Lance filters are SQL text; ids are uuids we generated, but quote defensively.
    return ", ".join("'" + i.replace("'", "''") + "'" for i in ids)


class ChunkStore:
    def __init__(self, path: Path | str, storage_options: dict[str, str] | None = None) -> None:
        settle()  # before the first scan: LanceDB's read buffers are then returned when freed (store/heap.py)
        # A local folder, or an s3:// address with its storage options (a team space, store/remote.py).
        self.db = lancedb.connect(str(path), storage_options=storage_options)
        # Table name → version to read at (a team space's reader sees the published snapshot); None: latest.
        self.pinned: dict[str, int] | None = None
        self._readers: dict[str, tuple[int, lancedb.table.Table]] = {}
        self._views: dict[str, tuple[int, pa.Table | None]] = {}
        self._sentence_views: dict[str, tuple[int, pa.Table | None]] = {}

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
        self._views.pop(space_id, None)
        self._sentence_views.pop(space_id, None)

    def forget_all_reads(self) -> None:
        self._readers.clear()
        self._views.clear()
        self._sentence_views.clear()

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

    @mutation
    def migrate(self) -> None:
        """Tables written before encryption existed gain the (empty) ciphertext column, and tables written before
        row codes existed the (empty) ``mac`` column, filled by ``bind`` (at open)."""
        for name in self._names():
            if name.startswith("chunks_"):
                tbl = self.db.open_table(name)
                if "ct" not in tbl.schema.names:
                    tbl.add_columns({"ct": "CAST('' AS BINARY)"})
                if "mac" not in tbl.schema.names:
                    tbl.add_columns({"mac": "CAST('' AS BINARY)"})
                if "sentence_vectors" not in tbl.schema.names:  # issue 57: none made yet (filled lazily)
                    tbl.add_columns({"sentence_vectors": "CAST('' AS BINARY)"})

    @mutation
    def bind(self, space_id: str, key: bytes, batch: int = 4096) -> int:
        """Give every row stored without a code its code (a space written before codes existed); returns how many.

        A row that has a code keeps it, right or wrong: binding never launders a row changed since it was coded.
        Codes are written by a merge on ``chunk_id`` of (chunk_id, mac) only, a batch per commit.
        """
        if self.table_name(space_id) not in self._names():
            return 0
        # Codes are computed while streaming (only ids and codes are held), then written: a read never races a write.
        coded: list[tuple[pa.Array, list[bytes]]] = []
        for part in self.batches(space_id, rowmac.columns(), size=batch):
            uncoded = part.filter(pc.equal(pc.binary_length(part.column("mac")), 0))
            if uncoded.num_rows:
                coded.append((uncoded.column("chunk_id"), rowmac.table_macs(key, uncoded)))
        for ids, macs in coded:
            update = pa.table({"chunk_id": ids, "mac": pa.array(macs, type=pa.binary())})
            self._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(update)
        return sum(len(macs) for _, macs in coded)

    def batches(self, space_id: str, columns: list[str], where: str | None = None,
                size: int = 4096) -> Iterator[pa.RecordBatch]:
        """Selected columns of every row (optionally filtered), streamed as record batches of about ``size`` rows
        (a whole space's text and vectors are never held at once)."""
        for part in _slices(self._table(space_id), columns, where, size):
            yield from (b for b in part.to_batches() if b.num_rows)

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
            self._table(space_id).delete(f"doc_id IN ({_quote_list(doc_ids)})")

    @mutation
    def rekey(self, space_id: str, keys: dict[str, tuple[list[str], list[str], list[str]]],
              mac_key: bytes | None = None) -> None:
        """Replace the ``ids``, ``terms`` and ``aspects`` of the given chunks (chunk id → the three lists).

        Whole rows go through one merge-insert on ``chunk_id``: one commit, so a failure leaves every
        passage as it was; vectors, text and ciphertext are written back unchanged, each row with its new code
        (store/rowmac.py) — a row whose old code did not match is not re-coded: it stays a mismatch.
        """
        if not keys:
            return
        rows = self.scan(space_id, [*_META_COLS, "vector", "mac"], f"chunk_id IN ({_quote_list(list(keys))})")
        if mac_key:
            was = rowmac.mismatched(mac_key, rows, bound=False)
        order = [keys[c] for c in rows.column("chunk_id").to_pylist()]
        for i, name in enumerate(("ids", "terms", "aspects")):
            column = pa.array([k[i] for k in order], type=rows.schema.field(name).type)
            rows = rows.set_column(rows.schema.get_field_index(name), name, column)
        if mac_key:
            old = rows.column("mac").to_pylist()
            macs = [o if bad else m for o, bad, m in zip(old, was, rowmac.table_macs(mac_key, rows), strict=True)]
            rows = rows.set_column(rows.schema.get_field_index("mac"), "mac", pa.array(macs, type=pa.binary()))
        self._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(rows)

    # ---- single passages a curator corrects (issue 61: store/passages.py) ----------------------------
    def rows(self, space_id: str, chunk_ids: list[str]) -> pa.Table:
        """The given passages' whole stored rows (vector included), as they are on disk."""
        return self.scan(space_id, [*_META_COLS, "vector"], f"chunk_id IN ({_quote_list(chunk_ids)})")

    @mutation
    def replace_rows(self, space_id: str, rows: pa.Table, mac_key: bytes | None = None) -> None:
        """Write whole rows over the stored ones with the same ``chunk_id``: one merge-insert, one commit, so a
        failure or a kill leaves each passage as it was or as it is meant to be, and no other row is rewritten.
        Each row gets its integrity code under ``mac_key`` (issue 59)."""
        self._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(signed(rows, mac_key))

    @mutation
    def add_rows(self, space_id: str, rows: pa.Table, mac_key: bytes | None = None) -> None:
        self._table(space_id).add(signed(rows, mac_key))

    @mutation
    def delete_chunks(self, space_id: str, chunk_ids: list[str]) -> None:
        if chunk_ids:
            self._table(space_id).delete(f"chunk_id IN ({_quote_list(chunk_ids)})")

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
        parts = list(_slices(tbl, columns, where, SCAN_SLICE))
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
                taken = self._reader(space_id).take_offsets([int(o) for o in offsets]).select(_META_COLS).to_arrow()
                if sorted(taken.column("chunk_id").to_pylist()) == sorted(chunk_ids):
                    rows = taken.to_pylist()
            except (ValueError, OSError, RuntimeError):  # an offset past a shrunk table
                rows = None
        if rows is None:
            rows = self.scan(space_id, _META_COLS, f"chunk_id IN ({_quote_list(chunk_ids)})").to_pylist()
        out: dict[str, ChunkRecord] = {}
        for row in rows:
            row["heading_path"] = json.loads(row["heading_path"])
            out[row["chunk_id"]] = ChunkRecord(**row)
        return out

    def fetch_context(self, space_id: str, chunk_ids: list[str], offsets: list[int]) -> dict[str, ChunkRecord]:
        """The records of a final context (``ids``, ``terms``, ``aspects`` left empty), taken from an in-memory
        view of the table kept until the next write.

        Measured (bench/query_latency.py): a LanceDB take of three rows costs 2–3 ms, most of what an
        ask spends besides its query embedding; a take from the view costs microseconds. The view holds
        what the table holds — ciphertext only in an encrypted space (SPEC R7: text is opened for the
        final context alone). Rows that do not match (a write since the caller's matrix) fall back to
        ``fetch``.
        """
        view = self._context_view(space_id) if chunk_ids and len(offsets) == len(chunk_ids) else None
        if view is None or max(offsets) >= view.num_rows or min(offsets) < 0:
            return self.fetch(space_id, chunk_ids, offsets)
        taken = view.take(pa.array(offsets, type=pa.int64()))
        if taken.column("chunk_id").to_pylist() != chunk_ids:
            return self.fetch(space_id, chunk_ids, offsets)
        out: dict[str, ChunkRecord] = {}
        for row in taken.to_pylist():
            row["heading_path"] = json.loads(row["heading_path"])
            out[row["chunk_id"]] = ChunkRecord(**row, ids=[], terms=[], aspects=[])
        return out

    def sentence_blobs(self, space_id: str, chunk_ids: list[str], offsets: list[int]) -> dict[str, bytes]:
        """The stored sentence vectors (as stored: sealed in an encrypted space) of a final context's passages, taken
        at their row ``offsets`` (a filtered scan when a write moved them)."""
        if not chunk_ids:
            return {}
        cols = ["chunk_id", "sentence_vectors"]
        rows: list[dict[str, Any]] | None = None
        view = self._sentence_view(space_id) if len(offsets) == len(chunk_ids) else None
        if view is not None and 0 <= min(offsets) and max(offsets) < view.num_rows:
            taken = view.take(pa.array(offsets, type=pa.int64()))
            if taken.column("chunk_id").to_pylist() == chunk_ids:
                rows = taken.to_pylist()
        if rows is None and len(offsets) == len(chunk_ids):
            try:
                taken = self._reader(space_id).take_offsets([int(o) for o in offsets]).select(cols).to_arrow()
                if sorted(taken.column("chunk_id").to_pylist()) == sorted(chunk_ids):
                    rows = taken.to_pylist()
            except (ValueError, OSError, RuntimeError):  # an offset past a shrunk table
                rows = None
        if rows is None:
            rows = self.scan(space_id, cols, f"chunk_id IN ({_quote_list(chunk_ids)})").to_pylist()
        return {r["chunk_id"]: r["sentence_vectors"] or b"" for r in rows}

    @mutation
    def set_sentence_vectors(self, space_id: str, blobs: dict[str, bytes], mac_key: bytes | None = None) -> None:
        """Store sentence vectors made for passages stored without them (chunk id → blob, as stored), whole rows
        in one merge-insert on ``chunk_id`` as ``rekey`` does: one commit, everything else written back unchanged,
        each row's integrity code made again over its new sentence vectors (issue 59)."""
        if not blobs:
            return
        rows = self.scan(space_id, [*_META_COLS, "vector"], f"chunk_id IN ({_quote_list(list(blobs))})")
        column = pa.array([blobs[c] for c in rows.column("chunk_id").to_pylist()], type=pa.binary())
        rows = rows.set_column(rows.schema.get_field_index("sentence_vectors"), "sentence_vectors", column)
        self._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(signed(rows, mac_key))

    def _context_view(self, space_id: str) -> pa.Table | None:
        stamp = write_stamp()
        cached = self._views.get(space_id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        tbl = self._reader(space_id)
        n = tbl.count_rows()
        # One contiguous batch: a take across the scan's many record batches cost ~1 ms at 12k rows.
        view = pa.concat_tables(_slices(tbl, _CONTEXT_COLS, None, SCAN_SLICE)).combine_chunks() \
            if 0 < n <= VIEW_MAX_ROWS else None
        give_back()  # the slices, freed once combined (store/heap.py)
        self._views[space_id] = (stamp, view)
        return view

    def _sentence_view(self, space_id: str) -> pa.Table | None:
        """The sentence vectors column as stored (sealed in an encrypted space), held until the next write like the
        context view: a LanceDB take of five rows cost 12–14 ms on a loaded two-core machine, the most of an answer
        (bench/README.md, issue 57). ≈2.2 KB a passage; above ``SENTENCE_VIEW_MAX_ROWS`` rows each answer takes."""
        stamp = write_stamp()
        cached = self._sentence_views.get(space_id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        tbl = self._reader(space_id)
        n = tbl.count_rows()
        view = pa.concat_tables(_slices(tbl, ["chunk_id", "sentence_vectors"], None, SCAN_SLICE)).combine_chunks() \
            if 0 < n <= SENTENCE_VIEW_MAX_ROWS else None
        give_back()
        self._sentence_views[space_id] = (stamp, view)
        return view

    def doc_vectors(self, space_id: str, doc_id: str,
                    mac_key: bytes | None = None) -> list[tuple[ChunkRecord, npt.NDArray[np.float32]]]:
        """A document's chunks with their stored vectors (re-ingest reuses unchanged ones). With ``mac_key``, a row
        whose code does not match is left out (issue 59: a swapped vector is embedded again, never carried on)."""
        if self.table_name(space_id) not in self._names():
            return []
        table = self.scan(space_id, [*_META_COLS, "vector", "mac"], f"doc_id IN ({_quote_list([doc_id])})")
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
        rows = self.scan(space_id, _META_COLS, f"doc_id IN ({_quote_list([doc_id])})").to_pylist()
        out = []
        for row in rows:
            row["heading_path"] = json.loads(row["heading_path"])
            out.append(ChunkRecord(**row))
        return sorted(out, key=lambda r: r.ordinal)

    @mutation
    def compact(self, space_id: str) -> None:
        if self.table_name(space_id) in self._names():
            self._table(space_id).optimize()
