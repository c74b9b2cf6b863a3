"""The chunk tables' maintenance: what the writer does to stored rows besides adding and deleting documents'
passages (issue 56 split it from the store's reads).

Columns added to tables written before them and row codes given to rows stored without one (at open), compaction,
rows rewritten in place by chunk id (new key lists, sentence vectors made later, a curator's corrections), each in
one commit and each row with its integrity code (store/rowmac.py, issue 59). Every method is a write: it runs only
inside the single writer (store/guard.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from biny.core.store import rowmac
from biny.core.store.chunk_rows import META_COLS, quote_list, signed
from biny.core.store.guard import mutation

if TYPE_CHECKING:
    from biny.core.store.lance import ChunkStore

__all__ = ["ChunkMaintenance"]


class ChunkMaintenance:
    """``ChunkStore.maintenance``: writes to the rows of a store's tables, through the store's own table handles."""

    def __init__(self, store: ChunkStore) -> None:
        self._store = store

    # ---- the tables (at open, and after a large write) -----------------------------------------------
    @mutation
    def migrate(self) -> None:
        """Tables written before encryption existed gain the (empty) ciphertext column, and tables written before
        row codes existed the (empty) ``mac`` column, filled by ``bind`` (at open)."""
        for name in self._store._names():
            if name.startswith("chunks_"):
                tbl = self._store.db.open_table(name)
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
        if self._store.table_name(space_id) not in self._store._names():
            return 0
        # Codes are computed while streaming (only ids and codes are held), then written: a read never races a write.
        coded: list[tuple[pa.Array, list[bytes]]] = []
        for part in self._store.batches(space_id, rowmac.columns(), size=batch):
            uncoded = part.filter(pc.equal(pc.binary_length(part.column("mac")), 0))
            if uncoded.num_rows:
                coded.append((uncoded.column("chunk_id"), rowmac.table_macs(key, uncoded)))
        for ids, macs in coded:
            update = pa.table({"chunk_id": ids, "mac": pa.array(macs, type=pa.binary())})
            self._store._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(update)
        return sum(len(macs) for _, macs in coded)

    @mutation
    def compact(self, space_id: str) -> None:
        if self._store.table_name(space_id) in self._store._names():
            self._store._table(space_id).optimize()

    # ---- rows rewritten in place, by chunk id --------------------------------------------------------
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
        rows = self._store.scan(space_id, [*META_COLS, "vector", "mac"], f"chunk_id IN ({quote_list(list(keys))})")
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
        self._store._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(rows)

    @mutation
    def set_sentence_vectors(self, space_id: str, blobs: dict[str, bytes], mac_key: bytes | None = None) -> None:
        """Store sentence vectors made for passages stored without them (chunk id → blob, as stored), whole rows
        in one merge-insert on ``chunk_id`` as ``rekey`` does: one commit, everything else written back unchanged,
        each row's integrity code made again over its new sentence vectors (issue 59)."""
        if not blobs:
            return
        rows = self._store.scan(space_id, [*META_COLS, "vector"], f"chunk_id IN ({quote_list(list(blobs))})")
        column = pa.array([blobs[c] for c in rows.column("chunk_id").to_pylist()], type=pa.binary())
        rows = rows.set_column(rows.schema.get_field_index("sentence_vectors"), "sentence_vectors", column)
        self._store._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(signed(rows, mac_key))

    # ---- single passages a curator corrects (issue 61: store/passages.py) ----------------------------
    @mutation
    def replace_rows(self, space_id: str, rows: pa.Table, mac_key: bytes | None = None) -> None:
        """Write whole rows over the stored ones with the same ``chunk_id``: one merge-insert, one commit, so a
        failure or a kill leaves each passage as it was or as it is meant to be, and no other row is rewritten.
        Each row gets its integrity code under ``mac_key`` (issue 59)."""
        self._store._table(space_id).merge_insert("chunk_id").when_matched_update_all().execute(signed(rows, mac_key))

    @mutation
    def add_rows(self, space_id: str, rows: pa.Table, mac_key: bytes | None = None) -> None:
        self._store._table(space_id).add(signed(rows, mac_key))

    @mutation
    def delete_chunks(self, space_id: str, chunk_ids: list[str]) -> None:
        if chunk_ids:
            self._store._table(space_id).delete(f"chunk_id IN ({quote_list(chunk_ids)})")
