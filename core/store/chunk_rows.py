"""The chunk table's rows: a passage's record, the table's schema, rows made from records and signed with their
integrity codes, and large reads in bounded slices (issue 57) — what the chunk store (store/lance.py), its views
(store/chunk_views.py) and its maintenance (store/chunk_maintenance.py) share.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import lancedb
import numpy as np
import pyarrow as pa

from biny.core.embed.base import Vectors
from biny.core.store import rowmac
from biny.core.store.heap import give_back

__all__ = ["META_COLS", "SCAN_SLICE", "ChunkRecord", "chunk_schema", "quote_list", "read_ahead", "signed", "slices",
           "to_arrow"]

T = TypeVar("T")
_END = object()


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


# A passage's record as stored, its vector and integrity code aside.
META_COLS = ["chunk_id", "doc_id", "ordinal", "text", "char_start", "char_end", "page",
             "page_end", "heading_path", "tokens", "est_tokens", "ids", "terms", "aspects", "ct", "sentence_vectors"]


def to_arrow(records: list[ChunkRecord], vectors: Vectors) -> pa.Table:
    """Records and their vectors as rows of the chunk table, without their integrity codes (``signed`` adds them)."""
    dim = vectors.shape[1]
    schema = chunk_schema(dim)
    cols: dict[str, list[object]] = {c: [] for c in META_COLS}
    for r in records:
        for c in META_COLS:
            value = getattr(r, c)
            cols[c].append(json.dumps(value, ensure_ascii=False) if c == "heading_path" else value)
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    arrays = {c: pa.array(cols[c], type=schema.field(c).type) for c in META_COLS}
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


def slices(tbl: lancedb.table.Table, columns: list[str], where: str | None = None,
           size: int | None = None) -> Iterator[pa.Table]:
    """The selected columns of every row of ``tbl`` (optionally filtered), as tables of at most ``size`` rows
    (``SCAN_SLICE`` when not given) in the table's row order: each is its own bounded query on the one handle, so all
    read the same version. The first slice is yielded even when empty (its schema)."""
    size = size or SCAN_SLICE
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


def read_ahead(items: Iterator[T]) -> Iterator[T]:
    """``items`` in order, the next one read on another thread while the caller works on this one.

    For streams whose every slice the caller works through in Python (the row codes' check when a matrix loads, the
    deep check): LanceDB decodes a slice on its own threads but only when asked, so reading and hashing took turns
    — at 1M passages the check took 31 s, half of it waiting for slices (issue 57, bench/cold_load.py). One slice
    ahead at most: the memory a stream holds grows by one slice, never more. Stopped early, it waits for the slice
    in flight and closes ``items``."""
    with ThreadPoolExecutor(1, thread_name_prefix="biny-read-ahead") as pool:
        pending = pool.submit(next, items, _END)
        try:
            while (item := pending.result()) is not _END:
                pending = pool.submit(next, items, _END)
                yield item  # type: ignore[misc]  # not _END: a T
        finally:
            pending.cancel()
            pool.shutdown(wait=True)
            close = getattr(items, "close", None)
            if close is not None:
                close()


def quote_list(ids: list[str]) -> str:
    # Lance filters are SQL text; ids are uuids we generated, but quote defensively.
    return ", ".join("'" + i.replace("'", "''") + "'" for i in ids)
