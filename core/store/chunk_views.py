"""In-memory views of a chunk table for the final context of an answer (issue 23, issue 57).

An answer reads a handful of passages by their row positions. A LanceDB take of three rows cost 2–3 ms, most of
what an ask spends besides its query embedding, and a take of five rows' sentence vectors 12–14 ms on a loaded
two-core machine (bench/query_latency.py, bench/README.md); a take from a view held in memory costs microseconds.
Each view holds what the table holds — ciphertext only in an encrypted space (SPEC R7: text is opened for the final
context alone) — and is kept until the next write (store/guard.py's write stamp).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from biny.core.store.chunk_rows import META_COLS, ChunkRecord, quote_list, slices
from biny.core.store.guard import write_stamp
from biny.core.store.heap import give_back

if TYPE_CHECKING:
    from biny.core.store.lance import ChunkStore

__all__ = ["CONTEXT_COLS", "ContextViews"]

# What an answer shows of a chunk: everything but its key lists (ids, terms, aspects), which the matrix holds, and
# its sentence vectors (~4 KB a passage: taken for the final context only, ``sentence_blobs``).
CONTEXT_COLS = [c for c in META_COLS if c not in ("ids", "terms", "aspects", "sentence_vectors")]
# Above this many chunks the context view is not held (≈1 KB of text or ciphertext per chunk) and each
# answer takes its rows from LanceDB instead (~2–3 ms).
VIEW_MAX_ROWS = 250_000
# The sentence vectors' own view (issue 57): ≈2.2 KB a passage, ≈220 MB at this many.
SENTENCE_VIEW_MAX_ROWS = 100_000


class ContextViews:
    """The context view and the sentence vectors' view of each space's table, held until the next write; the store's
    own reads (``ChunkStore.fetch``, ``scan``) answer when a view is not held or no longer matches."""

    def __init__(self, store: ChunkStore) -> None:
        self._store = store
        self._views: dict[str, tuple[int, pa.Table | None]] = {}
        self._sentence_views: dict[str, tuple[int, pa.Table | None]] = {}

    def forget(self, space_id: str) -> None:
        self._views.pop(space_id, None)
        self._sentence_views.pop(space_id, None)

    def forget_all(self) -> None:
        self._views.clear()
        self._sentence_views.clear()

    def fetch_context(self, space_id: str, chunk_ids: list[str], offsets: list[int]) -> dict[str, ChunkRecord]:
        """The records of a final context (``ids``, ``terms``, ``aspects`` left empty), taken from an in-memory
        view of the table kept until the next write.

        Measured (bench/query_latency.py): a LanceDB take of three rows costs 2–3 ms, most of what an
        ask spends besides its query embedding; a take from the view costs microseconds. The view holds
        what the table holds — ciphertext only in an encrypted space (SPEC R7: text is opened for the
        final context alone). Rows that do not match (a write since the caller's matrix) fall back to
        ``ChunkStore.fetch``.
        """
        view = self._context_view(space_id) if chunk_ids and len(offsets) == len(chunk_ids) else None
        if view is None or max(offsets) >= view.num_rows or min(offsets) < 0:
            return self._store.fetch(space_id, chunk_ids, offsets)
        taken = view.take(pa.array(offsets, type=pa.int64()))
        if taken.column("chunk_id").to_pylist() != chunk_ids:
            return self._store.fetch(space_id, chunk_ids, offsets)
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
                taken = self._store._reader(space_id).take_offsets([int(o) for o in offsets]).select(cols).to_arrow()
                if sorted(taken.column("chunk_id").to_pylist()) == sorted(chunk_ids):
                    rows = taken.to_pylist()
            except (ValueError, OSError, RuntimeError):  # an offset past a shrunk table
                rows = None
        if rows is None:
            rows = self._store.scan(space_id, cols, f"chunk_id IN ({quote_list(chunk_ids)})").to_pylist()
        return {r["chunk_id"]: r["sentence_vectors"] or b"" for r in rows}


    def _context_view(self, space_id: str) -> pa.Table | None:
        stamp = write_stamp()
        cached = self._views.get(space_id)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        tbl = self._store._reader(space_id)
        n = tbl.count_rows()
        # One contiguous batch: a take across the scan's many record batches cost ~1 ms at 12k rows.
        view = pa.concat_tables(slices(tbl, CONTEXT_COLS)).combine_chunks() \
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
        tbl = self._store._reader(space_id)
        n = tbl.count_rows()
        view = pa.concat_tables(slices(tbl, ["chunk_id", "sentence_vectors"])).combine_chunks() \
            if 0 < n <= SENTENCE_VIEW_MAX_ROWS else None
        give_back()
        self._sentence_views[space_id] = (stamp, view)
        return view
